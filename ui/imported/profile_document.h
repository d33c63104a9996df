#pragma once
// The explorer's document for an imported profile (Chrome / Perfetto / PyTorch profiler JSON, XSpace,
// Chakra) or a replay seen as one: the import (or the conversion) and the analyses run on a worker thread
// with progress and cancel; the result crosses to the GUI thread as one immutable ProfileRun, tagged with a
// request number so a superseded or cancelled load is dropped. Also holds what the profile views share: the
// selected slice and the visible time range.

#include "import/chrome_json.h"
#include "profile/profile.h"
#include "profile/profile_analysis.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <stop_token>
#include <thread>
#include <vector>

namespace xps::ui {

struct ProfileRun
{
    QString path;
    profile::Profile profile;
    profile::ProfileAnalysis analysis;
    // Imported from the file at `path` (notes, bookmarks and sessions are the profile's own), not a replay
    // seen through the profile model (whose notes belong to the replay).
    bool fromFile = false;
};

class ProfileDocument : public QObject
{
    Q_OBJECT
public:
    explicit ProfileDocument(QObject* parent = nullptr);
    ~ProfileDocument() override; // stops the work and waits for it

    void open(const QString& path);
    // Shows a profile made by `build` on the worker instead of imported from a file: a replay seen through
    // the profile model (analysis/replay_profile.h). `label` stands for the file in titles and messages.
    // Runs on the worker; may throw Cancelled once `stop` is requested (a superseded or cancelled load).
    using Builder =
        std::function<Result<profile::Profile>(const importing::ImportOptions&, std::stop_token stop)>;
    void openBuilt(const QString& label, Builder build);
    void cancel();
    bool isBusy() const { return m_busy; }
    const ProfileRun* run() const { return m_run.get(); }
    // The run shared: work on another thread keeps it alive while a newer profile replaces it.
    std::shared_ptr<const ProfileRun> runHandle() const { return m_run; }

    // Shared by the views. Times are the profile's nanoseconds.
    std::uint32_t selectedSlice() const { return m_selected; }
    void selectSlice(std::uint32_t slice, const QString& origin);
    std::pair<profile::Nanos, profile::Nanos> visibleRange() const { return m_range; }
    void setVisibleRange(profile::Nanos from, profile::Nanos to);
    // Shows `slice` with some context around it and selects it.
    void reveal(std::uint32_t slice, const QString& origin);

signals:
    void loadStarted(const QString& path);
    void progress(quint64 bytesRead, quint64 fileBytes);
    void loaded();
    void failed(const QString& message);
    void selectionChanged(const QString& origin);
    void rangeChanged();

private:
    void start(const QString& label, Builder build, bool fromFile);
    void work(std::stop_token stop, std::uint64_t request, QString label, const Builder& build,
              bool fromFile);

    std::shared_ptr<const ProfileRun> m_run;
    std::uint32_t m_selected = profile::kNone;
    std::pair<profile::Nanos, profile::Nanos> m_range{0, 1};
    bool m_busy = false;
    std::uint64_t m_request = 0; // GUI thread only
    std::jthread m_worker;
    std::vector<std::jthread> m_retired; // cancelled or superseded workers, joined by the destructor
};

} // namespace xps::ui

#pragma once
// The explorer's document for an imported profile (Chrome / Perfetto / PyTorch profiler JSON, XSpace,
// Chakra) or a replay seen as one: the import (or the conversion) and the analyses run on a worker thread
// with progress and cancel; the result crosses to the GUI thread as one immutable ProfileRun, tagged with a
// request number so a superseded or cancelled load is dropped. Also holds the profile views' visible time
// range; the slice they show selected is the window's one selection (selection/selection_model.h).

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
    // A replay seen as a profile: the slice of each of its DMAs (analysis::dmaSlicesOf); empty otherwise.
    std::vector<profile::SliceRow> dmaSlices;
};

class SelectionModel;

class ProfileDocument : public QObject
{
    Q_OBJECT
public:
    ProfileDocument(SelectionModel* selection, QObject* parent = nullptr);
    ~ProfileDocument() override; // stops the work and waits for it

    void open(const QString& path);
    // Shows a profile made by `build` on the worker instead of imported from a file: a replay seen through
    // the profile model (analysis/replay_profile.h). `label` stands for the file in titles and messages.
    // Runs on the worker; may throw Cancelled once `stop` is requested (a superseded or cancelled load).
    using Builder =
        std::function<Result<profile::Profile>(const importing::ImportOptions&, std::stop_token stop)>;
    void openBuilt(const QString& label, Builder build);
    // Shows a profile another document already imported and analysed (a comparison's baseline): shared,
    // never copied or changed; any load under way is cancelled.
    void show(std::shared_ptr<const ProfileRun> run);
    void cancel();
    bool isBusy() const { return m_busy; }
    const ProfileRun* run() const { return m_run.get(); }
    // The run shared: work on another thread keeps it alive while a newer profile replaces it.
    std::shared_ptr<const ProfileRun> runHandle() const { return m_run; }

    // The selection the profile views follow, the window's one: they react to its selectionChanged.
    SelectionModel* selection() const { return m_selection; }
    // The selected slice of the profile shown (profile::kNone: none): the one selected in the profile views,
    // or, in a replay seen as a profile, the slice of the one DMA selected in the replay's views.
    profile::SliceRow selectedSlice() const;
    // Selects `slice` (kNone: nothing) in the window's selection; a slice of a replay seen as a profile
    // selects its DMA and pc in the replay's views too.
    void selectSlice(profile::SliceRow slice, const QString& origin);
    // Times are the profile's ticks (nanoseconds for an import, cycles for a replay's profile).
    std::pair<profile::Ticks, profile::Ticks> visibleRange() const { return m_range; }
    void setVisibleRange(profile::Ticks from, profile::Ticks to);
    // Shows `slice` with some context around it and selects it.
    void reveal(profile::SliceRow slice, const QString& origin);

signals:
    void loadStarted(const QString& path);
    void progress(quint64 bytesRead, quint64 fileBytes);
    void loaded();
    void failed(const QString& message);
    void rangeChanged();

private:
    void start(const QString& label, Builder build, bool fromFile);
    void work(std::stop_token stop, std::uint64_t request, QString label, const Builder& build,
              bool fromFile);

    std::shared_ptr<const ProfileRun> m_run;
    SelectionModel* m_selection;
    std::pair<profile::Ticks, profile::Ticks> m_range{0, 1};
    bool m_busy = false;
    std::uint64_t m_request = 0; // GUI thread only
    std::jthread m_worker;
    std::vector<std::jthread> m_retired; // cancelled or superseded workers, joined by the destructor
};

} // namespace xps::ui

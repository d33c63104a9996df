#include "imported/profile_document.h"

#include "profile/gpu_metrics.h"
#include "profile/queue_length.h"

#include "analysis/replay_profile.h"
#include "import/import.h"
#include "selection/selection_model.h"
#include "util/cancel.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>

#include <algorithm>
#include <optional>

namespace xps::ui {

ProfileDocument::ProfileDocument(SelectionModel* selection, QObject* parent)
    : QObject(parent), m_selection(selection)
{
}

ProfileDocument::~ProfileDocument()
{
    // Workers post to this object: all must have ended before it goes.
    cancel();
    for (std::jthread& t : m_retired)
        if (t.joinable())
            t.join();
}

void ProfileDocument::open(const QString& path)
{
    start(
        path,
        [path = path.toStdString()](const importing::ImportOptions& options, std::stop_token stop) {
            auto p = importing::importProfile(path, options);
            if (p.ok()) { // derived, for the timeline only: `info` and `convert` keep the file's own events
                profile::addUtilizationCounters(*p, stop);
                profile::addQueueLengthCounters(*p, stop);
            }
            return p;
        },
        true);
}

void ProfileDocument::openBuilt(const QString& label, Builder build)
{
    // A replay's profile gets the utilization row as an import does: its units' busy runs are its kernels,
    // and two profiles compared side by side show the same rows.
    start(
        label,
        [build = std::move(build)](const importing::ImportOptions& options, std::stop_token stop) {
            auto p = build(options, stop);
            if (p.ok())
                profile::addUtilizationCounters(*p, stop);
            return p;
        },
        false);
}

void ProfileDocument::start(const QString& label, Builder build, bool fromFile)
{
    cancel();
    const std::uint64_t request = ++m_request;
    m_busy = true;
    emit loadStarted(label);
    m_worker = std::jthread([this, request, label, build = std::move(build), fromFile](std::stop_token stop) {
        work(stop, request, label, build, fromFile);
    });
}

void ProfileDocument::show(std::shared_ptr<const ProfileRun> run)
{
    cancel();
    m_run = std::move(run);
    if (m_selection->selection().slice.valid())
        m_selection->select({});
    const profile::Ticks from = m_run ? m_run->profile.startTime() : 0;
    m_range = {from, m_run ? std::max(m_run->profile.endTime(), from + 1) : from + 1};
    emit loaded();
    emit rangeChanged();
}

void ProfileDocument::cancel()
{
    // Not joined here: the worker stops within milliseconds (the import, the conversion and the analyses
    // poll its token), but freeing what it built can take longer, and that is not the GUI thread's to wait
    // for. Its results, if any arrive, are dropped by request number.
    if (m_worker.joinable()) {
        m_worker.request_stop();
        m_retired.push_back(std::move(m_worker));
    }
    if (m_busy) {
        m_busy = false;
        ++m_request;
    }
}

void ProfileDocument::work(std::stop_token stop, std::uint64_t request, QString path, const Builder& build,
                           bool fromFile)
{
    const quint64 fileBytes = static_cast<quint64>(QFileInfo(path).size());
    QPointer<ProfileDocument> self(this);
    importing::ImportOptions options;
    options.progress = [&](std::uint64_t read) {
        QMetaObject::invokeMethod(
            this,
            [self, request, read, fileBytes] {
                if (self && self->m_request == request)
                    emit self->progress(read, fileBytes);
            },
            Qt::QueuedConnection);
        return !stop.stop_requested();
    };
    std::optional<Result<profile::Profile>> built;
    try {
        built.emplace(build(options, stop));
    } catch (const Cancelled&) {
        return; // cancel() or a newer load already told the user
    }
    auto& imported = *built;
    if (!imported) {
        const QString message = QString::fromStdString(imported.error().toString());
        QMetaObject::invokeMethod(
            this,
            [self, request, message] {
                if (!self || self->m_request != request)
                    return;
                self->m_busy = false;
                emit self->failed(message);
            },
            Qt::QueuedConnection);
        return;
    }
    auto run = std::make_shared<ProfileRun>();
    run->path = path;
    run->fromFile = fromFile;
    run->profile = std::move(imported).value();
    try {
        run->analysis = profile::analyzeProfile(run->profile, stop);
        if (!fromFile)
            run->dmaSlices = analysis::dmaSlicesOf(run->profile);
    } catch (const Cancelled&) {
        return;
    }
    QMetaObject::invokeMethod(
        this,
        [self, request, run] {
            if (!self || self->m_request != request)
                return;
            self->m_busy = false;
            self->m_run = run;
            // A slice selected in the profile shown before names nothing in this one; what the replay's
            // views selected stays theirs.
            if (self->m_selection->selection().slice.valid()) {
                Selection kept = self->m_selection->selection();
                kept.slice = {};
                self->m_selection->select(std::move(kept));
            }
            const profile::Ticks from = run->profile.startTime(),
                                 to = std::max(run->profile.endTime(), from + 1);
            self->m_range = {from, to};
            emit self->loaded();
            emit self->rangeChanged();
        },
        Qt::QueuedConnection);
}

profile::SliceRow ProfileDocument::selectedSlice() const
{
    if (!m_run)
        return {};
    const Selection& s = m_selection->selection();
    if (s.slice.valid())
        return s.slice.value < m_run->profile.slices.size() ? s.slice : profile::SliceRow();
    if (s.dmas.size() == 1 && s.dmas[0] < m_run->dmaSlices.size())
        return m_run->dmaSlices[s.dmas[0]];
    return {};
}

void ProfileDocument::selectSlice(profile::SliceRow slice, const QString& origin)
{
    if (m_run && slice.valid() && slice.value >= m_run->profile.slices.size())
        return;
    Selection selection;
    selection.origin = origin;
    if (m_run && slice.valid()) {
        selection.slice = slice;
        if (!m_run->fromFile) {
            // The same DMA, and the pc it or the unit run began at, in the replay's own views.
            const analysis::ReplayRef ref = analysis::replayRefOf(m_run->profile, slice);
            if (ref.dma) {
                selection.dmas = {*ref.dma};
                selection.focus = analysis::NodeRef{analysis::NodeRef::Kind::Dma, *ref.dma};
            }
            if (ref.pc && ref.chip.valid())
                selection.pcs = {{ref.chip, *ref.pc}};
        }
    }
    m_selection->select(std::move(selection));
}

void ProfileDocument::setVisibleRange(profile::Ticks from, profile::Ticks to)
{
    if (to <= from)
        to = from + 1;
    if (m_range == std::make_pair(from, to))
        return;
    m_range = {from, to};
    emit rangeChanged();
}

void ProfileDocument::reveal(profile::SliceRow slice, const QString& origin)
{
    if (!m_run || !slice.valid() || slice.value >= m_run->profile.slices.size())
        return;
    const profile::Slice& s = m_run->profile.slice(slice);
    const profile::Ticks margin = std::max<profile::Ticks>(s.duration * 2, 1000);
    setVisibleRange(s.start - margin, s.end() + margin);
    selectSlice(slice, origin);
}

} // namespace xps::ui

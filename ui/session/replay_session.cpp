#include "session/replay_session.h"

#include "suggest/propose.h"
#include "suggest/transform.h"
#include "trace/trace_io.h"
#include "util/cancel.h"
#include "util/physical_memory.h"
#include "util/text.h"
#include "work_pool.h"

#include <QMetaObject>

#include <chrono>

namespace xps::ui {
namespace {

// Views refresh on eventsChanged; more often than this only costs redraws nobody sees.
constexpr auto kEventsInterval = std::chrono::milliseconds(120);

QString endText(const Run& run)
{
    const sim::ReplayResult& r = run.result;
    const QString cycles = QString::fromStdString(text::withThousands(r.totalCycles));
    std::uint64_t bundles = 0;
    for (const events::ChipStats& c : r.chips)
        bundles += c.bundles;
    const QString n = QString::fromStdString(text::withThousands(bundles));
    switch (r.status) {
    case sim::ReplayResult::Status::Completed:
        return QStringLiteral("Replayed %1 bundles in %2 cycles").arg(n, cycles);
    case sim::ReplayResult::Status::Cancelled:
        return QStringLiteral("Replay cancelled at cycle %1 after %2 bundles: the views show what ran")
            .arg(cycles, n);
    case sim::ReplayResult::Status::LimitReached:
        return QStringLiteral("Replay stopped after %1 cycles at %2: the views show what ran (Replay > "
                              "Limits… sets the cycle, bundle and memory limits)")
            .arg(cycles, QString::fromStdString(r.limitMessage));
    case sim::ReplayResult::Status::Faulted:
        return QStringLiteral("Replay stopped by a fault: %1")
            .arg(QString::fromStdString(r.fault ? r.fault->toString() : std::string("unknown")));
    }
    return {};
}

} // namespace

ReplaySession::ReplaySession(QObject* parent) : QObject(parent) {}

QString ReplaySession::analysesCancelledText()
{
    return tr("The analyses were cancelled. Replay > Replay again analyses the trace anew.");
}

ReplaySession::~ReplaySession()
{
    m_analysisStop.request_stop();
    m_worker.request_stop();
    m_compareWorker.request_stop();
    for (std::jthread& t : m_retired)
        t.request_stop();
    // The jthreads join here; their queued posts die with this object (it is their context).
}

template <typename Fn> void ReplaySession::post(std::uint64_t request, Fn&& fn)
{
    QMetaObject::invokeMethod(
        this,
        [this, request, fn = std::forward<Fn>(fn)]() mutable {
            if (request == m_request)
                fn();
        },
        Qt::QueuedConnection);
}

void ReplaySession::setStage(Stage stage, const QString& text)
{
    m_stage = stage;
    emit stageChanged(stage, text);
}

void ReplaySession::retire(std::jthread& worker)
{
    if (!worker.joinable())
        return;
    worker.request_stop();
    m_retired.push_back(std::move(worker));
}

void ReplaySession::open(const QString& path, sim::ReplayMode mode, trace::LoadOptions load)
{
    m_load = std::move(load);
    start(nullptr, path, mode);
}

void ReplaySession::replayAgain(sim::ReplayMode mode)
{
    if (m_run)
        start(m_run->trace, m_run->path, mode);
}

void ReplaySession::cancel()
{
    if (m_stage == Stage::Analyzing)
        m_analysisStop.request_stop();
    m_worker.request_stop();
    m_compareWorker.request_stop();
}

std::uint64_t ReplaySession::beginRequest()
{
    m_analysisStop.request_stop();
    m_analysisStop = std::stop_source();
    retire(m_worker);
    retire(m_compareWorker);
    m_keptChange.reset(); // another trace's run (or none): the kept fixed run is of the old one
    m_keptChangeId.clear();
    return ++m_request;
}

void ReplaySession::openReplayed(std::shared_ptr<sim::ChangedRun> replayed, const QString& name)
{
    const std::uint64_t request = beginRequest();
    m_mode = sim::ReplayMode::Full;
    setStage(Stage::Loading, tr("Taking over the fixed run…"));
    m_worker = std::jthread([this, request, replayed = std::move(replayed), name, options = optionsFor(m_mode),
                             analysisStop = m_analysisStop.get_token()](std::stop_token stop) mutable {
        // The trace moves out of the kept run: no copy, and on the worker all the same.
        auto trace = std::make_shared<const trace::Trace>(std::move(replayed->trace));
        work(stop, analysisStop, request, std::move(trace), name, options, std::move(replayed));
    });
}

std::shared_ptr<sim::ChangedRun> ReplaySession::takeChangedRun(const std::string& suggestionId)
{
    if (!m_keptChange || m_keptChangeId != suggestionId)
        return nullptr;
    m_keptChangeId.clear();
    return std::exchange(m_keptChange, nullptr);
}

void ReplaySession::openChanged(std::shared_ptr<const trace::Trace> base, suggest::Change change,
                                const QString& name)
{
    const std::uint64_t request = beginRequest();
    m_mode = sim::ReplayMode::Full;
    setStage(Stage::Loading, tr("Applying the change…"));
    m_worker = std::jthread([this, request, base = std::move(base), change = std::move(change), name,
                             options = optionsFor(m_mode),
                             analysisStop = m_analysisStop.get_token()](std::stop_token stop) {
        // A copy of the whole trace (its memory snapshot included): not on the GUI thread.
        Result<trace::Trace> changed = suggest::applyChange(*base, change);
        if (!changed) {
            const QString message = QString::fromStdString(changed.error().toString());
            post(request, [this, message] {
                setStage(Stage::Idle, message);
                emit openFailed(message);
            });
            return;
        }
        work(stop, analysisStop, request, std::make_shared<const trace::Trace>(std::move(changed).value()),
             name, options);
    });
}

void ReplaySession::start(std::shared_ptr<const trace::Trace> reuse, const QString& path,
                          sim::ReplayMode mode)
{
    const std::uint64_t request = beginRequest();
    m_mode = mode;
    // A StableHLO module is compiled as it loads (on the worker, like any load).
    const QString loading =
        !path.endsWith(QStringLiteral(".mlir")) ? tr("Loading %1…")
        : m_load.modelDtype.empty()
            ? tr("Compiling %1…")
            : tr("Compiling %1 as %2…").arg(QStringLiteral("%1"), QString::fromStdString(m_load.modelDtype));
    setStage(reuse ? Stage::Replaying : Stage::Loading, reuse ? tr("Replaying…") : loading.arg(path));
    m_worker = std::jthread([this, request, reuse = std::move(reuse), path, options = optionsFor(mode),
                             load = m_load, analysisStop = m_analysisStop.get_token()](std::stop_token stop) {
        work(stop, analysisStop, request, reuse, path, options, {}, load);
    });
}

void ReplaySession::work(std::stop_token stop, std::stop_token analysisStop, std::uint64_t request,
                         std::shared_ptr<const trace::Trace> trace, QString path, sim::ReplayOptions options,
                         std::shared_ptr<sim::ChangedRun> replayed, trace::LoadOptions load)
{
    if (!trace) {
        Result<trace::Trace> loaded = trace::loadTrace(path.toStdString(), stop, load);
        if (!loaded && stop.stop_requested()) { // Stop while compiling or assembling: nothing opened
            post(request, [this] {
                setStage(Stage::Idle, tr("Stopped"));
                emit openStopped();
            });
            return;
        }
        if (!loaded) {
            const QString message = QString::fromStdString(loaded.error().toString());
            post(request, [this, message] {
                setStage(Stage::Idle, message);
                emit openFailed(message);
            });
            return;
        }
        trace = std::make_shared<const trace::Trace>(std::move(loaded).value());
    }
    auto run = std::make_shared<Run>();
    run->path = path;
    run->trace = trace;
    run->lanes = std::make_unique<analysis::ActivityLanes>(*trace);
    post(request, [this, run] {
        m_run = run;
        m_analysesReady = false;
        m_analysesCancelled = false;
        emit opened();
        setStage(Stage::Replaying, tr("Replaying…"));
    });

    if (replayed) {
        run->store.takeFrom(replayed->store);
        run->result = std::move(replayed->result);
        run->replayedElsewhere = true;
        replayed.reset();
    } else {
        auto lastPost = std::chrono::steady_clock::now();
        // The limits (Replay > Limits…; the GRM's defaults unless changed): a program that never ends stops.
        sim::Replayer replayer(*trace, options, run->store);
        run->result = replayer.run(stop, [&](const sim::ReplayProgress& p) {
            run->lanes->ingest(run->store);
            const auto now = std::chrono::steady_clock::now();
            if (now - lastPost < kEventsInterval)
                return;
            lastPost = now;
            post(request, [this, p] {
                emit progress(p.bundles, p.cycle, p.elapsedSeconds);
                emit eventsChanged();
            });
        });
    }
    run->store.flush();
    run->lanes->ingest(run->store);
    const bool completed = run->result.status == sim::ReplayResult::Status::Completed;
    const QString ended = endText(*run);
    post(request, [this, ended, completed] {
        emit eventsChanged();
        emit replayEnded(ended, completed);
        setStage(Stage::Analyzing, tr("Analysing…"));
    });

    // Analyses run on a partial replay too (cancelled or faulted): the views still explain what ran.
    run->view = std::make_unique<analysis::ReplayView>(
        analysis::ReplayView{*trace, run->store, run->result.totalCycles, run->result.chips});
    // A second analysis thread only where it leaves a core for the GUI thread (on two cores it starved
    // the event loop for 50+ ms).
    // Cancel reaches into every analysis and proposal rule (they poll the view's stop token): the worker
    // stops within milliseconds and the partial results are never shown.
    run->view->stop = analysisStop;
    try {
        run->graph = analysis::analyzeReplayInPlace(*run->view, run->analyses,
                                                    std::thread::hardware_concurrency() > 2);
        if (completed)
            run->suggestions = suggest::proposeSuggestions(*run->view, run->analyses);
        run->residuals = analysis::computeResiduals(*trace, run->store, analysisStop);
        run->view->stop = {}; // later readers of the view (reports, exports) are not this worker's to cancel
    } catch (const Cancelled&) {
        run->view->stop = {};
        post(request, [this, ended] {
            m_analysesCancelled = true;
            emit analysesCancelled();
            setStage(Stage::Done, tr("%1; analyses cancelled").arg(ended));
        });
        return;
    }
    const bool measure = m_measures && completed && options.mode == sim::ReplayMode::Full &&
                         !run->suggestions.empty() && !stop.stop_requested();
    post(request, [this, ended, measure] {
        m_analysesReady = true;
        emit analysesReady();
        if (measure)
            setStage(Stage::Measuring, tr("Measuring suggestions…"));
        else
            setStage(Stage::Done, ended);
    });
    if (!measure)
        return;

    // Measured on a copy: the GUI reads run->suggestions meanwhile; the measured list replaces it there.
    std::vector<suggest::Suggestion> measured = run->suggestions;
    std::vector<suggest::SuggestionGroup> groups;
    {
        std::lock_guard lock(run->baselineMutex);
        // The what-ifs replay side by side, leaving a core to the GUI thread where there are more than two.
        const unsigned cores = sim::hardwareThreads();
        const unsigned workers = cores > 2 ? cores - 1 : 1;
        sim::measureSuggestions(
            measured, *trace, run->result, stop,
            [&](const sim::WhatIfStatus& s) {
                // Titles are read here, on the measuring thread, before measureSuggestions reorders them.
                const QString title =
                    s.oldest < measured.size() ? QString::fromStdString(measured[s.oldest].title) : QString();
                post(request, [this, s, title] {
                    emit measuringProgress(static_cast<int>(s.done), static_cast<int>(s.total),
                                           static_cast<int>(s.inFlight), s.current, title);
                });
            },
            workers);
        // Suggestions of one kind, applied together: what the report ranks them by.
        const std::size_t singles = measured.size();
        groups = sim::measureGroups(
            measured, *trace, run->result, stop,
            [&](const sim::WhatIfStatus& s) {
                if (s.done >= s.total)
                    return;
                post(request, [this, s, singles] {
                    emit measuringProgress(static_cast<int>(singles + s.done),
                                           static_cast<int>(singles + s.total), static_cast<int>(s.inFlight),
                                           s.current, tr("suggestions of one kind applied together"));
                });
            },
            workers);
    }
    std::size_t measuredCount = 0;
    for (const suggest::Suggestion& s : measured)
        measuredCount +=
            s.measured && s.measured->verdict != suggest::Measurement::Verdict::Cancelled ? 1 : 0;
    const QString done = measuredCount == measured.size()
                             ? ended
                             : tr("%1; measuring cancelled after %2 of %3 suggestions")
                                   .arg(ended)
                                   .arg(measuredCount)
                                   .arg(measured.size());
    post(request, [this, run, measured = std::move(measured), groups = std::move(groups), done]() mutable {
        run->suggestions = std::move(measured);
        run->groups = std::move(groups);
        emit suggestionsMeasured();
        setStage(Stage::Done, done);
    });
}

std::uint64_t ReplaySession::defaultKeptRunBudget()
{
    const std::uint64_t physical = physicalMemoryBytes();
    return physical > 0 ? physical / 4 : std::uint64_t{1} << 30;
}

void ReplaySession::compareSuggestion(int index)
{
    if (!m_run || !m_analysesReady || index < 0 ||
        static_cast<std::size_t>(index) >= m_run->suggestions.size())
        return;
    retire(m_compareWorker);
    // One kept run at a time: the last one's memory goes before this replay takes its own.
    m_keptChange.reset();
    m_keptChangeId.clear();
    const std::uint64_t request = m_request;
    const std::shared_ptr<Run> run = m_run;
    const suggest::Change change = run->suggestions[static_cast<std::size_t>(index)].change;
    emit comparisonProgress(index, tr("Replaying the changed program…"));
    const std::string id = run->suggestions[static_cast<std::size_t>(index)].id;
    const std::uint64_t budget = m_keptRunBudget;
    m_compareWorker = std::jthread([this, request, run, change, index, id, budget](std::stop_token stop) {
        sim::RunComparison comparison;
        auto kept = std::make_shared<sim::ChangedRun>();
        {
            std::lock_guard lock(run->baselineMutex);
            comparison =
                sim::compareChange(*run->trace, run->result, run->analyses, change, stop, kept.get());
        }
        // Only a run Open fixed run can show: completed, with the baseline's outputs.
        using Verdict = suggest::Measurement::Verdict;
        const Verdict v = comparison.measurement.verdict;
        if ((v != Verdict::Improves && v != Verdict::NoGain) || kept->store.residentBytes() > budget)
            kept.reset();
        post(request,
             [this, index, id, kept = std::move(kept), comparison = std::move(comparison)]() mutable {
                 m_keptChange = std::move(kept);
                 m_keptChangeId = m_keptChange ? id : std::string();
                 emit comparisonReady(index, comparison);
             });
    });
}

} // namespace xps::ui

#pragma once
// The document of the explorer: one opened trace, its replay on the GRM, the analyses and the measured
// suggestions. All long work runs on a worker thread (load, replay, analyses, what-if replays, Apply and
// compare); results cross back to the GUI thread as queued calls tagged with a request number, so the
// results of a cancelled or superseded request are dropped.
//
// Views read `run()` only: the trace and the lanes from the moment `opened` is emitted (the lanes grow
// while the replay runs), the analyses once `analysesReady` is emitted, the suggestions' measurements
// once `suggestionsMeasured` is.

#include "analysis/activity_lanes.h"
#include "analysis/analyze.h"
#include "analysis/residuals.h"
#include "compare_runs.h"
#include "replayer.h"
#include "suggest/group.h"
#include "suggest/suggestion.h"
#include "trace/trace_io.h"

#include <QObject>
#include <QString>

#include <memory>
#include <mutex>
#include <thread>

namespace xps::ui {

// Everything about one replay. Created by the worker; the GUI thread reads the members the session's
// signals have announced.
struct Run
{
    QString path;
    std::shared_ptr<const trace::Trace> trace; // shared with later replays of the same file
    events::EventStore store;
    std::unique_ptr<analysis::ActivityLanes> lanes;
    sim::ReplayResult result;
    std::unique_ptr<analysis::ReplayView> view;
    analysis::Analyses analyses;
    std::unique_ptr<analysis::DependencyGraph> graph;
    std::vector<suggest::Suggestion> suggestions;
    std::vector<suggest::SuggestionGroup> groups; // suggestions of one kind, measured applied together
    analysis::Residuals residuals; // against the trace's recorded hardware timing, if it carries any
    // Its events were replayed elsewhere and handed over (Apply and compare's fixed run), not replayed here.
    bool replayedElsewhere = false;
    // Held by whoever reads the baseline's final state (comparing outputs materialises memory pages).
    std::mutex baselineMutex;
};

class ReplaySession : public QObject
{
    Q_OBJECT
public:
    enum class Stage { Idle, Loading, Replaying, Analyzing, Measuring, Done };
    Q_ENUM(Stage)

    explicit ReplaySession(QObject* parent = nullptr);
    ~ReplaySession() override; // stops the work and waits for it

    // Starts loading `path` and replaying it; the previous run is dropped once the new one opens. `load`
    // says how a model (.mlir) compiles (its element type, as `estimate --dtype`).
    void open(const QString& path, sim::ReplayMode mode = sim::ReplayMode::Full,
              trace::LoadOptions load = {});
    // How the last file opened was loaded.
    const trace::LoadOptions& loadOptions() const { return m_load; }
    // Replays the open trace again (e.g. in another mode).
    void replayAgain(sim::ReplayMode mode);
    // Applies `change` to `base` on the worker and replays the result in full mode, as a trace named `name`
    // (a suggestion's fixed run); openFailed if the change does not apply.
    void openChanged(std::shared_ptr<const trace::Trace> base, suggest::Change change, const QString& name);
    // Shows a changed trace already replayed (Apply and compare's, kept by takeChangedRun) as a trace named
    // `name`: its events become this session's and only the analyses run, on the worker.
    void openReplayed(std::shared_ptr<sim::ChangedRun> replayed, const QString& name);
    // Whether a full replay's suggestions are measured after its analyses (yes by default; a fixed run shown
    // beside its baseline only needs its analyses). Set before opening.
    void setMeasuresSuggestions(bool measure) { m_measures = measure; }
    void cancel();

    const Run* run() const { return m_run.get(); }
    // For work that outlives a GUI-thread call (a view's own worker): keeps the run alive while it reads it.
    std::shared_ptr<const Run> runHandle() const { return m_run; }
    Stage stage() const { return m_stage; }
    bool analysesAvailable() const { return m_analysesReady; }
    // Cancel was clicked while the analyses ran: the replay's events are shown, nothing derived from them.
    bool analysesWereCancelled() const { return m_analysesCancelled; }
    // What the views that need the analyses say instead when they were cancelled.
    static QString analysesCancelledText();
    sim::ReplayMode mode() const { return m_mode; }
    // Where every replay started from now on stops (0: no limit); the GRM's defaults until set. A what-if
    // keeps its own bound (4x its baseline's cycles and bundles).
    // The limits are ReplayOptions' maxCycles, maxBundles and maxEventBytes; its mode is ignored.
    void setLimits(const sim::ReplayOptions& limits)
    {
        m_limits.maxCycles = limits.maxCycles;
        m_limits.maxBundles = limits.maxBundles;
        m_limits.maxEventBytes = limits.maxEventBytes;
    }
    const sim::ReplayOptions& limits() const { return m_limits; }
    std::uint64_t maxCycles() const { return m_limits.maxCycles; }
    std::uint64_t maxBundles() const { return m_limits.maxBundles; }
    std::uint64_t maxEventBytes() const { return m_limits.maxEventBytes; }
    bool isBusy() const { return m_stage != Stage::Idle && m_stage != Stage::Done; }

    // Apply and compare: replays suggestion `index`'s change in the background; emits `comparisonReady`.
    // The last compared change's run, when it completed with the baseline's outputs, is kept (one at a
    // time, dropped when another trace opens) for Open fixed run to show without replaying it again.
    void compareSuggestion(int index);
    // That kept run, if it is suggestion `suggestionId`'s; the session no longer holds it.
    std::shared_ptr<sim::ChangedRun> takeChangedRun(const std::string& suggestionId);
    // A run whose events take more than this is not kept (Open fixed run then replays the change): the
    // kept run is as large as the baseline's, and on a small machine holding both could push the one the
    // user looks at into swap. A quarter of physical memory by default (1 GiB where it is not known).
    void setKeptRunBudget(std::uint64_t bytes) { m_keptRunBudget = bytes; }
    static std::uint64_t defaultKeptRunBudget();

signals:
    void opened(); // run() holds the new trace; replay starting
    void openFailed(const QString& message);
    void openStopped(); // cancelled while loading or compiling: nothing was opened
    void stageChanged(xps::ui::ReplaySession::Stage stage, const QString& text);
    void progress(quint64 bundles, quint64 cycle, double elapsedSeconds);
    void eventsChanged(); // more events ingested into the lanes (at most ~8 Hz)
    void replayEnded(const QString& summary, bool completed);
    void analysesReady();
    void analysesCancelled();
    // `done` of `total` measured; `inFlight` more are being replayed side by side, `current`
    // (0..inFlight) how far they have come together; `title` names the one started first.
    void measuringProgress(int done, int total, int inFlight, double current, const QString& title);
    void suggestionsMeasured();
    void comparisonReady(int index, const xps::sim::RunComparison& comparison);
    void comparisonProgress(int index, const QString& text);

private:
    void start(std::shared_ptr<const trace::Trace> reuse, const QString& path, sim::ReplayMode mode);
    std::uint64_t beginRequest(); // supersedes the work under way; the new request's number
    // Loads `path` unless `trace` is given, replays it unless `replayed` holds its replay, then analyses it.
    // `options` are read here, on the GUI thread, and travel with the work.
    sim::ReplayOptions optionsFor(sim::ReplayMode mode) const
    {
        sim::ReplayOptions options = m_limits;
        options.mode = mode;
        return options;
    }
    void work(std::stop_token stop, std::stop_token analysisStop, std::uint64_t request,
              std::shared_ptr<const trace::Trace> trace, QString path, sim::ReplayOptions options,
              std::shared_ptr<sim::ChangedRun> replayed = {}, trace::LoadOptions load = {});
    template <typename Fn> void post(std::uint64_t request, Fn&& fn);
    void setStage(Stage stage, const QString& text);
    void retire(std::jthread& worker);

    std::shared_ptr<Run> m_run;
    trace::LoadOptions m_load;
    Stage m_stage = Stage::Idle;
    bool m_analysesReady = false;
    bool m_analysesCancelled = false;
    bool m_measures = true;
    sim::ReplayMode m_mode = sim::ReplayMode::Full;
    sim::ReplayOptions m_limits; // its mode unused
    std::uint64_t m_request = 0; // GUI thread only
    std::jthread m_worker;
    // The analyses' own stop: a Cancel while the replay runs stops the replay and the partial replay is still
    // analysed (the views explain what ran); a Cancel while the analyses run stops them. Requested too when
    // the request is superseded or the session ends.
    std::stop_source m_analysisStop;
    std::jthread m_compareWorker;
    std::string m_keptChangeId; // the suggestion whose changed run m_keptChange is
    std::shared_ptr<sim::ChangedRun> m_keptChange;
    std::uint64_t m_keptRunBudget = defaultKeptRunBudget();
    // Superseded workers finish in the background (a join could block the GUI thread for a whole
    // analysis); their posts are dropped by request number.
    std::vector<std::jthread> m_retired;
};

} // namespace xps::ui

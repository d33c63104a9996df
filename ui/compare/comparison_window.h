#pragma once
// Two runs side by side (one window for every kind): the explorer's run, the
// baseline, beside a suggestion's fixed run (Open fixed run), another trace or a profile (File > Compare
// with…). Each side is a replay or a profile, and every side has a profile (a replay's is the GRM's run seen
// through the profile model), so the tables of what changed as HTA's TraceDiff and TraceLens list them are
// always there: the operations, the devices' breakdowns, the two critical paths. When both sides are
// replays, the replay's own views come first: its lanes, DMA lanes and VMEM heatmap, and RunDiff's regions
// and bundles (the rows `xpushark-cli diff` prints); and a fixed run can be saved as a trace.
// The two sides' views are stacked, zoomed and panned together through one TimeCrossing (a replay counts
// cycles, an import nanoseconds): each from its own start, or, with "Align at the region / operation", the
// row picked in a table at one place and kept so while zoomed. Two replays' profiles are made when first
// looked at (they cost more than the replays' own tables). Each side has one SelectionModel, shared by
// its replay views and its profile document, so an operation picked in a table is selected in the lanes
// too. The other side is opened, replayed or imported, and both are diffed, on workers with progress; Stop
// cancels. The baseline is read, never changed; the window closes when the explorer opens another file.
// Built in three files: this one's .cpp (the window, its sides and the shared time), comparison_replays.cpp
// (what only two replays have) and comparison_profiles.cpp (the profiles' timelines and tables).

#include "compare/time_crossing.h"
#include "profile/profile_diff.h"
#include "suggest/suggestion.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <thread>

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace xps::analysis {
struct RunDiff;
}

namespace xps::ui {

class ProfileDiffModel;
class ProfileDocument;
class ProfileTimelineView;
class ReplaySession;
class RunDiffModel;
class SelectionModel;
class TimelineView;
class VmemHeatmapView;

class ComparisonWindow : public QWidget
{
    Q_OBJECT
public:
    // A suggestion's fixed run: `baseline`'s trace with `suggestion`'s change applied, replayed here (or
    // Apply and compare's replay of it, taken over). `baseline` must have its analyses.
    ComparisonWindow(ReplaySession* baseline, const suggest::Suggestion& suggestion,
                     QWidget* parent = nullptr);
    // Another trace beside the explorer's replay: its programs may differ (bundles are matched where they
    // can be, analysis/run_diff.h).
    ComparisonWindow(ReplaySession* baseline, const QString& otherTrace, QWidget* parent = nullptr);
    // Anything beside the explorer's profile (an import, or a replay seen as its profile): `otherPath` is a
    // profile (imported) or a trace (replayed and seen as its profile).
    ComparisonWindow(ProfileDocument* baseline, const QString& otherPath, QWidget* parent = nullptr);
    ~ComparisonWindow() override; // stops the diffs and a save, then (members) the other side's work

    bool comparesReplays() const { return m_baseline.session != nullptr; }
    QString verdict() const;
    QTabWidget* viewTabs() const
    {
        return m_views;
    } // two replays: Timeline, DMA lanes, VMEM heatmap,
      // As profiles; else the profiles' timelines alone
    QTabWidget* tableTabs() const
    {
        return m_tables;
    } // two replays: Regions and bundles first; then
      // Operations, Devices, Critical path
    QTableView* table(int tab) const;
    ProfileDiffModel* model(int tab) const; // null for the regions and bundles tab
    QCheckBox* alignBox() const { return m_align; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* saveButton() const { return m_save; }
    // The other side's view starts this far after the baseline's: in the two sides' common ticks (cycles of
    // two replays at one clock, nanoseconds of two imports), else in nanoseconds (TimeCrossing).
    std::int64_t offset() const { return m_crossing.offset; }

    // Each side's profile: its document and timeline (a replay's profile, made here; the explorer's shared).
    ProfileDocument* baselineDocument() const { return m_baseline.document; }
    ProfileDocument* otherDocument() const { return m_other.document; }
    ProfileTimelineView* baselineTimeline() const { return m_baseline.timeline; }
    ProfileTimelineView* otherTimeline() const { return m_other.timeline; }
    const profile::ProfileDiff& profileDiff() const { return m_profileDiff; }
    SelectionModel* baselineSelection() const { return m_baseline.selection; }
    SelectionModel* otherSelection() const { return m_other.selection; }

    // Two replays only (null otherwise): each side's session, lanes and heatmap, RunDiff's table.
    ReplaySession* otherSession() const { return m_other.session; }
    TimelineView* baselineLanes() const { return m_baseline.lanes; }
    TimelineView* otherLanes() const { return m_other.lanes; }
    VmemHeatmapView* baselineHeatmap() const { return m_baseline.heatmap; }
    VmemHeatmapView* otherHeatmap() const { return m_other.heatmap; }
    const RunDiffModel* deltas() const { return m_runDiff; }
    QTableView* deltaTable() const { return m_runDiffTable; }
    // Writes the fixed trace to `path` (.xtrace.json or .xps) in the background; the window says when done.
    void saveFixedTrace(const QString& path);

signals:
    void compared(); ///< the first tables filled: two replays' regions and bundles, else the profiles'
    void profilesCompared(); ///< the operations, devices and critical-path tables filled
    void saved(const QString& path, const QString& error); ///< error empty on success

private:
    struct Side
    {
        ReplaySession* session = nullptr; // a replay side (the baseline's is the explorer's)
        SelectionModel* selection = nullptr;
        ProfileDocument* document = nullptr; // its profile: imported, or a replay's made here
        ProfileTimelineView* timeline = nullptr;
        TimelineView* lanes = nullptr;
        VmemHeatmapView* heatmap = nullptr;
        QString heading, tooltip; // "Baseline: decode.xtrace.json", the path
    };
    struct OtherRun
    {
        QString title, heading, tooltip;
        QString noun; // "fixed run", "other run", "other profile"
    };
    ComparisonWindow(ReplaySession* baseline, const OtherRun& other, QWidget* parent);
    ComparisonWindow(ProfileDocument* baseline, const OtherRun& other, QWidget* parent);
    // The bar, the two tab widgets and each side's profile timeline: what every comparison has.
    void buildFrame(const OtherRun& other);
    static QWidget* titled(const Side& side, QWidget* content); // a view under its side's heading

    // The shared time (comparison_window.cpp).
    std::optional<profile::Timebase> timebaseOf(const Side& side) const;
    bool crossingKnown(); // both sides' timebases known: m_crossing holds them
    // [from, to) of `side` (its ticks) is shown by every view of both sides but `origin`.
    void showRange(const Side& side, profile::Ticks from, profile::Ticks to, const QObject* origin = nullptr);
    void showSideRange(const Side& side, profile::Ticks from, profile::Ticks to, const QObject* origin);
    void followRanges(const Side& side);
    void setStatus(const QString& text); // the verdict line, until the first diff is in

    // Two replays (comparison_replays.cpp).
    void buildReplayViews();
    void connectOtherSession();
    // Two replays' profiles are made when a person first looks at them (a tab that shows them): at 10 M
    // bundles each is about 0.6 GB and 7 s of work the regions and bundles do not need.
    void wantProfiles();
    void makeProfileOf(const Side& side);
    void updateStop();
    void tryCompareRuns();
    void showRunDiff(analysis::RunDiff diff);
    void onRunDiffRowPicked(int row);
    void chooseSaveFile();

    // The profiles (comparison_profiles.cpp).
    QTableView* addRunDiffTable();
    QTableView* addProfileTable(ProfileDiffModel* model, const QString& title);
    static QSortFilterProxyModel* sortedOf(const QTableView* view);
    void connectOtherDocument();
    void tryCompareProfiles();
    void showProfileDiff(profile::ProfileDiff diff);
    void onProfileRowPicked(const ProfileDiffModel* model, int row);
    void onRowOfCurrentTab(); // the align box toggled: the current row again, or each side from its start
    std::int64_t startOffset() const; // where the two profiles start, apart

    Side m_baseline;
    Side m_other;
    QString m_otherNoun;
    QLabel* m_verdict = nullptr;
    QCheckBox* m_align = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_save = nullptr;
    QTabWidget* m_views = nullptr;
    QTabWidget* m_tables = nullptr;
    RunDiffModel* m_runDiff = nullptr;
    QTableView* m_runDiffTable = nullptr;
    profile::ProfileDiff m_profileDiff;
    TimeCrossing m_crossing;
    bool m_syncing = false; // a range copied from one view to the others is not copied back
    bool m_runsCompared = false;
    bool m_profilesCompared = false;
    bool m_profilesWanted = false;
    QString m_runVerdict; // two replays: what RunDiff says, in cycles
    std::jthread m_saver;
    std::jthread m_runDiffer;
    std::jthread m_profileDiffer;
};

} // namespace xps::ui

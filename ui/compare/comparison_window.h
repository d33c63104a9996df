#pragma once
// A baseline run and its fixed run side by side (#24, "Open fixed run" after Apply and compare): the two
// timelines stacked on one shared time axis, zoomed and panned together, and the delta table (regions, then
// bundles, the largest change first). The fixed run is the baseline's trace with a suggestion's change
// applied, replayed in this window's own session on its worker (progress in the window, Stop cancels it);
// the baseline is the explorer's run, read, never changed. When Apply and compare has just replayed the same
// change, that replay is taken over (ReplaySession::takeChangedRun) and only analysed here. The window closes
// when the explorer opens another trace. "Save fixed trace…" writes the fixed trace.

#include "compare/run_diff_model.h"
#include "suggest/suggestion.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <thread>

class QCheckBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;

namespace xps::trace {
struct Trace;
}

namespace xps::ui {

class ReplaySession;
class SelectionModel;
class VmemHeatmapView;
class TimelineView;

class ComparisonWindow : public QWidget
{
    Q_OBJECT
public:
    // `baseline` must have its analyses; `suggestion` is one of its run's suggestions: the fixed run is its
    // trace with the suggestion's change applied.
    ComparisonWindow(ReplaySession* baseline, const suggest::Suggestion& suggestion,
                     QWidget* parent = nullptr);
    // Another trace (File > Compare with trace…): any xpushark trace, e.g. yesterday's run or the kernel
    // before a fix; its programs may differ (bundles are matched where they can be, analysis/run_diff.h).
    ComparisonWindow(ReplaySession* baseline, const QString& otherPath, QWidget* parent = nullptr);
    ~ComparisonWindow() override; // stops the fixed run's work and any save under way

    // For tests that click like a person, and for the explorer.
    TimelineView* baselineTimeline() const { return m_baselineView; }
    TimelineView* fixedTimeline() const { return m_fixedView; }
    QTableView* deltaTable() const { return m_table; }
    QTabWidget* viewTabs() const { return m_views; } // Timeline, DMA lanes, VMEM heatmap
    VmemHeatmapView* baselineHeatmap() const { return m_baselineHeatmap; }
    VmemHeatmapView* fixedHeatmap() const { return m_fixedHeatmap; }
    const RunDiffModel* deltas() const { return m_model; }
    SelectionModel* baselineSelection() const { return m_baselineSelection; }
    SelectionModel* fixedSelection() const { return m_fixedSelection; }
    ReplaySession* fixedSession() const { return m_fixed; }
    QString verdict() const;
    QPushButton* saveButton() const { return m_save; }
    QCheckBox* alignBox() const { return m_align; }
    std::int64_t alignmentOffset() const { return m_offset; }
    // Writes the fixed trace to `path` (.xtrace.json or .xps) in the background; the window says when done.
    void saveFixedTrace(const QString& path);

signals:
    void compared();                                       ///< both runs analysed and the delta table filled
    void saved(const QString& path, const QString& error); ///< error empty on success

private:
    struct OtherRun
    {
        QString title, heading, tooltip;
        QString noun; // "fixed run", "other run"
    };
    ComparisonWindow(ReplaySession* baseline, const OtherRun& other, QWidget* parent);
    // `to` shows what `from` shows, moved by `sign` x the alignment's offset.
    void followTimeRange(SelectionModel* from, SelectionModel* to, int sign);
    void showRange(std::uint64_t from, std::uint64_t to); // the baseline's; the other run's by the offset
    void tryCompare();                                    // both analysed: diffs them on a worker
    void showDiff(analysis::RunDiff diff);                // the worker's result, on the GUI thread
    void onRowActivated(int row);
    void chooseSaveFile();

    ReplaySession* m_baseline;
    ReplaySession* m_fixed;
    QString m_otherNoun;
    SelectionModel* m_baselineSelection;
    SelectionModel* m_fixedSelection;
    TimelineView* m_baselineView;
    TimelineView* m_fixedView;
    QLabel* m_verdict;
    QLabel* m_baselineLabel;
    QLabel* m_fixedLabel;
    QPushButton* m_save;
    QPushButton* m_stop;
    QTableView* m_table;
    QTabWidget* m_views = nullptr;
    VmemHeatmapView* m_baselineHeatmap = nullptr;
    VmemHeatmapView* m_fixedHeatmap = nullptr;
    RunDiffModel* m_model;
    QCheckBox* m_align;
    // Aligned at a region: the other run's view starts this many cycles after the baseline's (its first
    // instance of the region minus the baseline's); 0 otherwise.
    std::int64_t m_offset = 0;
    bool m_syncing = false; // a range copied from one timeline to the other is not copied back
    bool m_comparedOnce = false;
    std::jthread m_saver;
    std::jthread m_differ;
};

} // namespace xps::ui

#pragma once
// Two profiles side by side (#24, File > Compare with…): two imports, or a replay seen as its profile beside
// an import (the GRM's run beside a measured one; the two count different ticks and meet in nanoseconds).
// The two timelines stacked, each from its own start, zoomed and panned together, and what changed as HTA's
// TraceDiff and TraceLens list it (compare/profile_diff_model.h): the operations, the devices' breakdowns
// and the two critical paths. Picking a row shows that operation's first instance in both timelines,
// selected; with "Align at the operation" the two instances start at the same place, and the views keep
// that offset while zoomed and panned: any operation (a ProfilerStep#N, an annotation) is a marker to align
// at. The baseline is the explorer's profile, shared and never changed; the other profile is imported and
// analysed (a trace: replayed and seen as its profile) on this window's own document's worker, with progress
// and Stop; the diff runs on a worker too.
// The window closes when the explorer opens another file.

#include "profile/profile_diff.h"

#include <QWidget>

#include <memory>
#include <thread>

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace xps::ui {

class ProfileDiffModel;
class ProfileDocument;
class ProfileTimelineView;
class SelectionModel;
struct ProfileRun;

class ProfileComparisonWindow : public QWidget
{
    Q_OBJECT
public:
    // `baseline`: the explorer's document, showing an analysed profile; `otherPath`: the profile to compare
    // with it (any format the explorer opens).
    ProfileComparisonWindow(ProfileDocument* baseline, const QString& otherPath, QWidget* parent = nullptr);
    ~ProfileComparisonWindow() override; // stops the diff, then (members) the other profile's import

    // For tests that click like a person.
    ProfileTimelineView* baselineTimeline() const { return m_baselineView; }
    ProfileTimelineView* otherTimeline() const { return m_otherView; }
    ProfileDocument* baselineDocument() const { return m_baselineDoc; }
    ProfileDocument* otherDocument() const { return m_otherDoc; }
    QTabWidget* tableTabs() const { return m_tables; } // Operations, Devices, Critical path
    QTableView* table(int tab) const;
    ProfileDiffModel* model(int tab) const;
    QCheckBox* alignBox() const { return m_align; }
    QPushButton* stopButton() const { return m_stop; }
    const profile::ProfileDiff& diff() const { return m_diff; }
    QString verdict() const;
    // The other profile's visible range starts this many ns after the baseline's: the difference of the two
    // profiles' starts, or, aligned at an operation, of its two first instances' starts. (Each profile's
    // range is in its own ticks: a replay's cycles beside an import's nanoseconds meet in nanoseconds.)
    std::int64_t offset() const { return m_offset; }

signals:
    void compared(); ///< both profiles analysed and the tables filled

private:
    // A table of `model`'s rows, sorted through a proxy of its own, in a tab.
    QTableView* addTable(ProfileDiffModel* model, const QString& title);
    static QSortFilterProxyModel* sortedOf(const QTableView* view);
    void follow(ProfileDocument* from, ProfileDocument* to, bool fromBaseline);
    // A time of one profile in the other's ticks, through the offset (both analysed).
    profile::Ticks otherTicksOf(profile::Ticks baseline) const;
    profile::Ticks baselineTicksOf(profile::Ticks other) const;
    // Shows [from, to) of the baseline, and the other profile the same, moved by the offset.
    void showRange(profile::Ticks from, profile::Ticks to);
    void tryCompare();
    void showDiff(profile::ProfileDiff diff);
    void onRowPicked(const ProfileDiffModel* model, int row);
    std::int64_t startOffset() const; // other's start - baseline's start

    SelectionModel* m_baselineSelection;
    SelectionModel* m_otherSelection;
    ProfileDocument* m_baselineDoc;
    ProfileDocument* m_otherDoc;
    ProfileTimelineView* m_baselineView;
    ProfileTimelineView* m_otherView;
    QLabel* m_verdict;
    QCheckBox* m_align;
    QPushButton* m_stop;
    QTabWidget* m_tables;
    profile::ProfileDiff m_diff;
    std::int64_t m_offset = 0;
    bool m_syncing = false; // a range copied from one timeline to the other is not copied back
    std::jthread m_differ;
};

} // namespace xps::ui

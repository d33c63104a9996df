// A suggestion's fixed run beside its baseline: after Apply and compare, "Open fixed run" opens a
// window with both timelines on one time axis and the delta table. Clicked as a person would: the table's
// top row is the region that changed most (checked against the two runs' own region summaries), the totals
// are Apply and compare's measurement, a zoom in either timeline is the other's, a bundle row highlights
// the bundle in both, Save fixed trace writes a trace that replays to the fixed run, and opening another
// trace closes the window. XPS_SHOT_DIR=DIR saves the window at 1366x768 and 1920x1080, light and dark.
#include "compare/comparison_window.h"
#include "compare/profile_diff_model.h"
#include "compare/run_diff_model.h"
#include "imported/profile_document.h"
#include "imported/profile_text.h"
#include "imported/profile_timeline_view.h"
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "trace/trace_io.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "util/text.h"
#include "views/suggestions_view.h"
#include "views/timeline_view.h"
#include "views/vmem_heatmap_view.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QHeaderView>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QWheelEvent>

#include <cstdlib>
#include <map>

using namespace xps;

namespace {

void clickRow(QTableWidget* list, int row)
{
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(row, 0)).center());
}

void clickRow(QTableView* table, int row)
{
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(row, 0)).center());
}

// The region path whose cycles changed most between two runs' own summaries.
std::string mostChangedRegion(const analysis::Summary& a, const analysis::Summary& b)
{
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> cycles;
    for (const analysis::RegionSummary& r : a.regions)
        cycles[r.path].first = r.cycles;
    for (const analysis::RegionSummary& r : b.regions)
        cycles[r.path].second = r.cycles;
    std::string best;
    std::int64_t bestDelta = -1;
    for (const auto& [path, c] : cycles) {
        const std::int64_t delta =
            std::llabs(static_cast<std::int64_t>(c.second) - static_cast<std::int64_t>(c.first));
        if (delta > bestDelta) {
            bestDelta = delta;
            best = path;
        }
    }
    return best;
}

QString cell(const QAbstractItemModel* model, int row, int column)
{
    return model->data(model->index(row, column)).toString();
}

int rowOf(const QAbstractItemModel* model, const QString& what)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (cell(model, r, ui::ProfileDiffModel::WhatColumn) == what)
            return r;
    return -1;
}

// The cycles of a run's first instance of the region `name`, from its replay's region records.
std::pair<std::int64_t, std::int64_t> firstRegion(const ui::Run* run, const std::string& name)
{
    std::pair<std::int64_t, std::int64_t> first{INT64_MAX, 0};
    for (const ChipId chip : idsBelow<ChipId>(run->trace->chips.size()))
        for (const events::StoreSlice& r : run->store.regionsByEntry(chip))
            if (run->trace->chips[chip.value].symbols.regions[events::regionOf(r)].name == name &&
                static_cast<std::int64_t>(r.start) < first.first)
                first = {static_cast<std::int64_t>(r.start), static_cast<std::int64_t>(r.end())};
    return first;
}

// File > Compare with… on the naive decode layer's replay: the tuned kernel of the same layer, as the other
// run; null if the replay did not finish.
ui::ComparisonWindow* naiveBesideTuned(ui::MainWindow& w)
{
    if (!test::openSample(w, QStringLiteral("decode_naive.xtrace.json")))
        return nullptr;
    w.compareWith(QString::fromStdString(test::sourceDir()) +
                  QStringLiteral("/resources/samples/decode_tuned.xtrace.json"));
    return w.comparisonWindow();
}

} // namespace

class TestUiCompare : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void openFixedRunShowsBothRunsAndWhatChanged()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        ui::SuggestionsView* view = w.suggestions();
        test::raiseDockOf(view);
        // The top of the ranking: the largest measured gain.
        clickRow(view->list(), 0);
        const int index = view->indexOfRow(0);
        const suggest::Suggestion suggestion =
            w.session()->run()->suggestions[static_cast<std::size_t>(index)];
        QVERIFY(suggestion.measured && suggestion.measured->gainPercent > 0);
        QVERIFY(!view->openFixedButton()->isEnabled()); // nothing compared yet

        QTest::mouseClick(view->compareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view->openFixedButton()->isEnabled(), 30000);
        if (const QByteArray dir = qgetenv("XPS_SHOT_DIR"); !dir.isEmpty()) // the suggestions dock, compared
            w.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("compared-main.png")));
        QTest::mouseClick(view->openFixedButton(), Qt::LeftButton);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QVERIFY(cw->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(cw->deltas()->rowCount() > 0, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(cw->otherSession()->stage() == ui::ReplaySession::Stage::Done, 30000);

        // The totals are what Apply and compare measured: its replay of the change, taken over, not replayed
        // again.
        QVERIFY(cw->otherSession()->run()->replayedElsewhere);
        const analysis::RunDiff& diff = cw->deltas()->diff();
        QCOMPARE(diff.cycles.baseline, suggestion.measured->baselineCycles);
        QCOMPARE(diff.cycles.other, suggestion.measured->newCycles);
        QVERIFY2(cw->verdict().startsWith(
                     QStringLiteral("The fixed run took %1 cycles")
                         .arg(QString::fromStdString(text::withThousands(diff.cycles.other)))),
                 qPrintable(cw->verdict()));
        QVERIFY(cw->verdict().contains(QStringLiteral("faster")));

        // The table's top row is the region that changed most, by the two runs' own region summaries.
        const std::string top = mostChangedRegion(w.session()->run()->analyses.summary,
                                                  cw->otherSession()->run()->analyses.summary);
        const QAbstractItemModel* table = cw->deltaTable()->model();
        QCOMPARE(cell(table, 0, ui::RunDiffModel::WhatColumn),
                 QStringLiteral("region %1").arg(QString::fromStdString(top)));
        QCOMPARE(cell(table, 0, ui::RunDiffModel::MeasureColumn), QStringLiteral("cycles"));
        QVERIFY(cell(table, 0, ui::RunDiffModel::ChangeColumn).startsWith(QStringLiteral("−")));

        // Both timelines on one axis: the longer run's length; a wheel zoom in the baseline's is the fixed
        // run's too, and a drag in the fixed run's pans the baseline's.
        ui::SelectionModel* a = cw->baselineSelection();
        ui::SelectionModel* b = cw->otherSelection();
        QCOMPARE(a->from(), b->from());
        QCOMPARE(a->to(), b->to());
        QVERIFY(a->to() >= diff.cycles.baseline);
        const std::uint64_t whole = a->to();
        ui::LaneCanvas* upper = cw->baselineLanes()->canvas();
        const QRect plot = upper->plotArea();
        const QPoint at(plot.left() + plot.width() / 3, plot.top() + plot.height() / 2);
        QWheelEvent wheel(at, upper->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(upper, &wheel);
        QVERIFY(a->to() - a->from() < whole * 2 / 3);
        QCOMPARE(b->from(), a->from());
        QCOMPARE(b->to(), a->to());
        ui::LaneCanvas* lower = cw->otherLanes()->canvas();
        const QRect lowerPlot = lower->plotArea();
        const QPoint start(lowerPlot.left() + lowerPlot.width() / 2,
                           lowerPlot.top() + lowerPlot.height() / 2);
        const std::uint64_t before = a->from();
        QTest::mousePress(lower, Qt::LeftButton, {}, start);
        QTest::mouseMove(lower, start + QPoint(lowerPlot.width() / 8, 0));
        QTest::mouseMove(lower, start + QPoint(lowerPlot.width() / 4, 0));
        QTest::mouseRelease(lower, Qt::LeftButton, {}, start + QPoint(lowerPlot.width() / 4, 0));
        QVERIFY(b->from() < before);
        QCOMPARE(a->from(), b->from());
        QCOMPARE(a->to(), b->to());

        // A region row: both views show the region's first instance in either run (here "attention", second
        // in the table), found independently from the replays' region records by the region's name.
        const int attentionRow = 1;
        QCOMPARE(cell(table, attentionRow, ui::RunDiffModel::WhatColumn),
                 QStringLiteral("region decode_layer > attention"));
        clickRow(cw->deltaTable(), attentionRow);
        for (const ui::Run* run : {w.session()->run(), cw->otherSession()->run()}) {
            events::Cycle enter = UINT64_MAX, exit = 0;
            for (const ChipId chip : idsBelow<ChipId>(run->trace->chips.size()))
                for (const events::StoreSlice& r : run->store.regionsByEntry(chip))
                    if (run->trace->chips[chip.value].symbols.regions[events::regionOf(r)].name ==
                            "attention" &&
                        r.start < enter) {
                        enter = r.start;
                        exit = r.end();
                    }
            QVERIFY(enter < exit);
            QVERIFY2(
                a->from() <= enter && a->to() >= exit,
                qPrintable(
                    QStringLiteral("%1-%2 not in %3-%4").arg(enter).arg(exit).arg(a->from()).arg(a->to())));
        }
        QVERIFY(a->to() - a->from() < whole);
        QCOMPARE(b->from(), a->from());
        QCOMPARE(b->to(), a->to());

        // Aligned at the region: each timeline starts its own first instance of attention at the same place,
        // and a zoom in one keeps the other that many cycles apart; unchecked, both show the same cycles.
        const auto firstAttention = [](const ui::Run* run) {
            events::Cycle enter = UINT64_MAX;
            for (const ChipId chip : idsBelow<ChipId>(run->trace->chips.size()))
                for (const events::StoreSlice& r : run->store.regionsByEntry(chip))
                    if (run->trace->chips[chip.value].symbols.regions[events::regionOf(r)].name ==
                        "attention")
                        enter = std::min(enter, r.start);
            return static_cast<std::int64_t>(enter);
        };
        const std::int64_t offset =
            firstAttention(cw->otherSession()->run()) - firstAttention(w.session()->run());
        QVERIFY(offset != 0); // the fixed run reaches attention sooner
        QTest::mouseClick(cw->alignBox(), Qt::LeftButton, {}, QPoint(4, cw->alignBox()->height() / 2));
        QVERIFY(cw->alignBox()->isChecked());
        QCOMPARE(cw->offset(), offset);
        const auto apart = [&] {
            return static_cast<std::int64_t>(b->from()) - static_cast<std::int64_t>(a->from());
        };
        QCOMPARE(apart(), offset);
        QCOMPARE(b->to() - b->from(), a->to() - a->from());
        QTest::keyClick(upper, Qt::Key_W); // zoom in the baseline's lanes
        QCOMPARE(apart(), offset);
        QTest::mouseClick(cw->alignBox(), Qt::LeftButton, {}, QPoint(4, cw->alignBox()->height() / 2));
        QCOMPARE(cw->offset(), std::int64_t(0));
        QCOMPARE(b->from(), a->from());
        QCOMPARE(b->to(), a->to());

        // A bundle row highlights that bundle in each run, at its own pc.
        int bundleRow = -1;
        for (int r = 0; r < table->rowCount() && bundleRow < 0; ++r)
            if (cw->deltas()->kindOf(r) == ui::RunDiffModel::RowKind::Bundle &&
                cw->deltas()->bundleAt(r)->baselinePc && cw->deltas()->bundleAt(r)->otherPc)
                bundleRow = r;
        QVERIFY(bundleRow >= 0);
        cw->deltaTable()->scrollTo(table->index(bundleRow, 0));
        clickRow(cw->deltaTable(), bundleRow);
        const analysis::PcDelta* bundle = cw->deltas()->bundleAt(bundleRow);
        QVERIFY(a->selection().containsPc(bundle->chip, *bundle->baselinePc));
        QVERIFY(b->selection().containsPc(bundle->chip, *bundle->otherPc));

        // The DMA lanes and the VMEM heatmap, both runs each, on the same two time ranges.
        QCOMPARE(cw->viewTabs()->count(), 4);
        QCOMPARE(cw->viewTabs()->tabText(1), QStringLiteral("DMA lanes"));
        QCOMPARE(cw->viewTabs()->tabText(2), QStringLiteral("VMEM heatmap"));
        QCOMPARE(cw->viewTabs()->tabText(3), QStringLiteral("As profiles"));
        // The two heatmaps share one colour scale: up to the larger of their largest cells.
        cw->viewTabs()->setCurrentIndex(2);
        QTRY_VERIFY(cw->baselineHeatmap()->largestCell() > 0 && cw->otherHeatmap()->largestCell() > 0);
        const double scaleTop =
            std::max(cw->baselineHeatmap()->largestCell(), cw->otherHeatmap()->largestCell());
        QCOMPARE(cw->baselineHeatmap()->scaleTop(), scaleTop);
        QCOMPARE(cw->otherHeatmap()->scaleTop(), scaleTop);
        cw->viewTabs()->setCurrentIndex(0);

        test::saveTabShots(cw, cw->viewTabs(), QStringLiteral("compare"));

        // Save fixed trace: what it writes replays as the fixed run did.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("fixed.xtrace.json"));
        QSignalSpy saved(cw, &ui::ComparisonWindow::saved);
        cw->saveFixedTrace(path);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 30000);
        QCOMPARE(saved.front().at(1).toString(), QString());
        Result<trace::Trace> written = trace::loadTrace(path.toStdString());
        QVERIFY(written);
        QCOMPARE(written->chips.front().program.bundles.size(),
                 cw->otherSession()->run()->trace->chips.front().program.bundles.size());

        // Opened once more, the fixed run replays here (the kept one was taken): the same numbers, the same
        // table.
        const int rows = cw->deltas()->rowCount();
        cw->close();
        QTRY_VERIFY(!w.comparisonWindow());
        QTest::mouseClick(view->openFixedButton(), Qt::LeftButton);
        ui::ComparisonWindow* again = w.comparisonWindow();
        QVERIFY(again);
        QTRY_VERIFY_WITH_TIMEOUT(again->deltas()->rowCount() > 0, 30000);
        QVERIFY(!again->otherSession()->run()->replayedElsewhere);
        QCOMPARE(again->deltas()->diff().cycles.other, suggestion.measured->newCycles);
        QCOMPARE(again->deltas()->rowCount(), rows);
        QCOMPARE(cell(again->deltaTable()->model(), 0, ui::RunDiffModel::WhatColumn),
                 QStringLiteral("region %1").arg(QString::fromStdString(top)));

        // Another trace in the explorer: the comparison's baseline is gone, so is the window.
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/decode_tuned.xtrace.json"));
        QTRY_VERIFY(!w.comparisonWindow());
        QVERIFY(test::waitDone(w));
    }

    // A changed run larger than the session's budget for kept runs is not kept: Open fixed run replays the
    // change in the window, to the same numbers Apply and compare measured.
    void aRunOverTheKeptRunBudgetIsReplayedAgain()
    {
        QVERIFY(ui::ReplaySession::defaultKeptRunBudget() >= std::uint64_t{1} << 20);
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        w.session()->setKeptRunBudget(1024); // below any replay's events
        ui::SuggestionsView* view = w.suggestions();
        test::raiseDockOf(view);
        clickRow(view->list(), 0);
        QTest::mouseClick(view->compareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view->openFixedButton()->isEnabled(), 30000);
        const std::string id =
            w.session()->run()->suggestions[static_cast<std::size_t>(view->indexOfRow(0))].id;
        QVERIFY(!w.session()->takeChangedRun(id)); // measured, compared, not kept
        QTest::mouseClick(view->openFixedButton(), Qt::LeftButton);
        ui::ComparisonWindow* cw = w.comparisonWindow();
        QVERIFY(cw);
        QTRY_VERIFY_WITH_TIMEOUT(cw->otherSession()->stage() == ui::ReplaySession::Stage::Done, 30000);
        QVERIFY(!cw->otherSession()->run()->replayedElsewhere);
        QTRY_VERIFY_WITH_TIMEOUT(cw->deltas()->rowCount() > 0, 30000);
        const suggest::Suggestion& s =
            w.session()->run()->suggestions[static_cast<std::size_t>(view->indexOfRow(0))];
        QVERIFY(s.measured);
        QCOMPARE(cw->otherSession()->run()->result.totalCycles, s.measured->newCycles);
    }

    // File > Compare with trace…: another trace (here the tuned kernel of the same layer) as the other run.
    void compareWithAnotherTrace()
    {
        ui::MainWindow w(false);
        ui::ComparisonWindow* cw = naiveBesideTuned(w);
        QVERIFY(cw);
        QTRY_VERIFY_WITH_TIMEOUT(cw->deltas()->rowCount() > 0, 30000);
        QVERIFY(!cw->saveButton()->isVisible()); // nothing to save: the other run is a file
        const ui::Run* other = cw->otherSession()->run();
        QVERIFY2(cw->verdict().startsWith(
                     QStringLiteral("The other run took %1 cycles against the baseline's %2")
                         .arg(QString::fromStdString(text::withThousands(other->result.totalCycles)),
                              QString::fromStdString(
                                  text::withThousands(w.session()->run()->result.totalCycles)))),
                 qPrintable(cw->verdict()));
        const QAbstractItemModel* table = cw->deltaTable()->model();
        QCOMPARE(table->headerData(ui::RunDiffModel::FixedColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Other run"));
        QCOMPARE(cell(table, 0, ui::RunDiffModel::WhatColumn),
                 QStringLiteral("region %1")
                     .arg(QString::fromStdString(
                         mostChangedRegion(w.session()->run()->analyses.summary, other->analyses.summary))));
        QCOMPARE(cw->baselineSelection()->to(), cw->otherSelection()->to());

        // The delta table's context menu copies it as CSV, as shown.
        QAction* copy = nullptr;
        for (QAction* a : cw->deltaTable()->actions())
            if (a->text() == QStringLiteral("Copy table as CSV"))
                copy = a;
        QVERIFY(copy);
        copy->trigger();
        const QStringList lines = QApplication::clipboard()->text().split(QStringLiteral("\r\n"));
        QCOMPARE(lines.size(), table->rowCount() + 2);
        QVERIFY(lines.front().contains(QStringLiteral("Other run")));
        QVERIFY2(lines.at(1).startsWith(cell(table, 0, ui::RunDiffModel::WhatColumn)),
                 qPrintable(lines.at(1)));
    }

    // Two replays are compared as their profiles too, in the same window: the operations, devices and
    // critical-path tables beside the regions and bundles, each run's own numbers. An operation picked with
    // "Align at the region" puts both runs' first instances at one place in the lanes as in the profiles'
    // timelines, and a zoom in the profiles' timeline is the lanes' (a replay's profile counts its cycles).
    void twoReplaysAreComparedAsProfilesToo()
    {
        ui::MainWindow w(false);
        ui::ComparisonWindow* cw = naiveBesideTuned(w);
        QVERIFY(cw && cw->comparesReplays());
        QSignalSpy compared(cw, &ui::ComparisonWindow::compared);
        QSignalSpy profilesCompared(cw, &ui::ComparisonWindow::profilesCompared);
        QTRY_COMPARE_WITH_TIMEOUT(compared.count(), 1, 30000);
        // The runs' profiles are made when first looked at: the Operations tab, clicked.
        QVERIFY(!cw->baselineDocument()->run() && !cw->otherDocument()->run());
        QCOMPARE(profilesCompared.count(), 0);
        QTabBar* tableBar = cw->tableTabs()->tabBar();
        QTest::mouseClick(tableBar, Qt::LeftButton, {}, tableBar->tabRect(1).center());
        QVERIFY2(cw->verdict().endsWith(QStringLiteral("Making each run's profile…")),
                 qPrintable(cw->verdict()));
        QTRY_COMPARE_WITH_TIMEOUT(profilesCompared.count(), 1, 30000);
        QStringList tabs;
        for (int t = 0; t < cw->tableTabs()->count(); ++t)
            tabs << cw->tableTabs()->tabText(t);
        QCOMPARE(tabs, QStringList({QStringLiteral("Regions and bundles"), QStringLiteral("Operations"),
                                    QStringLiteral("Devices"), QStringLiteral("Critical path")}));
        QVERIFY(!cw->model(0) && cw->table(0) == cw->deltaTable());
        QVERIFY(cw->verdict().startsWith(QStringLiteral("The other run took"))); // the runs', in cycles

        // Each profile is its run's: the decode layer's time is the region's cycles in nanoseconds.
        const ui::Run* base = w.session()->run();
        const ui::Run* other = cw->otherSession()->run();
        const auto layerNs = [](const ui::Run* run) {
            const auto [from, to] = firstRegion(run, "decode_layer");
            const profile::Timebase t = profile::Timebase::cyclesAt(run->trace->machine.clockMhz);
            return t.toNanos(to) - t.toNanos(from);
        };
        QTableView* ops = cw->table(1);
        const int layer = rowOf(ops->model(), QStringLiteral("decode_layer"));
        QVERIFY(layer >= 0);
        QCOMPARE(ops->model()->headerData(ui::ProfileDiffModel::OtherColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Other run"));
        QCOMPARE(cell(ops->model(), layer, ui::ProfileDiffModel::BaselineColumn),
                 ui::formatDuration(layerNs(base)));
        QCOMPARE(cell(ops->model(), layer, ui::ProfileDiffModel::OtherColumn),
                 ui::formatDuration(layerNs(other)));

        // Aligned at attention, picked in the operations table: the lanes are its two starts apart, in
        // cycles.
        QTest::mouseClick(cw->alignBox(), Qt::LeftButton, {}, QPoint(4, cw->alignBox()->height() / 2));
        const int attention = rowOf(ops->model(), QStringLiteral("attention"));
        QVERIFY(attention >= 0);
        ops->scrollTo(ops->model()->index(attention, 0));
        clickRow(ops, attention);
        const std::int64_t apart =
            firstRegion(other, "attention").first - firstRegion(base, "attention").first;
        QVERIFY(apart != 0);
        QCOMPARE(cw->offset(), apart);
        ui::SelectionModel* a = cw->baselineSelection();
        ui::SelectionModel* b = cw->otherSelection();
        QCOMPARE(static_cast<std::int64_t>(b->from()) - static_cast<std::int64_t>(a->from()), apart);
        QVERIFY(static_cast<std::int64_t>(a->from()) <= firstRegion(base, "attention").first &&
                static_cast<std::int64_t>(a->to()) >= firstRegion(base, "attention").second);
        // The profiles' timelines show the same cycles as the lanes, each side its own.
        QCOMPARE(
            cw->baselineDocument()->visibleRange(),
            std::make_pair(static_cast<profile::Ticks>(a->from()), static_cast<profile::Ticks>(a->to())));
        QCOMPARE(cw->otherDocument()->visibleRange(), std::make_pair(static_cast<profile::Ticks>(b->from()),
                                                                     static_cast<profile::Ticks>(b->to())));
        QVERIFY(cw->baselineDocument()->selectedSlice().valid() &&
                cw->otherDocument()->selectedSlice().valid());

        // A wheel zoom in the baseline's profile timeline: the lanes follow, still that far apart.
        cw->viewTabs()->setCurrentIndex(3);
        ui::ProfileTimelineView* upper = cw->baselineTimeline();
        QTRY_VERIFY(!upper->pointAt(cw->baselineDocument()->selectedSlice()).isNull());
        const QPointF at = upper->pointAt(cw->baselineDocument()->selectedSlice());
        const std::uint64_t before = a->to() - a->from();
        QWheelEvent wheel(at, upper->mapToGlobal(at), {}, {0, 240}, Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(upper, &wheel);
        QVERIFY(a->to() - a->from() < before);
        QCOMPARE(std::make_pair(static_cast<profile::Ticks>(a->from()), static_cast<profile::Ticks>(a->to())),
                 cw->baselineDocument()->visibleRange());
        QCOMPARE(static_cast<std::int64_t>(b->from()) - static_cast<std::int64_t>(a->from()), apart);
        QCOMPARE(b->to() - b->from(), a->to() - a->from());
        test::saveTabShots(cw, cw->tableTabs(), QStringLiteral("compare-replays"));
    }

    // Stop while the two runs' profiles are being made: the runs' comparison stays, the operations are not
    // compared, and the window says so.
    void stoppingTheProfilesLeavesTheRunsCompared()
    {
        ui::MainWindow w(false);
        ui::ComparisonWindow* cw = naiveBesideTuned(w);
        QVERIFY(cw);
        QSignalSpy profilesCompared(cw, &ui::ComparisonWindow::profilesCompared);
        QTRY_VERIFY_WITH_TIMEOUT(cw->deltas()->rowCount() > 0, 30000);
        QVERIFY(!cw->stopButton()->isEnabled()); // nothing running
        QTabBar* tableBar = cw->tableTabs()->tabBar();
        QTest::mouseClick(tableBar, Qt::LeftButton, {}, tableBar->tabRect(1).center());
        QVERIFY(cw->stopButton()->isEnabled());
        QTest::mouseClick(cw->stopButton(), Qt::LeftButton); // before a profile can arrive
        QVERIFY(!cw->stopButton()->isEnabled());
        QVERIFY2(cw->verdict().startsWith(QStringLiteral("The other run took")) &&
                     cw->verdict().endsWith(QStringLiteral("the operations are not compared.")),
                 qPrintable(cw->verdict()));
        QTest::qWait(300);
        QCOMPARE(profilesCompared.count(), 0);
        QVERIFY(!cw->baselineDocument()->run() && !cw->otherDocument()->run());
        QCOMPARE(cw->model(1)->rowCount(), 0);
        QVERIFY(cw->deltas()->rowCount() > 0);
    }
};

QTEST_MAIN(TestUiCompare)
#include "tst_ui_compare.moc"

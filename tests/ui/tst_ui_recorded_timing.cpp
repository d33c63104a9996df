// Replay against the real chip in the explorer: a trace that carries region durations recorded on the
// chip gets a "Recorded timing" tab that lists every recorded instance worst first under calibration's
// measures, and a click on one shows its replayed cycles in the timeline; a trace without any gets no tab.
#include "main_window.h"
#include "replayer.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "trace/trace_io.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/recorded_timing_model.h"
#include "views/recorded_timing_view.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QTableView>
#include <QTemporaryDir>

#include <cmath>
#include <map>

using namespace xps;

namespace {

struct RecordedFixture
{
    QString path;
    std::string worstRegion;      // recorded 1.5x faster than the replay: +50%
    std::uint64_t worstEnter = 0; // its replayed cycles
    std::uint64_t worstExit = 0;
    std::size_t replayedInstances = 0;
};

// decode_naive with every region instance "recorded" within 20% of its replay, the first 1.5x faster than
// the replay (the worst, +50%), and one instance the replay never reaches.
RecordedFixture writeRecordedDecode(const QTemporaryDir& dir)
{
    RecordedFixture f;
    Result<trace::Trace> t =
        trace::loadTrace(test::sourceDir() + "/resources/samples/decode_naive.xtrace.json");
    if (!t.ok())
        return f;
    events::EventStore store;
    sim::ReplayOptions timing;
    timing.mode = sim::ReplayMode::TimingOnly;
    sim::replay(*t, timing, store);
    trace::RecordedTiming recorded;
    std::map<std::pair<ChipId, std::uint32_t>, std::uint64_t> instances;
    int k = 0;
    for (const ChipId chip : idsBelow<ChipId>(t->chips.size()))
        for (const events::StoreSlice& r :
             store.slices(store.regionTrack(chip))) { // in the order they exited
            const std::string name = t->chips[chip.value].symbols.regions[events::regionOf(r)].name;
            const std::uint64_t instance = instances[{chip, events::regionOf(r)}]++;
            const double factor = k == 0 ? 1.5 : 0.85 + 0.05 * (k % 7); // replayed / recorded
            if (k == 0) {
                f.worstRegion = name;
                f.worstEnter = r.start;
                f.worstExit = r.end();
            }
            ++k;
            recorded.regions.push_back(
                {chip, name, instance, static_cast<std::uint64_t>(std::llround(r.duration / factor))});
        }
    f.replayedInstances = recorded.regions.size();
    recorded.regions.push_back({ChipId(0), f.worstRegion, 999, 1000}); // never reached
    t->recorded = std::move(recorded);
    f.path = dir.filePath(QStringLiteral("decode_recorded.xtrace.json"));
    if (!trace::saveTrace(*t, f.path.toStdString()).ok())
        f.path.clear();
    return f;
}

QDockWidget* dockOf(QWidget* view)
{
    for (QWidget* w = view; w; w = w->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(w))
            return dock;
    return nullptr;
}

} // namespace

class TestUiRecordedTiming : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void recordedTimingIsListedWorstFirstAndAClickShowsTheInstance()
    {
        QTemporaryDir dir;
        const RecordedFixture f = writeRecordedDecode(dir);
        QVERIFY(!f.path.isEmpty());
        QVERIFY(f.replayedInstances > 5);

        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(f.path);
        QVERIFY(test::waitDone(w));
        auto* view = qobject_cast<ui::RecordedTimingView*>(w.viewByName(QStringLiteral("recorded")));
        QVERIFY(view);
        QAbstractItemModelTester tester(view->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QDockWidget* dock = dockOf(view);
        QVERIFY(dock);
        QVERIFY(!dock->isHidden()); // the tab is there for a trace with recorded timing
        test::raiseDockOf(view);
        QTRY_VERIFY(view->isVisible());

        // The headline: calibration's measures over what was replayed, the worst instance named.
        const QString headline = view->headline();
        QVERIFY2(headline.contains(QStringLiteral("%1 of %2 recorded region instances replayed")
                                       .arg(f.replayedInstances)
                                       .arg(f.replayedInstances + 1)),
                 qPrintable(headline));
        QVERIFY2(headline.contains(
                     QStringLiteral("worst +50.0% (%1 #0)").arg(QString::fromStdString(f.worstRegion))),
                 qPrintable(headline));

        // Worst first: the instance never reached, then the +50% one, then errors within 20%.
        QTableView* table = view->table();
        QAbstractItemModel* rows = table->model();
        QCOMPARE(rows->rowCount(), static_cast<int>(f.replayedInstances + 1));
        using M = ui::RecordedTimingModel;
        QCOMPARE(rows->index(0, M::Replayed).data().toString(), QStringLiteral("not reached"));
        QCOMPARE(rows->index(0, M::Instance).data().toULongLong(), 999ULL);
        QCOMPARE(rows->index(1, M::Error).data().toString(), QStringLiteral("+50.0%"));
        QCOMPARE(rows->index(1, M::Region).data().toString(), QString::fromStdString(f.worstRegion));
        for (int row = 2; row < rows->rowCount(); ++row) {
            const double error = rows->index(row, M::Error).data().toString().chopped(1).toDouble();
            QVERIFY2(std::abs(error) <= 20.5, qPrintable(rows->index(row, M::Error).data().toString()));
        }
        // Slower and faster read in different colours.
        const QColor slower = rows->index(1, M::Error).data(Qt::ForegroundRole).value<QColor>();
        QVERIFY(slower.isValid());
        QVERIFY(rows->index(2, M::Error).data(Qt::ForegroundRole).value<QColor>() != slower ||
                rows->index(2, M::Error).data().toString().startsWith(QLatin1Char('+')));
        // The bar column carries the signed error for its delegate; none where the replay never got there.
        QCOMPARE(rows->index(1, M::ErrorBar).data(M::SignedErrorRole).toDouble(), 50.0);
        QVERIFY(!rows->index(0, M::ErrorBar).data(M::SignedErrorRole).isValid());

        // A click on the +50% row moves the views to that instance (a tenth of its length each side).
        const QRect cell = table->visualRect(rows->index(1, M::Region));
        QVERIFY(cell.isValid());
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        const std::uint64_t length = f.worstExit - f.worstEnter;
        const std::uint64_t margin = std::max<std::uint64_t>(length / 10, 1);
        QCOMPARE(w.selection()->from(), f.worstEnter > margin ? f.worstEnter - margin : 0);
        QCOMPARE(w.selection()->to(), f.worstExit + margin);
        QVERIFY(w.statusText().contains(QStringLiteral("recorded timing")) || !w.selection()->following());

        // A click on the instance never reached changes nothing.
        const QRect never = table->visualRect(rows->index(0, M::Region));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, never.center());
        QCOMPARE(w.selection()->to(), f.worstExit + margin);

        // Another trace without recorded timing: no tab; shown from the View menu, it says why it is empty.
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/matmul_tuned.xtrace.json"));
        QVERIFY(test::waitDone(w));
        QTRY_VERIFY(dock->isHidden());
        QVERIFY(!view->hasRecordedTiming());
        dock->toggleViewAction()->trigger();
        QTRY_VERIFY(view->isVisible());
        QVERIFY2(view->headline().contains(QStringLiteral("carries no recorded hardware timing")),
                 qPrintable(view->headline()));
        QCOMPARE(view->table()->model()->rowCount(), 0);
    }
};

QTEST_MAIN(TestUiRecordedTiming)
#include "tst_ui_recorded_timing.moc"

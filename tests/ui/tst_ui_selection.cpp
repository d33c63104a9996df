// Every selectable event drives every view: a click on a sync wait in the timeline re-centres the
// dependency graph on the wait, and the DMA lanes stop showing a DMA that is no longer selected (on
// decode_naive, a click on a wait left the graph on its previous DMA and the lanes' detail on an old one).
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/dependency_graph_view.h"
#include "views/dma_lanes_view.h"
#include "views/timeline_view.h"

#include <QDockWidget>

#include "widgets/qcustomplot.h"

using namespace xps;

class TestUiSelection : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void clickingASyncWaitDrivesTheGraphAndTheDmaLanes()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/decode_naive.xtrace.json"));
        QVERIFY(test::waitDone(w));
        auto* graph = qobject_cast<ui::DependencyGraphView*>(w.viewByName(QStringLiteral("graph")));
        auto* dma = qobject_cast<ui::DmaLanesView*>(w.viewByName(QStringLiteral("dma")));
        QVERIFY(graph && dma);
        test::raiseDockOf(graph);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && !test::replayGraph(graph).nodes.empty(), 10000);

        // First a DMA, as the person did: the graph and the lanes show it.
        const ui::Run* run = w.session()->run();
        const events::DmaRecord someDma = run->store.dmas().front();
        ui::TimelineView* timeline = w.timeline();
        const int dmaRow = timeline->rowOfLane(QStringLiteral("DMA %1").arg(someDma.engine), ChipId(0));
        QVERIFY(dmaRow >= 0);
        timeline->canvas()->repaint();
        QTest::mouseClick(timeline->canvas(), Qt::LeftButton, {},
                          timeline->pointAt(dmaRow, static_cast<double>(someDma.start + someDma.end) / 2));
        QCOMPARE(w.selection()->selection().dmas, std::vector<std::uint32_t>{someDma.id});
        QVERIFY(dma->details().contains(QStringLiteral("DMA #%1").arg(someDma.id)));
        // Its flows: an arrow to every wait it ended, as an imported profile draws a selected slice's flows.
        int endedWaits = 0;
        for (const events::SyncWaitRecord& x : run->store.syncWaits())
            endedWaits += x.satisfiedBy == static_cast<std::int64_t>(someDma.id);
        QVERIFY(endedWaits > 0);
        w.selection()->setTimeRange(0, run->lanes->endCycle()); // every end on screen
        timeline->canvas()->repaint();
        QCOMPARE(timeline->canvas()->drawnFlows(), endedWaits);

        // Then a sync wait: the longest on chip 0 (the report's instance, "wait f1" at pc 658, was in an
        // earlier build of this sample), clicked in the sync waits lane.
        events::SyncWaitRecord wait;
        bool found = false;
        for (const events::SyncWaitRecord& x : run->store.syncWaits())
            if (x.chip == ChipId(0) && (!found || x.end - x.start > wait.end - wait.start)) {
                wait = x;
                found = true;
            }
        QVERIFY(found && wait.end - wait.start > 100);
        const int waitRow = timeline->rowOfLane(QStringLiteral("sync waits"), ChipId(0));
        QVERIFY(waitRow >= 0);
        QTest::mouseClick(timeline->canvas(), Qt::LeftButton, {},
                          timeline->pointAt(waitRow, static_cast<double>(wait.start + wait.end) / 2));
        const ui::Selection& s = w.selection()->selection();
        QVERIFY(s.containsPc(ChipId(0), wait.pc));
        QVERIFY(s.focus.has_value() && s.focus->kind == analysis::NodeRef::Kind::Bundle);
        QCOMPARE(run->store.bundles()[s.focus->index].pc, wait.pc);
        QCOMPARE(run->store.bundles()[s.focus->index].cycle, wait.end);
        // The graph re-centres on the wait; the lanes show the DMA that ended it, or say none did.
        QTRY_VERIFY_WITH_TIMEOUT(test::replayCentre(graph) == s.focus && !graph->isLayingOut(), 10000);
        QCOMPARE(test::replayGraph(graph).nodes.front().ref, *s.focus);
        if (wait.satisfiedBy >= 0)
            QVERIFY(dma->details().contains(QStringLiteral("DMA #%1").arg(wait.satisfiedBy)));
        else
            QVERIFY2(dma->details().contains(QStringLiteral("not a transfer")), qPrintable(dma->details()));
        QVERIFY(wait.satisfiedBy == static_cast<std::int64_t>(someDma.id) ||
                !dma->details().contains(QStringLiteral("DMA #%1 ").arg(someDma.id)));
    }
};

QTEST_MAIN(TestUiSelection)
#include "tst_ui_selection.moc"

// Imported profiles in the explorer, clicked as a user clicks: a Kineto profile in the profile explorer
// (timeline, tables, panels, flows), a replay seen as a profile and back to the replay views, a Chakra
// profile's dependency graph, cancelling an import, the repairs an import made, and a broken file's located
// message.
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_graph_source.h"
#include "imported/profile_ops_model.h"
#include "imported/profile_panels.h"
#include "imported/profile_timeline_view.h"
#include "imported/profile_transfers_view.h"
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "test_support.h"
#include "trace/trace_io.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/dependency_graph_view.h"
#include "views/disassembly_model.h"
#include "views/disassembly_view.h"
#include "views/dma_lanes_view.h"
#include "views/event_text.h"
#include "views/graph_canvas.h"
#include "views/notes_view.h"
#include "views/suggestions_view.h"
#include "views/summary_view.h"
#include "views/timeline_view.h"
#include "views/vmem_heatmap_view.h"
#include "widgets/qcustomplot.h"
#include "workloads/workloads.h"
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>

using namespace xps;
using test::distinctColours;
using test::waitDone;

namespace {

QToolButton* toolButtonOf(ui::MainWindow& w, QAction* action)
{
    for (QToolBar* bar : w.findChildren<QToolBar*>())
        if (auto* b = qobject_cast<QToolButton*>(bar->widgetForAction(action)))
            return b;
    return nullptr;
}

QString sample(const char* name)
{
    return QString::fromStdString(test::sourceDir()) + QStringLiteral("/resources/samples/") +
           QString::fromUtf8(name);
}

} // namespace

class TestUiProfiles : public test::UiTestSuite
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeTrace(const char* name, const char* text) { return test::writeTextFile(m_dir, name, text); }

private slots:
    void anImportedProfileOpensInTheProfileExplorer()
    {
        ui::MainWindow w(false);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        ui::ProfileExplorer* explorer = w.profileExplorer();
        QVERIFY(explorer->isVisible());
        QVERIFY(!w.timeline()->isVisible()); // the replay's views make way
        const auto* run = w.profileDocument()->run();

        // Rows: the device with its two streams first (what the profile is about), then the host process
        // and its thread.
        ui::ProfileTimelineView* timeline = explorer->timeline();
        QStringList labels;
        for (int r = 0; r < timeline->rowCount(); ++r)
            labels << timeline->rowLabel(r);
        QCOMPARE(labels.first(), QStringLiteral("GPU 0"));
        QVERIFY(labels.contains(QStringLiteral("python 100")));
        QVERIFY(labels.indexOf(QStringLiteral("stream 7")) > labels.indexOf(QStringLiteral("GPU 0")));
        QVERIFY(labels.indexOf(QStringLiteral("main thread")) > labels.indexOf(QStringLiteral("stream 7")));
        QTRY_VERIFY(timeline->paintedRows() == timeline->rowCount());
        QVERIFY(distinctColours(timeline) > 8);

        // A click on the first sgemm selects it; the details name it and its launch.
        profile::SliceRow sgemm, launch;
        for (std::uint32_t i = 0; i < run->profile.slices.size() && !sgemm.valid(); ++i)
            if (run->profile.nameOf(run->profile.slices[i]) == "sgemm_128x64")
                sgemm = profile::SliceRow(i);
        for (const profile::Flow& f : run->profile.flows)
            if (f.to == sgemm)
                launch = f.from;
        QVERIFY(sgemm.valid() && launch.valid());
        const QPoint at = timeline->pointAt(sgemm);
        QVERIFY(!at.isNull());
        QTest::mouseClick(timeline, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(w.profileDocument()->selectedSlice(), sgemm);
        // The status bar names what was picked, as it does for the replay's views.
        const QString stage = w.findChild<QLabel*>(QStringLiteral("stageLabel"))->text();
        QVERIFY2(stage == QStringLiteral("Selected from timeline: sgemm_128x64"), qPrintable(stage));
        const QString details = explorer->details()->text();
        QVERIFY2(details.contains(QStringLiteral("sgemm_128x64")) &&
                     details.contains(QStringLiteral("GPU 0 / stream 7")) &&
                     details.contains(QStringLiteral("200 us")) && details.contains(QStringLiteral("grid")),
                 qPrintable(details));
        QVERIFY(details.contains(QStringLiteral("from cudaLaunchKernel")));
        // Following the flow link selects the launch on the host thread.
        emit explorer->details()->browser()->anchorClicked(
            QUrl(QStringLiteral("slice:%1").arg(launch.value)));
        QCOMPARE(w.profileDocument()->selectedSlice(), launch);

        // Wheel zoom at the pointer narrows the range around it; the slice under the pointer stays put.
        const auto before = w.profileDocument()->visibleRange();
        const QPoint zoomAt = timeline->pointAt(sgemm);
        QWheelEvent wheel(zoomAt, timeline->mapToGlobal(zoomAt), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(timeline, &wheel);
        const auto after = w.profileDocument()->visibleRange();
        QVERIFY(after.second - after.first < before.second - before.first);
        QCOMPARE(timeline->sliceAt(zoomAt), sgemm);
        // Home (the replay's key too: one timeline widget) shows the whole profile again.
        timeline->setFocus();
        QTest::keyClick(timeline, Qt::Key_Home);
        const profile::Profile& shown = w.profileDocument()->run()->profile;
        QCOMPARE(w.profileDocument()->visibleRange(), std::make_pair(shown.startTime(), shown.endTime()));
        QApplication::sendEvent(timeline, &wheel);

        // The summary says what the CLI says; clicking the first finding shows the exposed copy.
        QVERIFY2(explorer->summary()->text().contains(QStringLiteral("memcpy 200 us (exposed 200 us)")),
                 qPrintable(explorer->summary()->text()));
        // And the TensorBoard plugin's overview of its one step: what the average step spent its time on.
        QVERIFY2(explorer->summary()->text().contains(
                     QStringLiteral("Steps ProfilerStep#1: average 1.000 ms (Kernel 40")),
                 qPrintable(explorer->summary()->text()));
        QTreeWidget* findings = explorer->summary()->findings();
        QCOMPARE(findings->topLevelItemCount(), 3);
        QTest::mouseClick(findings->viewport(), Qt::LeftButton, Qt::NoModifier,
                          findings->visualItemRect(findings->topLevelItem(0)).center());
        const profile::Slice& copy = run->profile.slice(w.profileDocument()->selectedSlice());
        QCOMPARE(run->profile.nameOf(copy), std::string("Memcpy HtoD (Pageable -> Device)"));
        const auto range = w.profileDocument()->visibleRange();
        QVERIFY(range.first <= copy.start && copy.end() <= range.second);
        QVERIFY(explorer->summary()->findingText().contains(QStringLiteral("with no compute beside it")));

        // Operations: filter to aten ops, double-click the first to show its longest instance.
        QTableView* table = explorer->operations()->table();
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
        QVERIFY(proxy);
        QAbstractItemModelTester tester(proxy->sourceModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTest::keyClicks(explorer->operations()->filter(), QStringLiteral("aten::"));
        QCOMPARE(table->model()->rowCount(), 4); // mm, copy_, relu, add
        const QModelIndex first = table->model()->index(0, ui::ProfileOpsModel::Name);
        QCOMPARE(first.data().toString(), QStringLiteral("aten::mm")); // by total time
        // A person's double-click: the first press, then the double-click event.
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier,
                          table->visualRect(first).center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, Qt::NoModifier,
                           table->visualRect(first).center());
        QCOMPARE(run->profile.nameOf(run->profile.slice(w.profileDocument()->selectedSlice())),
                 std::string("aten::mm"));

        // Transfers: a click on the tab shows the copy alone in its stream's lane, with its bandwidth under
        // it; a click on the copy says its size and rate.
        auto* middle = explorer->findChild<QTabWidget*>(QStringLiteral("profileMiddleTabs"));
        QVERIFY(middle);
        QTest::mouseClick(middle->tabBar(), Qt::LeftButton, Qt::NoModifier,
                          middle->tabBar()->tabRect(middle->indexOf(explorer->transfers())).center());
        QVERIFY(explorer->transfers()->isVisible());
        ui::ProfileTimelineView* lanes = explorer->transfers()->lanes();
        QStringList laneLabels;
        for (int r = 0; r < lanes->rowCount(); ++r)
            laneLabels << lanes->rowLabel(r);
        QCOMPARE(laneLabels, (QStringList{QStringLiteral("GPU 0"), QStringLiteral("stream 7")}));
        QVERIFY(explorer->transfers()->details().contains(QStringLiteral("1 transfer, 4.00 MiB")));
        // (The whole step in view: the double-click above zoomed to aten::mm, before the copy.)
        w.profileDocument()->setVisibleRange(run->profile.startTime(), run->profile.endTime());
        QCOMPARE(explorer->transfers()->bandwidth()->graphCount(), 1);
        const profile::SliceRow copyIndex(static_cast<std::uint32_t>(&copy - run->profile.slices.data()));
        QTRY_VERIFY(!lanes->pointAt(copyIndex).isNull());
        QTest::mouseClick(lanes, Qt::LeftButton, Qt::NoModifier, lanes->pointAt(copyIndex));
        QCOMPARE(w.profileDocument()->selectedSlice(), copyIndex);
        QVERIFY2(
            explorer->transfers()->details().contains(QStringLiteral("4.00 MiB in 200 us = <b>21.0 GB/s")),
            qPrintable(explorer->transfers()->details()));
        double peak = 0;
        for (auto it = explorer->transfers()->bandwidth()->graph(0)->data()->begin();
             it != explorer->transfers()->bandwidth()->graph(0)->data()->end(); ++it)
            peak = std::max(peak, it->value);
        QVERIFY2(std::abs(peak - 4194304.0 / 200000.0) < 0.01, qPrintable(QString::number(peak)));

        // Opening a replay brings the replay views back.
        w.openFile(sample("vector_add.xasm"));
        QVERIFY(waitDone(w));
        QTRY_VERIFY(w.timeline()->isVisible());
        QVERIFY(!explorer->isVisible());
        QVERIFY(w.summary()->isVisible());
    }

    void aReplayOpensInTheProfileExplorerAndBack()
    {
        // The toolbar's "Replay as a profile" shows the analysed replay in the profile explorer (the same
        // views and analyses an import gets); clicking it again brings the replay's views back.
        ui::MainWindow w(false);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* action = w.replayAsProfileAction();
        QVERIFY(!action->isEnabled()); // nothing replayed yet
        w.openFile(sample("matmul_naive.xtrace.json"));
        QVERIFY(waitDone(w));
        QVERIFY(action->isEnabled());
        QToolButton* button = nullptr;
        for (QToolBar* bar : w.findChildren<QToolBar*>())
            if (auto* b = qobject_cast<QToolButton*>(bar->widgetForAction(action)))
                button = b;
        QVERIFY(button && button->isVisible());
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr && w.profileExplorer()->isVisible(),
                                 20000);
        QVERIFY(action->isChecked());
        QVERIFY(!w.timeline()->isVisible());
        ui::ProfileExplorer* explorer = w.profileExplorer();

        // One device with its regions, units, DMA engines and waits, drawn.
        ui::ProfileTimelineView* timeline = explorer->timeline();
        QStringList labels;
        for (int r = 0; r < timeline->rowCount(); ++r)
            labels << timeline->rowLabel(r);
        for (const char* row : {"chip 0", "regions", "MXU", "DMA engine 0", "sync waits"})
            QVERIFY2(labels.contains(QString::fromUtf8(row)), qPrintable(labels.join(QStringLiteral(", "))));
        QVERIFY(labels.indexOf(QStringLiteral("MXU")) < labels.indexOf(QStringLiteral("DMA engine 0")));
        QTRY_VERIFY(timeline->paintedRows() == timeline->rowCount());
        QVERIFY(distinctColours(timeline) > 8);
        // Its axis in time at round steps, though it counts cycles (20/21 ns each).
        QVERIFY2(test::axisLabelProblem(timeline).isEmpty(), qPrintable(test::axisLabelProblem(timeline)));
        // The summary: the chip's compute and DMA time, and a finding in the replay's words.
        const QString summary = explorer->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("xpushark replay (GRM)")) &&
                     summary.contains(QStringLiteral("chip 0")),
                 qPrintable(summary));
        QTreeWidget* findings = explorer->summary()->findings();
        QVERIFY(findings->topLevelItemCount() >= 1);
        QCOMPARE(findings->topLevelItem(0)->text(0), QStringLiteral("DMAs on chip 0 are exposed"));

        // A click on a DMA in the timeline: its details say what it moved.
        const auto* run = w.profileDocument()->run();
        profile::SliceRow dma;
        for (std::uint32_t i = 0; i < run->profile.slices.size() && !dma.valid(); ++i)
            if (run->profile.nameOf(run->profile.slices[i]) == "DMA HBM->VMEM")
                dma = profile::SliceRow(i);
        QVERIFY(dma.valid());
        w.profileDocument()->reveal(dma, QStringLiteral("test"));
        QTRY_VERIFY(!timeline->pointAt(dma).isNull());
        QTest::mouseClick(timeline, Qt::LeftButton, Qt::NoModifier, timeline->pointAt(dma));
        QCOMPARE(w.profileDocument()->selectedSlice(), dma);
        const QString details = explorer->details()->text();
        QVERIFY2(details.contains(QStringLiteral("DMA HBM->VMEM")) &&
                     details.contains(QStringLiteral("bytes")) &&
                     details.contains(QStringLiteral("DMA engine")),
                 qPrintable(details));
        // The replay's own views select the same DMA and its issuing pc.
        const ui::Selection picked = w.selection()->selection();
        QCOMPARE(picked.dmas.size(), std::size_t(1));
        QCOMPARE(picked.dmas[0], run->profile.slice(dma).link - 1);
        QCOMPARE(picked.pcs.size(), std::size_t(1));
        const auto visible = w.profileDocument()->visibleRange();

        // Its DMAs are the transfers: the Transfers tab has the engines' lanes and each chip's bandwidth.
        auto* middle = explorer->findChild<QTabWidget*>(QStringLiteral("profileMiddleTabs"));
        QTest::mouseClick(middle->tabBar(), Qt::LeftButton, Qt::NoModifier,
                          middle->tabBar()->tabRect(middle->indexOf(explorer->transfers())).center());
        QStringList lanes;
        for (int r = 0; r < explorer->transfers()->lanes()->rowCount(); ++r)
            lanes << explorer->transfers()->lanes()->rowLabel(r);
        QVERIFY2(lanes.contains(QStringLiteral("DMA engine 0")) && !lanes.contains(QStringLiteral("MXU")),
                 qPrintable(lanes.join(QStringLiteral(", "))));
        QVERIFY2(explorer->transfers()->details().contains(QStringLiteral("<b>DMA HBM-&gt;VMEM</b>")),
                 qPrintable(explorer->transfers()->details()));
        QCOMPARE(explorer->transfers()->bandwidth()->graphCount(), 1);

        // Back to the replay's views, and to the same profile again without converting twice.
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY(w.timeline()->isVisible());
        QVERIFY(!explorer->isVisible());
        QVERIFY(w.summary()->isVisible());
        QVERIFY(!action->isChecked());
        // ... at the time range the profile showed (a replay's profile counts its cycles), the DMA still
        // selected.
        const auto cycleOf = [](profile::Ticks t) { return std::max(0.0, static_cast<double>(t)); };
        QVERIFY2(std::abs(static_cast<double>(w.selection()->from()) - cycleOf(visible.first)) <= 1.0 &&
                     std::abs(static_cast<double>(w.selection()->to()) - cycleOf(visible.second)) <= 1.0,
                 qPrintable(QStringLiteral("%1..%2 cycles for %3..%4 ticks")
                                .arg(w.selection()->from())
                                .arg(w.selection()->to())
                                .arg(visible.first)
                                .arg(visible.second)));
        QCOMPARE(w.selection()->selection().dmas, picked.dmas);
        // One selection for both pages: another DMA, clicked in the replay's timeline, is the slice the
        // profile explorer shows selected when it comes back.
        std::optional<events::DmaRecord> other;
        for (const events::DmaRecord& d : w.session()->run()->store.dmas())
            if (d.id != picked.dmas[0] && d.end > d.start + 20 && !other)
                other = d;
        QVERIFY(other);
        w.selection()->setTimeRange(other->start > 200 ? other->start - 200 : 0, other->end + 200);
        const int otherRow = w.timeline()->rowOfLane(QStringLiteral("DMA %1").arg(other->engine), ChipId(0));
        QVERIFY(otherRow >= 0);
        w.timeline()->canvas()->repaint();
        QTest::mouseClick(
            w.timeline()->canvas(), Qt::LeftButton, {},
            w.timeline()->pointAt(otherRow, static_cast<double>(other->start + other->end) / 2));
        QCOMPARE(w.selection()->selection().dmas, std::vector<std::uint32_t>{other->id});
        const ui::ProfileRun* converted = w.profileDocument()->run();
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY(explorer->isVisible());
        QCOMPARE(w.profileDocument()->run(), converted);
        const profile::SliceRow otherSlice = w.profileDocument()->selectedSlice();
        QVERIFY(otherSlice.valid() && otherSlice != dma);
        QCOMPARE(converted->profile.slice(otherSlice).link, other->id + 1);
        const QString otherName =
            QString::fromStdString(converted->profile.nameOf(converted->profile.slice(otherSlice)));
        QVERIFY(otherName.startsWith(QStringLiteral("DMA ")));
        QVERIFY2(explorer->details()->text().contains(otherName), qPrintable(explorer->details()->text()));
        QVERIFY(timeline->rowOf(otherSlice) >= 0);
    }

    void exportChromeWritesWhatTheWindowShows()
    {
        // File > Export Chrome/Perfetto trace goes through the one exporter: an imported profile re-imports
        // as itself; a replay is written with its bundle rows, also while it is seen as a profile.
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        const QString profilePath = m_dir.filePath(QStringLiteral("step-perfetto.json"));
        w.exportChromeTrace(profilePath);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage() == QStringLiteral("Wrote ") + profilePath,
                                 10000);
        auto again = importing::importProfile(profilePath.toStdString());
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), w.profileDocument()->run()->profile.slices.size());
        QCOMPARE(again->flows.size(), w.profileDocument()->run()->profile.flows.size());

        w.openFile(sample("matmul_naive.xtrace.json"));
        QVERIFY(waitDone(w));
        QTest::mouseClick(toolButtonOf(w, w.replayAsProfileAction()), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileExplorer()->isVisible() && w.profileDocument()->run() &&
                                     !w.profileDocument()->run()->fromFile,
                                 20000);
        const QString replayPath = m_dir.filePath(QStringLiteral("matmul-perfetto.json"));
        w.exportChromeTrace(replayPath);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage() == QStringLiteral("Wrote ") + replayPath,
                                 20000);
        const std::string text = test::readFile(replayPath.toStdString());
        QVERIFY(text.find("\"name\":\"thread_name\",\"args\":{\"name\":\"bundles\"}") != std::string::npos);
        QVERIFY(text.find("\"cat\":\"bundle\"") != std::string::npos);
        QVERIFY(importing::importProfile(replayPath.toStdString()).ok());
    }

    void cancellingAChromeExportWritesNothing()
    {
        // A 4-chip stress replay of 200,000 bundles writes about 110 MB: Cancel in the export's progress
        // dialog stops it, says so, and leaves no file.
        auto t = workloads::generate("stress", "", {{"bundles", std::int64_t{200000}}});
        QVERIFY(t.ok());
        const QString tracePath = m_dir.filePath(QStringLiteral("stress_export.xtrace.json"));
        QVERIFY(trace::saveTrace(*t, tracePath.toStdString()).ok());
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(tracePath);
        QVERIFY(waitDone(w));
        const QString out = m_dir.filePath(QStringLiteral("stress-perfetto.json"));
        w.exportChromeTrace(out);
        auto* dialog = w.findChild<QProgressDialog*>(QStringLiteral("chromeExportProgress"));
        QVERIFY(dialog);
        dialog->show(); // as it shows itself after 300 ms of work
        QPushButton* cancel = nullptr;
        for (QPushButton* b : dialog->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(
            w.statusBar()->currentMessage().startsWith(QStringLiteral("Export cancelled")), 10000);
        QVERIFY(!QFile::exists(out));
        QTRY_VERIFY(w.findChild<QProgressDialog*>(QStringLiteral("chromeExportProgress")) == nullptr);
    }

    void aChakraProfileDrawsItsDependencies()
    {
        ui::MainWindow w(false);
        w.resize(1500, 950);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/resources/samples/ddp_step/step.0.et"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        const profile::Profile& p = w.profileDocument()->run()->profile;
        ui::ProfileExplorer* explorer = w.profileExplorer();
        // The Dependencies tab, clicked like a person.
        auto* tabs = explorer->findChild<QTabWidget*>(QStringLiteral("profileMiddleTabs"));
        QVERIFY(tabs);
        QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, Qt::NoModifier,
                          tabs->tabBar()->tabRect(1).center());
        ui::DependencyGraphView* graph = explorer->graph();
        const auto* source = qobject_cast<const ui::ProfileGraphSource*>(graph->source());
        QVERIFY(graph->isVisible() && source);
        const auto centre = [&] { return ui::ProfileGraphSource::sliceOf(graph->centre().value()); };
        // Before anything is selected it shows the critical path's longest communication and what it
        // depended on: several slices joined by flows that are the profile's own.
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && source->graph().slices.size() > 2, 10000);
        const profile::FlowGraph& g = source->graph();
        QCOMPARE(g.slices.front(), centre());
        QCOMPARE(p.classOf(p.slices[centre()]), profile::SliceClass::Communication);
        QVERIFY(!g.edges.empty());
        for (const profile::FlowGraph::Edge& e : g.edges) {
            QCOMPARE(p.flows[e.flow].from, profile::SliceRow(g.slices[e.from]));
            QCOMPARE(p.flows[e.flow].to, profile::SliceRow(g.slices[e.to]));
        }
        QVERIFY2(graph->info().contains(QStringLiteral("within 2 flows")), qPrintable(graph->info()));
        const std::uint32_t initial = centre();

        // A click on a node selects its slice: the details beside the graph describe it.
        const std::uint32_t other = g.slices[1];
        QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          graph->viewportPosition(1));
        QCOMPARE(w.profileDocument()->selectedSlice(), profile::SliceRow(other));
        QVERIFY(explorer->details()->text().contains(QString::fromStdString(p.nameOf(p.slices[other]))));
        QVERIFY(graph->isHighlighted(1) && !graph->isHighlighted(0));
        QCOMPARE(centre(), initial); // a click does not rebuild the graph

        // A double-click centres the graph on it.
        QSignalSpy laidOut(graph, &ui::DependencyGraphView::laidOut);
        const QPoint at = graph->viewportPosition(1);
        QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTest::mouseDClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTRY_VERIFY_WITH_TIMEOUT(laidOut.count() > 0 && !graph->isLayingOut(), 10000);
        QCOMPARE(centre(), other);
        QCOMPARE(source->graph().slices.front(), other);

        // Depth 1 keeps only its direct dependencies and dependants.
        auto* depth = graph->findChild<QSpinBox*>(QStringLiteral("graphDepth"));
        QVERIFY(depth);
        depth->setValue(1);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && source->graph().slices.front() == other, 10000);
        for (const int d : source->graph().distance)
            QVERIFY(d <= 1);

        // Back returns to the critical path's communication, as on a replay's graph.
        auto* back = graph->findChild<QToolButton*>(QStringLiteral("graphBackButton"));
        QVERIFY(back && back->isEnabled());
        QTest::mouseClick(back, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(centre() == initial && !graph->isLayingOut(), 10000);
        QCOMPARE(source->graph().slices.front(), initial);
        QVERIFY(!back->isEnabled());

        // Selecting a slice in another view (here the document, as the timeline does) re-centres the graph.
        w.profileDocument()->selectSlice(profile::SliceRow(other), QStringLiteral("timeline"));
        QTRY_VERIFY_WITH_TIMEOUT(centre() == other && !graph->isLayingOut(), 10000);
        QCOMPARE(source->graph().slices.front(), other);

        // Critical path comes back to where the graph started.
        auto* critical = graph->findChild<QToolButton*>(QStringLiteral("graphCriticalButton"));
        QVERIFY(critical);
        QTest::mouseClick(critical, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(centre() == initial && !graph->isLayingOut(), 10000);
    }

    void cancellingAnImportReturnsAtOnceAndDropsIt()
    {
        // About 40 MB of trace: long enough to click Cancel while it imports.
        const std::string json = test::kernelTraceJson(400000);
        const QString path = m_dir.filePath(QStringLiteral("big.json"));
        test::writeFile(path.toStdString(), json);
        ui::MainWindow w(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(path);
        QToolButton* cancel = nullptr;
        for (QToolButton* b : w.findChildren<QToolButton*>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel && cancel->isVisible());
        QElapsedTimer t;
        t.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY2(t.elapsed() < 50,
                 qPrintable(QStringLiteral("Cancel held the GUI thread %1 ms").arg(t.elapsed())));
        QCOMPARE(w.statusText(), QStringLiteral("Import cancelled"));
        QVERIFY(!w.profileDocument()->isBusy());
        QTest::qWait(3000); // the abandoned import would have landed by now
        QVERIFY(w.profileDocument()->run() == nullptr);
        QCOMPARE(w.statusText(), QStringLiteral("Import cancelled"));
    }

    void aProfileThatNeededRepairsListsThem()
    {
        // Two events without "ts" (skipped, the first at $.traceEvents[1]) and a "B" that never ends
        // (closed at the end of the trace).
        const QString path = writeTrace("repaired.json", R"({"traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "dur": 10},
  {"ph": "X", "name": "c", "pid": 1, "tid": 1, "dur": 5},
  {"ph": "B", "name": "open", "pid": 1, "tid": 2, "ts": 3},
  {"ph": "X", "name": "d", "pid": 1, "tid": 1, "ts": 20, "dur": 4}
]})");
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr, 20000);
        auto* summary = w.profileExplorer()->findChild<ui::ProfileSummaryPanel*>();
        QVERIFY(summary);
        QToolButton* toggle = summary->repairsToggle();
        QTRY_VERIFY(toggle->isVisible());
        QCOMPARE(toggle->text(), QStringLiteral("2 import repairs (3 events)"));
        QVERIFY(!summary->repairs()->isVisible()); // folded until asked for
        QTest::mouseClick(toggle, Qt::LeftButton);
        QTRY_VERIFY(summary->repairs()->isVisible());
        QTableWidget* list = summary->repairs();
        QCOMPARE(list->rowCount(), 2);
        QCOMPARE(list->item(0, 0)->text(), QStringLiteral("skipped"));
        QCOMPARE(list->item(0, 1)->text(), QStringLiteral("2"));
        QCOMPARE(list->item(0, 2)->text(),
                 QStringLiteral("events without \"ts\" were skipped; first at $.traceEvents[1]"));
        QCOMPARE(list->item(1, 0)->text(), QStringLiteral("closed"));
        QCOMPARE(list->item(1, 1)->text(), QStringLiteral("1"));
        QVERIFY(list->item(1, 2)->text().contains(QStringLiteral("closed at the end of the trace")));
        // Each repair can be read whole in the narrow panel: its words wrap (the row is taller than one
        // line) and it lies inside the list.
        const QFontMetrics metrics(list->font());
        QTRY_VERIFY(list->rowHeight(0) > metrics.height() * 3 / 2);
        const QRect second = list->visualItemRect(list->item(1, 2));
        QVERIFY2(second.bottom() <= list->viewport()->height(), "the second repair is cut off");
        QTest::mouseClick(toggle, Qt::LeftButton);
        QTRY_VERIFY(!list->isVisible());

        // A profile read without repairs shows no toggle.
        w.openFile(QString::fromStdString(test::sourceDir()) +
                   QStringLiteral("/tests/data/kineto_step.json"));
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr &&
                                     w.profileDocument()->run()->profile.source.ends_with("kineto_step.json"),
                                 20000);
        QTRY_VERIFY(!toggle->isVisible());
        QCOMPARE(list->rowCount(), 0);
    }

    void aBrokenProfileShowsWhereItBroke()
    {
        ui::MainWindow w(false);
        w.show();
        const QString bad =
            writeTrace("broken.pt.trace.json", "{\"traceEvents\": [\n  {\"ph\": \"X\" \"ts\": 1}\n]}\n");
        w.openFile(bad);
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = w.findChild<QMessageBox*>(QStringLiteral("openError"))) != nullptr,
                                 10000);
        QVERIFY2(box->text().contains(QStringLiteral("broken.pt.trace.json:2:14")), qPrintable(box->text()));
        QVERIFY2(box->text().contains(QStringLiteral("expected ',' or '}'")), qPrintable(box->text()));
        QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
    }
};

QTEST_MAIN(TestUiProfiles)
#include "tst_ui_profiles.moc"

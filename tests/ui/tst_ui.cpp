// The explorer as a person uses it: open a trace, wait for the replay, read every view, click a
// suggestion, click the timeline, apply and compare, cancel a long replay, open a broken file.

#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_ops_model.h"
#include "imported/profile_panels.h"
#include "imported/profile_timeline_view.h"
#include "imported/profile_transfers_view.h"
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/notes_model.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "test_support.h"
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

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QLineEdit>
#include <QMessageBox>
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

// The calling thread's time spent runnable but waiting for a core, in ns (0 where the kernel does not say).
std::int64_t queuedNanoseconds()
{
    std::ifstream stat("/proc/thread-self/schedstat");
    std::int64_t onCpu = 0, queued = 0;
    return stat >> onCpu >> queued ? queued : 0;
}

// Two independent 64 KiB loads, the second issued only after waiting for the first: the first suggestion
// hoists the second dma.start above the wait.
QString serializedDmas()
{
    return QString::fromStdString(test::sourceDir()) + QStringLiteral("/tests/data/serialized_dmas.xasm");
}

QString sample(const char* name)
{
    return QString::fromStdString(test::sourceDir()) + QStringLiteral("/resources/samples/") +
           QString::fromUtf8(name);
}

// About 2.4 M bundles: long enough to cancel and to watch the event loop while it replays.
const char* const kLongLoop = R"(
.name "long loop"
.machine chips=1
.vmem buf, 0, 8192
.output buf
    smov s1, 0 ; smov s2, 400000
    smov s5, 0
loop:
    vld v0, [s5]
    vadd.f32 v1, v0, v0
    vst v1, [s5]
    sadd s1, s1, 1
    scmp.lt s3, s1, s2
    brnz s3, loop
    halt
)";

} // namespace

class TestUi : public test::UiTestSuite
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeTrace(const char* name, const char* text) { return test::writeTextFile(m_dir, name, text); }

private slots:
    void openingASampleFillsEveryView()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(sample("allgather_naive.xtrace.json"));
        QVERIFY(waitDone(w));

        // Timeline: a lane per chip and unit in use, DMA engines and ICI links, drawn with colour.
        ui::TimelineView* timeline = w.timeline();
        QVERIFY(timeline->rowOfLane(QStringLiteral("DMA 0"), ChipId(0)) >= 0);
        QVERIFY(timeline->rowOfLane(QStringLiteral("ICI +x"), ChipId(3)) >= 0);
        QVERIFY(timeline->rowOfLane(QStringLiteral("ICI +y"), ChipId(0)) < 0); // a ring never uses y links
        QCOMPARE(w.selection()->from(), 0u);
        QVERIFY(w.selection()->to() >= 76788);
        QVERIFY(distinctColours(timeline->canvas()) > 8);

        // Disassembly: every bundle of chip 0 with its counts.
        ui::DisassemblyModel* model = w.disassembly()->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(),
                 static_cast<int>(w.session()->run()->trace->chips[0].program.bundles.size()));
        QCOMPARE(model->data(model->index(0, ui::DisassemblyModel::Executions)).toString(),
                 QStringLiteral("1"));
        QCOMPARE(model->data(model->index(6, ui::DisassemblyModel::MainReason)).toString(),
                 QStringLiteral("sync wait"));

        // Summary: the figures and the tables.
        const QString headline = w.summary()->headline();
        QVERIFY2(headline.contains(QStringLiteral("76,788 cycles")), qPrintable(headline));
        QCOMPARE(w.summary()->chipTable()->rowCount(), 4);
        QVERIFY(w.summary()->regionTable()->rowCount() >= 2);

        // DMA lanes and the VMEM heatmap have something drawn; a heatmap cell selects what touched it.
        auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
        auto* dma = qobject_cast<ui::DmaLanesView*>(w.viewByName(QStringLiteral("dma")));
        QVERIFY(heatmap && dma);
        QVERIFY(dma->lanes()->rowOfLane(QStringLiteral("DMA 0"), ChipId(2)) >= 0);
        QCOMPARE(dma->lanes()->rowOfLane(QStringLiteral("scalar"), ChipId(0)), -1); // engines and links only
        QVERIFY(dma->bandwidth()->graphCount() == 4);

        // Dependency graph: laid out around the critical path, which is nearly all ICI DMA time here.
        auto* graph = qobject_cast<ui::DependencyGraphView*>(w.viewByName(QStringLiteral("graph")));
        QVERIFY(graph);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && test::replayGraph(graph).nodes.size() >= 3, 10000);
        QCOMPARE(test::replayGraph(graph).nodes.front().ref.kind, analysis::NodeRef::Kind::Dma);
        QVERIFY(std::any_of(
            test::replayGraph(graph).edges.begin(), test::replayGraph(graph).edges.end(),
            [](const analysis::GraphEdge& e) { return e.kind == analysis::EdgeKind::Flag && e.critical; }));

        // Suggestions: measured; the program change (half the ring's links idle) first, then the what-ifs.
        QTableWidget* list = w.suggestions()->list();
        QVERIFY(list->rowCount() >= 2);
        QCOMPARE(list->item(0, ui::SuggestionsView::VerdictColumn)->text(), QStringLiteral("improves"));
        QVERIFY(list->item(0, ui::SuggestionsView::TitleColumn)
                    ->text()
                    .contains(QStringLiteral("other way round the ring")));
        bool iciWhatIf = false;
        for (int row = 1; row < list->rowCount(); ++row)
            iciWhatIf =
                iciWhatIf ||
                list->item(row, ui::SuggestionsView::TitleColumn)->text().contains(QStringLiteral("ICI"));
        QVERIFY(iciWhatIf);
    }

    void clickingTheFirstSuggestionShowsItsEvidence()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(serializedDmas());
        QVERIFY(waitDone(w));
        const ui::Run* run = w.session()->run();
        QVERIFY(!run->suggestions.empty());
        const suggest::Suggestion& first = run->suggestions.front();
        QVERIFY(!first.evidence.pcs.empty());

        QTableWidget* list = w.suggestions()->list();
        const QRect cell = list->visualItemRect(list->item(0, ui::SuggestionsView::TitleColumn));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, cell.center());

        QCOMPARE(w.selection()->from(), first.evidence.fromCycle);
        QCOMPARE(w.selection()->to(), first.evidence.toCycle);
        const std::vector<std::uint32_t> pcs = w.disassembly()->selectedPcs();
        QVERIFY(std::find(pcs.begin(), pcs.end(), first.evidence.pcs.front().second) != pcs.end());

        // Apply and compare: the fix replays in the background and the deltas appear.
        QTest::mouseClick(w.suggestions()->compareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.suggestions()->comparison()->rowCount() > 0, 30000);

        // File > Export report writes in the background and says so in the status bar.
        const QString pdf = m_dir.filePath(QStringLiteral("serialized-report.pdf"));
        w.exportReport(pdf);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().startsWith(QStringLiteral("Wrote")), 30000);
        QFile written(pdf);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(written.read(5) == QByteArray("%PDF-"));
        QVERIFY2(w.suggestions()->comparisonVerdict().contains(QStringLiteral("improves")),
                 qPrintable(w.suggestions()->comparisonVerdict()));
        QCOMPARE(w.suggestions()->comparison()->item(0, 0)->text(), QStringLiteral("total cycles"));
        QVERIFY(w.suggestions()->comparison()->item(0, 3)->text().startsWith(QStringLiteral("−")));
    }

    void clickingTheTimelineSelectsWhatIsUnderTheCursor()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(serializedDmas());
        QVERIFY(waitDone(w));
        events::DmaRecord first = w.session()->run()->store.dmas().front();
        ui::TimelineView* timeline = w.timeline();
        const int row = timeline->rowOfLane(QStringLiteral("DMA %1").arg(first.engine), ChipId(0));
        QVERIFY(row >= 0);
        timeline->canvas()->repaint(); // what the person sees before clicking
        const QPoint p = timeline->pointAt(row, static_cast<double>(first.start + first.end) / 2);
        QTest::mouseClick(timeline->canvas(), Qt::LeftButton, {}, p);
        const ui::Selection& s = w.selection()->selection();
        if (s.dmas.empty())
            qInfo() << "click" << p << w.selection()->from() << w.selection()->to() << row << first.start
                    << first.end << timeline->canvas()->plotArea();
        QCOMPARE(s.dmas, std::vector<std::uint32_t>{first.id});
        QVERIFY(s.containsPc(ChipId(0), first.pc));
        // The disassembly follows: the issuing dma.start is selected.
        QCOMPARE(w.disassembly()->selectedPcs(), std::vector<std::uint32_t>{first.pc});

        // And the other way: a click on a disassembly row moves the timeline to that pc's occurrences.
        QTableView* table = w.disassembly()->table();
        const QRect rowRect = table->visualRect(table->model()->index(2, ui::DisassemblyModel::Bundle));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rowRect.center());
        QVERIFY(w.selection()->selection().containsPc(ChipId(0), 2));
        const analysis::PcActivity a = w.disassembly()->model()->activity(2);
        QVERIFY(w.selection()->from() <= a.first && w.selection()->to() >= a.last);
    }

    void theDependencyGraphFollowsTheSelectionAndClicksSelect()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(serializedDmas());
        QVERIFY(waitDone(w));
        auto* graph = qobject_cast<ui::DependencyGraphView*>(w.viewByName(QStringLiteral("graph")));
        QVERIFY(graph);
        test::raiseDockOf(graph);
        using Kind = analysis::NodeRef::Kind;

        // Before anything is selected it shows the critical path's longest non-compute stretch: a DMA here.
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && !test::replayGraph(graph).nodes.empty(), 10000);
        QVERIFY(test::replayGraph(graph).nodes.front().critical);
        QVERIFY2(graph->info().contains(QStringLiteral("Critical path")), qPrintable(graph->info()));
        const std::optional<analysis::NodeRef> initial = test::replayCentre(graph);

        // A click on the second DMA in the timeline rebuilds the graph around it.
        const events::DmaRecord second = w.session()->run()->store.dmas().at(1);
        ui::TimelineView* timeline = w.timeline();
        const int row = timeline->rowOfLane(QStringLiteral("DMA %1").arg(second.engine), ChipId(0));
        QVERIFY(row >= 0);
        timeline->canvas()->repaint();
        QTest::mouseClick(timeline->canvas(), Qt::LeftButton, {},
                          timeline->pointAt(row, static_cast<double>(second.start + second.end) / 2));
        const analysis::NodeRef dma{Kind::Dma, second.id};
        QTRY_VERIFY_WITH_TIMEOUT(test::replayCentre(graph) == dma && !graph->isLayingOut(), 10000);
        QCOMPARE(test::replayGraph(graph).nodes.front().ref, dma);

        // Its issuing bundle is in the graph with an issue edge; a click on it selects it everywhere and
        // leaves the graph where it is.
        const analysis::Subgraph& g = test::replayGraph(graph);
        std::size_t issuer = g.nodes.size();
        for (const analysis::GraphEdge& e : g.edges)
            if (e.kind == analysis::EdgeKind::Issue && e.to == 0)
                issuer = e.from;
        QVERIFY(issuer < g.nodes.size());
        const analysis::GraphNode bundle = g.nodes[issuer];
        QCOMPARE(bundle.pc, second.pc);
        QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, {}, graph->viewportPosition(issuer));
        QCOMPARE(w.selection()->selection().focus, std::optional<analysis::NodeRef>(bundle.ref));
        QCOMPARE(w.disassembly()->selectedPcs(), std::vector<std::uint32_t>{bundle.pc});
        QVERIFY(graph->isHighlighted(issuer));
        QCOMPARE(test::replayCentre(graph), std::optional<analysis::NodeRef>(dma));
        QVERIFY(w.selection()->from() <= bundle.start && w.selection()->to() > bundle.start);

        // A double-click centres the graph on it; Back returns to the DMA, then to the first centre.
        QTest::mouseDClick(graph->canvas()->viewport(), Qt::LeftButton, {}, graph->viewportPosition(issuer));
        QTRY_VERIFY_WITH_TIMEOUT(test::replayCentre(graph) == bundle.ref && !graph->isLayingOut(), 10000);
        QCOMPARE(test::replayGraph(graph).nodes.front().ref, bundle.ref);
        auto* back = graph->findChild<QToolButton*>(QStringLiteral("graphBackButton"));
        QVERIFY(back && back->isEnabled());
        QTest::mouseClick(back, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(test::replayCentre(graph) == dma && !graph->isLayingOut(), 10000);
        if (initial != dma) {
            QTest::mouseClick(back, Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(test::replayCentre(graph) == initial && !graph->isLayingOut(), 10000);
        }
        QVERIFY(!back->isEnabled());
    }

    void notesBookmarksAndSessionsComeBack()
    {
        const QString sessionPath = m_dir.filePath(QStringLiteral("review.xps"));
        QString pinnedText = QStringLiteral("this scalar bundle waits");
        std::string dismissed;
        std::uint64_t pinnedCycle = 0;
        {
            ui::MainWindow w(false);
            w.resize(1400, 900);
            w.show();
            w.openFile(sample("vector_add.xasm"));
            QVERIFY(waitDone(w));
            ui::TimelineView* timeline = w.timeline();
            timeline->canvas()->repaint();

            // A note pinned to the bundle under the pointer, and one on the visible range.
            const int row = timeline->rowOfLane(QStringLiteral("scalar"), ChipId(0));
            QVERIFY(row >= 0);
            const std::int64_t pinned = timeline->addNoteAt(timeline->pointAt(row, 3), pinnedText);
            QVERIFY(pinned > 0);
            const session::Annotation* note = w.document()->notes()->note(pinned);
            QVERIFY(note && note->anchor);
            pinnedCycle = note->fromCycle;
            w.selection()->setTimeRange(100, 700);
            QVERIFY(timeline->addNoteForRange(QStringLiteral("steady state")) > 0);
            // Both are drawn once the window holds both (the pinned one is at its bundle's cycle, before
            // 100).
            w.selection()->setTimeRange(0, 700);
            timeline->canvas()->repaint();
            QCOMPARE(timeline->noteMarkerCount(), 2);
            // Every time-axis view shows them; the heatmap adds one for the time column under the pointer.
            auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
            auto* dma = qobject_cast<ui::DmaLanesView*>(w.viewByName(QStringLiteral("dma")));
            QCOMPARE(heatmap->noteMarkerCount(), 2);
            test::raiseDockOf(dma);
            dma->lanes()->canvas()->repaint();
            QCOMPARE(dma->lanes()->noteMarkerCount(), 2);
            test::raiseDockOf(heatmap);
            heatmap->plot()->replot();
            const std::int64_t column =
                heatmap->addNoteAt(heatmap->pointAt(400, 0x100), QStringLiteral("buffer B refilled"));
            QVERIFY(column > 0);
            const session::Annotation* columnNote = w.document()->notes()->note(column);
            QVERIFY(columnNote->fromCycle <= 400 && columnNote->toCycle > 400 && !columnNote->anchor);
            timeline->canvas()->repaint();
            QCOMPARE(timeline->noteMarkerCount(), 3);
            w.document()->notes()->removeNote(column);

            // The notes panel lists both; selecting both measures the range between them.
            auto* notes = qobject_cast<ui::NotesView*>(w.viewByName(QStringLiteral("notes")));
            QVERIFY(notes);
            test::raiseDockOf(notes);
            QTableView* table = notes->table();
            const auto cell = [&](int noteRow, int noteColumn) {
                return table->visualRect(table->model()->index(noteRow, noteColumn)).center();
            };
            QCOMPARE(table->model()->rowCount(), 2);
            QCOMPARE(table->model()->index(0, ui::NotesModel::Text).data().toString(), pinnedText);
            QCOMPARE(table->model()->headerData(ui::NotesModel::When, Qt::Horizontal).toString(),
                     QStringLiteral("cycles"));
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell(0, ui::NotesModel::When));
            QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier,
                              cell(1, ui::NotesModel::When));
            QVERIFY2(notes->measurement().contains(
                         QStringLiteral("Δ %1 cycles").arg(ui::cyclesText(700 - pinnedCycle))),
                     qPrintable(notes->measurement()));
            QVERIFY(notes->measurement().contains(QStringLiteral("scalar")));

            // A double-click on a note's cycles jumps the views there.
            w.selection()->setTimeRange(1000, 1200);
            // (A person's double-click starts with a click: QTest's double-click alone sends no first press.)
            const QPoint cycles = cell(0, ui::NotesModel::When);
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cycles);
            QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cycles);
            QVERIFY2(w.selection()->from() <= pinnedCycle && w.selection()->to() > pinnedCycle,
                     qPrintable(QStringLiteral("%1-%2 for %3")
                                    .arg(w.selection()->from())
                                    .arg(w.selection()->to())
                                    .arg(pinnedCycle)));

            // Bookmarks: two named views, stepped through with PageDown / PageUp.
            w.selection()->setTimeRange(0, 300);
            w.addBookmark(QStringLiteral("prologue"));
            w.selection()->setTimeRange(500, 1100);
            w.timeline()->setHiddenLanes({"chip 0/vector ALU"});
            QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), ChipId(0)), -1);
            w.addBookmark(QStringLiteral("loop"));
            w.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&w));
            QTest::keyClick(&w, Qt::Key_PageUp);
            QCOMPARE(w.selection()->from(), std::uint64_t{0});
            QCOMPARE(w.selection()->to(), std::uint64_t{300});
            QVERIFY(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), ChipId(0)) >=
                    0); // that view hid nothing
            QTest::keyClick(&w, Qt::Key_PageDown);
            QCOMPARE(w.selection()->from(), std::uint64_t{500});
            QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), ChipId(0)), -1);

            // The review dismisses the second suggestion: the state box under the list.
            qobject_cast<QDockWidget*>(w.suggestions()->parentWidget())->raise();
            QTableWidget* list = w.suggestions()->list();
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                              list->visualItemRect(list->item(1, 0)).center());
            QVERIFY(w.suggestions()->stateBox()->isEnabled());
            dismissed = list->item(1, 0)->text().toStdString();
            const int listed = list->rowCount();
            QTest::keyClick(w.suggestions()->stateBox(), Qt::Key_Down);
            QTest::keyClick(w.suggestions()->stateBox(), Qt::Key_Down);
            // It leaves the ranking (tst_ui_suggestion_states shows it again on request).
            QCOMPARE(list->rowCount(), listed - 1);
            QVERIFY(list->item(1, 0)->text().toStdString() != dismissed);

            // A save that fails says why and does not make the unwritable path the document's session file.
            w.document()->save(m_dir.filePath(QStringLiteral("missing/review.xps")));
            QMessageBox* problem = nullptr;
            QTRY_VERIFY_WITH_TIMEOUT(
                (problem = w.findChild<QMessageBox*>(QStringLiteral("sessionError"))) != nullptr, 20000);
            QVERIFY2(problem->text().contains(QStringLiteral("missing/review.xps")),
                     qPrintable(problem->text()));
            QVERIFY(w.document()->path().isEmpty());
            problem->close();

            // Save the session; it is saved in the background.
            w.document()->save(sessionPath);
            QTRY_VERIFY_WITH_TIMEOUT(!w.document()->isSaving(), 20000);
            QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("Saved")));
        }
        // Opened again: the notes (the pinned one where its bundle is), the bookmarks.
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(sessionPath);
        QVERIFY(waitDone(w));
        const auto& notes = w.document()->notes()->notes();
        QCOMPARE(notes.size(), std::size_t{2});
        QCOMPARE(QString::fromStdString(notes[0].text), pinnedText);
        QCOMPARE(notes[0].fromCycle, pinnedCycle);
        w.timeline()->canvas()->repaint();
        QCOMPARE(w.timeline()->noteMarkerCount(), 2);
        QCOMPARE(w.document()->notes()->bookmarks().size(), std::size_t{2});
        QVERIFY(w.document()->notes()->bookmarks()[1].hiddenLanes ==
                std::vector<std::string>{"chip 0/vector ALU"});
        QCOMPARE(w.document()->path(), sessionPath);
        QVERIFY(w.document()->notes()->suggestionState(dismissed) == session::SuggestionState::Dismissed);
        QTableWidget* list = w.suggestions()->list();
        for (int r = 0; r < list->rowCount(); ++r)
            QCOMPARE(list->item(r, ui::SuggestionsView::StateColumn)->text(),
                     list->item(r, 0)->text().toStdString() == dismissed ? QStringLiteral("dismissed")
                                                                         : QStringLiteral("open"));
        // Edits now save themselves.
        w.document()->notes()->setNoteText(notes[1].id, "steady state, edited");
        const auto savedText = [&] {
            const auto reread = session::readSession(sessionPath.toStdString());
            return reread.ok() && reread->annotations.size() == 2 ? reread->annotations[1].text
                                                                  : std::string();
        };
        QTRY_COMPARE_WITH_TIMEOUT(savedText(), std::string("steady state, edited"), 10000);
    }

    void cancellingMidReplayKeepsAUsablePartialView()
    {
        ui::MainWindow w(false);
        w.resize(1200, 800);
        w.show();
        w.openFile(writeTrace("long_cancel.xasm", kLongLoop));
        QTRY_VERIFY_WITH_TIMEOUT(w.session()->run() && w.session()->run()->lanes->bundlesSeen() > 150000,
                                 30000);
        auto* cancel = w.findChild<QToolButton*>();
        const auto buttons = w.findChildren<QToolButton*>();
        for (QToolButton* b : buttons)
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(waitDone(w));
        const ui::Run* run = w.session()->run();
        QCOMPARE(run->result.status, sim::ReplayResult::Status::Cancelled);
        QVERIFY(w.statusText().contains(QStringLiteral("cancelled")));
        // The partial replay is explorable: counts, timeline rows, summary marked partial.
        const analysis::PcActivity loop = w.disassembly()->model()->activity(3);
        QVERIFY(loop.executions > 20000 && loop.executions < 400000);
        QVERIFY(w.timeline()->rowCount() > 3);
        QVERIFY(w.summary()->headline().contains(QStringLiteral("partial")));
    }

    void theGuiThreadNeverBlocksWhileALargeTraceReplays()
    {
        ui::MainWindow w(false);
        w.resize(1200, 800);
        w.show();
        // The window's own first paint is not the replay's: measure from a window already on screen.
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(100);
        // A gap between two ticks is the GUI thread's only when it was not merely waiting for a core: on two
        // cores shared with the replay's worker and another suite, the scheduler alone left it runnable but
        // off the CPU for 50+ ms now and then. The kernel's count of the thread's time on a run queue
        // (/proc/thread-self/schedstat, second field) is taken out of each gap; work and waits on a lock
        // stay in it.
        QElapsedTimer clock;
        qint64 last = 0, worst = 0, worstWall = 0;
        std::int64_t lastQueued = queuedNanoseconds();
        QTimer ticker;
        ticker.setInterval(5);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            const std::int64_t queued = queuedNanoseconds();
            const qint64 gap = now - last;
            worstWall = std::max(worstWall, gap);
            worst = std::max(worst, gap - static_cast<qint64>((queued - lastQueued) / 1'000'000));
            last = now;
            lastQueued = queued;
        });
        clock.start();
        ticker.start();
        w.openFile(writeTrace("long_watch.xasm", kLongLoop));
        QVERIFY(waitDone(w));
        ticker.stop();
        QVERIFY(w.session()->run()->result.status == sim::ReplayResult::Status::Completed);
        qInfo("longest event-loop gap while replaying %s bundles: %lld ms (%lld ms with the time it waited "
              "for a "
              "core)",
              qPrintable(QString::number(w.session()->run()->lanes->bundlesSeen())), worst, worstWall);
        QVERIFY2(worst < 50, qPrintable(QStringLiteral("the event loop stalled %1 ms").arg(worst)));
    }

    void aBadFileShowsTheLoadersMessageAndTheAppStaysUsable()
    {
        ui::MainWindow w(false);
        w.show();
        const QString bad = writeTrace("broken.xtrace.json",
                                       "{\"format\": \"xpushark-trace\", \"version\": 1, \"chips\": [}\n");
        w.openFile(bad);
        QMessageBox* box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = w.findChild<QMessageBox*>(QStringLiteral("openError"))) != nullptr,
                                 10000);
        QVERIFY2(box->text().contains(QStringLiteral("broken.xtrace.json")), qPrintable(box->text()));
        QVERIFY2(box->text().contains(QStringLiteral(":1:")), qPrintable(box->text())); // line:column
        QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
        w.openFile(sample("vector_add.xasm"));
        QVERIFY(waitDone(w));
        QVERIFY(w.summary()->headline().contains(QStringLiteral("cycles")));

        // The disassembly names a branch target by its label, as a listing does: the tile loop's head runs
        // once a tile.
        std::uint32_t loopPc = 0;
        for (const auto& label : w.session()->run()->trace->chips.front().symbols.labels)
            if (label.name == "loop")
                loopPc = label.pc;
        const ui::DisassemblyModel* listing = w.disassembly()->model();
        const QString head =
            listing->index(listing->rowOfPc(loopPc), ui::DisassemblyModel::Bundle).data().toString();
        QVERIFY2(loopPc > 0 && head.startsWith(QStringLiteral("loop:  region.begin")), qPrintable(head));
        QCOMPARE(listing->activity(listing->rowOfPc(loopPc)).executions, std::uint64_t{16});

        // The heatmap: the cell a DMA wrote selects that DMA and the instructions that read it.
        auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
        events::DmaRecord load;
        for (const events::DmaRecord& d : w.session()->run()->store.dmas())
            if (d.dstSpace == static_cast<std::uint8_t>(isa::Space::Vmem)) {
                load = d;
                break;
            }
        heatmap->selectCell(load.start, load.end + 1, load.dstAddress, load.dstAddress + 512);
        QVERIFY2(w.selection()->selection().containsDma(load.id), qPrintable(heatmap->cellText()));
        QVERIFY(heatmap->cellText().contains(QStringLiteral("written")));
    }
};

QTEST_MAIN(TestUi)
#include "tst_ui.moc"

// The explorer as a person uses it: open a trace, wait for the replay, read every view, click a
// suggestion, click the timeline, apply and compare, cancel a long replay, open a broken file.

#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_graph_view.h"
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

namespace {

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

class TestUi : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writeTrace(const char* name, const char* text)
    {
        const QString path = m_dir.filePath(QString::fromUtf8(name));
        test::writeFile(path.toStdString(), text);
        return path;
    }

    static bool waitDone(ui::MainWindow& w, int timeoutMs = 60000) { return test::waitDone(w, timeoutMs); }

    // Distinct colours in a widget's rendering: a blank or single-colour view has very few.
    static int distinctColours(QWidget* w)
    {
        const QImage image = w->grab().toImage();
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        return static_cast<int>(colours.size());
    }

private slots:
    void initTestCase()
    {
        test::startUiTests();
        QVERIFY(m_dir.isValid());
    }

    void cleanup()
    {
        const QStringList unexpected = test::takeUnexpectedMessages();
        QVERIFY2(unexpected.isEmpty(), qPrintable(unexpected.join(QStringLiteral("\n"))));
    }

    void openingASampleFillsEveryView()
    {
        ui::MainWindow w(false);
        w.resize(1400, 900);
        w.show();
        w.openFile(sample("allgather_naive.xtrace.json"));
        QVERIFY(waitDone(w));

        // Timeline: a lane per chip and unit in use, DMA engines and ICI links, drawn with colour.
        ui::TimelineView* timeline = w.timeline();
        QVERIFY(timeline->rowOfLane(QStringLiteral("DMA 0"), 0) >= 0);
        QVERIFY(timeline->rowOfLane(QStringLiteral("ICI +x"), 3) >= 0);
        QVERIFY(timeline->rowOfLane(QStringLiteral("ICI +y"), 0) < 0); // a ring never uses y links
        QCOMPARE(timeline->plot()->xAxis->range().lower, 0.0);
        QVERIFY(timeline->plot()->xAxis->range().upper >= 76788);
        QVERIFY(distinctColours(timeline->plot()) > 8);

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
        QVERIFY(dma->lanes()->rowOfLane(QStringLiteral("DMA 0"), 2) >= 0);
        QCOMPARE(dma->lanes()->rowOfLane(QStringLiteral("scalar"), 0), -1); // engines and links only
        QVERIFY(dma->bandwidth()->graphCount() == 4);

        // Dependency graph: laid out around the critical path, which is nearly all ICI DMA time here.
        auto* graph = qobject_cast<ui::DependencyGraphView*>(w.viewByName(QStringLiteral("graph")));
        QVERIFY(graph);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && graph->graph().nodes.size() >= 3, 10000);
        QCOMPARE(graph->graph().nodes.front().ref.kind, analysis::NodeRef::Kind::Dma);
        QVERIFY(std::any_of(
            graph->graph().edges.begin(), graph->graph().edges.end(),
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

        const QCPRange range = w.timeline()->plot()->xAxis->range();
        QCOMPARE(range.lower, static_cast<double>(first.evidence.fromCycle));
        QCOMPARE(range.upper, static_cast<double>(first.evidence.toCycle));
        QCOMPARE(w.selection()->from(), first.evidence.fromCycle);
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
        const int row = timeline->rowOfLane(QStringLiteral("DMA %1").arg(first.engine), 0);
        QVERIFY(row >= 0);
        timeline->plot()->replot(); // what the person sees before clicking
        const QPoint p = timeline->pointAt(row, static_cast<double>(first.start + first.end) / 2);
        QTest::mouseClick(timeline->plot(), Qt::LeftButton, {}, p);
        const ui::Selection& s = w.selection()->selection();
        if (s.dmas.empty())
            qInfo() << "click" << p << timeline->plot()->xAxis->range() << timeline->plot()->yAxis->range()
                    << row << first.start << first.end << timeline->plot()->axisRect()->rect();
        QCOMPARE(s.dmas, std::vector<std::uint32_t>{first.id});
        QVERIFY(s.containsPc(0, first.pc));
        // The disassembly follows: the issuing dma.start is selected.
        QCOMPARE(w.disassembly()->selectedPcs(), std::vector<std::uint32_t>{first.pc});

        // And the other way: a click on a disassembly row moves the timeline to that pc's occurrences.
        QTableView* table = w.disassembly()->table();
        const QRect rowRect = table->visualRect(table->model()->index(2, ui::DisassemblyModel::Bundle));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rowRect.center());
        QVERIFY(w.selection()->selection().containsPc(0, 2));
        const QCPRange range = timeline->plot()->xAxis->range();
        const analysis::PcActivity a = w.disassembly()->model()->activity(2);
        QVERIFY(range.lower <= static_cast<double>(a.first) && range.upper >= static_cast<double>(a.last));
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
        qobject_cast<QDockWidget*>(graph->parentWidget())->raise();
        using Kind = analysis::NodeRef::Kind;

        // Before anything is selected it shows the critical path's longest non-compute stretch: a DMA here.
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && !graph->graph().nodes.empty(), 10000);
        QVERIFY(graph->graph().nodes.front().critical);
        QVERIFY2(graph->info().contains(QStringLiteral("Critical path")), qPrintable(graph->info()));
        const std::optional<analysis::NodeRef> initial = graph->centre();

        // A click on the second DMA in the timeline rebuilds the graph around it.
        const events::DmaRecord second = w.session()->run()->store.dmas().at(1);
        ui::TimelineView* timeline = w.timeline();
        const int row = timeline->rowOfLane(QStringLiteral("DMA %1").arg(second.engine), 0);
        QVERIFY(row >= 0);
        timeline->plot()->replot();
        QTest::mouseClick(timeline->plot(), Qt::LeftButton, {},
                          timeline->pointAt(row, static_cast<double>(second.start + second.end) / 2));
        const analysis::NodeRef dma{Kind::Dma, second.id};
        QTRY_VERIFY_WITH_TIMEOUT(graph->centre() == dma && !graph->isLayingOut(), 10000);
        QCOMPARE(graph->graph().nodes.front().ref, dma);

        // Its issuing bundle is in the graph with an issue edge; a click on it selects it everywhere and
        // leaves the graph where it is.
        const analysis::Subgraph& g = graph->graph();
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
        QCOMPARE(graph->centre(), std::optional<analysis::NodeRef>(dma));
        const QCPRange range = timeline->plot()->xAxis->range();
        QVERIFY(range.lower <= static_cast<double>(bundle.start) &&
                range.upper > static_cast<double>(bundle.start));

        // A double-click centres the graph on it; Back returns to the DMA, then to the first centre.
        QTest::mouseDClick(graph->canvas()->viewport(), Qt::LeftButton, {}, graph->viewportPosition(issuer));
        QTRY_VERIFY_WITH_TIMEOUT(graph->centre() == bundle.ref && !graph->isLayingOut(), 10000);
        QCOMPARE(graph->graph().nodes.front().ref, bundle.ref);
        auto* back = graph->findChild<QToolButton*>(QStringLiteral("graphBackButton"));
        QVERIFY(back && back->isEnabled());
        QTest::mouseClick(back, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(graph->centre() == dma && !graph->isLayingOut(), 10000);
        if (initial != dma) {
            QTest::mouseClick(back, Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(graph->centre() == initial && !graph->isLayingOut(), 10000);
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
            timeline->plot()->replot();

            // A note pinned to the bundle under the pointer, and one on the visible range.
            const int row = timeline->rowOfLane(QStringLiteral("scalar"), 0);
            QVERIFY(row >= 0);
            const std::int64_t pinned = timeline->addNoteAt(timeline->pointAt(row, 3), pinnedText);
            QVERIFY(pinned > 0);
            const session::Annotation* note = w.document()->notes()->note(pinned);
            QVERIFY(note && note->anchor);
            pinnedCycle = note->fromCycle;
            w.selection()->setTimeRange(100, 700);
            QVERIFY(timeline->addNoteForRange(QStringLiteral("steady state")) > 0);
            QCOMPARE(timeline->noteMarkerCount(), 2);
            // Every time-axis view shows them; the heatmap adds one for the time column under the pointer.
            auto* heatmap = qobject_cast<ui::VmemHeatmapView*>(w.viewByName(QStringLiteral("heatmap")));
            auto* dma = qobject_cast<ui::DmaLanesView*>(w.viewByName(QStringLiteral("dma")));
            QCOMPARE(heatmap->noteMarkerCount(), 2);
            QCOMPARE(dma->lanes()->noteMarkerCount(), 2);
            qobject_cast<QDockWidget*>(heatmap->parentWidget())->raise();
            heatmap->plot()->replot();
            const std::int64_t column =
                heatmap->addNoteAt(heatmap->pointAt(400, 0x100), QStringLiteral("buffer B refilled"));
            QVERIFY(column > 0);
            const session::Annotation* columnNote = w.document()->notes()->note(column);
            QVERIFY(columnNote->fromCycle <= 400 && columnNote->toCycle > 400 && !columnNote->anchor);
            QCOMPARE(timeline->noteMarkerCount(), 3);
            w.document()->notes()->removeNote(column);

            // The notes panel lists both; selecting both measures the range between them.
            auto* notes = qobject_cast<ui::NotesView*>(w.viewByName(QStringLiteral("notes")));
            QVERIFY(notes);
            qobject_cast<QDockWidget*>(notes->parentWidget())->raise();
            QTableWidget* table = notes->table();
            QCOMPARE(table->rowCount(), 2);
            QCOMPARE(table->item(0, 3)->text(), pinnedText);
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                              table->visualItemRect(table->item(0, 1)).center());
            QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::ControlModifier,
                              table->visualItemRect(table->item(1, 1)).center());
            QVERIFY2(notes->measurement().contains(
                         QStringLiteral("Δ %1 cycles").arg(ui::cyclesText(700 - pinnedCycle))),
                     qPrintable(notes->measurement()));
            QVERIFY(notes->measurement().contains(QStringLiteral("scalar")));

            // A double-click on a note's cycles jumps the views there.
            w.selection()->setTimeRange(1000, 1200);
            // (A person's double-click starts with a click: QTest's double-click alone sends no first press.)
            const QPoint cycles = table->visualItemRect(table->item(0, 1)).center();
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
            QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), 0), -1);
            w.addBookmark(QStringLiteral("loop"));
            w.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&w));
            QTest::keyClick(&w, Qt::Key_PageUp);
            QCOMPARE(w.selection()->from(), std::uint64_t{0});
            QCOMPARE(w.selection()->to(), std::uint64_t{300});
            QVERIFY(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), 0) >= 0); // that view hid nothing
            QTest::keyClick(&w, Qt::Key_PageDown);
            QCOMPARE(w.selection()->from(), std::uint64_t{500});
            QCOMPARE(w.timeline()->rowOfLane(QStringLiteral("vector ALU"), 0), -1);

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
        QElapsedTimer clock;
        qint64 last = 0, worst = 0;
        QTimer ticker;
        ticker.setInterval(5);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last);
            last = now;
        });
        clock.start();
        ticker.start();
        w.openFile(writeTrace("long_watch.xasm", kLongLoop));
        QVERIFY(waitDone(w));
        ticker.stop();
        QVERIFY(w.session()->run()->result.status == sim::ReplayResult::Status::Completed);
        qInfo("longest event-loop gap while replaying %s bundles: %lld ms",
              qPrintable(QString::number(w.session()->run()->lanes->bundlesSeen())), worst);
        QVERIFY2(worst < 50, qPrintable(QStringLiteral("the event loop stalled %1 ms").arg(worst)));
    }

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
        std::uint32_t sgemm = profile::kNone, launch = profile::kNone;
        for (std::uint32_t i = 0; i < run->profile.slices.size() && sgemm == profile::kNone; ++i)
            if (run->profile.nameOf(run->profile.slices[i]) == "sgemm_128x64")
                sgemm = i;
        for (const profile::Flow& f : run->profile.flows)
            if (f.to == sgemm)
                launch = f.from;
        QVERIFY(sgemm != profile::kNone && launch != profile::kNone);
        const QPoint at = timeline->pointAt(sgemm);
        QVERIFY(!at.isNull());
        QTest::mouseClick(timeline, Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(w.profileDocument()->selectedSlice(), sgemm);
        const QString details = explorer->details()->text();
        QVERIFY2(details.contains(QStringLiteral("sgemm_128x64")) &&
                     details.contains(QStringLiteral("GPU 0 / stream 7")) &&
                     details.contains(QStringLiteral("200 us")) && details.contains(QStringLiteral("grid")),
                 qPrintable(details));
        QVERIFY(details.contains(QStringLiteral("from cudaLaunchKernel")));
        // Following the flow link selects the launch on the host thread.
        emit explorer->details()->browser()->anchorClicked(QUrl(QStringLiteral("slice:%1").arg(launch)));
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

        // The summary says what the CLI says; clicking the first finding shows the exposed copy.
        QVERIFY2(explorer->summary()->text().contains(QStringLiteral("memcpy 200 us (exposed 200 us)")),
                 qPrintable(explorer->summary()->text()));
        QTreeWidget* findings = explorer->summary()->findings();
        QCOMPARE(findings->topLevelItemCount(), 3);
        QTest::mouseClick(findings->viewport(), Qt::LeftButton, Qt::NoModifier,
                          findings->visualItemRect(findings->topLevelItem(0)).center());
        const profile::Slice& copy = run->profile.slices[w.profileDocument()->selectedSlice()];
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
        QCOMPARE(run->profile.nameOf(run->profile.slices[w.profileDocument()->selectedSlice()]),
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
        const std::uint32_t copyIndex = static_cast<std::uint32_t>(&copy - run->profile.slices.data());
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
        std::uint32_t dma = profile::kNone;
        for (std::uint32_t i = 0; i < run->profile.slices.size() && dma == profile::kNone; ++i)
            if (run->profile.nameOf(run->profile.slices[i]) == "DMA HBM->VMEM")
                dma = i;
        QVERIFY(dma != profile::kNone);
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
        QCOMPARE(picked.dmas[0], run->profile.slices[dma].link - 1);
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
        // ... at the time range the profile showed (1.05 cycles a nanosecond), the DMA still selected.
        const auto cycleOf = [](profile::Nanos t) { return std::max(0.0, static_cast<double>(t) * 1.05); };
        QVERIFY2(std::abs(static_cast<double>(w.selection()->from()) - cycleOf(visible.first)) <= 1.0 &&
                     std::abs(static_cast<double>(w.selection()->to()) - cycleOf(visible.second)) <= 1.0,
                 qPrintable(QStringLiteral("%1..%2 cycles for %3..%4 ns")
                                .arg(w.selection()->from())
                                .arg(w.selection()->to())
                                .arg(visible.first)
                                .arg(visible.second)));
        QCOMPARE(w.selection()->selection().dmas, picked.dmas);
        const ui::ProfileRun* converted = w.profileDocument()->run();
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY(explorer->isVisible());
        QCOMPARE(w.profileDocument()->run(), converted);
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
        ui::ProfileGraphView* graph = explorer->graph();
        QVERIFY(graph->isVisible());
        // Before anything is selected it shows the critical path's longest communication and what it
        // depended on: several slices joined by flows that are the profile's own.
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && graph->graph().slices.size() > 2, 10000);
        const profile::FlowGraph& g = graph->graph();
        QCOMPARE(g.slices.front(), graph->centre());
        QCOMPARE(p.classOf(p.slices[graph->centre()]), profile::SliceClass::Communication);
        QVERIFY(!g.edges.empty());
        for (const profile::FlowGraph::Edge& e : g.edges) {
            QCOMPARE(p.flows[e.flow].from, g.slices[e.from]);
            QCOMPARE(p.flows[e.flow].to, g.slices[e.to]);
        }
        QVERIFY2(graph->info().contains(QStringLiteral("within 2 flows")), qPrintable(graph->info()));

        // A click on a node selects its slice: the details beside the graph describe it.
        const std::uint32_t other = g.slices[1];
        QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          graph->viewportPosition(1));
        QCOMPARE(w.profileDocument()->selectedSlice(), other);
        QVERIFY(explorer->details()->text().contains(QString::fromStdString(p.nameOf(p.slices[other]))));
        QCOMPARE(graph->centre(), g.slices.front()); // a click does not rebuild the graph

        // A double-click centres the graph on it.
        QSignalSpy laidOut(graph, &ui::ProfileGraphView::laidOut);
        const QPoint at = graph->viewportPosition(1);
        QTest::mouseClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTest::mouseDClick(graph->canvas()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QTRY_VERIFY_WITH_TIMEOUT(laidOut.count() > 0 && !graph->isLayingOut(), 10000);
        QCOMPARE(graph->centre(), other);
        QCOMPARE(graph->graph().slices.front(), other);

        // Depth 1 keeps only its direct dependencies and dependants.
        auto* depth = graph->findChild<QSpinBox*>();
        QVERIFY(depth);
        depth->setValue(1);
        QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && graph->graph().slices.front() == other, 10000);
        for (const int d : graph->graph().distance)
            QVERIFY(d <= 1);
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

// The review's state of a suggestion acts (#25 point 7; it was a label that changed nothing): a dismissed
// one leaves the ranking and comes back greyed at the bottom on request; an applied one leads to its fixed
// run (the comparison of the changed program's replay), replayed once and shown whenever it is selected.
#include "main_window.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/suggestions_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QStatusBar>
#include <QTableWidget>

using namespace xps;

namespace {

QStringList listedIds(QTableWidget* list)
{
    QStringList ids;
    for (int r = 0; r < list->rowCount(); ++r)
        ids << list->item(r, 0)->text();
    return ids;
}

void clickRow(QTableWidget* list, int row)
{
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(row, 0)).center());
}

} // namespace

class TestUiSuggestionStates : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void dismissedLeaveTheRankingAndAppliedShowTheirFixedRun()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        ui::SuggestionsView* view = w.suggestions();
        test::raiseDockOf(view);
        QTableWidget* list = view->list();
        QComboBox* state = view->stateBox();
        QCheckBox* showDismissed = view->showDismissedBox();
        const int all = list->rowCount();
        QVERIFY(all >= 3);
        QVERIFY(!showDismissed->isVisible()); // nothing dismissed yet

        // Dismiss the second: the state box's last entry.
        clickRow(list, 1);
        const QString dismissed = list->item(1, 0)->text();
        const QString third = list->item(2, 0)->text();
        QTest::keyClick(state, Qt::Key_End);
        QCOMPARE(state->currentText(), QStringLiteral("dismissed"));
        QCOMPARE(list->rowCount(), all - 1);
        QVERIFY(!listedIds(list).contains(dismissed));
        QCOMPARE(list->item(1, 0)->text(), third); // the ranking closes up
        QVERIFY(showDismissed->isVisible());
        QCOMPARE(showDismissed->text(), QStringLiteral("show dismissed (1)"));

        // On request it comes back, last and greyed, saying so.
        QTest::mouseClick(showDismissed, Qt::LeftButton, {}, QPoint(8, showDismissed->height() / 2));
        QVERIFY(showDismissed->isChecked());
        QCOMPARE(list->rowCount(), all);
        QCOMPARE(list->item(all - 1, 0)->text(), dismissed);
        QCOMPARE(list->item(all - 1, ui::SuggestionsView::StateColumn)->text(), QStringLiteral("dismissed"));
        QCOMPARE(list->item(all - 1, ui::SuggestionsView::TitleColumn)->foreground().color(),
                 view->palette().color(QPalette::Disabled, QPalette::Text));
        QTest::mouseClick(showDismissed, Qt::LeftButton, {}, QPoint(8, showDismissed->height() / 2));
        QCOMPARE(list->rowCount(), all - 1);

        // Apply the best: its fixed run appears without clicking Apply and compare.
        clickRow(list, 0);
        const QString applied = list->item(0, 0)->text();
        QCOMPARE(view->comparison()->rowCount(), 0);
        QTest::keyClick(state, Qt::Key_Home);
        QTest::keyClick(state, Qt::Key_Down);
        QCOMPARE(state->currentText(), QStringLiteral("applied"));
        QCOMPARE(list->item(0, ui::SuggestionsView::StateColumn)->text(), QStringLiteral("applied"));
        QTRY_VERIFY_WITH_TIMEOUT(view->comparison()->rowCount() > 0, 30000);
        QVERIFY2(view->comparisonVerdict().contains(QStringLiteral("outputs bit-identical")),
                 qPrintable(view->comparisonVerdict()));
        QCOMPARE(view->comparison()->item(0, 0)->text(), QStringLiteral("total cycles"));
        const QString fixedCycles = view->comparison()->item(0, 2)->text();

        // Elsewhere and back: the fixed run is there at once (kept, not replayed again).
        clickRow(list, 1);
        QCOMPARE(view->comparison()->rowCount(), 0);
        clickRow(list, 0);
        QCOMPARE(list->item(0, 0)->text(), applied);
        QVERIFY(view->comparison()->rowCount() > 0);
        QCOMPARE(view->comparison()->item(0, 2)->text(), fixedCycles);

        // The states are the session's: saved with it (tst_ui reopens one).
        QVERIFY(w.document()->notes()->suggestionState(dismissed.toStdString()) ==
                session::SuggestionState::Dismissed);
        QVERIFY(w.document()->notes()->suggestionState(applied.toStdString()) ==
                session::SuggestionState::Applied);
    }

    void exportedReportGroupsAndPlacesNotes()
    {
        // #25 point 9, as a reviewer does it: dismiss one of the 20 "issue the DMA earlier" suggestions, pin
        // a note on another one's DMA, export the report. It has one entry for the 20, measured together, in
        // the state "mixed"; the note is beside that entry, not at the end; the top entries have a figure.
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isBusy(), 60000);
        const ui::Run* run = w.session()->run();
        QVERIFY(!run->groups.empty());
        const suggest::SuggestionGroup& group = run->groups.front();
        QVERIFY(group.combined && group.members.size() >= 20);
        ui::SuggestionsView* view = w.suggestions();
        test::raiseDockOf(view);
        QTableWidget* list = view->list();
        const QString dismissed = QString::fromStdString(group.members.back());
        int row = -1;
        for (int r = 0; r < list->rowCount(); ++r)
            if (list->item(r, 0)->text() == dismissed)
                row = r;
        QVERIFY(row >= 0);
        clickRow(list, row);
        QTest::keyClick(view->stateBox(), Qt::Key_End);
        QCOMPARE(view->stateBox()->currentText(), QStringLiteral("dismissed"));

        const suggest::Suggestion* pinned = nullptr;
        for (const suggest::Suggestion& s : run->suggestions)
            if (s.id == group.members.front())
                pinned = &s;
        QVERIFY(pinned);
        session::Annotation note;
        note.text = "this DMA starts too late";
        note.fromCycle = pinned->evidence.fromCycle;
        note.toCycle = pinned->evidence.toCycle;
        w.document()->notes()->addNote(note);

        const QString html = QDir(QDir::tempPath()).filePath(QStringLiteral("xps-grouped-report.html"));
        QFile::remove(html);
        w.exportReport(html);
        QTRY_VERIFY_WITH_TIMEOUT(w.statusBar()->currentMessage().startsWith(QStringLiteral("Wrote")), 30000);
        const std::string text = test::readFile(html.toStdString());
        QFile::remove(html);
        const std::size_t suggestions = text.find("id=\"suggestions\""),
                          annotations = text.find("id=\"annotations\"");
        const std::size_t entry =
            text.find("Issue " + std::to_string(group.members.size()) + " DMAs earlier");
        QVERIFY2(entry != std::string::npos && entry > suggestions, "one entry for the group");
        QVERIFY(text.find("Measured together: improves", entry) != std::string::npos);
        QVERIFY(text.find(" · mixed · ", entry) != std::string::npos);
        const std::size_t placed = text.find("this DMA starts too late");
        QVERIFY2(placed > entry && placed < annotations, "the note is beside its suggestion");
        QVERIFY(text.find("1 of 1 appear beside") != std::string::npos);
        QVERIFY(text.find("<title>evidence</title>") != std::string::npos);
    }
};

QTEST_MAIN(TestUiSuggestionStates)
#include "tst_ui_suggestion_states.moc"

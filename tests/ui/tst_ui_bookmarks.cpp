// Bookmarks as a person manages them: added with Ctrl+B, listed in the Bookmarks panel, renamed in place
// (F2) or from the menu, deleted with the Delete key or the menu, and brought back with a double-click. They
// could be added and stepped through, but not renamed or deleted (#25 point 8).
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "test_support.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/bookmarks_view.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTimer>

using namespace xps;

namespace {

QMenu* bookmarksMenu(ui::MainWindow& w)
{
    for (QAction* a : w.menuBar()->actions())
        if (a->text() == QStringLiteral("&Bookmarks"))
            return a->menu();
    return nullptr;
}

// The Bookmarks menu's action whose text starts with `prefix`, as the menu shows it when opened.
QAction* menuAction(ui::MainWindow& w, const QString& prefix)
{
    QMenu* menu = bookmarksMenu(w);
    if (!menu)
        return nullptr;
    emit menu->aboutToShow();
    for (QAction* a : menu->actions())
        if (a->text().startsWith(prefix))
            return a;
    return nullptr;
}

QStringList names(const ui::MainWindow& w)
{
    QStringList out;
    for (const session::Bookmark& b : w.document()->notes()->bookmarks())
        out << QString::fromStdString(b.name);
    return out;
}

} // namespace

class TestUiBookmarks : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void bookmarksAreRenamedDeletedAndShownFromThePanelAndTheMenu()
    {
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        QApplication::setActiveWindow(&w); // keys go where a person's would: the focused widget
        QVERIFY(QTest::qWaitForWindowActive(&w));
        ui::BookmarksView* panel = w.bookmarks();
        QVERIFY(panel);
        test::raiseDockOf(panel);
        QTableWidget* table = panel->table();

        // Three views, the first with Ctrl+B and its dialog.
        w.selection()->setTimeRange(0, 2000);
        test::answerNextDialog(QStringLiteral("prologue"));
        QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
        QTRY_COMPARE(names(w), QStringList{QStringLiteral("prologue")});
        w.selection()->setTimeRange(5000, 9000);
        w.addBookmark(QStringLiteral("loop"));
        w.selection()->setTimeRange(12000, 15000);
        w.addBookmark(QStringLiteral("epilogue"));
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->item(1, 2)->text(), QStringLiteral("loop"));
        QCOMPARE(table->item(1, 1)->text(), QStringLiteral("5,000–9,000"));

        // Rename in place: select the row, F2, type, Enter.
        table->setFocus();
        table->setCurrentCell(1, 2);
        QTest::keyClick(table, Qt::Key_F2);
        // The delegate's editor is deleted later once it commits: held by a QPointer, which becomes null
        // then.
        QPointer<QLineEdit> editor = table->findChild<QLineEdit*>();
        QVERIFY(editor && editor->isVisible());
        editor->selectAll();
        QTest::keyClicks(editor, QStringLiteral("steady loop"));
        QTest::keyClick(editor, Qt::Key_Return); // the delegate commits on its next turn
        QTRY_COMPARE(names(w), (QStringList{QStringLiteral("prologue"), QStringLiteral("steady loop"),
                                            QStringLiteral("epilogue")}));
        QVERIFY(menuAction(w, QStringLiteral("2. steady loop")));

        // A name of only spaces is refused: the old one comes back.
        table->setCurrentCell(1, 2);
        QTest::keyClick(table, Qt::Key_F2);
        editor = table->findChild<QLineEdit*>();
        QVERIFY(editor && editor->isVisible());
        editor->selectAll();
        QTest::keyClicks(editor, QStringLiteral("   "));
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_VERIFY(!editor || !editor->isVisible());
        QCOMPARE(names(w)[1], QStringLiteral("steady loop"));
        QTRY_COMPARE(table->item(1, 2)->text(), QStringLiteral("steady loop"));

        // Delete with the key: the first row goes, the others move up.
        table->setFocus();
        table->selectRow(0);
        QVERIFY(panel->deleteButton()->isEnabled());
        QTest::keyClick(table, Qt::Key_Delete);
        QCOMPARE(names(w), (QStringList{QStringLiteral("steady loop"), QStringLiteral("epilogue")}));
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1"));

        // A double-click brings the views back to one.
        w.selection()->setTimeRange(0, 100);
        const QRect cell = table->visualItemRect(table->item(0, 1));
        // (A person's double-click starts with a click: QTest's double-click alone sends no first press.)
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(w.selection()->from(), std::uint64_t{5000});
        QCOMPARE(w.selection()->to(), std::uint64_t{9000});
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Bookmark 1 of 2: steady loop"));

        // The menu renames and deletes the bookmark last shown, and names it.
        QAction* rename = menuAction(w, QStringLiteral("&Rename"));
        QVERIFY(rename && rename->isEnabled());
        QCOMPARE(rename->text(), QStringLiteral("&Rename “steady loop”…"));
        test::answerNextDialog(QStringLiteral("main loop"));
        rename->trigger();
        QTRY_COMPARE(names(w)[0], QStringLiteral("main loop"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("main loop"));
        QAction* remove = menuAction(w, QStringLiteral("&Delete"));
        QVERIFY(remove && remove->isEnabled());
        QCOMPARE(remove->text(), QStringLiteral("&Delete “main loop”"));
        remove->trigger();
        QCOMPARE(names(w), QStringList{QStringLiteral("epilogue")});
        // Nothing is "last shown" now: the menu says so by disabling both.
        QVERIFY(!menuAction(w, QStringLiteral("&Rename"))->isEnabled());
        QVERIFY(!menuAction(w, QStringLiteral("&Delete"))->isEnabled());
        // Next bookmark (PageDown) still steps through what is left.
        menuAction(w, QStringLiteral("&Next bookmark"))->trigger();
        QCOMPARE(w.selection()->from(), std::uint64_t{12000});
        QCOMPARE(menuAction(w, QStringLiteral("&Delete"))->text(), QStringLiteral("&Delete “epilogue”"));
    }
};

QTEST_MAIN(TestUiBookmarks)
#include "tst_ui_bookmarks.moc"

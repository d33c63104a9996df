// Notes, bookmarks and sessions on an imported profile, as a person uses them: right-click a
// kernel on the timeline to pin a note to it, note the visible range from the Notes tab, bookmark the view
// with Ctrl+B, save the session, edit a note (saved by itself), close, and open the session again: the
// profile comes back with its notes on their slices, a double-click on a note shows its kernel and the
// bookmark brings back the view. A session whose profile moved with it still opens; one whose profile is gone
// says so.
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "imported/profile_notes_view.h"
#include "imported/profile_timeline_view.h"
#include "main_window.h"
#include "selection/selection_model.h"
#include "session/notes_model.h"
#include "session/replay_session.h"
#include "session/session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "ui_test_suite.h"
#include "ui_test_support.h"
#include "views/bookmarks_view.h"
#include "views/notes_view.h"
#include "views/timeline_view.h"

#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QToolBar>
#include <QToolButton>

using namespace xps;

namespace {

// The Kineto step copied where a test may move or delete it.
QString copyOfKinetoStep(const QTemporaryDir& dir, const QString& name = QStringLiteral("step.json"))
{
    const QString path = dir.filePath(name);
    QFile::copy(QString::fromStdString(test::sourceDir()) + QStringLiteral("/tests/data/kineto_step.json"),
                path);
    return path;
}

bool openAndWait(ui::MainWindow& w, const QString& path)
{
    w.openFile(path);
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 20000) {
        const ui::ProfileRun* run = w.profileDocument()->run();
        if (run && !w.profileDocument()->isBusy() && w.profileExplorer() && w.profileExplorer()->isVisible())
            return true;
        QTest::qWait(10);
    }
    return false;
}

profile::SliceRow sliceNamed(const profile::Profile& p, std::string_view name)
{
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.nameOf(p.slices[i]) == name)
            return profile::SliceRow(i);
    return {};
}

// A right-click as the window system delivers it: a context-menu event at `pos`.
void rightClick(QWidget* widget, const QPoint& pos)
{
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, widget->mapToGlobal(pos));
    QApplication::sendEvent(widget, &event);
}

// The note labels' amber (timeline/note_bands.cpp: #FFE08A at 90% over the slices), in a run of pixels as
// wide as a label's number: no slice colour is that close to it.
bool hasAmberLabel(QWidget* widget)
{
    const QImage image = widget->grab().toImage();
    for (int y = 0; y < image.height(); ++y) {
        int run = 0;
        for (int x = 0; x < image.width(); ++x) {
            const QColor c(image.pixel(x, y));
            const bool amber =
                c.red() >= 235 && c.green() >= 200 && c.green() <= 235 && c.blue() >= 110 && c.blue() <= 165;
            run = amber ? run + 1 : 0;
            if (run >= 8)
                return true;
        }
    }
    return false;
}

// XPS_SHOT_DIR=DIR: the window as it is, to look at.
void shot(QWidget& w, const QString& name)
{
    const QByteArray dir = qgetenv("XPS_SHOT_DIR");
    if (dir.isEmpty())
        return;
    QTest::qWait(400); // the tables' columns fitted (ColumnFitter's timer)
    w.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(name + QStringLiteral(".png")));
}

QToolButton* replayAsProfileButton(ui::MainWindow& w)
{
    for (QToolBar* bar : w.findChildren<QToolBar*>())
        if (auto* b = qobject_cast<QToolButton*>(bar->widgetForAction(w.replayAsProfileAction())))
            return b;
    return nullptr;
}

bool waitSaved(QSignalSpy& spy, int count)
{
    if (!QTest::qWaitFor([&] { return spy.count() >= count; }, 10000))
        return false;
    return spy.last().at(1).toString().isEmpty(); // no error
}

} // namespace

class TestUiProfileNotes : public test::UiTestSuite
{
    Q_OBJECT
private slots:
    void notesAndBookmarksOnAProfileAreSavedAndComeBack()
    {
        QTemporaryDir dir;
        const QString profilePath = copyOfKinetoStep(dir);
        const QString sessionPath = dir.filePath(QStringLiteral("review.xps"));
        profile::SliceRow sgemm;
        {
            ui::MainWindow w(false);
            w.resize(1366, 768);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(openAndWait(w, profilePath));
            QApplication::setActiveWindow(&w); // keys go where a person's would: the focused widget
            QVERIFY(QTest::qWaitForWindowActive(&w));
            ui::ProfileExplorer* explorer = w.profileExplorer();
            ui::ProfileTimelineView* timeline = explorer->timeline();
            const profile::Profile& p = w.profileDocument()->run()->profile;
            sgemm = sliceNamed(p, "sgemm_128x64");
            QVERIFY(sgemm.valid());
            QTRY_VERIFY(!timeline->pointAt(sgemm).isNull());
            QVERIFY(!hasAmberLabel(timeline));

            // Right-click the kernel: the menu offers a note on it; the note is pinned to it.
            QStringList items;
            test::clickNextMenuItem(QStringLiteral("Add note on “sgemm_128x64”"), &items);
            test::answerNextDialog(QStringLiteral("tile too small: 40% of the SMs idle"));
            rightClick(timeline, timeline->pointAt(sgemm));
            QVERIFY2(items.contains(QStringLiteral("Add note on the visible range…")),
                     qPrintable(items.join(u'|')));
            ui::SessionNotes* notes = w.document()->notes();
            QCOMPARE(notes->notes().size(), std::size_t{1});
            const session::Annotation& pinned = notes->notes()[0];
            QVERIFY(pinned.slice);
            QCOMPARE(pinned.slice->name, std::string("sgemm_128x64"));
            QCOMPARE(pinned.slice->track, std::string("stream 7"));
            QCOMPARE(static_cast<profile::Nanos>(pinned.fromCycle), p.slice(sgemm).start);
            QCOMPARE(w.profileDocument()->selectedSlice(), sgemm);
            // The Notes tab is shown and lists it; the timeline draws it.
            ui::ProfileNotesView* panel = explorer->notes();
            QTRY_VERIFY(panel->isVisible());
            QTableView* table = panel->table();
            QCOMPARE(table->model()->rowCount(), 1);
            QCOMPARE(table->model()->index(0, ui::NotesModel::Pinned).data().toString(),
                     QStringLiteral("sgemm_128x64 on stream 7"));
            QCOMPARE(table->model()->index(0, ui::NotesModel::Text).data().toString(),
                     QStringLiteral("tile too small: 40% of the SMs idle"));
            QTRY_VERIFY(hasAmberLabel(timeline));

            // A note on the visible range (the whole step), from the tab's button: notes are listed in time
            // order, so it comes first.
            auto* onRange = panel->findChild<QPushButton*>(QStringLiteral("profileNoteOnRange"));
            QVERIFY(onRange && onRange->isEnabled());
            test::answerNextDialog(QStringLiteral("the whole step"));
            QTest::mouseClick(onRange, Qt::LeftButton);
            QCOMPARE(notes->notes().size(), std::size_t{2});
            QVERIFY(!notes->notes()[0].slice);
            QCOMPARE(notes->notes()[0].text, std::string("the whole step"));
            QCOMPARE(table->model()->index(0, ui::NotesModel::Pinned).data().toString(),
                     QStringLiteral("time range"));
            QCOMPARE(table->model()->index(1, ui::NotesModel::Pinned).data().toString(),
                     QStringLiteral("sgemm_128x64 on stream 7"));

            // Ctrl+B bookmarks the view: its range and the selected kernel.
            const auto range = w.profileDocument()->visibleRange();
            // The offscreen platform does not hand activation back to the window when a dialog closes, as a
            // window manager would.
            QApplication::setActiveWindow(&w);
            QVERIFY(QTest::qWaitForWindowActive(&w));
            test::answerNextDialog(QStringLiteral("the gemm"));
            QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
            QTRY_COMPARE(notes->bookmarks().size(), std::size_t{1});
            QVERIFY(notes->bookmarks()[0].selectedSlice);
            QCOMPARE(notes->bookmarks()[0].selectedSlice->name, std::string("sgemm_128x64"));
            QCOMPARE(static_cast<profile::Nanos>(notes->bookmarks()[0].fromCycle), range.first);

            // Saved; from now on an edit saves by itself.
            QSignalSpy saved(w.document(), &ui::SessionDocument::saved);
            w.document()->save(sessionPath);
            QVERIFY(waitSaved(saved, 1));
            QCOMPARE(w.document()->path(), sessionPath);
            QVERIFY(session::isProfileSession(sessionPath.toStdString()));
            QApplication::setActiveWindow(&w);
            QVERIFY(QTest::qWaitForWindowActive(&w));
            const QModelIndex text = table->model()->index(0, ui::NotesModel::Text);
            table->setCurrentIndex(text);
            table->setFocus();
            QTest::keyClick(table, Qt::Key_F2);
            QWidget* editor = QApplication::focusWidget();
            QVERIFY(editor && editor != table);
            QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClicks(editor, QStringLiteral("warm-up step"));
            QTest::keyClick(editor, Qt::Key_Return);
            // The delegate commits on the next turn of the event loop.
            QTRY_COMPARE(notes->notes()[0].text, std::string("warm-up step"));
            QVERIFY(waitSaved(saved, 2));
            QCOMPARE(w.document()->path(), sessionPath);
        }

        // Another window opens the session: the profile, its notes on their slices, the bookmark.
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, sessionPath));
        QApplication::setActiveWindow(&w);
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QCOMPARE(w.profileDocument()->run()->path, profilePath);
        QCOMPARE(w.document()->path(), sessionPath);
        ui::SessionNotes* notes = w.document()->notes();
        QCOMPARE(notes->notes().size(), std::size_t{2});
        QCOMPARE(notes->notes()[0].text, std::string("warm-up step"));
        QCOMPARE(notes->notes()[1].text, std::string("tile too small: 40% of the SMs idle"));
        QCOMPARE(notes->bookmarks().size(), std::size_t{1});
        ui::ProfileExplorer* explorer = w.profileExplorer();
        explorer->showNotes();
        QTableView* table = explorer->notes()->table();
        QTRY_VERIFY(table->isVisible());
        QCOMPARE(w.profileDocument()->selectedSlice(), profile::SliceRow());
        const QRect cell = table->visualRect(table->model()->index(1, ui::NotesModel::When));
        // (A person's double-click starts with a click: QTest's double-click alone sends no first press.)
        QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, cell.center());
        QCOMPARE(w.profileDocument()->selectedSlice(), sgemm);
        const profile::Slice& kernel = w.profileDocument()->run()->profile.slice(sgemm);
        const auto shown = w.profileDocument()->visibleRange();
        QVERIFY(shown.first <= kernel.start && kernel.end() <= shown.second);
        QTRY_VERIFY(hasAmberLabel(explorer->timeline()));

        // The Bookmarks panel writes the bookmark's range in the profile's time, not cycles.
        QTableWidget* marks = w.bookmarks()->table();
        QCOMPARE(marks->horizontalHeaderItem(1)->text(), QStringLiteral("time"));
        QVERIFY2(marks->item(0, 1)->text().endsWith(QStringLiteral(" ms")),
                 qPrintable(marks->item(0, 1)->text()));
        QCOMPARE(marks->item(0, 2)->text(), QStringLiteral("the gemm"));

        // PageDown shows the bookmark: its range and its kernel.
        w.profileDocument()->selectSlice(profile::SliceRow(), QStringLiteral("test"));
        QTest::keyClick(&w, Qt::Key_PageDown);
        QCOMPARE(w.profileDocument()->selectedSlice(), sgemm);
        QCOMPARE(w.profileDocument()->visibleRange().first,
                 static_cast<profile::Nanos>(notes->bookmarks()[0].fromCycle));

        // File > Export report: the profile's report, with the notes and the bookmark.
        const QString reportPath = dir.filePath(QStringLiteral("review.md"));
        w.exportReport(reportPath);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(reportPath), 10000);
        const std::string report = test::readFile(reportPath.toStdString());
        QVERIFY2(report.find("# Profile report: step.json") != std::string::npos, report.c_str());
        QVERIFY(report.find("sgemm_128x64 on stream 7: tile too small: 40% of the SMs idle") !=
                std::string::npos);
        QVERIFY(report.find(": warm-up step") != std::string::npos);
        QVERIFY(report.find("- the gemm: ") != std::string::npos);
    }

    void aSessionMovedWithItsProfileOpens()
    {
        QTemporaryDir first, second;
        const QString profilePath = copyOfKinetoStep(first);
        const QString sessionPath = first.filePath(QStringLiteral("s.xps"));
        session::Session s;
        s.profileSource = profilePath.toStdString();
        s.annotations.push_back({1, "here", 0, 1, std::nullopt, std::nullopt});
        // A range from before the profile's first event (times are signed nanoseconds): first, not swapped.
        s.annotations.push_back({3, "before the step", static_cast<std::uint64_t>(std::int64_t{-1000}), 5000,
                                 std::nullopt, std::nullopt});
        // Pinned to a kernel the profile does not have (a re-run renamed it): said in the status bar.
        s.annotations.push_back(
            {2, "gone", 5, 6, std::nullopt, session::SliceAnchor{1, 0, 7, "stream 7", "sgemm_v2", 40000}});
        QVERIFY(session::writeProfileSession(s, sessionPath.toStdString()));
        // Both sent to a colleague: the profile is no longer where the session says.
        const QString movedSession = second.filePath(QStringLiteral("s.xps"));
        QVERIFY(QFile::rename(sessionPath, movedSession));
        QVERIFY(QFile::rename(profilePath, second.filePath(QStringLiteral("step.json"))));
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(openAndWait(w, movedSession));
        QCOMPARE(w.profileDocument()->run()->path, second.filePath(QStringLiteral("step.json")));
        QCOMPARE(w.document()->notes()->notes().size(), std::size_t{3});
        const session::Annotation& earliest = w.document()->notes()->notes()[0];
        QCOMPARE(earliest.text, std::string("before the step"));
        QCOMPARE(static_cast<std::int64_t>(earliest.fromCycle), std::int64_t{-1000});
        QCOMPARE(earliest.toCycle, std::uint64_t{5000});
        QVERIFY2(w.statusBar()->currentMessage().contains(
                     QStringLiteral("A note of this session is pinned to a slice the profile no "
                                    "longer has")),
                 qPrintable(w.statusBar()->currentMessage()));

        // Without its profile, the session says which file it needs.
        QVERIFY(QFile::remove(second.filePath(QStringLiteral("step.json"))));
        w.openFile(movedSession);
        QMessageBox* box = nullptr;
        QTRY_VERIFY((box = w.findChild<QMessageBox*>(QStringLiteral("openError"))) != nullptr);
        QVERIFY2(box->text().contains(QStringLiteral("is not there any more")) &&
                     box->text().contains(QStringLiteral("step.json")),
                 qPrintable(box->text()));
        QTest::mouseClick(box->button(QMessageBox::Ok), Qt::LeftButton);
    }

    void aReplaysNoteSitsOnItsDmaOnTheProfilePage()
    {
        // A note on a replay is in its cycles, and the replay seen as a profile counts the same cycles (its
        // timebase says what one is: 20/21 ns at 1.05 GHz), so its band is drawn there too, over the DMA it
        // was written on. (While the profile counted nanoseconds the page drew no notes: they would have
        // stood 5% early and read 5% long.)
        ui::MainWindow w(false);
        QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
        const events::DmaRecord dma = w.session()->run()->store.dmas().at(40); // from the replay itself
        QVERIFY(dma.end > dma.start + 100);
        w.document()->notes()->addNote({0, "this load", dma.start, dma.end, std::nullopt, std::nullopt});
        QToolButton* button = replayAsProfileButton(w);
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr && w.profileExplorer()->isVisible(),
                                 20000);
        const profile::Profile& p = w.profileDocument()->run()->profile;
        profile::SliceRow slice;
        for (std::uint32_t i = 0; i < p.slices.size(); ++i)
            if (p.slices[i].link == dma.id + 1 && p.categoryOf(p.slices[i]) == "dma")
                slice = profile::SliceRow(i);
        QVERIFY(slice.valid());
        ui::ProfileExplorer* explorer = w.profileExplorer();
        w.profileDocument()->reveal(slice, QStringLiteral("test")); // as a double-click in the table does
        ui::ProfileTimelineView* timeline = explorer->timeline();
        QTRY_VERIFY(!timeline->pointAt(slice).isNull());
        // The band's label starts at the DMA's last chunk's end less its length: where the DMA's slice ends.
        const double noteEnd = timeline->xOf(static_cast<profile::Ticks>(dma.end));
        const double sliceEnd = timeline->xOf(p.slice(slice).end());
        QVERIFY2(std::abs(noteEnd - sliceEnd) < 1.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(noteEnd).arg(sliceEnd)));
        QTRY_VERIFY(hasAmberLabel(timeline));
        // The Notes tab says its length in time: the cycles' nanoseconds.
        QTableView* table = explorer->notes()->table();
        QTRY_COMPARE(table->model()->rowCount(), 1);
        int when = -1;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            if (table->model()->headerData(c, Qt::Horizontal).toString() == QStringLiteral("at (length)"))
                when = c;
        QVERIFY(when >= 0);
        const QString expected = QStringLiteral("(%1)").arg(QString::fromStdString(
            profile::Timebase::cyclesAt(1050).us(static_cast<profile::Ticks>(dma.end - dma.start))));
        const QString shown = table->model()->index(0, when).data().toString();
        QVERIFY2(shown.endsWith(expected), qPrintable(shown + QStringLiteral(" vs ") + expected));
    }

    // A note made on a slice of the replay's profile page is the replay's: pinned to the
    // slice, at its cycles, listed and drawn on the replay's timeline too, saved with the replay's session,
    // and found on its slice again when the session is opened and the replay seen as a profile.
    void aNoteOnAReplaysProfileSliceIsTheReplays()
    {
        QTemporaryDir dir;
        const QString sessionPath = dir.filePath(QStringLiteral("decode.xps"));
        {
            ui::MainWindow w(false);
            QVERIFY(test::openSample(w, QStringLiteral("decode_naive.xtrace.json")));
            // The attention region's cycles, from the replay's own region records.
            const ui::Run* run = w.session()->run();
            std::pair<std::uint64_t, std::uint64_t> attention{0, 0};
            for (const events::StoreSlice& r : run->store.regionsByEntry(ChipId(0)))
                if (run->trace->chips[0].symbols.regions[events::regionOf(r)].name == "attention")
                    attention = {r.start, r.end()};
            QVERIFY(attention.second > attention.first);
            QTest::mouseClick(replayAsProfileButton(w), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(
                w.profileDocument()->run() != nullptr && w.profileExplorer()->isVisible(), 20000);
            const profile::SliceRow slice = sliceNamed(w.profileDocument()->run()->profile, "attention");
            QVERIFY(slice.valid());
            ui::ProfileTimelineView* timeline = w.profileExplorer()->timeline();
            QTRY_VERIFY(!timeline->pointAt(slice).isNull());
            QVERIFY(!hasAmberLabel(timeline));
            test::clickNextMenuItem(QStringLiteral("Add note on “attention”"));
            test::answerNextDialog(QStringLiteral("waits on every K/V load"));
            rightClick(timeline, timeline->pointAt(slice));
            ui::SessionNotes* notes = w.document()->notes();
            QCOMPARE(notes->notes().size(), std::size_t{1});
            const session::Annotation& note = notes->notes()[0];
            QVERIFY(note.slice && !note.anchor);
            QCOMPARE(note.slice->name, std::string("attention"));
            QCOMPARE(note.fromCycle, attention.first);
            QCOMPARE(note.toCycle, attention.second);
            QTRY_VERIFY(hasAmberLabel(timeline));
            const QString pinned = w.profileExplorer()
                                       ->notes()
                                       ->table()
                                       ->model()
                                       ->index(0, ui::NotesModel::Pinned)
                                       .data()
                                       .toString();
            QCOMPARE(pinned,
                     QStringLiteral("attention on %1").arg(QString::fromStdString(note.slice->track)));
            shot(w, QStringLiteral("replay-profile-note"));
            // Ctrl+B here keeps this page's range (the replay's cycles) and the selected slice.
            w.profileDocument()->reveal(slice, QStringLiteral("test"));
            const auto range = w.profileDocument()->visibleRange();
            QApplication::setActiveWindow(&w);
            QVERIFY(QTest::qWaitForWindowActive(&w));
            test::answerNextDialog(QStringLiteral("attention"));
            QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
            QTRY_COMPARE(notes->bookmarks().size(), std::size_t{1});
            const session::Bookmark mark = notes->bookmarks()[0];
            QCOMPARE(static_cast<profile::Ticks>(mark.fromCycle), std::max<profile::Ticks>(range.first, 0));
            QCOMPARE(static_cast<profile::Ticks>(mark.toCycle), range.second);
            QVERIFY(mark.selectedSlice && mark.selectedSlice->name == "attention");

            // Back on the replay's views: its notes list has it, pinned the same, and its timeline draws it.
            QTest::mouseClick(replayAsProfileButton(w), Qt::LeftButton);
            QTRY_VERIFY(w.timeline()->isVisible());
            auto* list = w.findChild<ui::NotesView*>(QStringLiteral("notes"));
            QVERIFY(list);
            QCOMPARE(list->model()->rowCount(), 1);
            QCOMPARE(list->model()->index(0, ui::NotesModel::Pinned).data().toString(), pinned);
            QTRY_VERIFY(hasAmberLabel(w.timeline()));
            shot(w, QStringLiteral("replay-note"));
            // The bookmark on the replay's timeline: the same cycles.
            w.showBookmark(0);
            QCOMPARE(w.selection()->from(), mark.fromCycle);
            QCOMPARE(w.selection()->to(), mark.toCycle);

            QSignalSpy saved(w.document(), &ui::SessionDocument::saved);
            w.document()->save(sessionPath);
            QVERIFY(waitSaved(saved, 1));
        }
        ui::MainWindow w(false);
        w.resize(1366, 768);
        w.show();
        w.openFile(sessionPath);
        QVERIFY(test::waitDone(w));
        QTRY_COMPARE(w.document()->notes()->notes().size(), std::size_t{1});
        QVERIFY(w.document()->notes()->notes()[0].slice);
        QTest::mouseClick(replayAsProfileButton(w), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(w.profileDocument()->run() != nullptr && w.profileExplorer()->isVisible(),
                                 20000);
        // A double-click on the note shows its slice, selected.
        QTableView* table = w.profileExplorer()->notes()->table();
        QTRY_COMPARE(table->model()->rowCount(), 1);
        const QModelIndex at = table->model()->index(0, ui::NotesModel::Pinned);
        w.profileExplorer()->showNotes();
        QTRY_VERIFY(table->isVisible());
        // (A person's double-click starts with a click: QTest's double-click alone sends no first press.)
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(at).center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(at).center());
        const profile::Profile& p = w.profileDocument()->run()->profile;
        const profile::SliceRow attention = sliceNamed(p, "attention");
        QCOMPARE(w.profileDocument()->selectedSlice(), attention);
        const auto shown = w.profileDocument()->visibleRange();
        QVERIFY(shown.first <= p.slice(attention).start && p.slice(attention).end() <= shown.second);
    }
};

QTEST_MAIN(TestUiProfileNotes)
#include "tst_ui_profile_notes.moc"

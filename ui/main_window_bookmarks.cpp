// The main window's bookmarks: add the current view, show one (PageDown / PageUp step through them), and
// the Bookmarks menu, which renames or deletes the one last added or shown.

#include "main_window.h"

#include "imported/profile_document.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "views/bookmarks_view.h"
#include "views/timeline_view.h"

#include <QDockWidget>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QStatusBar>

namespace xps::ui {

void MainWindow::addBookmark(const QString& name)
{
    const bool profile = m_document->isProfile() && showsImportedProfile();
    if ((!profile && !m_session->run()) || name.trimmed().isEmpty())
        return;
    session::Bookmark b;
    b.name = name.trimmed().toStdString();
    if (profile) {
        // The profile's visible time range (its nanoseconds) and selected slice.
        const auto [from, to] = m_profile->visibleRange();
        b.fromCycle = static_cast<std::uint64_t>(from);
        b.toCycle = static_cast<std::uint64_t>(to);
        b.selectedSlice = session::sliceAnchorOf(m_profile->run()->profile, m_profile->selectedSlice());
    } else {
        b.fromCycle = m_selection->from();
        b.toCycle = m_selection->to();
        b.selectedPcs = m_selection->selection().pcs;
        b.hiddenLanes = m_timeline->hiddenLanes();
        if (showsReplaysProfile()) {
            // The replay's profile page: its own range (the replay's cycles too) and selected slice.
            const auto [from, to] = m_profile->visibleRange();
            b.fromCycle = static_cast<std::uint64_t>(std::max<profile::Ticks>(from, 0));
            b.toCycle = static_cast<std::uint64_t>(std::max<profile::Ticks>(to, 1));
            b.selectedSlice = session::sliceAnchorOf(m_profile->run()->profile, m_profile->selectedSlice());
        }
    }
    m_document->notes()->addBookmark(std::move(b));
    m_currentBookmark = static_cast<int>(m_document->notes()->bookmarks().size()) - 1;
}

void MainWindow::showBookmark(int index)
{
    const auto& bookmarks = m_document->notes()->bookmarks();
    if (bookmarks.empty())
        return;
    const int n = static_cast<int>(bookmarks.size());
    m_currentBookmark = ((index % n) + n) % n;
    const session::Bookmark& b = bookmarks[static_cast<std::size_t>(m_currentBookmark)];
    const QString message =
        tr("Bookmark %1 of %2: %3").arg(m_currentBookmark + 1).arg(n).arg(QString::fromStdString(b.name));
    if (m_document->isProfile()) {
        if (!showsImportedProfile())
            return;
        const profile::Profile& shown = m_profile->run()->profile;
        const profile::SliceRow slice =
            b.selectedSlice ? session::locateSlice(shown, *b.selectedSlice) : profile::SliceRow();
        m_profile->selectSlice(slice, tr("bookmark “%1”").arg(QString::fromStdString(b.name)));
        m_profile->setVisibleRange(static_cast<profile::Ticks>(b.fromCycle),
                                   static_cast<profile::Ticks>(b.toCycle));
        statusBar()->showMessage(message, 5000);
        return;
    }
    if (showsReplaysProfile()) {
        // A replay's bookmark on its profile page: the same cycles, and the slice if it was made there.
        const profile::Profile& shown = m_profile->run()->profile;
        const profile::SliceRow slice =
            b.selectedSlice ? session::locateSlice(shown, *b.selectedSlice) : profile::SliceRow();
        if (slice.valid())
            m_profile->selectSlice(slice, tr("bookmark “%1”").arg(QString::fromStdString(b.name)));
        m_profile->setVisibleRange(static_cast<profile::Ticks>(b.fromCycle),
                                   static_cast<profile::Ticks>(std::max(b.toCycle, b.fromCycle + 1)));
        statusBar()->showMessage(message, 5000);
        return;
    }
    m_selection->setTimeRange(b.fromCycle, std::max(b.toCycle, b.fromCycle + 1));
    m_timeline->setHiddenLanes(b.hiddenLanes);
    Selection s;
    s.pcs = b.selectedPcs;
    s.origin = tr("bookmark “%1”").arg(QString::fromStdString(b.name));
    m_selection->select(std::move(s));
    statusBar()->showMessage(message, 5000);
}

void MainWindow::stepBookmark(int delta)
{
    showBookmark(m_currentBookmark < 0 && delta < 0 ? -1 : m_currentBookmark + delta);
}

void MainWindow::updateBookmarkMenu()
{
    if (!m_bookmarkMenu)
        return;
    // The panel (made after the menu) writes ranges in the document's time: cycles, or an imported
    // profile's from its start.
    if (m_bookmarks && m_document->isProfile())
        m_bookmarks->setRangeFormat(tr("time"), [this](std::uint64_t from, std::uint64_t to) {
            const ProfileRun* run = m_profile->run();
            const profile::Ticks origin = run ? run->profile.startTime() : 0;
            const profile::Timebase tb = run ? run->profile.timebase : profile::Timebase{};
            return QStringLiteral("%1–%2").arg(
                QString::fromStdString(tb.ms(static_cast<profile::Ticks>(from) - origin)),
                QString::fromStdString(tb.ms(static_cast<profile::Ticks>(to) - origin)));
        });
    else if (m_bookmarks)
        m_bookmarks->setRangeFormat(tr("cycles"), {});
    m_bookmarkMenu->clear();
    m_bookmarkMenu->addAction(
        tr("&Add bookmark for this view…"), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] {
            bool ok = false;
            const QString name =
                QInputDialog::getText(this, tr("Add bookmark"), tr("Name of this view:"), QLineEdit::Normal,
                                      tr("View %1").arg(m_document->notes()->bookmarks().size() + 1), &ok);
            if (ok)
                addBookmark(name);
        });
    m_bookmarkMenu->addAction(tr("&Next bookmark"), QKeySequence(Qt::Key_PageDown), this,
                              [this] { stepBookmark(1); });
    m_bookmarkMenu->addAction(tr("&Previous bookmark"), QKeySequence(Qt::Key_PageUp), this,
                              [this] { stepBookmark(-1); });
    const auto& bookmarks = m_document->notes()->bookmarks();
    const bool current =
        m_currentBookmark >= 0 && static_cast<std::size_t>(m_currentBookmark) < bookmarks.size();
    const QString currentName =
        current ? QString::fromStdString(bookmarks[static_cast<std::size_t>(m_currentBookmark)].name)
                : QString();
    QAction* rename = m_bookmarkMenu->addAction(
        current ? tr("&Rename “%1”…").arg(currentName) : tr("&Rename bookmark…"), this, [this] {
            auto* notes = m_document->notes();
            const auto index = static_cast<std::size_t>(m_currentBookmark);
            if (m_currentBookmark < 0 || index >= notes->bookmarks().size())
                return;
            bool ok = false;
            const QString name = QInputDialog::getText(
                this, tr("Rename bookmark"), tr("Name of this view:"), QLineEdit::Normal,
                QString::fromStdString(notes->bookmarks()[index].name), &ok);
            if (ok)
                notes->renameBookmark(index, name.toStdString());
        });
    rename->setEnabled(current);
    QAction* remove = m_bookmarkMenu->addAction(
        current ? tr("&Delete “%1”").arg(currentName) : tr("&Delete bookmark"), this, [this] {
            if (m_currentBookmark >= 0)
                m_document->notes()->removeBookmark(static_cast<std::size_t>(m_currentBookmark));
        });
    remove->setEnabled(current);
    m_bookmarkMenu->addAction(tr("Bookmarks &panel"), this, [this] {
        if (auto* dock = qobject_cast<QDockWidget*>(m_bookmarks->parentWidget())) {
            dock->show();
            dock->raise();
        }
    });
    if (!bookmarks.empty())
        m_bookmarkMenu->addSeparator();
    for (std::size_t i = 0; i < bookmarks.size(); ++i)
        m_bookmarkMenu->addAction(tr("%1. %2").arg(i + 1).arg(QString::fromStdString(bookmarks[i].name)),
                                  this, [this, i] { showBookmark(static_cast<int>(i)); });
}

} // namespace xps::ui

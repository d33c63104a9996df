// The main window's profile page: the profile explorer, made on first use, in place of the replay's
// timeline and docks.

#include "main_window.h"

#include "analysis/replay_profile.h"
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "views/timeline_view.h"

#include <QDockWidget>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStatusBar>

namespace xps::ui {

void MainWindow::ensureProfileExplorer()
{
    // Made on first use: laying out its tables and panels would otherwise cost every replay's first frame.
    if (!m_profileExplorer) {
        m_profileExplorer = new ProfileExplorer(m_profile, m_document->notes(), this);
        // Its minimum must not add to the replay docks' while both are there (they hide once it is shown):
        // the window grew to 826 px on a 768 px screen, its status bar out of sight.
        m_profileExplorer->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
        m_centre->addWidget(m_profileExplorer);
        connect(m_document, &SessionDocument::pinnedNotesNotFound, this, [this](int count) {
            statusBar()->showMessage(
                count == 1
                    ? tr("A note of this session is pinned to a slice the profile no longer has; it stays "
                         "at its saved time.")
                    : tr("%1 notes of this session are pinned to slices the profile no longer has; they "
                         "stay at their saved times.")
                          .arg(count),
                15000);
        });
    }
}

bool MainWindow::openProfileSession(const QString& path)
{
    if (!session::isProfileSession(path.toStdString()))
        return false;
    QString error;
    const QString source = m_document->expectProfileSession(path, &error);
    if (source.isEmpty()) {
        onOpenFailed(error);
        return true;
    }
    ensureProfileExplorer();
    m_projectedRun.reset();
    m_converting = false;
    m_profile->open(source);
    addRecentFile(path);
    return true;
}

bool MainWindow::showsImportedProfile() const
{
    return m_profileExplorer && m_centre->currentWidget() == m_profileExplorer && m_profile->run() &&
           m_profile->run()->fromFile;
}

void MainWindow::showReplayAsProfile()
{
    const std::shared_ptr<const Run> run = m_session->runHandle();
    if (!run || !m_session->analysesAvailable() || !run->view)
        return;
    ensureProfileExplorer();
    if (m_projectedRun.lock() == run && m_profile->run()) {
        showReplayViews(false);
        return;
    }
    m_projectedRun = run;
    m_converting = true;
    m_profile->openBuilt(
        run->path, [run](const importing::ImportOptions&, std::stop_token stop) -> Result<profile::Profile> {
            return analysis::replayAsProfile(*run->view, run->path.toStdString(), stop);
        });
}

void MainWindow::showReplayViews(bool replay)
{
    {
        // The action says which page is shown: the replay's profile, or not.
        const QSignalBlocker quiet(m_profileViewAction);
        m_profileViewAction->setChecked(!replay && !m_projectedRun.expired());
    }
    if (replay) {
        for (QDockWidget* dock : std::as_const(m_hiddenDocks))
            dock->show();
        m_hiddenDocks.clear();
        m_centre->setCurrentWidget(m_timeline);
        return;
    }
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        if (dock->isVisible()) {
            m_hiddenDocks.push_back(dock);
            dock->hide();
        }
    m_centre->setCurrentWidget(m_profileExplorer);
}

} // namespace xps::ui

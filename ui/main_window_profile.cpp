// The main window's profile page: the profile explorer, made on first use, in place of the replay's
// timeline and docks; the profile document's progress, results and failures in the status bar; sessions on
// imported profiles.

#include "main_window.h"

#include "analysis/replay_profile.h"
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "views/timeline_view.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolButton>

#include <utility>

namespace xps::ui {

void MainWindow::connectProfileDocument()
{
    connect(m_profile, &ProfileDocument::loadStarted, this, [this](const QString& path) {
        if (!m_converting) // another file opened: a comparison waiting for the replay's profile is dropped
            m_comparisonPendingOnProfile.clear();
        m_stageLabel->setText(
            m_converting ? tr("Seeing the replay of %1 as a profile…").arg(QFileInfo(path).fileName())
                         : tr("Importing %1…").arg(QFileInfo(path).fileName()));
        m_progress->setRange(0, 0);
        m_progress->setFormat(QString());
        m_progress->show();
        m_cancel->show();
    });
    connect(m_profile, &ProfileDocument::progress, this, [this](quint64 read, quint64 total) {
        if (total == 0) { // a stream of unknown length: how much, not how far
            m_progress->setRange(0, 0);
            m_progress->setFormat(tr("%1 MB read").arg(static_cast<double>(read) / 1e6, 0, 'f', 0));
            return;
        }
        const int permille =
            static_cast<int>(1000.0 * std::min(1.0, static_cast<double>(read) / static_cast<double>(total)));
        m_progress->setRange(0, 1000);
        m_progress->setValue(permille);
        m_progress->setFormat(tr("%1% of %2 MB")
                                  .arg(permille / 10)
                                  .arg(static_cast<double>(total) / 1e6, 0, 'f', total < 10'000'000 ? 1 : 0));
    });
    connect(m_profile, &ProfileDocument::loaded, this, [this] {
        const ProfileRun* run = m_profile->run();
        m_progress->hide();
        m_cancel->hide();
        m_converting = false;
        showReplayViews(false);
        setWindowTitle(tr("%1 — xpushark").arg(QFileInfo(run->path).fileName()));
        addRecentFile(run->path);
        m_stageLabel->setText(tr("%1: %2 slices, %3 flows on %4 tracks; %5 finding(s)")
                                  .arg(QString::fromStdString(run->profile.format))
                                  .arg(run->profile.slices.size())
                                  .arg(run->profile.flows.size())
                                  .arg(run->profile.tracks.size())
                                  .arg(run->analysis.findings.size()));
        if (!m_comparisonPendingOnProfile.isEmpty())
            openProfileComparison(std::exchange(m_comparisonPendingOnProfile, QString()));
    });
    connect(m_profile, &ProfileDocument::failed, this, [this](const QString& message) {
        m_converting = false;
        m_projectedRun.reset();
        m_comparisonPendingOnProfile.clear();
        m_progress->hide();
        m_cancel->hide();
        onOpenFailed(message);
    });
}

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

bool MainWindow::showsReplaysProfile() const
{
    return m_profileExplorer && m_centre->currentWidget() == m_profileExplorer && m_profile->run() &&
           !m_profile->run()->fromFile;
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
            return analysis::replayAsProfile(*run->view, run->path.toStdString(), run->analyses.criticalPath,
                                             stop);
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

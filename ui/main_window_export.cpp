// The main window's exports (Chrome trace, analysis JSON, report) and Save session as: written on a pool
// thread, the result in the status bar, an error in a dialog.

#include "main_window.h"

#include "imported/profile_document.h"

#include "export/chrome_trace.h"
#include "report/analysis_json.h"
#include "report/report.h"
#include "report/report_file.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "util/atomic_file.h"
#include "util/json_text.h"

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QStatusBar>
#include <QThreadPool>

#include <fstream>
#include <memory>
#include <stop_token>

namespace xps::ui {

const Run* MainWindow::analysedRunOrSayWhyNot()
{
    const Run* run = m_session->run();
    if (run && m_session->analysesAvailable() && !m_session->isBusy())
        return run;
    QMessageBox::information(this, tr("Export"),
                             m_session->analysesWereCancelled()
                                 ? ReplaySession::analysesCancelledText()
                                 : tr("Open a trace and let its analysis finish first."));
    return nullptr;
}

void MainWindow::exportChromeTrace(const QString& chosen)
{
    // What the window shows: an imported profile, or else the replay (its profile and its own rows).
    const std::shared_ptr<const ProfileRun> profile =
        showsImportedProfile() ? m_profile->runHandle() : nullptr;
    const Run* run = profile ? nullptr : m_session->run();
    if (!profile && (!run || !run->view || m_session->isBusy())) {
        QMessageBox::information(this, tr("Export"), tr("Open a trace and let its replay finish first."));
        return;
    }
    const QString suggested =
        QFileInfo(profile ? profile->path : run->path).completeBaseName().section(QLatin1Char('.'), 0, 0) +
        QStringLiteral("-perfetto.json");
    const QString path = !chosen.isEmpty()
                             ? chosen
                             : QFileDialog::getSaveFileName(this, tr("Export Chrome/Perfetto trace"),
                                                            suggested, tr("Chrome trace (*.json)"));
    if (path.isEmpty())
        return;
    // Gigabytes for a long replay: written on a pool thread, with its progress and a Cancel in a dialog.
    auto* dialog =
        new QProgressDialog(tr("Writing %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 1000, this);
    dialog->setObjectName(QStringLiteral("chromeExportProgress"));
    dialog->setWindowTitle(tr("Export Chrome/Perfetto trace"));
    dialog->setMinimumWidth(dialog->fontMetrics().averageCharWidth() * 56); // a long file name fits
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setMinimumDuration(300); // a small export comes and goes without a flash
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    dialog->setValue(0);
    auto stop = std::make_shared<std::stop_source>();
    connect(dialog, &QProgressDialog::canceled, this, [stop] { stop->request_stop(); });
    exporting::ExportControl control;
    control.stop = stop->get_token();
    // From the exporting thread; the dialog is only touched on the GUI thread, while it exists.
    control.progress = [dialog = QPointer<QProgressDialog>(dialog),
                        last = std::make_shared<int>(-1)](double f) {
        const int permille = static_cast<int>(f * 1000);
        if (permille == *last)
            return;
        *last = permille;
        QMetaObject::invokeMethod(
            qApp,
            [dialog, permille] {
                if (dialog && !dialog->wasCanceled())
                    dialog->setValue(permille);
            },
            Qt::QueuedConnection);
    };
    // The replay's critical path goes into the file with it, as its analyses found it (or found by the
    // export while they are still running).
    const bool analysed = m_session->analysesAvailable();
    const auto write = [profile, run = profile ? nullptr : m_session->runHandle(), file = path.toStdString(),
                        control, analysed] {
        const Status s =
            profile ? exporting::writeChromeTrace(profile->profile, file, nullptr, control)
                    : exporting::writeReplayChromeTrace(*run->view, run->path.toStdString(), file, control,
                                                        analysed ? &run->analyses.criticalPath : nullptr);
        return s ? std::string() : s.error().toString();
    };
    exportInBackground(path, write, [dialog = QPointer<QProgressDialog>(dialog), stop] {
        if (dialog)
            dialog->close();
        return stop->stop_requested();
    });
}

void MainWindow::exportAnalysisJson()
{
    if (!analysedRunOrSayWhyNot())
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export analysis"), QString(), tr("JSON (*.json)"));
    if (path.isEmpty())
        return;
    exportInBackground(path, [run = m_session->runHandle(), file = path.toStdString()] {
        const std::string json =
            text::jsonText(report::analysisToJson(*run->view, run->analyses, run->suggestions, run->groups),
                           2) +
            "\n";
        const Status s = writeFileAtomically(file, [&](const std::string& temporary) -> Status {
            std::ofstream out(temporary, std::ios::binary);
            out << json;
            out.flush();
            return out ? Status(Ok{}) : Status(Error(file, "could not write"));
        });
        return s ? std::string() : s.error().toString();
    });
}

void MainWindow::exportReport(const QString& chosen)
{
    // The report is of what the window shows: an imported profile (with its notes and bookmarks), or else
    // the analysed replay.
    const std::shared_ptr<const ProfileRun> profile =
        showsImportedProfile() ? m_profile->runHandle() : nullptr;
    const Run* run = profile ? nullptr : analysedRunOrSayWhyNot();
    if (!run && !profile)
        return;
    const QString suggested =
        QFileInfo(profile ? profile->path : run->path).completeBaseName().section(QLatin1Char('.'), 0, 0) +
        QStringLiteral("-report.html");
    const QString path =
        !chosen.isEmpty()
            ? chosen
            : QFileDialog::getSaveFileName(
                  this, tr("Export report"), suggested,
                  tr("HTML, self-contained (*.html);;PDF (*.pdf);;Markdown (*.md);;JSON (*.json)"));
    if (path.isEmpty())
        return;
    const std::optional<ReportFormat> format = reportFormatOf(path.toStdString());
    if (!format) {
        QMessageBox::warning(this, tr("Export report"), tr("Name the file .html, .pdf, .md or .json."));
        return;
    }
    const std::string generator =
        QStringLiteral("xpushark %1").arg(QApplication::applicationVersion()).toStdString();
    const SessionNotes* notes = m_document->notes();
    if (profile) {
        exportInBackground(path, [profile, file = path.toStdString(), format = *format, generator,
                                  annotations = notes->notes(), bookmarks = notes->bookmarks()] {
            report::Report r = report::buildImportedReport(profile->profile, profile->analysis,
                                                           profile->path.toStdString(), generator);
            report::addImportedSessionContent(r, annotations, bookmarks);
            return writeReport(r, file, format);
        });
        return;
    }
    exportInBackground(path, [run = m_session->runHandle(), file = path.toStdString(), format = *format,
                              generator, annotations = notes->notes(), bookmarks = notes->bookmarks(),
                              states = notes->suggestionStates()] {
        report::Report r = report::buildReport(*run->view, run->analyses, run->suggestions,
                                               run->path.toStdString(), generator, run->groups);
        report::addSessionContent(r, *run->view, annotations, bookmarks, states);
        return writeReport(r, file, format);
    });
}

void MainWindow::saveSessionAs()
{
    // The document is what the window shows: an imported profile, or else the replay.
    const bool profile = showsImportedProfile();
    const Run* run = m_session->run();
    if (!run && !profile) {
        QMessageBox::information(this, tr("Save session"), tr("Open a trace or a profile first."));
        return;
    }
    QString suggested = m_document->path();
    if (suggested.isEmpty())
        suggested = QFileInfo(profile ? m_profile->run()->path : run->path)
                        .completeBaseName()
                        .section(QLatin1Char('.'), 0, 0) +
                    QStringLiteral("-session.xps");
    QString path =
        QFileDialog::getSaveFileName(this, tr("Save session"), suggested, tr("xpushark session (*.xps)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QStringLiteral(".xps")))
        path += QStringLiteral(".xps");
    m_document->save(path);
}

void MainWindow::exportInBackground(const QString& path, std::function<std::string()> write,
                                    std::function<bool()> finished)
{
    statusBar()->showMessage(tr("Writing %1…").arg(path));
    QThreadPool::globalInstance()->start([write = std::move(write), finished = std::move(finished), path,
                                          window = QPointer<MainWindow>(this)] {
        const std::string error = write();
        // The window is only looked at on the GUI thread, where it is deleted.
        QMetaObject::invokeMethod(
            qApp,
            [window, path, error, finished] {
                // Cancelled only if the write stopped: a Cancel after the last byte changes nothing.
                const bool cancelled = finished && finished() && !error.empty();
                if (!window)
                    return;
                if (cancelled)
                    window->statusBar()->showMessage(
                        window->tr("Export cancelled: %1 was not written").arg(path), 10000);
                else if (error.empty())
                    window->statusBar()->showMessage(window->tr("Wrote %1").arg(path), 10000);
                else
                    window->showProblem(QStringLiteral("exportError"), window->tr("Export failed"),
                                        QString::fromStdString(error));
            },
            Qt::QueuedConnection);
    });
}

} // namespace xps::ui

#include "main_window.h"
#include "model_open_dialog.h"

#include "compare/comparison_window.h"
#include "util/json_text.h"

#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"

#include "export/chrome_trace.h"
#include "isa/isa_reference.h"
#include "report/analysis_json.h"
#include "report/report.h"
#include "report/report_file.h"
#include "selection/selection_model.h"
#include "session/replay_session.h"
#include "session/session_document.h"
#include "session/session_notes.h"
#include "theme/theme.h"
#include "util/atomic_file.h"
#include "views/bookmarks_view.h"
#include "views/dependency_graph_view.h"
#include "views/disassembly_view.h"
#include "views/dma_lanes_view.h"
#include "views/event_text.h"
#include "views/notes_view.h"
#include "views/replay_graph_source.h"
#include "views/suggestions_view.h"
#include "views/summary_view.h"
#include "views/timeline_view.h"
#include "views/vmem_heatmap_view.h"
#include "welcome_page.h"
#include "widgets/column_fitter.h"
#include "widgets/filling_scroll_area.h"
#include "widgets/replay_limits_dialog.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <fstream>

namespace xps::ui {
namespace {

constexpr int kMaxRecentFiles = 10;
const QString kTraceFilter = QStringLiteral("Traces, models and profiles (*.xtrace.json *.json *.json.gz "
                                            "*.xplane.pb *.et *.xps *.xasm *.mlir);;All files (*)");

} // namespace

MainWindow::MainWindow(bool restoreLayout, QWidget* parent)
    : QMainWindow(parent), m_session(new ReplaySession(this)), m_selection(new SelectionModel(this)),
      m_profile(new ProfileDocument(m_selection, this)), m_profileExplorer(nullptr),
      m_centre(new QStackedWidget(this)), m_welcome(new WelcomePage(this)),
      m_timeline(new TimelineView(m_session, m_selection, this)),
      m_disassembly(new DisassemblyView(m_session, m_selection, this)),
      m_summary(new SummaryView(m_session, this)),
      m_suggestions(new SuggestionsView(m_session, m_selection, this)), m_stageLabel(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_cancel(new QToolButton(this)),
      m_document(new SessionDocument(m_session, m_profile, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("xpushark"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    m_centre->addWidget(m_welcome);
    m_centre->addWidget(m_timeline);
    setCentralWidget(m_centre);
    m_views = {m_timeline};

    createActions();
    // Scrolls rather than demanding its full height (502 px) of the window: with it, the window could not
    // be shorter than 866 px, and at 1366x768 the status bar with its progress and Cancel was off-screen.
    addDock(m_summary, tr("Summary"), Qt::LeftDockWidgetArea, DockFit::Scrolled);
    QDockWidget* suggestions = addDock(m_suggestions, tr("Suggestions"), Qt::LeftDockWidgetArea);
    QDockWidget* disassembly = addDock(m_disassembly, tr("Disassembly"), Qt::BottomDockWidgetArea);
    auto* dmaLanes = new DmaLanesView(m_session, m_selection, this);
    // The bottom docks share one height, at least the largest minimum among them: the DMA lanes', the
    // heatmap's and the graph's (lanes, a plot and a wrapped legend: 200+ px at 1.4x text) would hold it
    // against the timeline in presentation mode. Scrolled, they fill the dock when it is large and scroll
    // when it is not.
    QDockWidget* dma =
        addDock(dmaLanes, tr("DMA lanes"), Qt::BottomDockWidgetArea, DockFit::FilledOrScrolled);
    m_timeline->setNotes(m_document->notes());
    // A trace opened while presenting has its rows only now (the screenshot tool opens it after F11).
    connect(m_timeline, &TimelineView::rowsChanged, this, [this] {
        if (m_presenting)
            QTimer::singleShot(100, this, [this] { fitTimelineForPresentation(); });
    });
    m_suggestions->setNotes(m_document->notes());
    connect(m_suggestions, &SuggestionsView::openFixedRun, this, &MainWindow::openFixedRun);
    dmaLanes->lanes()->setNotes(m_document->notes());
    QDockWidget* notes = addDock(new NotesView(m_session, m_selection, m_document->notes(), this),
                                 tr("Notes"), Qt::LeftDockWidgetArea);
    m_bookmarks = new BookmarksView(m_document->notes(), this);
    QDockWidget* bookmarks = addDock(m_bookmarks, tr("Bookmarks"), Qt::LeftDockWidgetArea);
    connect(m_bookmarks, &BookmarksView::showRequested, this, &MainWindow::showBookmark);
    auto* heatmapView = new VmemHeatmapView(m_session, m_selection, this);
    heatmapView->setNotes(m_document->notes());
    QDockWidget* heatmap =
        addDock(heatmapView, tr("VMEM heatmap"), Qt::BottomDockWidgetArea, DockFit::FilledOrScrolled);
    QDockWidget* graph = addDock(new DependencyGraphView(new ReplayGraphSource(m_session, m_selection), this),
                                 tr("Dependency graph"), Qt::BottomDockWidgetArea, DockFit::FilledOrScrolled);
    QDockWidget* recorded = addRecordedTimingDock();
    tabifyDockWidget(disassembly, graph);
    tabifyDockWidget(graph, dma);
    tabifyDockWidget(dma, heatmap);
    tabifyDockWidget(heatmap, recorded);
    disassembly->raise();
    tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("summaryDock")), suggestions);
    tabifyDockWidget(suggestions, notes);
    tabifyDockWidget(notes, bookmarks);
    suggestions->raise();
    m_document->setLayoutProvider([this] { return saveState(); });
    connect(m_document, &SessionDocument::loaded, this, [this] {
        if (!m_document->windowLayout().isEmpty())
            m_layoutSettled = restoreState(m_document->windowLayout()) || m_layoutSettled;
        m_currentBookmark = -1;
        updateBookmarkMenu();
    });
    connect(m_document->notes(), &SessionNotes::bookmarkRemoved, this, [this](int index) {
        if (index == m_currentBookmark)
            m_currentBookmark = -1;
        else if (index < m_currentBookmark)
            --m_currentBookmark;
    });
    // Queued: the menu is rebuilt after the action that changed the list (Delete in this menu) has returned.
    connect(m_document->notes(), &SessionNotes::bookmarksChanged, this, &MainWindow::updateBookmarkMenu,
            Qt::QueuedConnection);
    connect(m_document, &SessionDocument::saved, this, [this](const QString& path, const QString& error) {
        if (error.isEmpty())
            statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
        else
            showProblem(QStringLiteral("sessionError"), tr("Session not saved"), error);
    });
    connect(m_document, &SessionDocument::loadFailed, this, [this](const QString& message) {
        showProblem(QStringLiteral("sessionError"), tr("Session"), message);
    });

    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the replay or the measurements; the views keep what ran"));
    m_cancel->hide();
    m_stageLabel->setObjectName(QStringLiteral("stageLabel"));
    statusBar()->addWidget(m_stageLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QToolButton::clicked, this, [this] {
        if (m_profile->isBusy()) {
            m_profile->cancel();
            m_progress->hide();
            m_cancel->hide();
            m_stageLabel->setText(m_converting ? tr("Replay as a profile cancelled")
                                               : tr("Import cancelled"));
            if (m_converting) {
                // Still on the replay's views: the action says so, and the next toggle converts again.
                m_converting = false;
                m_projectedRun.reset();
                m_comparisonPendingOnProfile.clear(); // the comparison it was made for is off too
                const QSignalBlocker quiet(m_profileViewAction);
                m_profileViewAction->setChecked(false);
            }
        } else {
            m_session->cancel();
        }
    });
    connectProfileDocument();

    connect(m_welcome, &WelcomePage::openRequested, this, [this](const QString& path) { openFile(path); });
    connect(m_session, &ReplaySession::opened, this, [this] {
        m_selection->clear();
        m_profileViewAction->setEnabled(false); // until the new replay is analysed
        showReplayViews(true); // already shown by openFile unless the replay started another way
        const Run* run = m_session->run();
        setWindowTitle(tr("%1 — xpushark").arg(QFileInfo(run->path).fileName()));
        addRecentFile(run->path);
    });
    connect(m_session, &ReplaySession::openFailed, this, &MainWindow::onOpenFailed);
    connect(m_session, &ReplaySession::openStopped, this, [this] {
        // Back to what was shown before the attempt, saying why nothing opened.
        if (!m_session->run())
            m_profile->run() ? showReplayViews(false) : m_centre->setCurrentWidget(m_welcome);
        m_stageLabel->setText(tr("Stopped: nothing was opened"));
    });
    connect(m_session, &ReplaySession::analysesReady, this,
            [this] { m_profileViewAction->setEnabled(true); });
    connect(m_session, &ReplaySession::stageChanged, this, [this](ReplaySession::Stage, const QString& text) {
        m_stageLabel->setText(text);
        onStageChanged();
    });
    connect(m_session, &ReplaySession::progress, this,
            [this](quint64 bundles, quint64 cycle, double seconds) {
                m_progress->setFormat(tr("%1 bundles").arg(cyclesText(bundles)));
                m_stageLabel->setText(
                    tr("Replaying: cycle %1, %2 bundles, %3 M bundles/s")
                        .arg(cyclesText(cycle), cyclesText(bundles))
                        .arg(seconds > 0 ? static_cast<double>(bundles) / seconds / 1e6 : 0.0, 0, 'f', 2));
            });
    connect(m_session, &ReplaySession::measuringProgress, this,
            [this](int done, int total, int inFlight, double current, const QString& title) {
                // One bar for the whole measurement, the status naming the suggestion being replayed (the
                // one started first, when several replay side by side).
                const int percent = total > 0 ? static_cast<int>(100.0 * (done + current) / total) : 100;
                m_progress->setRange(0, 100);
                m_progress->setValue(percent);
                m_progress->setFormat(tr("%p%")); // which of how many is in the status text beside it
                const int each = static_cast<int>(100.0 * current / std::max(inFlight, 1));
                if (done < total && inFlight > 1)
                    m_stageLabel->setText(
                        tr("Measuring %1 suggestions side by side (%2 of %3 done): %4 and %5 more — %6%")
                            .arg(inFlight)
                            .arg(done)
                            .arg(total)
                            .arg(title)
                            .arg(inFlight - 1)
                            .arg(each));
                else if (done < total)
                    m_stageLabel->setText(tr("Measuring suggestion %1 of %2: %3 — %4%")
                                              .arg(done + 1)
                                              .arg(total)
                                              .arg(title)
                                              .arg(each));
            });
    connect(m_selection, &SelectionModel::selectionChanged, this, [this] {
        const Selection& s = m_selection->selection();
        if (s.slice.valid() && m_profile->selectedSlice().valid()) {
            const ProfileRun* run = m_profile->run();
            // A kernel's mangled name can run to hundreds of characters: the label must not widen the window.
            const QString name = m_stageLabel->fontMetrics().elidedText(
                QString::fromStdString(run->profile.nameOf(run->profile.slices[s.slice.value])),
                Qt::ElideMiddle, m_stageLabel->fontMetrics().horizontalAdvance(QLatin1Char('M')) * 60);
            m_stageLabel->setText(tr("Selected from %1: %2").arg(s.origin, name));
        } else if (!s.empty() && !m_session->isBusy())
            m_stageLabel->setText(tr("Selected from %1: %2 pc(s), %3 DMA(s)")
                                      .arg(s.origin)
                                      .arg(s.pcs.size())
                                      .arg(s.dmas.size()));
    });

    QSettings settings;
    Theme::instance().apply(settings.value(QStringLiteral("theme")).toString() == QStringLiteral("dark")
                                ? Theme::Kind::Dark
                                : Theme::Kind::Light);
    // The preferred size, but never larger than the screen: at 1366x768 a 1500x950 window put the status
    // bar, its progress and its Cancel button below the bottom edge.
    // A geometry saved on a larger screen is bounded the same way.
    const QSize available = QGuiApplication::primaryScreen()
                                ? QGuiApplication::primaryScreen()->availableGeometry().size()
                                : QSize(1500, 950);
    // The docks are tabified by now, but the layout's minimum (which resize() obeys) is still the one it
    // computed while they were stacked one above the other (882 px with the Bookmarks dock): recompute it.
    layout()->activate();
    resize(QSize(1500, 950).boundedTo(available));
    if (restoreLayout) {
        restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
        m_layoutSettled = restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
        if (!isMaximized() && !isFullScreen())
            resize(size().boundedTo(available));
    }
    m_recentFiles = settings.value(QStringLiteral("recentFiles")).toStringList();
    m_settingsWriter.setMaxThreadCount(1);
    updateRecentMenu();
    onStageChanged();
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::addDock(QWidget* view, const QString& title, Qt::DockWidgetArea area, DockFit fit)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(view->objectName() + QStringLiteral("Dock")); // saveState() keys docks by name
    if (fit == DockFit::FilledOrScrolled) {
        auto* scroll = new FillingScrollArea(dock);
        scroll->setWidget(view);
        dock->setWidget(scroll);
    } else if (fit == DockFit::Scrolled) {
        auto* scroll = new QScrollArea(dock);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(view);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(view);
    }
    addDockWidget(area, dock);
    m_viewMenu->addAction(dock->toggleViewAction());
    m_views.push_back(view);
    return dock;
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open trace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), QString(), kTraceFilter);
        if (path.isEmpty())
            return;
        if (!path.endsWith(QStringLiteral(".mlir"))) {
            openFile(path);
            return;
        }
        // A model: which element type it runs as.
        const auto dtype =
            askModelDtype(this, path, QString::fromStdString(m_session->loadOptions().modelDtype));
        if (dtype)
            openFile(path, *dtype);
    });
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Co&mpare with…"), this, [this] { compareWith(); })
        ->setToolTip(tr("The replay beside another trace's, or the profile shown beside another profile, on "
                        "one time axis, with what changed"));
    file->addSeparator();
    file->addAction(tr("Export &Chrome/Perfetto trace…"), this, [this] { exportChromeTrace(); });
    QAction* save = file->addAction(tr("&Save session"), this, [this] {
        if (m_document->path().isEmpty())
            saveSessionAs();
        else
            m_document->save();
    });
    save->setShortcut(QKeySequence::Save);
    file->addAction(tr("Save session &as…"), this, &MainWindow::saveSessionAs)
        ->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    file->addAction(tr("Export &report (HTML, PDF, Markdown, JSON)…"), this, [this] { exportReport(); });
    file->addAction(tr("Export &analysis (JSON)…"), this, &MainWindow::exportAnalysisJson);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    QMenu* theme = m_viewMenu->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(this);
    for (const auto& [name, kind] :
         {std::pair{tr("Light"), Theme::Kind::Light}, std::pair{tr("Dark"), Theme::Kind::Dark}}) {
        QAction* a = theme->addAction(name, this, [kind = kind] {
            Theme::instance().apply(kind);
            QSettings().setValue(QStringLiteral("theme"), kind == Theme::Kind::Dark
                                                              ? QStringLiteral("dark")
                                                              : QStringLiteral("light"));
        });
        a->setCheckable(true);
        a->setChecked(Theme::instance().kind() == kind);
        themes->addAction(a);
    }
    QAction* present =
        m_viewMenu->addAction(tr("&Presentation mode"), this, [this](bool on) { setPresentationMode(on); });
    present->setCheckable(true);
    present->setShortcut(Qt::Key_F11);
    present->setObjectName(QStringLiteral("presentationAction"));
    m_profileViewAction = m_viewMenu->addAction(tr("Replay as a &profile"));
    m_profileViewAction->setObjectName(QStringLiteral("replayAsProfileAction"));
    m_profileViewAction->setCheckable(true);
    m_profileViewAction->setEnabled(false);
    m_profileViewAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_profileViewAction->setToolTip(
        tr("See the replay in the profile explorer, as an imported profile: per chip compute, DMA and ICI "
           "time (overlapped and exposed), the operations table, the critical path through DMA and wait "
           "dependencies (Ctrl+Shift+P)"));
    connect(m_profileViewAction, &QAction::toggled, this, [this](bool on) {
        if (on) {
            showReplayAsProfile();
            return;
        }
        // Back at the time range the profile views showed: the replay's views continue where they were.
        const std::shared_ptr<const Run> run = m_projectedRun.lock();
        if (run && run == m_session->runHandle() && m_profile->run()) {
            // The replay's profile counts in its cycles.
            const auto [from, to] = m_profile->visibleRange();
            const auto cycle = [](profile::Ticks t) {
                return static_cast<std::uint64_t>(std::max<profile::Ticks>(t, 0));
            };
            m_selection->setTimeRange(cycle(from), std::max(cycle(to), cycle(from) + 1));
        }
        showReplayViews(true);
    });
    m_viewMenu->addSeparator();

    m_bookmarkMenu = menuBar()->addMenu(tr("&Bookmarks"));
    updateBookmarkMenu();
    // Rename and Delete name the bookmark last shown, which changes without the list changing.
    connect(m_bookmarkMenu, &QMenu::aboutToShow, this, &MainWindow::updateBookmarkMenu);

    QMenu* replay = menuBar()->addMenu(tr("&Replay"));
    m_replayAction = replay->addAction(tr("&Replay again"), this, [this] {
        m_session->replayAgain(m_modeGroup->checkedAction()->data().toInt() ? sim::ReplayMode::TimingOnly
                                                                            : sim::ReplayMode::Full);
    });
    m_replayAction->setShortcut(Qt::Key_F5);
    m_stopAction = replay->addAction(tr("&Stop"), m_session, &ReplaySession::cancel);
    m_stopAction->setShortcut(Qt::Key_Escape);
    QMenu* mode = replay->addMenu(tr("&Mode"));
    m_modeGroup = new QActionGroup(this);
    for (const auto& [name, value] : {std::pair{tr("Full (values and timing; suggestions measured)"), 0},
                                      std::pair{tr("Timing only (faster; no outputs)"), 1}}) {
        QAction* a = mode->addAction(name);
        a->setData(value);
        a->setCheckable(true);
        a->setChecked(value == 0);
        m_modeGroup->addAction(a);
    }
    QAction* limits = replay->addAction(tr("&Limits…"), this, [this] {
        auto* dialog = new ReplayLimitsDialog(m_session->limits(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, dialog] {
            m_session->setLimits(dialog->limits());
            ReplayLimitsDialog::saveLimits(dialog->limits());
        });
        dialog->open(); // window-modal, not blocking
    });
    limits->setObjectName(QStringLiteral("replayLimitsAction"));
    m_session->setLimits(ReplayLimitsDialog::savedLimits());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&ISA reference"), this, &MainWindow::showIsaReference);
    help->addAction(tr("&About xpushark"), this, [this] {
        QMessageBox::about(
            this, tr("About xpushark"),
            tr("<b>xpushark %1</b><p>A performance explorer for ML accelerators: replays recorded "
               "traces on a golden reference model and measures every suggestion by replaying the "
               "fixed program.</p>")
                .arg(QCoreApplication::applicationVersion()));
    });

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->addAction(open);
    bar->addAction(m_replayAction);
    bar->addAction(m_stopAction);
    bar->addSeparator();
    bar->addAction(m_profileViewAction);
}

void MainWindow::openFile(const QString& path, const QString& modelDtype)
{
    if (path.isEmpty())
        return;
    if (openProfileSession(path))
        return;
    // Reads at most 64 KiB to tell a profile from a trace; the import itself runs on the document's worker.
    const auto kind = importing::detectInput(path.toStdString());
    if (kind && *kind != importing::InputKind::XpuTrace) {
        ensureProfileExplorer();
        m_projectedRun.reset();
        m_converting = false;
        m_profile->open(path);
        return;
    }
    // The replay's pages are shown now, while the file loads: their first layout takes tens of milliseconds,
    // better spent here than on top of every view taking the new run when it opens.
    showReplayViews(true);
    m_session->open(path,
                    m_modeGroup->checkedAction()->data().toInt() ? sim::ReplayMode::TimingOnly
                                                                 : sim::ReplayMode::Full,
                    trace::LoadOptions{modelDtype.toStdString()});
}

void MainWindow::onStageChanged()
{
    const bool busy = m_session->isBusy();
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_stopAction->setEnabled(busy);
    m_replayAction->setEnabled(m_session->run() != nullptr);
    if (busy) {
        m_progress->setRange(0, 0); // the replay's length is unknown until it ends
        m_progress->setFormat(QString());
    }
    if (m_session->stage() == ReplaySession::Stage::Idle && !m_session->run())
        m_stageLabel->setText(tr("Open a trace to begin"));
}

void MainWindow::onOpenFailed(const QString& message)
{
    // Back to what was shown before the attempt.
    if (!m_session->run())
        m_profile->run() ? showReplayViews(false) : m_centre->setCurrentWidget(m_welcome);
    m_stageLabel->setText(tr("Could not open the trace"));
    // Window-modal and non-blocking: the event loop (and a replay already shown) keeps running.
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Could not open the trace"), message,
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("openError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->open();
}

QString MainWindow::statusText() const
{
    return m_stageLabel->text();
}

void MainWindow::addRecentFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recentFiles.removeAll(absolute);
    m_recentFiles.prepend(absolute);
    while (m_recentFiles.size() > kMaxRecentFiles)
        m_recentFiles.removeLast();
    updateRecentMenu();
    // QSettings writes its file when it goes out of scope: up to 70 ms on a slow disk, measured as a stall of
    // the event loop at every open. One writer thread keeps the writes in order.
    m_settingsWriter.start(
        [files = m_recentFiles] { QSettings().setValue(QStringLiteral("recentFiles"), files); });
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& f : std::as_const(m_recentFiles))
        m_recentMenu->addAction(f, this, [this, f] { openFile(f); });
    m_recentMenu->setEnabled(!m_recentFiles.isEmpty());
    m_welcome->setRecentFiles(m_recentFiles);
}

void MainWindow::showIsaReference()
{
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("xpu-v1 ISA reference"));
    auto* browser = new QTextBrowser(dialog);
    browser->setMarkdown(QString::fromStdString("# Opcodes\n\n" + isa::opcodeReferenceMarkdown() +
                                                "\n\n# Machine parameters\n\n" +
                                                isa::machineConfigReferenceMarkdown()));
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(browser);
    dialog->resize(1100, 800);
    dialog->show();
}

void MainWindow::showProblem(const QString& name, const QString& title, const QString& message)
{
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setObjectName(name);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, not blocking: the app stays usable behind it
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls() && event->mimeData()->urls().size() == 1 &&
        event->mimeData()->urls().front().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    openFile(event->mimeData()->urls().front().toLocalFile());
}

} // namespace xps::ui

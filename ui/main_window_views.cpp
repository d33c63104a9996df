// The main window's views by name (for --view and --raise), the recorded-timing tab and presentation mode.

#include "main_window.h"

#include "compare/comparison_window.h"
#include "import/import.h"
#include "imported/profile_document.h"
#include "imported/profile_explorer.h"
#include "session/replay_session.h"
#include "theme/theme.h"
#include "views/recorded_timing_view.h"
#include "widgets/column_fitter.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>

namespace xps::ui {

ComparisonWindow* MainWindow::comparisonWindow() const
{
    return m_comparisonWindow.data();
}

void MainWindow::compareWith(const QString& path)
{
    const bool onImport = showsImportedProfile();
    if (!onImport && (!m_session->run() || !m_session->analysesAvailable())) {
        statusBar()->showMessage(tr("Open a trace and let it replay, or open a profile, first: it is the "
                                    "comparison's baseline"),
                                 5000);
        return;
    }
    const QString traces = tr("xpushark traces (*.xtrace.json *.xps *.xasm *.mlir)");
    const QString profiles = tr("Profiles (*.json *.json.gz *.pb *.xplane.pb *.et)");
    const QString other =
        !path.isEmpty() ? path
                        : QFileDialog::getOpenFileName(this, tr("Compare with"), QString(),
                                                       (onImport ? profiles + QStringLiteral(";;") + traces
                                                                 : traces + QStringLiteral(";;") + profiles) +
                                                           tr(";;All files (*)"));
    if (other.isEmpty())
        return;
    // Two traces: the replay's own views side by side. Anything beside a profile is compared as profiles,
    // a trace as its replay's (the GRM's run of a program beside a measured one). A file of no known kind
    // goes with the baseline's kind, whose reader says what is wrong with it.
    const auto kind = importing::detectInput(other.toStdString());
    const bool otherIsTrace = kind ? *kind == importing::InputKind::XpuTrace : !onImport;
    if (onImport || !otherIsTrace) {
        if (onImport ||
            (m_projectedRun.lock() == m_session->runHandle() && m_profile->run() && !m_converting))
            openProfileComparison(other);
        else { // the replay's profile first, on the profile document's worker
            m_comparisonPendingOnProfile = other;
            showReplayAsProfile();
        }
        return;
    }
    showComparison(new ComparisonWindow(m_session, other, this));
}

void MainWindow::openProfileComparison(const QString& other)
{
    showComparison(new ComparisonWindow(m_profile, other, this));
}

void MainWindow::showComparison(ComparisonWindow* window)
{
    if (m_comparisonWindow) // one comparison at a time: the new one replaces it
        m_comparisonWindow->close();
    m_comparisonWindow = window;
    m_comparisonWindow->setAttribute(Qt::WA_DeleteOnClose);
    m_comparisonWindow->show();
}

void MainWindow::openFixedRun(int index)
{
    const Run* run = m_session->run();
    if (!run || !m_session->analysesAvailable() || index < 0 ||
        static_cast<std::size_t>(index) >= run->suggestions.size())
        return;
    showComparison(new ComparisonWindow(m_session, run->suggestions[static_cast<std::size_t>(index)], this));
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    if (on) {
        m_normalFont = QApplication::font();
        QFont big = m_normalFont;
        big.setPointSizeF(m_normalFont.pointSizeF() * 1.4);
        QApplication::setFont(big);

        showFullScreen();
        scaleSideDocks(1.4);
    } else {
        QApplication::setFont(m_normalFont);
        showNormal();
        scaleSideDocks(1 / 1.4);
    }
    if (auto* action = findChild<QAction*>(QStringLiteral("presentationAction")))
        action->setChecked(on);
    // Columns sized for the old font would cut their headers: resize once the new font has reached them.
    QTimer::singleShot(0, this, [this] {
        // The headers of tables on a page not shown (an imported profile's) kept the old size (9 pt headers
        // over 12.6 pt rows): an empty font makes each take its table's again.
        for (QHeaderView* header : findChildren<QHeaderView*>())
            if (!header->testAttribute(Qt::WA_SetFont))
                header->setFont(QFont());
        for (QTableView* table : findChildren<QTableView*>()) {
            QHeaderView* header = table->horizontalHeader();
            if (header->sectionResizeMode(0) != QHeaderView::Interactive ||
                table->property(kFittedProperty).toBool())
                continue; // sized by the header itself, or refitted by its ColumnFitter
            for (int c = 0; c < header->count(); ++c)
                header->resizeSection(c, std::max(header->sectionSize(c), header->sectionSizeHint(c)));
        }
    });
    Theme::instance().setPresentation(on);
    // Once the larger text has reached the plot's axes: their margins follow the font, through the theme's
    // restyle and a queued replot (measured at once, the timeline's non-lane height was 40 px short).
    if (on)
        QTimer::singleShot(100, this, [this] { fitTimelineForPresentation(); });
}

QDockWidget* MainWindow::addRecordedTimingDock()
{
    auto* view = new RecordedTimingView(m_session, m_selection, this);
    QDockWidget* dock = addDock(view, tr("Recorded timing"), Qt::BottomDockWidgetArea);
    // A tab only for traces that carry timing measured on the chip: for the others it could only say so.
    dock->hide();
    connect(view, &RecordedTimingView::availabilityChanged, this, [this, dock](bool has) {
        m_hiddenDocks.removeAll(dock);
        if (m_profileExplorer && m_centre->currentWidget() == m_profileExplorer) {
            if (has)
                m_hiddenDocks.push_back(dock); // shown with the replay's other docks
        } else {
            dock->setVisible(has);
        }
    });
    return dock;
}

QWidget* MainWindow::viewByName(const QString& name) const
{
    if (name == QStringLiteral("profile") || name == QStringLiteral("profile-graph") ||
        name == QStringLiteral("profile-transfers") || name == QStringLiteral("profile-notes") ||
        name == QStringLiteral("replay-profile") || name == QStringLiteral("replay-transfers"))
        return m_profileExplorer; // nullptr until a profile was opened
    for (QWidget* v : m_views)
        if (v->objectName() == name)
            return v;
    return nullptr;
}

void MainWindow::isolateView(const QString& name, QSize size)
{
    QWidget* view = viewByName(name);
    QDockWidget* dock = nullptr; // its own, through the scroll area the summary sits in
    for (QWidget* w = view; w && w != this && !dock; w = w->parentWidget())
        dock = qobject_cast<QDockWidget*>(w);
    if (!dock) { // the central timeline: the window is the view
        resize(size);
        return;
    }
    dock->setFloating(true);
    dock->resize(size);
    dock->show();
    dock->raise();
}

QStringList MainWindow::viewNames()
{
    return {QStringLiteral("timeline"),
            QStringLiteral("summary"),
            QStringLiteral("disassembly"),
            QStringLiteral("suggestions"),
            QStringLiteral("heatmap"),
            QStringLiteral("dma"),
            QStringLiteral("graph"),
            QStringLiteral("notes"),
            QStringLiteral("bookmarks"),
            QStringLiteral("recorded"),
            QStringLiteral("profile"),
            QStringLiteral("profile-graph"),
            QStringLiteral("profile-transfers"),
            QStringLiteral("profile-notes"),
            QStringLiteral("replay-profile"),
            QStringLiteral("replay-transfers")};
}

} // namespace xps::ui

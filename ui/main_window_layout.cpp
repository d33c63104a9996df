// The main window's first layout. Qt gives docks their size hints and the central widget what is left, which
// at 1920x1080 left the suggestions dock 290 px (titles cut to "Issue the …") and the bottom docks a strip,
// with the timeline's lower half empty. A window without a saved layout is fitted once, in proportion to
// its size; from then on the person's own dock sizes are saved and restored.

#include "main_window.h"
#include "views/timeline_view.h"

#include "widgets/qcustomplot.h"

#include <QDockWidget>
#include <QScreen>
#include <QShowEvent>
#include <QTabBar>

#include <algorithm>

namespace xps::ui {

void MainWindow::keepDockTabsWhole()
{
    // Qt elides a dock tab's title when the tabs outgrow the dock ("Summ…", "No…" in presentation mode);
    // whole titles and scroll arrows read better. QMainWindow makes its tab bars as docks are tabified.
    for (QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
    }
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    keepDockTabsWhole();
    if (!m_layoutSettled) {
        m_layoutSettled = true;
        fitDefaultLayout();
    }
}

void MainWindow::fitDefaultLayout()
{
    auto* side = findChild<QDockWidget*>(QStringLiteral("suggestionsDock"));
    auto* bottom = findChild<QDockWidget*>(QStringLiteral("disassemblyDock"));
    if (!side || !bottom)
        return;
    const int width = size().width(), height = size().height();
    // A quarter of the width: 480 px at 1920 (a title, its gain and verdict on one line), 340 px at 1366.
    resizeDocks({side}, {std::clamp(width / 4, 340, 560)}, Qt::Horizontal);
    // The bottom views (disassembly, graph, DMA lanes, heatmap) need rows too: 42% of the height, but the
    // timeline keeps about 480 px (a dozen 22 px lanes, both axes and the legend, below the menu and tool
    // bars); its lanes stretch to fill what it gets.
    resizeDocks({bottom}, {std::max(220, std::min(height * 42 / 100, height - 480))}, Qt::Vertical);
}

void MainWindow::scaleSideDocks(double factor)
{
    auto* side = findChild<QDockWidget*>(QStringLiteral("suggestionsDock"));
    if (!side)
        return;
    // Full screen is asked for, not yet granted: the screen's width is the window's to be.
    const int window = isFullScreen() && screen() ? screen()->geometry().width() : size().width();
    const int width = static_cast<int>(side->width() * factor);
    // Never more than a third of the window: the timeline is what the audience looks at.
    resizeDocks({side}, {std::clamp(width, 200, std::max(200, window / 3))}, Qt::Horizontal);
    // For the same reason the bottom docks give the timeline a third of their height while presenting, and
    // get it back afterwards.
    if (auto* bottom = findChild<QDockWidget*>(QStringLiteral("disassemblyDock"))) {
        const int height = bottom->height();
        if (factor > 1) {
            m_bottomBeforePresenting = height;
            resizeDocks({bottom}, {std::max(180, height * 2 / 3)}, Qt::Vertical);
        } else if (m_bottomBeforePresenting > 0) {
            resizeDocks({bottom}, {m_bottomBeforePresenting}, Qt::Vertical);
            m_bottomBeforePresenting = 0;
        }
    }
    keepDockTabsWhole();
}

void MainWindow::fitTimelineForPresentation()
{
    auto* bottom = findChild<QDockWidget*>(QStringLiteral("disassemblyDock"));
    if (!m_presenting || !bottom || m_centre->currentWidget() != m_timeline)
        return;
    // A third off the bottom docks is not always enough: at 1366x768 and 1.4x text the timeline still hid
    // its DMA and cross-lane rows behind a scroll bar. The audience looks at the timeline, so the bottom
    // docks give it what every row needs, keeping a few of their own rows (never growing for it).
    const int shared = m_centre->height() + bottom->height();
    const int wanted = shared - m_timeline->heightForEveryRow();
    const int keep = std::max(bottom->minimumSizeHint().height(), 5 * fontMetrics().height());
    if (wanted < bottom->height())
        resizeDocks({bottom}, {std::max(keep, wanted)}, Qt::Vertical);
}

} // namespace xps::ui

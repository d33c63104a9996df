#pragma once
// The one timeline widget: rows along a time axis, drawn with QPainter, for an imported
// profile's tracks and a replay's lanes alike. It owns what every timeline does the same way: the label
// gutter, the time axis (ticks at 1, 2 or 5 x 10^k, labels that never run off the edge), rows of three
// heights and the vertical scroll bar, zoom and pan (wheel at the pointer, drag, Shift+drag to a box,
// W/S/A/D and the arrow keys, Home for everything), and what a frame costs (only the rows on screen are
// asked to paint). A subclass says what the rows are, how one is painted, what a click or a hover means, and
// where the visible window lives (the profile document's range, or the selection model's cycles): Perfetto's
// track-panel frame with its per-track renderers.

#include <QWidget>

#include <cstdint>
#include <utility>
#include <vector>

class QScrollBar;

namespace xps::ui {

// Time on a timeline: int64 ticks of the source's clock (nanoseconds for an import, cycles for a replay).
// Views convert to pixels once, here; nothing else goes through double on the way in.
using Ticks = std::int64_t;

class TimelineCanvas : public QWidget
{
    Q_OBJECT
public:
    enum class RowStyle {
        Header, ///< a process's name across the whole row; nothing is drawn in it
        Lane,   ///< slices or activity
        Tall    ///< a counter's step plot: twice a lane's height
    };
    struct RowSpec
    {
        RowStyle style = RowStyle::Lane;
        QString label;               // in the gutter (a header's across the row), elided in the middle
        bool shaded = false;         // every other lane of a replay, for the eye to follow a row
        bool separatorAbove = false; // a strong line above: the first row of another chip
    };

    int rowCount() const { return static_cast<int>(m_rows.size()); }
    // The width of the label gutter left of the time axis, and of the scroll bar right of it: where a plot
    // under the timeline puts its own axis so that the two read as one.
    int gutter() const;
    // The gutter its own labels ask for; and a width it is at least, so that timelines stacked one above
    // another put a time at the same x (a comparison's two profiles, each with its own labels).
    int fittedGutter() const;
    void setMinimumGutter(int pixels);
    int scrollBarWidth() const;
    int axisHeight() const;
    // Right of the gutter, under the axis, left of the scroll bar.
    QRect plotArea() const;
    // Where `row` is on screen now (scrolled; it may lie outside the plot), from the gutter to the scroll
    // bar.
    QRect rowRect(int row) const;
    int rowAt(int y) const; // -1 outside the rows
    double xOf(Ticks t) const;
    Ticks timeAt(double x) const;
    // The height that shows every row at its minimum, everything else as it is.
    int heightForEveryRow() const;
    // The rows drawn in the last frame, and what that frame took: for tests and the benchmarks.
    int paintedRows() const { return m_paintedRows; }
    double lastDrawMs() const { return m_lastDrawMs; }
    // The time axis's labels in the last frame and where they start: what a person reads on it.
    struct DrawnTick
    {
        double x;
        QString label;
    };
    const std::vector<DrawnTick>& drawnTicks() const { return m_drawnTicks; }

    // Scrolls so that `row` is on screen, a third of the way down, unless it already is.
    void scrollToRow(int row);

signals:
    void rowsChanged(); ///< rows were added or removed, or the font changed: heightForEveryRow() and gutter()
                        ///< changed
    void framePainted(); ///< a frame with rows in it was painted (the first-picture benchmark waits for it)

protected:
    explicit TimelineCanvas(QWidget* parent);

    void setRows(std::vector<RowSpec> rows);
    // Lanes share the plot's height (up to 1.6x their minimum) when they all fit, instead of leaving the
    // lower part of it empty (a replay's dozen lanes); otherwise they keep their height and scroll.
    void setRowsFillHeight(bool fill) { m_fillHeight = fill; }
    void setMinimumLaneHeight(int pixels) { m_minimumLane = pixels; }
    void resetScroll();

    // The visible window: kept by the subclass's document, which emits its own change signal (the subclass
    // calls update()). requestWindow() may clamp.
    virtual std::pair<Ticks, Ticks> visibleWindow() const = 0;
    virtual void requestWindow(Ticks from, Ticks to) = 0;
    virtual std::pair<Ticks, Ticks> fullWindow() const = 0; // what Home shows
    // Axis labels: a tick's time counted from axisOrigin(), and the width of the window ("1.2 ms visible").
    virtual Ticks axisOrigin() const { return 0; }
    // What the labels count per tick (a profile's nanoseconds per tick: a replay's profile counts cycles):
    // the axis puts its ticks at round numbers of that unit.
    virtual double axisUnitsPerTick() const { return 1.0; }
    virtual QString tickLabel(Ticks sinceOrigin) const = 0;
    virtual QString spanLabel(Ticks span) const = 0;
    virtual bool hasContent() const = 0;
    virtual QString emptyText() const { return tr("Nothing open"); }

    // Paints lane or tall row `row` within `rect` (the clip is set to it).
    virtual void paintRow(QPainter& painter, int row, const QRect& rect) = 0;
    // Paints over every row, clipped to the plot (flows, notes, selection outlines).
    virtual void paintOverPlot(QPainter&) {}
    // A flow from one event to another (a launch to its kernel, a DMA to the wait it ended): a curve in the
    // critical path's colour with an arrowhead at `to`. Ends off screen are clamped to the plot's edge by the
    // caller, on their own rows, so an arrow still shows where it comes from.
    static void drawFlowArrow(QPainter& painter, const QPointF& from, const QPointF& to);
    virtual void clickedAt(const QPoint&) {}
    virtual QString tooltipAt(const QPoint&) const { return {}; }
    virtual void contextMenuAt(const QPoint&) {}

    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    int laneHeight() const;
    int rowHeight(int row) const;
    void layOutRows();
    void fitGutter();
    void updateScrollRange();
    void zoomAt(double x, double factor);
    void panBy(double pixels);
    void drawAxis(QPainter& painter);
    void drawHeader(QPainter& painter, const RowSpec& row, const QRect& rect);

    QScrollBar* m_scroll;
    std::vector<RowSpec> m_rows;
    std::vector<int> m_tops; // per row in content coordinates, plus the total at the end
    bool m_fillHeight = false;
    bool m_hasHeaders = false;
    int m_minimumLane = 0;
    mutable int m_scrollWidth = 0; // the scroll bar's size hint, 0 until asked (again after a style change)
    int m_gutter = 0; // fitted to the labels (fitGutter), again when the font changes; 0 until there are rows
    int m_minimumGutter = 0;
    QPoint m_pressPos;
    Ticks m_pressFrom = 0, m_pressTo = 0;
    bool m_dragging = false, m_boxZoom = false;
    QPoint m_dragPos;
    int m_paintedRows = 0;
    double m_lastDrawMs = 0.0;
    std::vector<DrawnTick> m_drawnTicks;
};

} // namespace xps::ui

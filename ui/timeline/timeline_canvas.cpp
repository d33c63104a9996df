#include "timeline/timeline_canvas.h"

#include "theme/theme.h"

#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace xps::ui {

TimelineCanvas::TimelineCanvas(QWidget* parent)
    : QWidget(parent), m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(&Theme::instance(), &Theme::changed, this, [this] {
        layOutRows(); // presentation mode's larger text needs taller rows
        update();
    });
}

int TimelineCanvas::gutter() const
{
    return std::max(fittedGutter(), m_minimumGutter);
}

int TimelineCanvas::fittedGutter() const
{
    return m_gutter > 0 ? m_gutter : fontMetrics().horizontalAdvance(QLatin1Char('M')) * 22;
}

void TimelineCanvas::setMinimumGutter(int pixels)
{
    if (pixels == m_minimumGutter)
        return;
    m_minimumGutter = pixels;
    update();
    emit rowsChanged(); // the gutter moved: plots under it follow
}

int TimelineCanvas::scrollBarWidth() const
{
    // Cached: xOf() asks for every slice it places, and a scroll bar's size hint asks the style.
    if (m_scrollWidth <= 0)
        m_scrollWidth = m_scroll->sizeHint().width();
    return m_scrollWidth;
}

int TimelineCanvas::axisHeight() const
{
    return fontMetrics().height() + 12;
}

QRect TimelineCanvas::plotArea() const
{
    return QRect(gutter(), axisHeight(), std::max(1, width() - gutter() - scrollBarWidth()),
                 std::max(1, height() - axisHeight()));
}

int TimelineCanvas::laneHeight() const
{
    // Two labels must never touch: six pixels between lines read as separate rows.
    const int minimum = std::max(m_minimumLane, fontMetrics().height() + 6);
    if (!m_fillHeight || m_rows.empty())
        return minimum;
    int fixed = 0, lanes = 0;
    for (const RowSpec& r : m_rows) {
        if (r.style == RowStyle::Lane)
            ++lanes;
        else
            fixed += r.style == RowStyle::Header ? minimum + 2 : minimum * 2;
    }
    const int available = height() - axisHeight() - fixed;
    return lanes == 0 ? minimum : std::clamp(available / lanes, minimum, minimum * 8 / 5);
}

int TimelineCanvas::rowHeight(int row) const
{
    const int lane = laneHeight();
    switch (m_rows[static_cast<std::size_t>(row)].style) {
    case RowStyle::Header: return lane + 2;
    case RowStyle::Tall: return lane * 2;
    case RowStyle::Lane: return lane;
    }
    return lane;
}

void TimelineCanvas::setRows(std::vector<RowSpec> rows)
{
    m_rows = std::move(rows);
    m_hasHeaders = std::any_of(m_rows.begin(), m_rows.end(),
                               [](const RowSpec& r) { return r.style == RowStyle::Header; });
    fitGutter();
    layOutRows();
    update();
    emit rowsChanged();
}

void TimelineCanvas::resetScroll()
{
    m_scroll->setValue(0);
}

void TimelineCanvas::layOutRows()
{
    m_tops.assign(1, 0);
    for (int r = 0; r < rowCount(); ++r)
        m_tops.push_back(m_tops.back() + rowHeight(r));
    updateScrollRange();
}

void TimelineCanvas::fitGutter()
{
    // As wide as the longest label (and the axis's "… visible"), between 10 and 22 'M's: a fixed 22 left
    // 330 px of a 1920 px screen to labels of 15 characters in presentation mode; longer ones are elided.
    const QFontMetrics metrics = fontMetrics();
    const int m = metrics.horizontalAdvance(QLatin1Char('M'));
    const auto [from, to] = fullWindow();
    int widest = metrics.horizontalAdvance(spanLabel(std::max<Ticks>(to - from, 1))) + 18;
    const int indent = m_hasHeaders ? 28 : 20;
    for (const RowSpec& row : m_rows)
        if (row.style != RowStyle::Header && !row.label.isEmpty())
            widest = std::max(widest, metrics.horizontalAdvance(row.label) + indent);
    m_gutter = m_rows.empty() ? 0 : std::clamp(widest, 10 * m, 22 * m);
}

void TimelineCanvas::updateScrollRange()
{
    const int content = m_tops.empty() ? 0 : m_tops.back();
    const int visible = height() - axisHeight();
    m_scroll->setRange(0, std::max(0, content - visible));
    m_scroll->setPageStep(std::max(1, visible));
    m_scroll->setSingleStep(laneHeight());
    m_scroll->setVisible(content > visible);
}

int TimelineCanvas::heightForEveryRow() const
{
    int content = 0;
    const int minimum = std::max(m_minimumLane, fontMetrics().height() + 6);
    for (const RowSpec& r : m_rows)
        content += r.style == RowStyle::Header ? minimum + 2
                   : r.style == RowStyle::Tall ? 2 * minimum
                                               : minimum;
    return axisHeight() + std::max(content, minimum) + 2;
}

QRect TimelineCanvas::rowRect(int row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    const int top = axisHeight() + m_tops[static_cast<std::size_t>(row)] - m_scroll->value();
    return QRect(gutter(), top, plotArea().width(), rowHeight(row));
}

int TimelineCanvas::rowAt(int y) const
{
    const int content = y - axisHeight() + m_scroll->value();
    if (y < axisHeight() || content < 0 || m_tops.empty() || content >= m_tops.back())
        return -1;
    const auto it = std::upper_bound(m_tops.begin(), m_tops.end(), content);
    return static_cast<int>(it - m_tops.begin()) - 1;
}

void TimelineCanvas::scrollToRow(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    const int top = m_tops[static_cast<std::size_t>(row)], visible = height() - axisHeight();
    if (top < m_scroll->value() || top + rowHeight(row) > m_scroll->value() + visible)
        m_scroll->setValue(std::max(0, top - visible / 3));
}

double TimelineCanvas::xOf(Ticks t) const
{
    const auto [from, to] = visibleWindow();
    const QRect plot = plotArea();
    return plot.left() +
           static_cast<double>(t - from) * plot.width() / static_cast<double>(std::max<Ticks>(to - from, 1));
}

Ticks TimelineCanvas::timeAt(double x) const
{
    const auto [from, to] = visibleWindow();
    const QRect plot = plotArea();
    return from + static_cast<Ticks>(
                      std::llround((x - plot.left()) * static_cast<double>(to - from) / plot.width()));
}

void TimelineCanvas::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int w = scrollBarWidth();
    m_scroll->setGeometry(width() - w, axisHeight(), w, height() - axisHeight());
    layOutRows();
}

void TimelineCanvas::paintEvent(QPaintEvent*)
{
    QElapsedTimer timer;
    timer.start();
    QPainter painter(this);
    const Theme& theme = Theme::instance();
    painter.fillRect(rect(), theme.background());
    m_paintedRows = 0;
    if (!hasContent()) {
        painter.setPen(theme.foreground());
        painter.drawText(rect(), Qt::AlignCenter, emptyText());
        return;
    }
    const QRect plot = plotArea();
    const int right = plot.right() + 1;
    const int indent = m_hasHeaders ? 14 : 6;
    for (int r = std::max(0, rowAt(axisHeight())); r >= 0 && r < rowCount(); ++r) {
        const QRect row = rowRect(r);
        if (row.top() > height())
            break;
        const RowSpec& spec = m_rows[static_cast<std::size_t>(r)];
        ++m_paintedRows;
        painter.setClipRect(0, axisHeight(), right, height() - axisHeight());
        if (spec.style == RowStyle::Header) {
            drawHeader(painter, spec, QRect(0, row.top(), right, row.height()));
            continue;
        }
        if (spec.shaded)
            painter.fillRect(QRect(0, row.top(), right, row.height()), theme.laneShade());
        painter.setClipRect(row.intersected(plot));
        painter.save();
        paintRow(painter, r, row);
        painter.restore();
        painter.setClipRect(0, axisHeight(), right, height() - axisHeight());
        painter.setPen(theme.foreground());
        painter.drawText(QRect(indent, row.top(), gutter() - indent - 6, row.height()),
                         Qt::AlignVCenter | Qt::AlignLeft,
                         fontMetrics().elidedText(spec.label, Qt::ElideMiddle, gutter() - indent - 6));
        painter.setPen(theme.grid());
        painter.drawLine(gutter(), row.bottom(), right, row.bottom());
        if (spec.separatorAbove) {
            painter.setPen(QPen(theme.foreground(), 1));
            painter.drawLine(0, row.top(), right, row.top());
        }
    }
    painter.setClipRect(plot);
    painter.save();
    paintOverPlot(painter);
    painter.restore();
    if (m_boxZoom) {
        QColor fill = theme.highlight();
        fill.setAlpha(50);
        const QRect box = QRect(QPoint(std::min(m_pressPos.x(), m_dragPos.x()), plot.top()),
                                QPoint(std::max(m_pressPos.x(), m_dragPos.x()), plot.bottom()));
        painter.fillRect(box, fill);
        painter.setPen(theme.highlight());
        painter.drawRect(box);
    }
    painter.setClipping(false);
    painter.setPen(theme.grid());
    painter.drawLine(gutter() - 1, axisHeight(), gutter() - 1, height());
    drawAxis(painter);
    m_lastDrawMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    emit framePainted();
}

void TimelineCanvas::drawFlowArrow(QPainter& painter, const QPointF& from, const QPointF& to)
{
    const Theme& theme = Theme::instance();
    QPainterPath path(from);
    path.cubicTo(QPointF(from.x() + 40, from.y()), QPointF(to.x() - 40, to.y()), to);
    painter.setPen(QPen(theme.critical(), 1.5 * theme.lineScale()));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);
    painter.setBrush(theme.critical());
    const double dir = to.x() >= from.x() - 40 ? 1 : -1;
    painter.drawPolygon(
        QPolygonF({to, QPointF(to.x() - 8 * dir, to.y() - 4), QPointF(to.x() - 8 * dir, to.y() + 4)}));
}

void TimelineCanvas::drawHeader(QPainter& painter, const RowSpec& row, const QRect& rect)
{
    const Theme& theme = Theme::instance();
    painter.fillRect(rect, theme.laneShade());
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(theme.foreground());
    // A header row has no slices: its name may use the row's width, but no more (bold metrics).
    painter.drawText(rect.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     QFontMetrics(bold).elidedText(row.label, Qt::ElideMiddle, rect.width() - 12));
    painter.setFont(font());
}

void TimelineCanvas::drawAxis(QPainter& painter)
{
    const Theme& theme = Theme::instance();
    const int right = width() - scrollBarWidth();
    painter.fillRect(0, 0, width(), axisHeight(), theme.background());
    painter.setPen(theme.foreground());
    const auto [from, to] = visibleWindow();
    const Ticks origin = axisOrigin();
    painter.drawText(QRect(6, 0, gutter() - 12, axisHeight()), Qt::AlignVCenter | Qt::AlignLeft,
                     fontMetrics().elidedText(spanLabel(to - from), Qt::ElideRight, gutter() - 12));
    // Ticks at 1, 2 or 5 x 10^k of the axis's unit (a profile's nanoseconds, whatever its ticks), as close as
    // their widest label allows (and at least 60 pixels apart): a step is tried at 60 pixels, then widened
    // once if the labels it gives (the last is the widest: "50 k", not the window end's "55.309 k") need
    // more room.
    const double units = axisUnitsPerTick();
    const double perPixel = static_cast<double>(to - from) * units / std::max(1, right - gutter());
    const auto stepFor = [&](int pixels) {
        const double raw = std::max(perPixel * pixels, 1.0);
        const double decade = std::pow(10.0, std::floor(std::log10(raw)));
        for (const double m : {1.0, 2.0, 5.0})
            if (decade * m >= raw)
                return std::round(decade * m);
        return std::round(decade * 10);
    };
    // The k-th step from the origin, in ticks (a step of units need not be a whole number of ticks).
    const auto tickAt = [&](double step, double k) { return origin + std::llround(k * step / units); };
    const auto labelRoom = [&](double step) {
        const Ticks last = tickAt(step, std::floor(static_cast<double>(to - origin) * units / step)) - origin;
        return fontMetrics().horizontalAdvance(tickLabel(last)) +
               2 * fontMetrics().horizontalAdvance(QLatin1Char('M'));
    };
    double step = stepFor(60);
    if (const int needed = labelRoom(step); needed > step / std::max(perPixel, 1e-12))
        step = stepFor(needed);
    m_drawnTicks.clear();
    double lastLabelEnd = gutter();
    for (double k = std::floor(static_cast<double>(from - origin) * units / step);; ++k) {
        const Ticks t = tickAt(step, k);
        if (t > to)
            break;
        const double x = xOf(t);
        if (x < gutter())
            continue;
        painter.setPen(theme.grid());
        painter.drawLine(QPointF(x, axisHeight() - 5), QPointF(x, axisHeight()));
        const QString label = tickLabel(t - origin);
        const int labelWidth = fontMetrics().horizontalAdvance(label);
        // A label cut off at the edge reads as another number; one over its neighbour reads as neither.
        if (x + 3 + labelWidth > right || x + 3 < lastLabelEnd)
            continue;
        painter.setPen(theme.foreground());
        painter.drawText(QRectF(x + 3, 0, labelWidth + 4, axisHeight() - 2), Qt::AlignVCenter | Qt::AlignLeft,
                         label);
        lastLabelEnd = x + 3 + labelWidth + fontMetrics().horizontalAdvance(QLatin1Char(' '));
        m_drawnTicks.push_back({x + 3, label});
    }
    painter.setPen(theme.grid());
    painter.drawLine(0, axisHeight() - 1, right, axisHeight() - 1);
}

void TimelineCanvas::zoomAt(double x, double factor)
{
    const auto [from, to] = visibleWindow();
    const Ticks at = timeAt(x);
    const double span = std::clamp(static_cast<double>(to - from) * factor, 1.0, 4e15);
    const double left = static_cast<double>(at - from) / static_cast<double>(std::max<Ticks>(to - from, 1));
    const auto newFrom = static_cast<Ticks>(std::llround(static_cast<double>(at) - left * span));
    requestWindow(newFrom, newFrom + std::max<Ticks>(1, std::llround(span)));
}

void TimelineCanvas::panBy(double pixels)
{
    const auto [from, to] = visibleWindow();
    const Ticks shift = timeAt(gutter() + pixels) - from;
    requestWindow(from + shift, to + shift);
}

void TimelineCanvas::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ShiftModifier)
        m_scroll->setValue(m_scroll->value() - static_cast<int>(steps * m_scroll->singleStep() * 3));
    else if (hasContent())
        zoomAt(event->position().x(), std::pow(0.8, steps));
    event->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = m_dragPos = event->pos();
    std::tie(m_pressFrom, m_pressTo) = visibleWindow();
    m_dragging = false;
    m_boxZoom = event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier);
    setFocus();
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    if ((event->pos() - m_pressPos).manhattanLength() > 3)
        m_dragging = true;
    if (!m_dragging || !hasContent())
        return;
    m_dragPos = event->pos();
    if (m_boxZoom) {
        update();
        return;
    }
    const double plot = plotArea().width();
    const auto shift = static_cast<Ticks>(static_cast<double>(m_pressFrom - m_pressTo) *
                                          (event->pos().x() - m_pressPos.x()) / plot);
    requestWindow(m_pressFrom + shift, m_pressTo + shift);
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_boxZoom && m_dragging) {
        const int x0 = std::max(std::min(m_pressPos.x(), event->pos().x()), gutter());
        const int x1 = std::max(m_pressPos.x(), event->pos().x());
        if (x1 > x0 + 2)
            requestWindow(timeAt(x0), timeAt(x1));
    } else if (!m_dragging && event->button() == Qt::LeftButton) {
        clickedAt(event->pos());
    }
    m_dragging = m_boxZoom = false;
    update();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event)
{
    const QRect plot = plotArea();
    const double centre = plot.left() + plot.width() / 2.0;
    switch (event->key()) {
    case Qt::Key_W: zoomAt(centre, 0.7); break;
    case Qt::Key_S: zoomAt(centre, 1 / 0.7); break;
    case Qt::Key_A:
    case Qt::Key_Left: panBy(-plot.width() * 0.15); break;
    case Qt::Key_D:
    case Qt::Key_Right: panBy(plot.width() * 0.15); break;
    case Qt::Key_Up: m_scroll->setValue(m_scroll->value() - m_scroll->singleStep()); break;
    case Qt::Key_Down: m_scroll->setValue(m_scroll->value() + m_scroll->singleStep()); break;
    case Qt::Key_Home: {
        const auto [from, to] = fullWindow();
        requestWindow(from, to);
        break;
    }
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    contextMenuAt(event->pos());
    event->accept();
}

bool TimelineCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::StyleChange)
        m_scrollWidth = 0;
    if (event->type() == QEvent::FontChange) { // presentation mode: wider labels and taller rows
        fitGutter();
        layOutRows();
        update();
        emit rowsChanged(); // heightForEveryRow() and the gutter changed: layouts and plots under it follow
    }
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString text = hasContent() ? tooltipAt(help->pos()) : QString();
        if (!text.isEmpty())
            QToolTip::showText(help->globalPos(), text, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace xps::ui

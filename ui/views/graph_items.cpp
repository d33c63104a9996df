#include "views/graph_items.h"

#include "theme/theme.h"

#include <QCursor>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QLineF>
#include <QPainter>
#include <QtMath>

namespace xps::ui {

QFont graphHeaderFont(const QFont& base)
{
    QFont f = base;
    f.setPointSizeF(base.pointSizeF() * 0.85);
    f.setBold(true);
    return f;
}

QFont graphBodyFont(const QFont& base)
{
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    f.setPointSizeF(base.pointSizeF() * 0.9);
    return f;
}

QFont graphLabelFont(const QFont& base)
{
    QFont f = base;
    f.setPointSizeF(base.pointSizeF() * 0.8);
    return f;
}
namespace {

constexpr double kPadding = 6.0;
constexpr double kArrowLength = 9.0;
constexpr double kCriticalBand = 7.0;

} // namespace

QSizeF GraphNodeItem::sizeFor(const NodeLook& look, const QFont& headerFont, const QFont& bodyFont)
{
    const QFontMetricsF header(headerFont), body(bodyFont);
    const double width = std::max(header.horizontalAdvance(look.header), body.horizontalAdvance(look.body));
    return {std::ceil(width + 2 * kPadding), std::ceil(header.height() + body.height() + 2 * kPadding + 2)};
}

GraphNodeItem::GraphNodeItem(std::size_t index, NodeLook look, QSizeF size, QFont headerFont, QFont bodyFont)
    : m_index(index), m_look(std::move(look)), m_box(QPointF(-size.width() / 2, -size.height() / 2), size),
      m_headerFont(std::move(headerFont)), m_bodyFont(std::move(bodyFont))
{
    setZValue(1); // above the edges
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
}

void GraphNodeItem::setHighlighted(bool on)
{
    if (on == m_highlighted)
        return;
    m_highlighted = on;
    update();
}

QRectF GraphNodeItem::boundingRect() const
{
    return m_box.adjusted(-5, -5, 5, 5);
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const Theme& theme = Theme::instance();
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_highlighted) {
        painter->setPen(QPen(theme.highlight(), 2.0, Qt::DashLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_box.adjusted(-4, -4, 4, 4), 6, 6);
    }
    const QColor border = m_look.critical ? theme.critical() : theme.foreground();
    painter->setPen(QPen(border, m_look.critical ? 2.5 : (m_look.centre ? 1.6 : 0.8)));
    painter->setBrush(m_look.fill);
    painter->drawRoundedRect(m_box, 4, 4);

    const QRectF inner = m_box.adjusted(kPadding, kPadding - 1, -kPadding, -kPadding);
    const QFontMetricsF headerMetrics(m_headerFont);
    painter->setPen(theme.foreground());
    painter->setFont(m_headerFont);
    painter->drawText(QRectF(inner.topLeft(), QSizeF(inner.width(), headerMetrics.height())),
                      Qt::AlignLeft | Qt::AlignVCenter, m_look.header);
    painter->setFont(m_bodyFont);
    painter->drawText(inner.adjusted(0, headerMetrics.height() + 2, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                      m_look.body);
}

GraphEdgeItem::GraphEdgeItem(QPainterPath path, QPointF arrowBase, QPointF arrowTip, QColor colour,
                             bool critical, QString label, std::optional<QPointF> labelCentre,
                             QFont labelFont)
    : m_path(std::move(path)), m_arrowBase(arrowBase), m_arrowTip(arrowTip), m_colour(std::move(colour)),
      m_critical(critical), m_label(std::move(label)), m_labelCentre(labelCentre),
      m_labelFont(std::move(labelFont))
{
    setZValue(critical ? 0.5 : 0); // critical edges over the others, under the nodes
}

QPolygonF GraphEdgeItem::arrowhead() const
{
    QLineF shaft(m_arrowTip, m_arrowBase);
    if (shaft.length() < 0.5) // Graphviz gave no arrow: point along the last stretch of the path
        shaft = QLineF(m_arrowTip, m_path.pointAtPercent(0.95));
    if (shaft.length() < 0.5)
        return {};
    shaft.setLength(kArrowLength);
    const QLineF left = QLineF::fromPolar(kArrowLength, shaft.angle() + 22).translated(m_arrowTip);
    const QLineF right = QLineF::fromPolar(kArrowLength, shaft.angle() - 22).translated(m_arrowTip);
    return QPolygonF({m_arrowTip, left.p2(), right.p2()});
}

QRectF GraphEdgeItem::labelRect() const
{
    if (m_label.isEmpty())
        return {};
    const QFontMetricsF metrics(m_labelFont);
    const QSizeF size(metrics.horizontalAdvance(m_label) + 6, metrics.height() + 2);
    const QPointF middle = m_labelCentre      ? *m_labelCentre
                           : m_path.isEmpty() ? (m_arrowBase + m_arrowTip) / 2
                                              : m_path.pointAtPercent(0.5);
    return QRectF(middle - QPointF(size.width() / 2, size.height() / 2), size);
}

QRectF GraphEdgeItem::boundingRect() const
{
    return m_path.boundingRect()
        .united(QRectF(m_arrowBase, m_arrowTip).normalized())
        .united(labelRect())
        .adjusted(-kCriticalBand - kArrowLength, -kCriticalBand - kArrowLength, kCriticalBand + kArrowLength,
                  kCriticalBand + kArrowLength);
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const Theme& theme = Theme::instance();
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath line = m_path;
    line.lineTo(m_arrowBase);
    if (m_critical) {
        QColor band = theme.critical();
        band.setAlpha(90);
        painter->setPen(QPen(band, kCriticalBand * theme.lineScale(), Qt::SolidLine, Qt::RoundCap));
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(line);
    }
    painter->setPen(QPen(m_colour, (m_critical ? 2.2 : 1.4) * theme.lineScale()));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(line);
    painter->setBrush(m_colour);
    painter->drawPolygon(arrowhead());

    if (const QRectF r = labelRect(); !r.isEmpty()) {
        QColor background = theme.background();
        background.setAlpha(220);
        painter->setPen(Qt::NoPen);
        painter->setBrush(background);
        painter->drawRoundedRect(r, 3, 3);
        painter->setPen(m_critical ? theme.critical() : theme.foreground());
        painter->setFont(m_labelFont);
        painter->drawText(r, Qt::AlignCenter, m_label);
    }
}

} // namespace xps::ui

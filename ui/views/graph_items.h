#pragma once
// The two things the dependency graph draws: a node (a bundle or a DMA, as a box with a header line and
// its instruction) and a typed edge (a spline with an arrowhead and the cycles it accounts for). Both
// paint in the current theme; the critical path is drawn as a wide red band under its edges and a red
// border around its nodes, so it stays visible whatever the edge's type colour.

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QPainterPath>

#include <optional>

namespace xps::ui {

// The graphs' fonts, from their view's: a bold header line, a fixed-width body, smaller edge labels.
QFont graphHeaderFont(const QFont& base);
QFont graphBodyFont(const QFont& base);
QFont graphLabelFont(const QFont& base);

struct NodeLook
{
    QString header; // "chip 0 · pc 12 · cycle 1,234"
    QString body;   // the instruction or the transfer, elided to fit
    QColor fill;
    bool critical = false;
    bool centre = false; // the node the graph is built around
};

class GraphNodeItem : public QGraphicsItem
{
public:
    GraphNodeItem(std::size_t index, NodeLook look, QSizeF size, QFont headerFont, QFont bodyFont);

    std::size_t index() const { return m_index; }
    void setHighlighted(bool on); // part of the shared selection
    bool highlighted() const { return m_highlighted; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    // The box a node of this text needs.
    static QSizeF sizeFor(const NodeLook& look, const QFont& headerFont, const QFont& bodyFont);

private:
    std::size_t m_index;
    NodeLook m_look;
    QRectF m_box;
    QFont m_headerFont;
    QFont m_bodyFont;
    bool m_highlighted = false;
};

class GraphEdgeItem : public QGraphicsItem
{
public:
    // Without a label centre the label sits halfway along the path.
    GraphEdgeItem(QPainterPath path, QPointF arrowBase, QPointF arrowTip, QColor colour, bool critical,
                  QString label, std::optional<QPointF> labelCentre, QFont labelFont);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QPolygonF arrowhead() const;
    QRectF labelRect() const;

    QPainterPath m_path;
    QPointF m_arrowBase;
    QPointF m_arrowTip;
    QColor m_colour;
    bool m_critical;
    QString m_label;
    std::optional<QPointF> m_labelCentre;
    QFont m_labelFont;
};

} // namespace xps::ui

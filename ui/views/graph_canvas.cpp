#include "views/graph_canvas.h"

#include "views/graph_items.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <cmath>

namespace xps::ui {

std::optional<std::size_t> GraphCanvas::nodeAt(const QPoint& pos) const
{
    for (QGraphicsItem* item : items(pos))
        if (const auto* node = dynamic_cast<GraphNodeItem*>(item))
            return node->index();
    return std::nullopt;
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    const double factor = std::pow(1.0015, event->angleDelta().y());
    const double scale = transform().m11() * factor;
    if (scale < 0.05 || scale > 4.0)
        return;
    setTransformationAnchor(AnchorUnderMouse);
    this->scale(factor, factor);
    event->accept();
}

void GraphCanvas::mousePressEvent(QMouseEvent* event)
{
    m_pressAt = event->pos();
    QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    QGraphicsView::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton && (event->pos() - m_pressAt).manhattanLength() < 4 && onClick)
        onClick(nodeAt(event->pos()));
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (const auto node = nodeAt(event->pos()); node && onDoubleClick)
        onDoubleClick(*node);
    else
        QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal)
        scale(1.25, 1.25);
    else if (event->key() == Qt::Key_Minus)
        scale(0.8, 0.8);
    else
        QGraphicsView::keyPressEvent(event);
}

} // namespace xps::ui

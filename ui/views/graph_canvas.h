#pragma once
// The canvas both dependency graphs (replays and imported profiles) draw in: wheel zooms around the
// pointer, a drag pans, + and - zoom, and a click or double-click on a node is reported to the view (a
// press that moved is a pan, not a click).

#include <QGraphicsView>

#include <cstddef>
#include <functional>
#include <optional>

namespace xps::ui {

class GraphCanvas : public QGraphicsView
{
public:
    std::function<void(std::optional<std::size_t>)> onClick; // the node's index, or none (background)
    std::function<void(std::size_t)> onDoubleClick;

    using QGraphicsView::QGraphicsView;

    // The index of the GraphNodeItem under `pos` (viewport coordinates), if any.
    std::optional<std::size_t> nodeAt(const QPoint& pos) const;

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    QPoint m_pressAt;
};

} // namespace xps::ui

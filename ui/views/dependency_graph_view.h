#pragma once
// The dependency graph around the selection, for a replay and for an imported profile alike: the nodes
// within a few edges of the centre, edges typed by colour and labelled with the time they span, the
// critical path drawn in red; laid out by Graphviz `dot` on a worker thread and drawn in a canvas with wheel
// zoom and drag pan, along the dock's longer side. A click on a node selects it everywhere; a double-click
// rebuilds the graph around it; Back returns to the previous centre. What the nodes are comes from its
// GraphSource (views/replay_graph_source.h, imported/profile_graph_source.h).

#include "views/graph_source.h"

#include <QThreadPool>
#include <QTransform>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QSpinBox;
class QToolButton;

namespace xps::ui {

class GraphCanvas;
class GraphNodeItem;

class DependencyGraphView : public QWidget
{
    Q_OBJECT
public:
    static constexpr std::size_t kMaxNodes = 60;

    // Takes `source` over (it becomes the view's child).
    explicit DependencyGraphView(GraphSource* source, QWidget* parent = nullptr);
    ~DependencyGraphView() override; // waits for a layout in progress

    GraphSource* source() const { return m_source; }

    // What is shown (tests and the screenshot option read these).
    std::optional<GraphNodeKey> centre() const { return m_centre; } // the newest requested centre
    const GraphContent* content() const { return m_content.get(); } // the graph on screen, if any
    bool isLayingOut() const { return m_pending != 0; }
    QString info() const;
    QPoint viewportPosition(std::size_t node) const; // where node `node` is drawn, in canvas()->viewport()
    bool isHighlighted(std::size_t node) const;
    QGraphicsView* canvas() const;

    void centreOnCriticalPath();

signals:
    void laidOut(); // a new graph is on screen

private:
    void centreOn(GraphNodeKey node, bool remember);
    void startLayout();
    void showResult(std::uint64_t generation, std::shared_ptr<GraphContent> content);
    void rebuildScene();
    void showHighlights();
    void clicked(std::optional<std::size_t> node);
    void goBack();
    void fit();
    void reset();
    // Ranks run along the longer side of the canvas: a dependency chain in a wide, short dock reads left to
    // right at a readable size instead of a column shrunk to 6 px text.
    bool wantsLeftToRight() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    GraphSource* m_source;
    QGraphicsScene* m_scene;
    GraphCanvas* m_canvas;
    QLabel* m_info;
    QLabel* m_legend;
    QToolButton* m_back;
    QSpinBox* m_depth;
    std::optional<GraphNodeKey> m_centre;
    std::vector<GraphNodeKey> m_history; // earlier centres, for Back
    std::shared_ptr<const GraphContent> m_content;
    std::vector<GraphNodeItem*> m_nodes;
    std::uint64_t m_generation = 0; // of the newest layout request
    std::uint64_t m_pending = 0;    // the request being laid out, 0 when none
    bool m_leftToRight = false;     // the direction of the newest layout request
    bool m_fitWhenShown = false;    // fitted while hidden, to a size it did not have
    QTransform m_fitTransform;      // what fit() chose; a different one means the person zoomed
    // One layout at a time; destroyed first (declared last) so the destructor waits for it.
    QThreadPool m_pool;
};

} // namespace xps::ui

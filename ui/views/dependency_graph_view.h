#pragma once
// The dependency graph around the selection: the bundles, DMAs and waits within a few edges of the focus
// node, edges typed (program order, data, memory, flag, issue, structural) and the critical path drawn in
// red; laid out by Graphviz `dot` on a worker thread and drawn in a QGraphicsView with wheel zoom and
// drag pan. A click on a node selects it everywhere; a double-click rebuilds the graph around it.

#include "analysis/dependencies.h"

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
class ReplaySession;
class SelectionModel;
struct GraphJobResult;

class DependencyGraphView : public QWidget
{
    Q_OBJECT
public:
    DependencyGraphView(ReplaySession* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~DependencyGraphView() override; // waits for a layout in progress

    // What is shown (tests and the screenshot option read these).
    std::optional<analysis::NodeRef> centre() const { return m_centre; }
    const analysis::Subgraph& graph() const;
    bool isLayingOut() const { return m_pending != 0; }
    QString info() const;
    QPoint viewportPosition(std::size_t node) const; // where node `node` is drawn, in canvas()->viewport()
    bool isHighlighted(std::size_t node) const;
    QGraphicsView* canvas() const;

    // Rebuilds the graph around the end of the longest non-compute stretch of the critical path.
    void centreOnCriticalPath();

signals:
    void laidOut(); // a new graph is on screen

private:
    void centreOn(analysis::NodeRef node, bool remember);
    void startLayout();
    void showResult(std::uint64_t generation, std::shared_ptr<GraphJobResult> result);
    void rebuildScene();
    void showHighlights();
    void showInfo();
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
    ReplaySession* m_session;
    SelectionModel* m_selection;
    QGraphicsScene* m_scene;
    GraphCanvas* m_canvas;
    QLabel* m_info;
    QLabel* m_legend;
    QToolButton* m_back;
    QSpinBox* m_depth;
    std::optional<analysis::NodeRef> m_centre;
    std::vector<analysis::NodeRef> m_history; // earlier centres, for Back
    std::shared_ptr<GraphJobResult> m_result;
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

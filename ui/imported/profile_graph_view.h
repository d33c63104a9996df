#pragma once
// The dependency graph of an imported profile around the selected slice: the slices within a few flows of
// it (Chakra's data and control dependencies, Kineto's launches, Chrome flows), each flow an edge labelled
// with the gap it spans, slices on the critical path outlined in red. Laid out by Graphviz `dot` on a worker
// thread, drawn in the same canvas as a replay's graph. A click selects the slice in every profile view; a
// double-click centres the graph on it.

#include "profile/flow_graph.h"

#include <QThreadPool>
#include <QWidget>

#include <memory>
#include <vector>

class QGraphicsScene;
class QLabel;
class QSpinBox;

namespace xps::ui {

class GraphCanvas;
class GraphNodeItem;
class ProfileDocument;
struct ProfileGraphJob;

class ProfileGraphView : public QWidget
{
    Q_OBJECT
public:
    explicit ProfileGraphView(ProfileDocument* document, QWidget* parent = nullptr);
    ~ProfileGraphView() override; // waits for a layout in progress

    // What is shown (tests read these).
    std::uint32_t centre() const { return m_centre; }
    const profile::FlowGraph& graph() const;
    bool isLayingOut() const { return m_pending != 0; }
    QString info() const;
    QPoint viewportPosition(std::size_t node) const; // where node `node` is drawn, in canvas()->viewport()
    GraphCanvas* canvas() const { return m_canvas; }

signals:
    void laidOut(); // a new graph is on screen

private:
    void reset();
    void centreOn(std::uint32_t slice);
    void startLayout();
    void showResult(std::uint64_t generation, std::shared_ptr<ProfileGraphJob> job);
    void rebuildScene();
    void showHighlights();

    ProfileDocument* m_document;
    QGraphicsScene* m_scene;
    GraphCanvas* m_canvas;
    QLabel* m_info;
    QLabel* m_legend;
    QSpinBox* m_depth;
    std::shared_ptr<const profile::FlowIndex> m_index; // of the open profile, once a job has built it
    std::vector<bool> m_critical;                      // per slice of the open profile
    std::uint32_t m_centre = profile::kNone;
    std::shared_ptr<ProfileGraphJob> m_job;
    std::vector<GraphNodeItem*> m_nodes;
    std::uint64_t m_generation = 0;
    std::uint64_t m_pending = 0;
    QThreadPool m_pool; // declared last: destroyed first, after waiting for the layout
};

} // namespace xps::ui

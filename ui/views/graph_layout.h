#pragma once
// Lays a small directed graph out with Graphviz `dot`: nodes in layers along the edges' direction, edges
// as splines routed around the nodes. Only the geometry crosses this boundary; the view draws it.

#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace xps::ui {

struct LayoutRequest
{
    std::vector<QSizeF> nodes;                               // box sizes in pixels
    std::vector<std::pair<std::size_t, std::size_t>> edges; // (from, to) indexes into nodes
    std::vector<QString> edgeLabels; // per edge (or empty): dot keeps room for them clear of nodes and edges
    double labelPointSize = 8.0;
    bool leftToRight = false; // ranks left to right instead of top to bottom
};

struct LaidOutEdge
{
    QPainterPath path; // the spline, ending where the arrowhead starts
    QPointF arrowBase; // the arrowhead runs from here...
    QPointF arrowTip;  // ...to the target's border
    std::optional<QPointF> labelCentre;
};

struct GraphLayout
{
    std::vector<QPointF> centres; // per node, y down
    std::vector<LaidOutEdge> edges;
    QRectF bounds;
    QString error; // empty when laid out
};

// Safe to call from any thread: Graphviz keeps global state, so calls are serialised. Uses the `dot`
// plugin linked into the program, not the system's plugin configuration.
GraphLayout layoutWithDot(const LayoutRequest& request);

} // namespace xps::ui

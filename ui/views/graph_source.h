#pragma once
// What the one dependency-graph view needs from what it shows. A replay (bundles and DMAs joined by typed
// dependencies) and an imported profile (slices joined by their flows) are both a graph around a centre
// node; the view owns everything they share (the layout worker, the canvas, Back, Critical path, Fit, the
// depth, highlights, fitting to the dock) and asks its source only for what differs: which node is where,
// what each node and edge says, what a click selects and when to follow the selection.

#include "analysis/dependencies.h"
#include "views/graph_items.h"
#include "views/graph_layout.h"

#include <QFont>
#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace xps::ui {

// A node as its source names it (a replay's NodeRef, a profile's slice), opaque to the view.
struct GraphNodeKey
{
    std::uint64_t value = 0;
    bool operator==(const GraphNodeKey&) const = default;
};

struct GraphFonts
{
    QFont header, body, label;
};

// One graph as a source built it on the layout worker; the view adds Graphviz's geometry and draws it.
// Sources derive from it to keep what they need afterwards (their own node records).
struct GraphContent
{
    struct Node
    {
        GraphNodeKey key;
        NodeLook look;              // without its fill: that depends on the theme
        std::optional<QColor> tint; // the node's colour (a DMA's path, a slice's kind); none: a plain box
        QString toolTip;
        QSizeF size;
    };
    struct Edge
    {
        std::size_t from = 0, to = 0;                        // indexes into nodes
        analysis::EdgeKind kind = analysis::EdgeKind::Order; // its colour
        bool critical = false;
        QString label; // drawn on the edge (the time it spans), or empty
        QString toolTip;
    };

    virtual ~GraphContent() = default;

    std::vector<Node> nodes; // nodes[0] is the centre
    std::vector<Edge> edges;
    std::vector<std::pair<analysis::EdgeKind, QString>> legend; // the edge colours and what they mean
    QString info;                                               // rich text shown under the graph
    GraphLayout layout;                                         // filled by the view's worker
};

// What the view says of a source's graph.
struct GraphSourceWords
{
    QString placeholder;  // while there is nothing to draw yet
    int maxDepth = 4;     // the largest depth offered
    QString depthToolTip; // the depth box's; %1 is the most nodes a graph shows
};

class GraphSource : public QObject
{
    Q_OBJECT
public:
    // Runs on the layout worker: the graph around a centre, without its layout (null: the centre is in none).
    using Build = std::function<std::shared_ptr<GraphContent>(const GraphFonts& fonts)>;

    explicit GraphSource(GraphSourceWords words) : m_words(std::move(words)) {}

    const GraphSourceWords& words() const { return m_words; }
    // Where a graph starts once the source is ready: the selection, else the critical path.
    virtual std::optional<GraphNodeKey> initialCentre() const = 0;
    // The end of the longest stretch of the critical path that is not plain compute, where a dependency
    // most likely costs time; none before the analyses are done.
    virtual std::optional<GraphNodeKey> criticalPathCentre() const = 0;
    // The work that builds the graph around `centre`, holding what it reads alive; empty when the source
    // cannot build one (nothing open, analyses not done).
    virtual Build prepare(GraphNodeKey centre, int depth, std::size_t maxNodes) const = 0;
    // Called on the GUI thread when `content` is drawn (null: nothing is): the graph on screen until the
    // next.
    void setShown(std::shared_ptr<const GraphContent> content)
    {
        m_shown = std::move(content);
        shownChanged();
    }
    // Whether node `node` of `content` is part of the shared selection.
    virtual bool isSelected(const GraphContent& content, std::size_t node) const = 0;
    // A click on node `node`: select it everywhere. A double-click also centres the graph on it.
    virtual void select(const GraphContent& content, std::size_t node) = 0;

signals:
    void cleared();                    // a new document: forget the graph and its history
    void ready();                      // a graph can be built now: start at initialCentre()
    void follow(GraphNodeKey node);    // the selection moved to `node` in another view: centre on it
    void selectionChanged();           // redraw the highlights
    void message(const QString& text); // rich text for the info line (e.g. analyses cancelled)

protected:
    // The graph on screen as the source built it, or null.
    template <class Content> const Content* shownAs() const
    {
        return static_cast<const Content*>(m_shown.get());
    }
    virtual void shownChanged() {}

private:
    GraphSourceWords m_words;
    std::shared_ptr<const GraphContent> m_shown;
};

} // namespace xps::ui

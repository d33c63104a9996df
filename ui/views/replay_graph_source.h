#pragma once
// A replay as a dependency graph: its bundles and DMAs, joined by typed dependencies (program order, data,
// memory, flag, issue, structural), around the shared selection's focus; the critical path from the
// replay's analyses.

#include "views/graph_source.h"

namespace xps::ui {

class ReplaySession;
class SelectionModel;

class ReplayGraphSource : public GraphSource
{
    Q_OBJECT
public:
    ReplayGraphSource(ReplaySession* session, SelectionModel* selection);

    std::optional<GraphNodeKey> initialCentre() const override;
    std::optional<GraphNodeKey> criticalPathCentre() const override;
    Build prepare(GraphNodeKey centre, int depth, std::size_t maxNodes) const override;
    bool isSelected(const GraphContent& content, std::size_t node) const override;
    void select(const GraphContent& content, std::size_t node) override;

    // A node as the view knows it, and back.
    static GraphNodeKey keyOf(analysis::NodeRef node);
    static analysis::NodeRef nodeOf(GraphNodeKey key);
    // The subgraph on screen (empty before the first).
    const analysis::Subgraph& graph() const;

private:
    ReplaySession* m_session;
    SelectionModel* m_selection;
};

} // namespace xps::ui

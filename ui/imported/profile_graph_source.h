#pragma once
// An imported profile as a dependency graph: its slices joined by their flows (Chakra's data and control
// dependencies, Kineto's launches, Chrome flows), each edge labelled with the gap it spans, around the
// selected slice; the critical path from the profile's analysis (HTA's model, or a replay's own).

#include "profile/flow_graph.h"
#include "views/graph_source.h"

namespace xps::ui {

class ProfileDocument;

class ProfileGraphSource : public GraphSource
{
    Q_OBJECT
public:
    explicit ProfileGraphSource(ProfileDocument* document);

    // The slices and flows around the selected slice (empty before the first graph).
    const profile::FlowGraph& graph() const;
    // A slice (its index in the profile) as the view knows it, and back.
    static GraphNodeKey keyOf(std::uint32_t slice) { return GraphNodeKey{slice}; }
    static std::uint32_t sliceOf(GraphNodeKey key) { return static_cast<std::uint32_t>(key.value); }

    std::optional<GraphNodeKey> initialCentre() const override;
    std::optional<GraphNodeKey> criticalPathCentre() const override;
    Build prepare(GraphNodeKey centre, int depth, std::size_t maxNodes) const override;
    bool isSelected(const GraphContent& content, std::size_t node) const override;
    void select(const GraphContent& content, std::size_t node) override;

private:
    void shownChanged() override;
    void forget();
    void load();

    ProfileDocument* m_document;
    std::shared_ptr<const profile::FlowIndex> m_index;   // of the open profile, once a graph has built it
    std::shared_ptr<const std::vector<bool>> m_critical; // per slice of the open profile
};

} // namespace xps::ui

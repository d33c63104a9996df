#pragma once
// The dynamic dependency graph of a replay and its critical path.
//
// The graph is not materialised: a 10M-bundle replay would need gigabytes of edges. Each bundle event
// already names what it waited for (its stall reason and cause), each sync wait names the DMA that ended
// it, and each DMA its issuing bundle and engine; edges are derived from those on demand. The critical
// path is found by walking back from the last bundle along whatever delayed each step, which is the
// longest path in cycles: every cycle of the replay is attributed to exactly one segment.

#include "analysis/chip_index.h"
#include "analysis/dma_analysis.h"
#include "analysis/replay_view.h"

#include <map>
#include <string>
#include <vector>

namespace xps::analysis {

// 8 bytes: a long replay's critical path holds millions of them.
struct NodeRef
{
    enum class Kind : std::uint8_t { Bundle, Dma };
    Kind kind : 8 = Kind::Bundle;
    std::uint64_t index : 56 = 0; // Bundle: global event index; Dma: DMA id
    bool operator==(const NodeRef&) const = default;
    auto operator<=>(const NodeRef&) const = default;
};

// What a stretch of the critical path was spent on.
enum class PathKind : std::uint8_t {
    Compute,    // in-order issue, and waits on a result a functional unit computes (the MXU's pipeline and
                // result FIFO, vector and scalar ops): a compute-bound kernel's path is compute
    Latency,    // waits on a result only a load produced (VMEM or SMEM access time)
    Dma,        // a DMA's queueing, setup and transfer
    Sync,       // a sync.wait not ended by a DMA (another chip's signal), or the flag latency after one
    Structural, // a busy unit, a full queue or FIFO
    Branch,     // taken-branch bubbles
    Count_
};
inline constexpr int kPathKindCount = static_cast<int>(PathKind::Count_);
std::string_view pathKindName(PathKind kind);

struct PathSegment
{
    PathKind kind = PathKind::Compute;
    ChipId chip = ChipId(0);
    std::uint64_t from = 0; // cycles [from, to)
    std::uint64_t to = 0;
    NodeRef begin;           // the node the segment starts at
    NodeRef end;             // and the node it leads to
    std::uint64_t steps = 1; // consecutive steps merged into this segment
};

struct CriticalPath
{
    std::vector<PathSegment> segments; // in time order
    std::uint64_t cycles[kPathKindCount] = {};
    // The longest segment that is not plain compute (else the last one), found while the path is built
    // so that a view centring on it does not walk millions of segments on the GUI thread. kNoSegment
    // when the path is empty.
    static constexpr std::size_t kNoSegment = static_cast<std::size_t>(-1);
    std::size_t longestStall = kNoSegment;
    std::uint64_t total() const;
    double share(PathKind kind) const;
};

enum class EdgeKind : std::uint8_t { Order, Data, Memory, Flag, Issue, Structural };
std::string_view edgeKindName(EdgeKind kind);

struct GraphNode
{
    NodeRef ref;
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t start = 0; // issue cycle; a DMA's issue
    std::uint64_t end = 0;   // a bundle's issue cycle; a DMA's last chunk
    std::string label;
    bool critical = false;
};

struct GraphEdge
{
    std::size_t from = 0; // indexes into Subgraph::nodes
    std::size_t to = 0;
    EdgeKind kind = EdgeKind::Order;
    std::uint64_t cycles = 0; // to.start - from.start (or from a DMA's end)
    bool critical = false;
};

struct Subgraph
{
    std::vector<GraphNode> nodes; // nodes[0] is the centre
    std::vector<GraphEdge> edges;
};

class DependencyGraph
{
public:
    DependencyGraph(const ReplayView& replay, const DmaAnalysis& dmas);

    // The critical path, moved out: callers keep it (Analyses::criticalPath); the graph needs only its
    // own index of critical nodes (onCriticalPath) afterwards.
    CriticalPath takeCriticalPath() { return std::move(m_path); }
    bool onCriticalPath(NodeRef node) const;
    // The nodes within `radius` edges of `center` (both directions), at most `maxNodes`, with typed edges.
    Subgraph subgraph(NodeRef center, int radius = 2, std::size_t maxNodes = 48) const;

    struct Edge
    {
        NodeRef node;
        EdgeKind kind;
    };
    std::vector<Edge> predecessors(NodeRef node) const;
    std::vector<Edge> successors(NodeRef node) const;

private:
    void walkCriticalPath();
    std::int64_t seqOf(std::size_t event) const;
    const events::SyncWaitRecord* waitEndingAt(ChipId chip, std::uint64_t cycle) const;
    const DmaFacts* queuePredecessor(const events::DmaRecord& d) const;
    std::int64_t issuingEvent(const events::DmaRecord& d) const;
    std::int64_t lastVmemWriter(std::size_t event) const;
    GraphNode describe(NodeRef node) const;

    const ReplayView& m_replay;
    const DmaAnalysis& m_dmas;
    events::BundleSnapshot m_bundles;
    events::VmemSnapshot m_vmem;
    ChipIndex m_index;
    std::vector<events::SyncWaitRecord> m_waitsByEnd;       // sorted by (chip, end)
    std::vector<events::SyncWaitRecord> m_waitsBySatisfier; // those ended by a DMA, sorted by its id
    std::vector<std::int64_t> m_prevOnEngine; // per DmaAnalysis::dmas entry: the one before it on its engine
    CriticalPath m_path;
    // Critical bundle events per chip as cycle ranges: Compute runs cover every bundle between their ends.
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> m_criticalRanges;
    std::vector<std::uint32_t> m_criticalDmas; // sorted ids
};

} // namespace xps::analysis

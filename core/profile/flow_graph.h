#pragma once
// The slices within a few flows of one slice, and the flows among them: what the profile explorer's
// dependency graph draws (Chakra's data and control dependencies, Kineto's launch -> kernel and
// forward -> backward flows, Chrome flows). Flows are followed both ways, nearest first.

#include "profile/profile.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xps::profile {

// Each slice's outgoing and incoming flows, built once per profile (CSR: O(slices + flows) memory).
class FlowIndex
{
public:
    explicit FlowIndex(const Profile& profile);
    // Flow indexes into Profile::flows.
    std::vector<std::uint32_t> outgoing(std::uint32_t slice) const;
    std::vector<std::uint32_t> incoming(std::uint32_t slice) const;

private:
    std::vector<std::uint32_t> m_outStart, m_out; // m_out[m_outStart[s] .. m_outStart[s + 1])
    std::vector<std::uint32_t> m_inStart, m_in;
};

struct FlowGraph
{
    struct Edge
    {
        std::size_t from = 0, to = 0; // indexes into slices
        std::uint32_t flow = kNone;   // index into Profile::flows
    };
    std::vector<std::uint32_t> slices; // [0] is the centre, then by distance in flows
    std::vector<int> distance;         // per slice: flows from the centre
    std::vector<Edge> edges;           // every flow between two of the slices
    bool truncated = false;            // more slices were within reach than fitted
};

// The slices at most `depth` flows from `centre` (at most `maxSlices` of them) and the flows among them.
FlowGraph flowNeighbourhood(const Profile& profile, const FlowIndex& index, std::uint32_t centre, int depth,
                            std::size_t maxSlices);

} // namespace xps::profile

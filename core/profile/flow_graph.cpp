#include "profile/flow_graph.h"

#include <unordered_map>

namespace xps::profile {

namespace {

// Counting sort of the flows by one end: starts[s] .. starts[s + 1] index the flows of slice s.
void buildCsr(const Profile& p, bool byFrom, std::vector<std::uint32_t>& starts,
              std::vector<std::uint32_t>& flows)
{
    starts.assign(p.slices.size() + 1, 0);
    const auto endOf = [&](const Flow& f) { return (byFrom ? f.from : f.to).value; }; // kNone if unbound
    for (const Flow& f : p.flows)
        if (endOf(f) < p.slices.size())
            ++starts[endOf(f) + 1];
    for (std::size_t s = 0; s < p.slices.size(); ++s)
        starts[s + 1] += starts[s];
    flows.assign(starts.back(), 0);
    std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
    for (std::uint32_t i = 0; i < p.flows.size(); ++i)
        if (endOf(p.flows[i]) < p.slices.size())
            flows[next[endOf(p.flows[i])]++] = i;
}

} // namespace

FlowIndex::FlowIndex(const Profile& profile)
{
    buildCsr(profile, true, m_outStart, m_out);
    buildCsr(profile, false, m_inStart, m_in);
}

std::vector<std::uint32_t> FlowIndex::outgoing(std::uint32_t slice) const
{
    if (slice + 1 >= m_outStart.size())
        return {};
    return {m_out.begin() + m_outStart[slice], m_out.begin() + m_outStart[slice + 1]};
}

std::vector<std::uint32_t> FlowIndex::incoming(std::uint32_t slice) const
{
    if (slice + 1 >= m_inStart.size())
        return {};
    return {m_in.begin() + m_inStart[slice], m_in.begin() + m_inStart[slice + 1]};
}

FlowGraph flowNeighbourhood(const Profile& profile, const FlowIndex& index, std::uint32_t centre, int depth,
                            std::size_t maxSlices)
{
    FlowGraph g;
    if (centre >= profile.slices.size() || maxSlices == 0)
        return g;
    std::unordered_map<std::uint32_t, std::size_t> at; // slice -> index in g.slices
    const auto add = [&](std::uint32_t slice, int distance) {
        if (at.count(slice))
            return;
        if (g.slices.size() >= maxSlices) {
            g.truncated = true;
            return;
        }
        at.emplace(slice, g.slices.size());
        g.slices.push_back(slice);
        g.distance.push_back(distance);
    };
    add(centre, 0);
    // Breadth first: every slice one flow further before the next ring, so a cap keeps the nearest.
    for (std::size_t i = 0; i < g.slices.size(); ++i) {
        if (g.distance[i] >= depth)
            continue;
        const std::uint32_t s = g.slices[i];
        for (const std::uint32_t f : index.incoming(s))
            add(profile.flows[f].from.value, g.distance[i] + 1);
        for (const std::uint32_t f : index.outgoing(s))
            add(profile.flows[f].to.value, g.distance[i] + 1);
    }
    for (std::size_t i = 0; i < g.slices.size(); ++i)
        for (const std::uint32_t f : index.outgoing(g.slices[i]))
            if (const auto to = at.find(profile.flows[f].to.value); to != at.end())
                g.edges.push_back({i, to->second, f});
    return g;
}

} // namespace xps::profile

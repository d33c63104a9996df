#include "analysis/collectives.h"

#include "isa/topology.h"

#include <algorithm>
#include <functional>
#include <map>

namespace xps::analysis {

CollectiveAnalysis analyzeCollectives(const ReplayView& replay)
{
    CollectiveAnalysis out;
    const isa::MachineConfig& m = replay.trace.machine;
    const std::size_t chips = replay.trace.chips.size();
    if (chips < 2)
        return out;
    const double total = static_cast<double>(std::max<std::uint64_t>(replay.totalCycles, 1));
    const int links = isa::linkCount(m);
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> busy(static_cast<std::size_t>(links));
    // A ring has no y links; their slots in the numbering stay unused.
    const bool ring = m.topology == isa::Topology::Ring;
    for (int l = 0; l < links; ++l)
        out.links.push_back({l, isa::linkName(l), isa::linkDestination(m, l), 0, 0, 0, 0.0});
    CancelPoint cancel = replay.cancelPoint();
    replay.store.forEachDma([&](const events::DmaRecord& d) {
        cancel();
        if (d.dstChip == d.chip)
            return;
        for (int l : isa::iciRoute(m, d.chip, d.dstChip, d.longWay != 0)) {
            if (l < 0 || l >= links)
                continue;
            LinkUse& u = out.links[static_cast<std::size_t>(l)];
            ++u.transfers;
            u.bytes += d.bytes;
            busy[static_cast<std::size_t>(l)].push_back({d.start, d.end});
        }
    });
    const double perCycle = m.bytesPerCycle(m.iciLinkGBs);
    for (int l = 0; l < links; ++l) {
        LinkUse& u = out.links[static_cast<std::size_t>(l)];
        auto& iv = busy[static_cast<std::size_t>(l)];
        std::sort(iv.begin(), iv.end(), cancel.polling(std::less<>()));
        std::uint64_t until = 0;
        for (const auto& [a, b] : iv) {
            const std::uint64_t from = std::max(a, until);
            if (b > from)
                u.busyCycles += b - from;
            until = std::max(until, b);
        }
        u.utilization = static_cast<double>(u.bytes) / (perCycle * total);
        if (u.bytes > 0)
            ++out.usedLinks;
    }
    if (ring)
        std::erase_if(out.links, [](const LinkUse& u) { return u.link % isa::kLinkDirectionsPerChip >= 2; });
    // Torus links in a dimension of size 1 or 2 lead back to the same neighbour; keep them anyway so the
    // table has the same shape for every topology.

    // Steps: instances of the deepest regions, matched by (name, n-th instance) across chips.
    std::vector<std::vector<events::StoreSlice>> perChip(chips);
    int deepest = -1;
    for (std::size_t c = 0; c < chips; ++c) {
        perChip[c] = replay.store.regionsByEntry(chipIdAt(c));
        for (const events::StoreSlice& r : perChip[c])
            deepest = std::max(deepest, static_cast<int>(r.depth));
    }
    std::map<std::pair<std::string, std::uint64_t>, CollectiveStep> steps;
    for (std::size_t c = 0; c < chips; ++c) {
        std::map<std::string, std::uint64_t> seen;
        for (const events::StoreSlice& r : perChip[c]) {
            if (static_cast<int>(r.depth) != deepest)
                continue;
            const auto& symbols = replay.trace.chips[c].symbols.regions;
            const std::uint32_t region = events::regionOf(r);
            const std::string name =
                region < symbols.size() ? symbols[region].name : "region " + std::to_string(region);
            const std::uint64_t instance = seen[name]++;
            CollectiveStep& s = steps[{name, instance}];
            if (s.enter.empty()) {
                s.region = name;
                s.instance = instance;
                s.enter.assign(chips, -1);
                s.exit.assign(chips, -1);
            }
            s.enter[c] = static_cast<std::int64_t>(r.start);
            s.exit[c] = static_cast<std::int64_t>(r.end());
        }
    }
    for (auto& [key, s] : steps) {
        std::int64_t lo = INT64_MAX, hi = -1;
        for (std::size_t c = 0; c < chips; ++c) {
            if (s.exit[c] < 0)
                continue;
            lo = std::min(lo, s.exit[c]);
            hi = std::max(hi, s.exit[c]);
            s.maxDuration = std::max(s.maxDuration, static_cast<std::uint64_t>(s.exit[c] - s.enter[c]));
        }
        s.skew = hi >= lo ? static_cast<std::uint64_t>(hi - lo) : 0;
        out.maxSkew = std::max(out.maxSkew, s.skew);
        out.steps.push_back(std::move(s));
    }
    std::sort(out.steps.begin(), out.steps.end(), [](const auto& a, const auto& b) {
        const auto first = [](const CollectiveStep& s) {
            std::int64_t e = INT64_MAX;
            for (std::int64_t v : s.enter)
                if (v >= 0)
                    e = std::min(e, v);
            return e;
        };
        return first(a) < first(b);
    });
    return out;
}

} // namespace xps::analysis

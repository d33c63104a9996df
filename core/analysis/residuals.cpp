#include "analysis/residuals.h"

#include <map>
#include <tuple>

namespace xps::analysis {

double RegionResidual::relativeError() const
{
    if (!replayed || recorded == 0)
        return 0.0;
    return (static_cast<double>(*replayed) - static_cast<double>(recorded)) / static_cast<double>(recorded);
}

Residuals computeResiduals(const trace::Trace& trace, const events::EventStore& store)
{
    Residuals out;
    if (!trace.recorded)
        return out;

    // Region instances in the order they completed per (chip, region): instance n is the n-th exit.
    std::map<std::pair<int, std::uint32_t>, std::vector<std::uint64_t>> durations;
    for (const events::RegionRecord& r : store.regions())
        durations[{r.chip, r.region}].push_back(r.exit - r.enter);
    for (const trace::RecordedRegion& rec : trace.recorded->regions) {
        RegionResidual res{rec.chip, rec.region, rec.instance, rec.cycles, std::nullopt};
        const int id = trace.chips[static_cast<std::size_t>(rec.chip)].symbols.findRegion(rec.region);
        const auto it = durations.find({rec.chip, static_cast<std::uint32_t>(id)});
        if (it != durations.end() && rec.instance < it->second.size())
            res.replayed = it->second[rec.instance];
        out.regions.push_back(std::move(res));
    }

    // The k-th recorded sample of a (chip, pc) against the k-th issue of that pc.
    std::map<std::pair<int, std::uint32_t>, std::vector<std::size_t>> wanted; // -> indices into out.samples
    for (const trace::RecordedSample& s : trace.recorded->samples) {
        wanted[{s.chip, s.pc}].push_back(out.samples.size());
        out.samples.push_back({s.chip, s.pc, s.cycle, std::nullopt});
    }
    std::map<std::pair<int, std::uint32_t>, std::size_t> seen;
    const events::BundleSnapshot bundles = store.bundles();
    for (std::size_t i = 0; i < bundles.size() && !wanted.empty(); ++i) {
        const events::BundleIssue e = bundles[i];
        const auto key = std::make_pair(static_cast<int>(e.chip), e.pc);
        const auto it = wanted.find(key);
        if (it == wanted.end())
            continue;
        const std::size_t k = seen[key]++;
        if (k < it->second.size())
            out.samples[it->second[k]].replayed = e.cycle;
    }
    return out;
}

} // namespace xps::analysis

#include "analysis/run_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace xps::analysis {

std::optional<double> Compared::percent() const
{
    if (baseline == 0)
        return std::nullopt;
    return 100.0 * static_cast<double>(delta()) / static_cast<double>(baseline);
}

double RunDiff::slowdownPercent() const
{
    return cycles.percent().value_or(0.0);
}

const RegionDelta* RunDiff::findRegion(const std::string& name) const
{
    for (const RegionDelta& r : regions)
        if (r.path == name)
            return &r;
    for (const RegionDelta& r : regions)
        if (r.name == name)
            return &r;
    return nullptr;
}

namespace {

std::uint64_t bundlesOf(const Summary& s)
{
    std::uint64_t n = 0;
    for (const ChipSummary& c : s.chips)
        n += c.bundles;
    return n;
}

std::uint64_t stallsOf(const std::uint64_t (&cycles)[events::kStallReasonCount])
{
    std::uint64_t n = 0;
    for (std::uint64_t c : cycles)
        n += c;
    return n;
}

std::uint64_t dmaBytesOf(const Summary& s)
{
    std::uint64_t n = 0;
    for (const DmaPath& p : s.dmaPaths)
        n += p.bytes;
    return n;
}

// One side of a region's row from that run's summary.
void fill(RegionDelta& row, const RegionSummary& r, bool baseline)
{
    const auto set = [baseline](Compared& c, std::uint64_t v) { (baseline ? c.baseline : c.other) = v; };
    set(row.instances, r.instances);
    set(row.cycles, r.cycles);
    set(row.bundles, r.bundles);
    set(row.stallCycles, r.totalStallCycles());
    set(row.dmaBytes, r.dmaBytes);
    for (int k = 0; k < events::kStallReasonCount; ++k)
        set(row.stallByReason[k], r.stallCycles[k]);
    (baseline ? row.inBaseline : row.inOther) = true;
    if (row.path.empty()) {
        row.path = r.path;
        row.name = r.name;
        row.level = r.level;
        row.depth = r.depth;
    }
}

} // namespace

RunDiff diffRuns(const Analyses& baseline, const Analyses& other, RunTotals baselineRun, RunTotals otherRun)
{
    RunDiff d;
    d.baseline = std::move(baselineRun);
    d.other = std::move(otherRun);
    const Summary& a = baseline.summary;
    const Summary& b = other.summary;
    d.baseline.microseconds = a.microseconds;
    d.other.microseconds = b.microseconds;
    d.baseline.chips = a.chips.size();
    d.other.chips = b.chips.size();
    d.cycles = {a.totalCycles, b.totalCycles};
    d.bundles = {bundlesOf(a), bundlesOf(b)};
    d.stallCycles = {stallsOf(a.stallCycles), stallsOf(b.stallCycles)};
    for (int k = 0; k < events::kStallReasonCount; ++k)
        d.stallByReason[k] = {a.stallCycles[k], b.stallCycles[k]};
    d.dmaBytes = {dmaBytesOf(a), dmaBytesOf(b)};
    d.exposedDmaCycles = {baseline.dma.exposedCycles, other.dma.exposedCycles};
    d.vmemPeakBytes = {baseline.vmem.peakLiveBytes, other.vmem.peakLiveBytes};
    for (int k = 0; k < kPathKindCount; ++k)
        d.criticalPath[k] = {baseline.criticalPath.cycles[k], other.criticalPath.cycles[k]};

    // Regions by path: the baseline's in its order, then those only the other run has, in its order.
    std::map<std::string, std::size_t> rowOf;
    for (const auto& [summary, isBaseline] : {std::pair{&a, true}, std::pair{&b, false}})
        for (const RegionSummary& r : summary->regions) {
            auto [it, added] = rowOf.try_emplace(r.path, d.regions.size());
            if (added)
                d.regions.emplace_back();
            fill(d.regions[it->second], r, isBaseline);
        }
    std::stable_sort(d.regions.begin(), d.regions.end(), [](const RegionDelta& x, const RegionDelta& y) {
        return std::llabs(x.cycles.delta()) > std::llabs(y.cycles.delta());
    });
    return d;
}

} // namespace xps::analysis

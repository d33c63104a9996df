#include "analysis/unit_intervals.h"

#include "analysis/replay_view.h"

#include <algorithm>

namespace xps::analysis {

std::vector<UnitInterval> unitIntervals(const trace::Trace& trace, const events::BundleSnapshot& bundles,
                                        std::size_t first, std::size_t last, ChipId chip, isa::Unit unit)
{
    std::vector<UnitInterval> out;
    if (chip.value >= trace.chips.size())
        return out;
    const std::vector<std::uint32_t> busy = unitBusyPerPc(trace, chip, unit);
    last = std::min(last, bundles.size());
    for (std::size_t i = first; i < last; ++i) {
        const events::BundleIssue e = bundles[i];
        if (e.chip != chip || e.pc >= busy.size() || busy[e.pc] == 0)
            continue;
        out.push_back({e.cycle, e.cycle + busy[e.pc], e.pc});
    }
    return out;
}

} // namespace xps::analysis

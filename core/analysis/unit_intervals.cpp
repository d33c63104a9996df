#include "analysis/unit_intervals.h"

#include "isa/machine_config.h"

#include <algorithm>

namespace xps::analysis {

std::vector<UnitInterval> unitIntervals(const trace::Trace& trace, const events::BundleSnapshot& bundles,
                                        std::size_t first, std::size_t last, int chip, isa::Unit unit)
{
    std::vector<UnitInterval> out;
    if (chip < 0 || static_cast<std::size_t>(chip) >= trace.chips.size())
        return out;
    // Per pc: how long the bundle keeps `unit` busy (0: it does not use it).
    const isa::Program& program = trace.chips[static_cast<std::size_t>(chip)].program;
    std::vector<std::uint32_t> busy(program.bundles.size(), 0);
    for (std::size_t pc = 0; pc < program.bundles.size(); ++pc) {
        for (const isa::Instruction& insn : program.bundles[pc].instructions) {
            const isa::OpcodeInfo& info = insn.info();
            if (info.unit != unit)
                continue;
            const std::int64_t occupancy =
                info.occupancyParam.empty() ? 1 : isa::machineParamInt(trace.machine, info.occupancyParam);
            busy[pc] = std::max(busy[pc], static_cast<std::uint32_t>(std::max<std::int64_t>(occupancy, 1)));
        }
    }
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

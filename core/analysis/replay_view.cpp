#include "analysis/replay_view.h"

#include <algorithm>

namespace xps::analysis {

std::vector<std::uint32_t> unitBusyPerPc(const trace::Trace& trace, ChipId chip, isa::Unit unit)
{
    const isa::Program& program = trace.chips[chip.value].program;
    const isa::OpcodeCycles cycles(trace.machine);
    std::vector<std::uint32_t> busy(program.bundles.size(), 0);
    for (std::size_t pc = 0; pc < program.bundles.size(); ++pc) {
        for (const isa::Instruction& insn : program.bundles[pc].instructions) {
            const isa::OpcodeInfo& info = insn.info();
            if (info.unit != unit)
                continue;
            const std::int64_t occupancy = cycles.occupancy(insn);
            busy[pc] = std::max(busy[pc], static_cast<std::uint32_t>(std::max<std::int64_t>(occupancy, 1)));
        }
    }
    return busy;
}

} // namespace xps::analysis

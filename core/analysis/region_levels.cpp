#include "analysis/region_levels.h"

#include <algorithm>

#include "isa/isa.h"

namespace xps::analysis {

std::vector<std::string> regionLevelsByDepth(const trace::ChipTrace& chip, int depths)
{
    std::vector<std::vector<std::string>> found(static_cast<std::size_t>(depths));
    int depth = 0;
    for (const isa::Bundle& bundle : chip.program.bundles)
        for (const isa::Instruction& insn : bundle.instructions) {
            if (insn.opcode == isa::Opcode::RegionBegin) {
                const auto index = static_cast<std::size_t>(insn.operands[0].value);
                auto& levels = found[static_cast<std::size_t>(std::min(depth, depths - 1))];
                if (index < chip.symbols.regions.size()) {
                    const std::string& level = chip.symbols.regions[index].level;
                    if (!level.empty() && std::find(levels.begin(), levels.end(), level) == levels.end())
                        levels.push_back(level);
                }
                ++depth;
            } else if (insn.opcode == isa::Opcode::RegionEnd && depth > 0) {
                --depth;
            }
        }
    std::vector<std::string> names(static_cast<std::size_t>(depths));
    for (std::size_t d = 0; d < names.size(); ++d)
        for (const std::string& level : found[d])
            names[d] += (names[d].empty() ? "" : ", ") + level;
    return names;
}

} // namespace xps::analysis

#include "analysis/activity_classes.h"

#include "isa/topology.h"

#include <algorithm>

namespace xps::analysis {

int unitGroupIndex(isa::Unit unit)
{
    switch (unit) {
    case isa::Unit::ScalarAlu:
    case isa::Unit::ScalarMemory:
    case isa::Unit::Branch: return static_cast<int>(UnitGroup::Scalar);
    case isa::Unit::VectorAlu:
    case isa::Unit::Transcendental: return static_cast<int>(UnitGroup::VectorAlu);
    case isa::Unit::VectorLoad:
    case isa::Unit::VectorStore: return static_cast<int>(UnitGroup::LoadStore);
    case isa::Unit::MxuWeights:
    case isa::Unit::MxuMatmul:
    case isa::Unit::MxuResult: return static_cast<int>(UnitGroup::Mxu);
    case isa::Unit::CrossLane: return static_cast<int>(UnitGroup::CrossLane);
    default: return -1; // DMA, sync, markers, control: drawn in their own lanes or not at all
    }
}

std::vector<std::array<std::uint32_t, kUnitGroupCount>> unitGroupBusyPerPc(const trace::Trace& trace,
                                                                           ChipId chip)
{
    const isa::Program& program = trace.chips[chip.value].program;
    const isa::OpcodeCycles opcodeCycles(trace.machine);
    std::vector<std::array<std::uint32_t, kUnitGroupCount>> busy(program.bundles.size());
    for (std::size_t pc = 0; pc < program.bundles.size(); ++pc) {
        busy[pc].fill(0);
        for (const isa::Instruction& insn : program.bundles[pc].instructions) {
            const isa::OpcodeInfo& info = insn.info();
            const int g = unitGroupIndex(info.unit);
            if (g < 0)
                continue;
            const std::int64_t occupancy = opcodeCycles.occupancy(insn);
            auto& cycles = busy[pc][static_cast<std::size_t>(g)];
            cycles = std::max(cycles, static_cast<std::uint32_t>(std::max<std::int64_t>(occupancy, 1)));
        }
    }
    return busy;
}

std::string_view unitGroupName(UnitGroup group)
{
    switch (group) {
    case UnitGroup::Scalar: return "scalar";
    case UnitGroup::VectorAlu: return "vector ALU";
    case UnitGroup::LoadStore: return "load/store";
    case UnitGroup::Mxu: return "MXU";
    case UnitGroup::CrossLane: return "cross-lane";
    case UnitGroup::Count_: break;
    }
    return "?";
}

std::string_view dmaPathClassName(DmaPathClass c)
{
    switch (c) {
    case DmaPathClass::Load: return "HBM->VMEM";
    case DmaPathClass::Store: return "VMEM->HBM";
    case DmaPathClass::Other: return "other local";
    case DmaPathClass::Ici: return "ICI";
    case DmaPathClass::Count_: break;
    }
    return "?";
}

DmaPathClass dmaPathClass(const events::DmaRecord& dma)
{
    if (dma.dstChip != dma.chip)
        return DmaPathClass::Ici;
    const auto src = static_cast<isa::Space>(dma.srcSpace), dst = static_cast<isa::Space>(dma.dstSpace);
    if (src == isa::Space::Hbm && dst == isa::Space::Vmem)
        return DmaPathClass::Load;
    if (src == isa::Space::Vmem && dst == isa::Space::Hbm)
        return DmaPathClass::Store;
    return DmaPathClass::Other;
}

} // namespace xps::analysis

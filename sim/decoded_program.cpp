#include "decoded_program.h"

#include "execute.h"
#include "isa/register_use.h"

#include <algorithm>

namespace xps::sim {

std::vector<DecodedBundle> decodeProgram(const isa::Program& program, const isa::MachineConfig& config)
{
    std::vector<DecodedBundle> out;
    out.reserve(program.bundles.size());
    for (const isa::Bundle& bundle : program.bundles) {
        DecodedBundle db;
        for (const isa::Instruction& insn : bundle.instructions) {
            const isa::OpcodeInfo& info = insn.info();
            DecodedInstruction d;
            d.insn = &insn;
            d.unit = info.unit;
            d.latency = info.latencyParam.empty()
                            ? 1u
                            : static_cast<std::uint32_t>(isa::machineParamInt(config, info.latencyParam));
            d.occupancy = static_cast<std::uint32_t>(isa::occupancyCycles(insn, config));
            d.format = static_cast<std::uint8_t>(std::clamp<std::int64_t>(isa::mxuFormat(insn), 0, 2));
            const isa::RegisterUse use = isa::registerUse(insn);
            d.readsS = use.readsS;
            d.readsV = use.readsV;
            d.writesS = use.writesS;
            d.writesV = use.writesV;
            d.onlyWritesVd = (info.slot == isa::SlotKind::Vector || info.slot == isa::SlotKind::CrossLane) &&
                             d.writesV >= 0 && insn.operands[0].form == isa::Operand::Form::VReg &&
                             insn.operands[0].reg == d.writesV;
            d.scalarAlu = isScalarAluOp(insn);
            db.unitCycles[static_cast<std::size_t>(d.unit)] += std::max<std::uint32_t>(d.occupancy, 1);
            // Clamped only to stay in bounds: execute() faults on an MXU that does not exist.
            d.mxu = static_cast<std::uint8_t>(
                std::clamp<std::int64_t>(isa::mxuIndex(insn), 0, isa::kMaxMxus - 1));
            if (insn.opcode == isa::Opcode::MxuPop)
                db.popMxu = d.mxu;
            db.hasIssueChecks = db.hasIssueChecks || d.occupancy > 0 || insn.opcode == isa::Opcode::MxuMm ||
                                insn.opcode == isa::Opcode::MxuPop || insn.opcode == isa::Opcode::DmaStart ||
                                insn.opcode == isa::Opcode::SyncWait;
            db.readsS |= d.readsS;
            db.readsV |= d.readsV;
            db.instructions.push_back(d);
        }
        out.push_back(std::move(db));
    }
    return out;
}

} // namespace xps::sim

#include "decoded_program.h"

#include "execute.h"
#include "isa/register_use.h"

#include <algorithm>

namespace xps::sim {

namespace {

using isa::Opcode;

ScalarSource scalarSource(const isa::Operand& o)
{
    // As scalarOperand() reads it: an immediate is its value; any other form names register o.reg.
    ScalarSource s;
    s.isImm = o.form == isa::Operand::Form::Imm;
    s.imm = static_cast<std::uint32_t>(o.value);
    s.reg = o.reg;
    return s;
}

ExecKind kindOf(const isa::Instruction& insn, bool onlyWritesVd)
{
    switch (insn.opcode) {
    case Opcode::Br:
    case Opcode::Brz:
    case Opcode::Brnz: return ExecKind::Branch;
    case Opcode::DmaStart: return ExecKind::DmaStart;
    case Opcode::SyncWait: return ExecKind::SyncWait;
    case Opcode::SyncSet:
    case Opcode::SyncAdd: return ExecKind::SyncSetAdd;
    case Opcode::RegionBegin: return ExecKind::RegionBegin;
    case Opcode::RegionEnd: return ExecKind::RegionEnd;
    case Opcode::VLd:
    case Opcode::VLdS:
    case Opcode::VLdSH:
    case Opcode::VSt:
    case Opcode::VStS: return ExecKind::VectorMemory;
    case Opcode::Halt: return ExecKind::Halt;
    default: break;
    }
    if (isScalarAluOp(insn))
        return ExecKind::ScalarAlu;
    return onlyWritesVd ? ExecKind::VectorOnly : ExecKind::Other;
}

DecodedInstruction decodeInstruction(const isa::Instruction& insn, const isa::OpcodeCycles& cycles)
{
    const isa::OpcodeInfo& info = insn.info();
    DecodedInstruction d;
    d.insn = &insn;
    d.opcode = insn.opcode;
    d.unit = info.unit;
    d.latency = static_cast<std::uint32_t>(cycles.latency(insn.opcode));
    d.occupancy = static_cast<std::uint32_t>(cycles.occupancy(insn));
    d.format = static_cast<std::uint8_t>(std::clamp<std::int64_t>(isa::mxuFormat(insn), 0, 2));
    const isa::RegisterUse use = isa::registerUse(insn);
    d.readsS = use.readsS;
    d.readsV = use.readsV;
    d.writesS = static_cast<std::int8_t>(use.writesS);
    d.writesV = static_cast<std::int8_t>(use.writesV);
    d.onlyWritesVd = (info.slot == isa::SlotKind::Vector || info.slot == isa::SlotKind::CrossLane) &&
                     d.writesV >= 0 && insn.operands[0].form == isa::Operand::Form::VReg &&
                     insn.operands[0].reg == d.writesV;
    // Clamped only to stay in bounds: execute() faults on an MXU that does not exist.
    d.mxu = static_cast<std::uint8_t>(std::clamp<std::int64_t>(isa::mxuIndex(insn), 0, isa::kMaxMxus - 1));
    d.kind = kindOf(insn, d.onlyWritesVd);
    const auto& o = insn.operands;
    switch (d.kind) {
    case ExecKind::ScalarAlu: // rd, a, b
        d.target = o[0].reg;
        d.src = {scalarSource(o[1]), scalarSource(o[2])};
        break;
    case ExecKind::Branch: // br target; brz/brnz cond, target
        if (insn.opcode == Opcode::Br) {
            d.target = static_cast<std::uint32_t>(o[0].value);
        } else {
            d.src[0] = scalarSource(o[0]);
            d.target = static_cast<std::uint32_t>(o[1].value);
        }
        break;
    case ExecKind::SyncWait:
    case ExecKind::SyncSetAdd: d.src = {scalarSource(o[0]), scalarSource(o[1])}; break;
    case ExecKind::RegionBegin: d.target = static_cast<std::uint32_t>(o[0].value); break;
    default: break;
    }
    return d;
}

} // namespace

DecodedProgram decodeProgram(const isa::Program& program, const isa::MachineConfig& config)
{
    const isa::OpcodeCycles cycles(config);
    DecodedProgram out;
    out.bundles.reserve(program.bundles.size());
    std::size_t instructions = 0; // reserved whole: a model's millions are not copied as they grow
    for (const isa::Bundle& bundle : program.bundles)
        instructions += bundle.instructions.size();
    out.instructions.reserve(instructions);
    for (const isa::Bundle& bundle : program.bundles) {
        DecodedBundle db;
        db.first = static_cast<std::uint32_t>(out.instructions.size());
        db.count = static_cast<std::uint32_t>(bundle.instructions.size());
        for (std::size_t i = 0; i < db.count; ++i) {
            const isa::Instruction& insn = bundle.instructions[i];
            const DecodedInstruction d = decodeInstruction(insn, cycles);
            if (insn.opcode == Opcode::MxuPop)
                db.popMxu = static_cast<std::int8_t>(d.mxu);
            db.hasIssueChecks = db.hasIssueChecks || d.occupancy > 0 || insn.opcode == Opcode::MxuMm ||
                                insn.opcode == Opcode::MxuPop || insn.opcode == Opcode::DmaStart ||
                                insn.opcode == Opcode::SyncWait;
            db.readsS |= d.readsS;
            db.readsV |= d.readsV;
            out.instructions.push_back(d);
        }
        out.bundles.push_back(db);
    }
    return out;
}

} // namespace xps::sim

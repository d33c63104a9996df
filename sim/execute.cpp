// Scalar and memory semantics, operand access and the commit of a bundle's writes.
#include "execute.h"

#include "execute_detail.h"
#include "util/text.h"

#include <algorithm>
#include <cstring>

namespace xps::sim {

using isa::Opcode;

void throwUninitialisedScalar(const ChipState& state, int reg)
{
    if (state.sUnknown[static_cast<std::size_t>(reg)])
        throw SimFault{
            "timing-only mode cannot know the value of s" + std::to_string(reg) +
            ": an sld read it from SMEM that a DMA filled with vector or DMA results this mode does "
            "not compute, and it is used here as a scalar; replay in full mode"};
    throw SimFault{"reads uninitialised scalar register s" + std::to_string(reg)};
}

bool isScalarAluOp(const isa::Instruction& insn)
{
    switch (insn.opcode) {
    case Opcode::SMov:
    case Opcode::SChip:
    case Opcode::SLd:
    case Opcode::SSt: return false; // their own cases in execute()
    default: break;
    }
    const isa::OpcodeInfo& info = insn.info();
    return info.slot == isa::SlotKind::Scalar && info.unit == isa::Unit::ScalarAlu;
}

namespace detail {

const VReg& vectorOperand(const ChipState& state, const isa::Operand& o)
{
    if (!state.vValid[o.reg])
        throw SimFault{"reads uninitialised vector register v" + std::to_string(o.reg)};
    return state.v[o.reg];
}

void checkAccess(ChipState& state, isa::Space space, std::uint64_t address, std::uint64_t bytes,
                 std::uint64_t alignment)
{
    const SparseMemory& m = state.memory(space);
    if (!m.contains(address, bytes))
        throw SimFault{"out-of-bounds " + std::string(isa::spaceName(space)) + " access [" +
                       text::hex(address) + ", " + text::hex(address + bytes) +
                       "): " + std::string(isa::spaceName(space)) + " has " + text::formatBytes(m.size())};
    if (address % alignment != 0)
        throw SimFault{"misaligned " + std::string(isa::spaceName(space)) + " access at " +
                       text::hex(address) + ": must be a multiple of " + std::to_string(alignment)};
}

} // namespace detail

namespace {

// The rows of a vld/vst: `rows` rows of `rowBytes` at base + r * stride. Rows only go up, so when the
// base and the stride are aligned and the last row fits, every row does; otherwise each row is checked in
// order so the fault names the first bad one.
void checkRows(ChipState& state, std::uint64_t base, std::uint64_t stride, std::uint64_t alignment,
               int rows = isa::kSublanes, std::uint64_t rowBytes = isa::kLanes * 4)
{
    const std::uint64_t last = base + static_cast<std::uint64_t>(rows - 1) * stride;
    if (((base | stride) & (alignment - 1)) == 0 && state.vmem.contains(last, rowBytes)) // a power of two
        return;
    for (int r = 0; r < rows; ++r)
        detail::checkAccess(state, isa::Space::Vmem, base + static_cast<std::uint64_t>(r) * stride, rowBytes,
                            alignment);
}

// vld/vst (strided or not): row r at address + r * stride, 512 bytes each. vld.sh: 16 half rows of 256 B
// at address + h * stride, half h into row h / 2 (the first or the second 256 B of it): packed 16-bit rows
// as the MXU takes them (fmt=), each aligned to half a vector row.
void vectorLoad(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                PendingWrites& writes)
{
    const std::uint64_t base = effectiveAddress(state, insn.operands[1]);
    const bool halves = insn.opcode == Opcode::VLdSH;
    const std::uint64_t stride =
        insn.opcode == Opcode::VLdS || halves ? scalarOperand(state, insn.operands[2]) : 512;
    const int rows = halves ? 2 * isa::kSublanes : isa::kSublanes;
    const std::uint64_t rowBytes = halves ? isa::kLanes * 2 : isa::kLanes * 4;
    checkRows(state, base, stride,
              halves ? std::max<std::uint64_t>(options.vmemAlignment / 2, 2) : options.vmemAlignment, rows,
              rowBytes);
    if (VReg* out = writes.vector(insn.operands[0].reg, options.computeVectors))
        for (int r = 0; r < rows; ++r)
            state.vmem.read(base + static_cast<std::uint64_t>(r) * stride,
                            {reinterpret_cast<std::uint8_t*>(out->data()) + r * rowBytes, rowBytes});
}

void vectorStore(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                 PendingWrites& writes)
{
    const VReg& value = detail::vectorOperand(state, insn.operands[0]);
    const std::uint64_t base = effectiveAddress(state, insn.operands[1]);
    const std::uint64_t stride = insn.opcode == Opcode::VStS ? scalarOperand(state, insn.operands[2]) : 512;
    constexpr std::uint64_t rowBytes = isa::kLanes * 4;
    checkRows(state, base, stride, options.vmemAlignment);
    if (!options.computeVectors) {
        if (stride == rowBytes)
            state.stale.mark(isa::Space::Vmem, base, isa::kSublanes * rowBytes, state.vmem.size());
        else
            for (int r = 0; r < isa::kSublanes; ++r)
                state.stale.mark(isa::Space::Vmem, base + r * stride, rowBytes, state.vmem.size());
        return;
    }
    for (int r = 0; r < isa::kSublanes; ++r)
        writes.memory(isa::Space::Vmem, base + r * stride,
                      {reinterpret_cast<const std::uint8_t*>(value.data() + r * isa::kLanes), rowBytes});
}

} // namespace

void execute(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
             PendingWrites& writes)
{
    const auto& o = insn.operands;
    switch (insn.opcode) {
    case Opcode::SMov: writes.scalar(o[0].reg, scalarOperand(state, o[1])); return;
    case Opcode::SChip: writes.scalar(o[0].reg, std::uint32_t{state.chip.value}); return;
    case Opcode::SLd: {
        const std::uint64_t a = effectiveAddress(state, o[1]);
        detail::checkAccess(state, isa::Space::Smem, a, 4, 4);
        if (state.stale.any(isa::Space::Smem, a, 4)) {
            // A computed value: fine for a vector broadcast (not computed either), a fault at a scalar use.
            writes.unknownScalar(o[0].reg);
            return;
        }
        writes.scalar(o[0].reg, state.smem.read32(a));
        return;
    }
    case Opcode::SSt: {
        const std::uint32_t v = scalarOperand(state, o[0]);
        const std::uint64_t a = effectiveAddress(state, o[1]);
        detail::checkAccess(state, isa::Space::Smem, a, 4, 4);
        writes.memory(isa::Space::Smem, a, {reinterpret_cast<const std::uint8_t*>(&v), 4});
        state.stale.clearSmem(a, 4);
        return;
    }
    case Opcode::VLd:
    case Opcode::VLdS:
    case Opcode::VLdSH: vectorLoad(state, insn, options, writes); return;
    case Opcode::VSt:
    case Opcode::VStS: vectorStore(state, insn, options, writes); return;
    default: break;
    }
    if (isScalarAluOp(insn)) {
        writes.scalar(o[0].reg,
                      scalarAlu(insn.opcode, scalarOperand(state, o[1]), scalarOperand(state, o[2])));
        return;
    }
    const isa::OpcodeInfo& info = insn.info();
    if (info.slot == isa::SlotKind::Vector || info.slot == isa::SlotKind::CrossLane) {
        detail::executeVector(state, insn, options, writes);
        return;
    }
    if (info.slot == isa::SlotKind::MatrixPush || info.slot == isa::SlotKind::MatrixPop) {
        detail::executeMatrix(state, insn, options, writes);
        return;
    }
}

void commitMemoryAndMxu(ChipState& state, PendingWrites& writes)
{
    for (const auto& w : writes.m_memory)
        state.memory(w.space).write(w.address, {writes.m_bytes.data() + w.offset, w.size});
    if (writes.popMxu >= 0)
        state.mxus[static_cast<std::size_t>(writes.popMxu)].fifo.pop_front();
    for (int i = 0; i < writes.mxuPushes; ++i)
        state.mxus[static_cast<std::size_t>(writes.pushMxu)].fifo.push_back(
            std::move(writes.mxuResult(i)));
    if (writes.m_unknownScalars != 0) {
        // An sUnknown bit is read only while its register is not valid: a later write need not clear it.
        const std::bitset<isa::kScalarRegisters> unknown(writes.m_unknownScalars);
        state.sValid &= ~unknown;
        state.sUnknown |= unknown;
        writes.m_unknownScalars = 0;
    }
    writes.m_memory.clear();
    writes.m_bytes.clear();
    writes.mxuPushes = 0;
    writes.popMxu = -1;
}

} // namespace xps::sim

#pragma once
// Functional semantics of the data instructions (scalar, vector, transcendental, memory, cross-lane, MXU),
// as docs/isa.md defines them. Control (branches, halt), DMA, sync and region markers are the core
// model's. All instructions of a bundle read state first; their register and memory writes are collected
// here and applied together afterwards.

#include "chip_state.h"
#include "isa/program.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace xps::sim {

// The writes of one bundle, applied by commit() after every instruction has read its operands. Storage
// is reused from bundle to bundle: vector results are computed straight into preallocated slots and
// memory writes share one byte buffer, so the issue loop does not allocate.
class PendingWrites
{
public:
    static constexpr int kMaxVectorWrites = 8; // more than a bundle's vector-writing slots

    void scalar(int reg, std::uint32_t value) { m_scalars[m_scalarCount++] = {reg, value}; }
    // Timing-only mode: `reg` is written with a value this mode cannot know (ChipState::sUnknown).
    void unknownScalar(int reg)
    {
        scalar(reg, 0);
        m_unknownScalars |= std::uint32_t{1} << reg;
        // An empty memory write: the one test commitRegisters already makes sends this bundle to
        // commitMemoryAndMxu, which marks the register; every other bundle pays nothing for it.
        memory(isa::Space::Smem, 0, {});
    }
    // The slot to compute vector register `reg`'s new value into; null when values are not computed
    // (timing-only mode): the register is then only marked written.
    VReg* vector(int reg, bool computed)
    {
        const int i = m_vectorCount++;
        m_vectorRegs[i] = reg;
        m_vectorComputed[i] = computed;
        return computed ? m_vectorValues[static_cast<std::size_t>(i)].get() : nullptr;
    }
    void memory(isa::Space space, std::uint64_t address, std::span<const std::uint8_t> bytes)
    {
        m_memory.push_back({space, address, m_bytes.size(), bytes.size()});
        m_bytes.insert(m_bytes.end(), bytes.begin(), bytes.end());
    }

    // An mxu.mm's products: one result of 8 rows, or two of 16 packed rows (fmt=). Zeroed, as timing-only
    // mode leaves them; `ready` and `producer` are set by the core model.
    MxuResult& pushResult()
    {
        MxuResult& r = mxuResult(mxuPushes++);
        r = MxuResult{};
        return r;
    }
    MxuResult& mxuResult(int i) { return (*m_mxuResults)[static_cast<std::size_t>(i)]; }
    int mxuPushes = 0; // results the bundle's mxu.mm pushes (mxuResult(0), mxuResult(1))
    int pushMxu = 0;   // the MXU whose FIFO they enter
    int popMxu = -1;   // an mxu.pop's MXU, or -1

    // What commit() does inline: the register writes. True if memory writes or MXU FIFO changes are pending
    // (commitMemoryAndMxu; also for unknown scalars, which add an empty memory write).
    bool commitRegisters(ChipState& state)
    {
        for (int i = 0; i < m_scalarCount; ++i) {
            state.s[m_scalars[i].reg] = m_scalars[i].value;
            state.sValid[m_scalars[i].reg] = true;
        }
        for (int i = 0; i < m_vectorCount; ++i) {
            const int reg = m_vectorRegs[i];
            if (m_vectorComputed[i]) // the slot keeps the register's old buffer, to compute into next time
                state.v.exchange(static_cast<std::size_t>(reg), m_vectorValues[static_cast<std::size_t>(i)]);
            state.vValid[reg] = true;
        }
        m_scalarCount = 0;
        m_vectorCount = 0;
        return !m_memory.empty() || mxuPushes > 0 || popMxu >= 0;
    }

private:
    friend void commitMemoryAndMxu(ChipState& state, PendingWrites& writes);
    struct ScalarWrite
    {
        int reg;
        std::uint32_t value;
    };
    struct MemoryWrite
    {
        isa::Space space;
        std::uint64_t address;
        std::size_t offset;
        std::size_t size;
    };
    std::array<ScalarWrite, 8> m_scalars{};
    int m_scalarCount = 0;
    std::uint32_t m_unknownScalars = 0; // registers unknownScalar wrote this bundle
    // Buffers the bundle's vector results are computed into; committing one exchanges it with its
    // register's (VectorRegisters), so none is copied.
    std::array<std::unique_ptr<VReg>, kMaxVectorWrites> m_vectorValues = [] {
        std::array<std::unique_ptr<VReg>, kMaxVectorWrites> buffers;
        for (auto& b : buffers)
            b = std::make_unique<VReg>();
        return buffers;
    }();
    std::array<int, kMaxVectorWrites> m_vectorRegs{};
    std::array<bool, kMaxVectorWrites> m_vectorComputed{};
    int m_vectorCount = 0;
    std::vector<MemoryWrite> m_memory;
    std::vector<std::uint8_t> m_bytes;
    // Two 4 KiB products, out of line: inline, they made every core model 10 KB, so that the hot members of
    // a 4-chip replay's core models fell into the same few sets of the L1 data cache.
    std::unique_ptr<std::array<MxuResult, 2>> m_mxuResults = std::make_unique<std::array<MxuResult, 2>>();
};

struct ExecOptions
{
    bool computeVectors = true; // false in timing-only mode: vector/MXU results are not computed
    std::uint64_t vmemAlignment = 512;
};

// An invalid register read as a scalar: uninitialised, or unknown in timing-only mode (ChipState::sUnknown).
[[noreturn]] void throwUninitialisedScalar(const ChipState& state, int reg);

// Reads a scalar operand (register or immediate). Throws SimFault on an uninitialised register.
// Inline, as effectiveAddress and scalarAlu: the issue loop reads a few operands every bundle.
[[gnu::always_inline]] inline std::uint32_t scalarOperand(const ChipState& state, const isa::Operand& o)
{
    if (o.form == isa::Operand::Form::Imm)
        return static_cast<std::uint32_t>(o.value);
    if (!state.sValid[o.reg]) [[unlikely]]
        throwUninitialisedScalar(state, o.reg);
    return state.s[o.reg];
}

// Effective address of an Addr/SpaceAddr operand.
inline std::uint64_t effectiveAddress(const ChipState& state, const isa::Operand& o)
{
    std::uint64_t base = 0;
    if (o.hasBase) {
        if (!state.sValid[o.reg]) [[unlikely]]
            throwUninitialisedScalar(state, o.reg);
        base = state.s[o.reg];
    }
    return base + static_cast<std::uint64_t>(o.value);
}

// The two-operand scalar ALU ops (`op rd, a, b`): the result of `op` on a and b.
bool isScalarAluOp(const isa::Instruction& insn);
[[gnu::always_inline]] inline std::uint32_t scalarAlu(isa::Opcode op, std::uint32_t a, std::uint32_t b)
{
    using isa::Opcode;
    const auto sa = static_cast<std::int32_t>(a);
    const auto sb = static_cast<std::int32_t>(b);
    switch (op) {
    case Opcode::SAdd: return a + b;
    case Opcode::SSub: return a - b;
    case Opcode::SMul: return a * b;
    case Opcode::SAnd: return a & b;
    case Opcode::SOr: return a | b;
    case Opcode::SXor: return a ^ b;
    case Opcode::SShl: return a << (b & 31);
    case Opcode::SShr: return a >> (b & 31);
    case Opcode::SSra: return static_cast<std::uint32_t>(sa >> (b & 31));
    case Opcode::SMin: return static_cast<std::uint32_t>(std::min(sa, sb));
    case Opcode::SMax: return static_cast<std::uint32_t>(std::max(sa, sb));
    case Opcode::SCmpEq: return a == b;
    case Opcode::SCmpNe: return a != b;
    case Opcode::SCmpLt: return sa < sb;
    case Opcode::SCmpLe: return sa <= sb;
    case Opcode::SCmpGt: return sa > sb;
    case Opcode::SCmpGe: return sa >= sb;
    default: return 0;
    }
}

// Executes one data instruction against `state`, appending its writes. Throws SimFault.
void execute(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
             PendingWrites& writes);

// The memory writes and MXU FIFO changes of a bundle: out of line, as most bundles have none.
void commitMemoryAndMxu(ChipState& state, PendingWrites& writes);

// Applies a bundle's writes at the end of its cycle. Inline: it runs for every bundle, usually for a register
// write or two, and the call cost more than that (LTO had stopped inlining it into the issue loop: 57
// instructions a bundle, 8% of a timing-only replay).
[[gnu::always_inline]] inline void commit(ChipState& state, PendingWrites& writes)
{
    if (writes.commitRegisters(state)) [[unlikely]]
        commitMemoryAndMxu(state, writes);
}

} // namespace xps::sim

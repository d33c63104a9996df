#include "core_model.h"

#include <algorithm>
#include <span>

namespace xps::sim {

using events::CauseKind;
using events::StallReason;
using isa::Opcode;

namespace {

// A decoded scalar operand's value, as scalarOperand() reads the operand it was decoded from.
[[gnu::always_inline]] inline std::uint32_t sourceValue(const ChipState& state, const ScalarSource& s)
{
    if (s.isImm)
        return s.imm;
    if (!state.sValid[s.reg]) [[unlikely]]
        throwUninitialisedScalar(state, s.reg);
    return state.s[s.reg];
}

// As sourceValue, but a register timing-only mode does not know the value of (ChipState::sUnknown) sets
// `unknown` instead of stopping the replay: the scalar ALU's result from it is unknown too.
[[gnu::always_inline]] inline std::uint32_t sourceValueOrUnknown(const ChipState& state,
                                                                 const ScalarSource& s, bool& unknown)
{
    if (s.isImm)
        return s.imm;
    if (!state.sValid[s.reg]) [[unlikely]] {
        if (!state.sUnknown[s.reg])
            throwUninitialisedScalar(state, s.reg);
        unknown = true;
        return 0;
    }
    return state.s[s.reg];
}

// A DMA's address relative to a register that holds no value: in timing-only mode a value this mode does
// not compute (a gather's row, computed from token ids) counts as 0, so the DMA moves the same bytes from its
// table's start: its timing is the same wherever the row is. Out of line: the issue loop never gets here
// in full mode.
[[gnu::noinline, gnu::cold]] std::uint64_t addressFromUnknown(const ChipState& state, const isa::Operand& o)
{
    if (!state.sUnknown[o.reg])
        throwUninitialisedScalar(state, o.reg);
    return static_cast<std::uint64_t>(o.value);
}

// A DMA's address, as effectiveAddress reads it, but see addressFromUnknown.
[[gnu::always_inline]] inline std::uint64_t dmaAddress(const ChipState& state, const isa::Operand& o)
{
    std::uint64_t base = 0;
    if (o.hasBase) {
        if (!state.sValid[o.reg]) [[unlikely]]
            return addressFromUnknown(state, o);
        base = state.s[o.reg];
    }
    return base + static_cast<std::uint64_t>(o.value);
}

} // namespace

CoreModel::CoreModel(const trace::ChipTrace& chip, ChipState& state, const isa::MachineConfig& config,
                     DmaSystem& dma, events::EventStore& store, const ExecOptions& exec, ChipStats& stats,
                     bool perPcStats)
    : m_state(state), m_dma(dma), m_store(store), m_stats(stats), m_exec(exec), m_chip(chip),
      m_config(config), m_program(decodeProgram(chip.program, config))
{
    m_programSize = static_cast<std::uint32_t>(m_program.bundles.size());
    m_bundles = m_program.bundles.data();
    m_instructions = m_program.instructions.data();
    m_executionsByPc.resize(m_program.bundles.size());
    m_executions = m_executionsByPc.data();
    if (perPcStats)
        m_stats.perPc.resize(m_program.bundles.size());
}

void CoreModel::accountStall(std::uint64_t cycle)
{
    if (m_stalled && cycle > m_lastAttempt) {
        m_reasonCycles[static_cast<int>(m_lastStall.reason)] += cycle - m_lastAttempt;
        m_pendingReasons |= 1u << static_cast<int>(m_lastStall.reason);
    }
}

Attempt CoreModel::stall(std::uint64_t cycle, StallReason reason, CauseKind kind, std::uint32_t cause,
                         std::uint64_t wake)
{
    accountStall(cycle);
    m_stalled = true;
    m_lastAttempt = cycle;
    m_lastStall = {false, reason, kind, cause, wake};
    return m_lastStall;
}

Attempt CoreModel::checkIssueConditions(const DecodedBundle& b, std::uint64_t t)
{
    for (const DecodedInstruction& d : std::span(m_instructions + b.first, b.count)) {
        if (d.occupancy > 0 && busyUntil(d) > t) {
            const bool mxu = d.unit == isa::Unit::MxuWeights || d.unit == isa::Unit::MxuMatmul;
            return stall(t, mxu ? StallReason::MxuBusy : StallReason::UnitBusy, CauseKind::None, 0,
                         busyUntil(d));
        }
        switch (d.opcode) {
        case Opcode::MxuMm: {
            // A pop of the same MXU in the same bundle frees its slot first (steady state: `mxu.mm v1 ;
            // mxu.pop v2`); if that pop must wait, its own check below reports why.
            const auto& fifo = m_state.mxus[d.mxu].fifo;
            const std::size_t freed = b.popMxu == d.mxu ? 1 : 0;
            const auto pushed = static_cast<std::size_t>(isa::mxuRowsPerRegister(d.format) / isa::kSublanes);
            if (fifo.size() - std::min(freed, fifo.size()) + pushed >
                static_cast<std::size_t>(m_config.mxuResultFifoDepth))
                return stall(t, StallReason::ResultFifoFull, CauseKind::None, 0, kNever);
            break;
        }
        case Opcode::MxuPop: {
            const auto& fifo = m_state.mxus[d.mxu].fifo;
            if (fifo.empty())
                throw SimFault{"mxu.pop with an empty result FIFO and no mxu.mm in flight"};
            if (fifo.front().ready > t)
                return stall(t, StallReason::ResultFifoEmpty, CauseKind::Instruction, fifo.front().producer,
                             fifo.front().ready);
            break;
        }
        case Opcode::DmaStart: {
            const isa::Operand& engineOperand = d.insn->operands[4];
            const auto engine = static_cast<int>(engineOperand.present() ? engineOperand.value : 0);
            if (engine >= 0 && engine < m_config.dmaEngines && m_dma.queueFull(m_state.chip, engine))
                return stall(t, StallReason::DmaQueueFull, CauseKind::None, 0, kNever);
            break;
        }
        case Opcode::SyncWait: {
            const std::uint32_t flag = sourceValue(m_state, d.src[0]);
            const std::uint32_t target = sourceValue(m_state, d.src[1]);
            if (flag >= m_state.flags.size())
                throw SimFault{"sync.wait on flag " + std::to_string(flag) + ", which does not exist"};
            if (m_state.flags[flag] < target) {
                const std::int64_t dma = m_dma.pendingWriterOf(m_state.chip, flag);
                return stall(t, StallReason::SyncWait, dma >= 0 ? CauseKind::Dma : CauseKind::None,
                             dma >= 0 ? static_cast<std::uint32_t>(dma) : 0, kNever);
            }
            break;
        }
        default: break;
        }
    }
    return {true};
}

bool CoreModel::sourcesKnowable(const DecodedInstruction& d) const
{
    const auto scalars = static_cast<std::uint32_t>((m_state.sValid | m_state.sUnknown).to_ulong());
    return (d.readsS & ~scalars) == 0 &&
           (d.readsV & ~static_cast<std::uint32_t>(m_state.vValid.to_ulong())) == 0;
}

void CoreModel::issue(const DecodedBundle& b, std::uint64_t t)
{
    const std::uint32_t seq = m_seq++;
    std::uint32_t nextPc = m_pc + 1;
    bool taken = false;
    bool halts = false;
    for (const DecodedInstruction& d : std::span(m_instructions + b.first, b.count)) {
        switch (d.kind) {
        case ExecKind::ScalarAlu: {
            // Timing-only mode: arithmetic on a value this mode does not compute (a gather's index loaded
            // from a computed tensor) is not computed either; only a use that needs it stops the replay.
            bool unknown = false;
            const std::uint32_t x = sourceValueOrUnknown(m_state, d.src[0], unknown);
            const std::uint32_t y = sourceValueOrUnknown(m_state, d.src[1], unknown);
            if (unknown) [[unlikely]]
                m_writes.unknownScalar(static_cast<int>(d.target));
            else
                m_writes.scalar(static_cast<int>(d.target), scalarAlu(d.opcode, x, y));
            break;
        }
        case ExecKind::VectorOnly:
            if (!m_exec.computeVectors && sourcesKnowable(d))
                m_writes.vector(d.writesV, false); // all a timing-only replay needs of it
            else
                execute(m_state, *d.insn, m_exec, m_writes);
            break;
        case ExecKind::Branch:
            if (d.opcode == Opcode::Br ||
                ((sourceValue(m_state, d.src[0]) == 0) == (d.opcode == Opcode::Brz))) {
                nextPc = d.target;
                taken = true;
            }
            break;
        case ExecKind::DmaStart: {
            const auto& o = d.insn->operands;
            DmaDescriptor dd;
            dd.chip = m_state.chip;
            const std::int64_t remote =
                o[9].present() ? static_cast<std::int32_t>(scalarOperand(m_state, o[9])) : -1;
            if (remote >= static_cast<std::int64_t>(m_config.chips))
                throw SimFault{"invalid DMA descriptor: chip " + std::to_string(remote) + " does not exist"};
            dd.dstChip = remote < 0 ? m_state.chip : chipIdAt(static_cast<std::size_t>(remote));
            dd.pc = m_pc;
            dd.engine = static_cast<int>(o[4].present() ? o[4].value : 0);
            dd.dstSpace = o[0].space;
            dd.srcSpace = o[1].space;
            dd.dstAddress = dmaAddress(m_state, o[0]);
            dd.srcAddress = dmaAddress(m_state, o[1]);
            dd.rowBytes = scalarOperand(m_state, o[2]);
            dd.flag = scalarOperand(m_state, o[3]);
            dd.rows = o[5].present() ? scalarOperand(m_state, o[5]) : 1;
            dd.srcStride = o[6].present() ? scalarOperand(m_state, o[6]) : 0;
            dd.dstStride = o[7].present() ? scalarOperand(m_state, o[7]) : 0;
            dd.chunkBytes = o[8].present() ? static_cast<std::uint64_t>(o[8].value) : 0;
            dd.longWay = o[10].present() && o[10].value != 0;
            // Out of range (negative too) becomes 255, which issue() refuses with the valid codes.
            dd.convert = static_cast<std::uint8_t>(!o[11].present()                       ? 0
                                                   : o[11].value < 0 || o[11].value > 255 ? 255
                                                                                          : o[11].value);
            m_dma.issue(dd, t);
            break;
        }
        case ExecKind::SyncWait: {
            const std::uint32_t flag = sourceValue(m_state, d.src[0]);
            const std::uint64_t start =
                m_stalled && m_lastStall.reason == StallReason::SyncWait ? m_eligibleSince : t;
            m_store.appendSyncWait({m_state.chip, m_pc, flag, sourceValue(m_state, d.src[1]), start, t,
                                    m_dma.lastWriterOf(m_state.chip, flag)});
            break;
        }
        case ExecKind::SyncSetAdd: {
            const auto& o = d.insn->operands;
            const std::uint32_t flag = sourceValue(m_state, d.src[0]);
            const std::uint32_t value = sourceValue(m_state, d.src[1]);
            const std::int64_t remote = d.opcode == Opcode::SyncAdd && o[2].present()
                                            ? static_cast<std::int32_t>(scalarOperand(m_state, o[2]))
                                            : -1;
            if (remote >= static_cast<std::int64_t>(m_config.chips))
                throw SimFault{"sync.add to chip " + std::to_string(remote) + ", which does not exist"};
            if (flag >= m_state.flags.size())
                throw SimFault{"flag " + std::to_string(flag) + " does not exist"};
            if (remote >= 0 && remote != m_state.chip.value)
                m_dma.sendFlagAdd(m_state.chip, chipIdAt(static_cast<std::size_t>(remote)), flag, value, t);
            else if (d.opcode == Opcode::SyncSet)
                m_state.flags[flag] = value;
            else
                m_state.flags[flag] += value;
            if (remote < 0 || remote == m_state.chip.value)
                m_dma.noteFlagWrittenByCore(m_state.chip, flag);
            break;
        }
        case ExecKind::RegionBegin: m_regions.emplace_back(d.target, t); break;
        case ExecKind::RegionEnd: {
            if (m_regions.empty())
                throw SimFault{"region.end with no open region"};
            const auto [region, enter] = m_regions.back();
            m_regions.pop_back();
            // Depth saturates: a program that nests regions 65,536 deep is hostile, not a kernel.
            const auto depth =
                static_cast<std::uint16_t>(std::min<std::size_t>(m_regions.size(), UINT16_MAX));
            m_store.appendRegion(m_state.chip, region, depth, enter, t);
            break;
        }
        case ExecKind::VectorMemory: {
            const isa::Instruction& insn = *d.insn;
            const auto& o = insn.operands;
            execute(m_state, insn, m_exec, m_writes); // faults on bad addresses before anything is recorded
            const bool halves = insn.opcode == Opcode::VLdSH;
            const bool strided = insn.opcode == Opcode::VLdS || insn.opcode == Opcode::VStS || halves;
            const std::uint64_t stride = strided ? scalarOperand(m_state, o[2]) : 512;
            const std::uint64_t base = effectiveAddress(m_state, o[1]);
            const std::uint64_t span =
                halves ? stride * (2 * isa::kSublanes - 1) + 256 : stride * (isa::kSublanes - 1) + 512;
            const bool write = insn.opcode == Opcode::VSt || insn.opcode == Opcode::VStS;
            m_store.appendVmemAccess({t, static_cast<std::uint32_t>(base),
                                      static_cast<std::uint32_t>(std::max<std::uint64_t>(span, 512)), seq,
                                      m_state.chip, static_cast<std::uint8_t>(write ? 1 : 0)},
                                     isa::kVectorBytes);
            break;
        }
        case ExecKind::Halt: halts = true; break;
        case ExecKind::Other: execute(m_state, *d.insn, m_exec, m_writes); break;
        }
        // Timing effects: only the hazard checks read these, never an instruction of this bundle.
        if (d.writesS >= 0) {
            m_sReady[d.writesS] = t + d.latency;
            m_sProducer[d.writesS] = seq;
        }
        if (d.writesV >= 0) {
            m_vReady[d.writesV] = t + d.latency;
            m_vProducer[d.writesV] = seq;
        }
        if (d.occupancy > 0)
            busyUntil(d) = t + d.occupancy;
    }
    // The rows of 16 packed ones (a second result) leave the array an LHS-stream occupancy later.
    for (int i = 0; i < m_writes.mxuPushes; ++i) {
        MxuResult& result = m_writes.mxuResult(i);
        result.ready = t + static_cast<std::uint64_t>(m_config.latMxuMatmul + i * m_config.occMxuMatmul);
        result.producer = seq;
    }
    commit(m_state, m_writes);
    if (halts) {
        m_stats.halted = true;
        m_stats.haltCycle = t + 1;
    }

    // The event, with the stall that preceded it attributed to its dominant reason.
    accountStall(t);
    events::BundleIssue e;
    e.cycle = t;
    e.pc = m_pc;
    e.chip = m_state.chip;
    // Saturated, never wrapped: a stall of 2^32 cycles or more (a long DMA under a 2^40-cycle limit) reads
    // as 4,294,967,295 in the event; the per-pc and per-chip stall totals are 64-bit and exact.
    e.stallCycles = static_cast<std::uint32_t>(std::min<std::uint64_t>(t - m_eligibleSince, UINT32_MAX));
    if (e.stallCycles > 0) {
        int dominant = 0; // the reason with most cycles; the lowest-numbered of equals
        for (std::uint32_t mask = m_pendingReasons; mask; mask &= mask - 1) {
            const int r = __builtin_ctz(mask);
            if (m_reasonCycles[r] > m_reasonCycles[dominant])
                dominant = r;
        }
        e.reason = static_cast<StallReason>(dominant);
        if (m_stalled && m_lastStall.reason == e.reason) {
            e.causeKind = m_lastStall.causeKind;
            e.cause = m_lastStall.cause;
        }
    }
    ++m_executions[m_pc];
    if (m_pendingReasons != 0) {
        PcStats* pcStats = m_stats.perPc.empty() ? nullptr : &m_stats.perPc[m_pc];
        for (std::uint32_t mask = m_pendingReasons; mask; mask &= mask - 1) { // usually one reason
            const int r = __builtin_ctz(mask);
            m_stats.stallCycles[r] += m_reasonCycles[r];
            if (pcStats)
                pcStats->stallCycles[r] += m_reasonCycles[r];
            m_reasonCycles[r] = 0;
        }
        m_pendingReasons = 0;
    }
    m_store.appendBundle(e);

    m_stalled = false;
    m_pc = nextPc;
    m_nextIssue = t + 1 + (taken ? static_cast<std::uint64_t>(m_config.latBranchTaken) : 0);
    m_eligibleSince = t + 1;
    if (taken && m_config.latBranchTaken > 0) {
        m_reasonCycles[static_cast<int>(StallReason::BranchBubble)] =
            static_cast<std::uint64_t>(m_config.latBranchTaken);
        m_pendingReasons |= 1u << static_cast<int>(StallReason::BranchBubble);
    }
}

Attempt CoreModel::tryIssue(std::uint64_t t)
{
    if (m_pc >= m_programSize) [[unlikely]]
        throw SimFault{"ran past the end of the program (" + std::to_string(m_programSize) +
                       " bundles) without halt"};
    // Stalled on a flag, a full DMA queue or the result FIFO: only the DMA system or a flag write can
    // change that, and each bumps its version. Not looking again until then gives the same events and
    // stall accounting (the reason cannot change meanwhile, and its cycles are added at the next look).
    if (m_stalled && m_lastStall.wake == kNever && m_dma.version(m_state.chip) == m_stallVersion)
        return m_lastStall;
    const DecodedBundle& b = m_bundles[m_pc];
    // Operand readiness first: it is the most common stall and the cheapest check.
    for (std::uint32_t mask = b.readsS; mask; mask &= mask - 1) {
        const int r = __builtin_ctz(mask);
        if (m_sReady[r] > t)
            return stall(t, StallReason::OperandDependency, CauseKind::Instruction, m_sProducer[r],
                         m_sReady[r]);
    }
    for (std::uint32_t mask = b.readsV; mask; mask &= mask - 1) {
        const int r = __builtin_ctz(mask);
        if (m_vReady[r] > t)
            return stall(t, StallReason::OperandDependency, CauseKind::Instruction, m_vProducer[r],
                         m_vReady[r]);
    }
    if (b.hasIssueChecks) {
        const Attempt a = checkIssueConditions(b, t);
        if (!a.issued) {
            m_stallVersion = m_dma.version(m_state.chip);
            return a;
        }
    }
    issue(b, t);
    return {true};
}

void CoreModel::finishStats()
{
    // Bundles, instructions and unit busy cycles follow from how often each pc issued.
    m_stats.bundles = 0;
    m_stats.instructions = 0;
    std::fill(std::begin(m_stats.unitBusyCycles), std::end(m_stats.unitBusyCycles), 0);
    for (std::size_t pc = 0; pc < m_program.bundles.size(); ++pc) {
        const std::uint64_t n = m_executionsByPc[pc];
        if (!m_stats.perPc.empty())
            m_stats.perPc[pc].executions = n;
        m_stats.bundles += n;
        m_stats.instructions += n * m_program.bundles[pc].count;
        if (n == 0)
            continue;
        // Each instruction keeps its unit busy for its occupancy, at least a cycle.
        for (const DecodedInstruction& d : m_program.instructionsOf(m_program.bundles[pc]))
            m_stats.unitBusyCycles[static_cast<int>(d.unit)] += n * std::max<std::uint32_t>(d.occupancy, 1);
    }
}

std::string CoreModel::waitDescription() const
{
    if (!m_stalled)
        return "ready";
    if (m_lastStall.reason != StallReason::SyncWait)
        return std::string(events::stallReasonName(m_lastStall.reason));
    for (const DecodedInstruction& d : m_program.instructionsOf(m_program.bundles[m_pc])) {
        if (d.kind != ExecKind::SyncWait)
            continue;
        const std::uint32_t flag = sourceValue(m_state, d.src[0]);
        const std::uint32_t target = sourceValue(m_state, d.src[1]);
        return "waits for flag " + std::to_string(flag) + " >= " + std::to_string(target) + ", flag is " +
               std::to_string(m_state.flags[flag]);
    }
    return "sync wait";
}

} // namespace xps::sim

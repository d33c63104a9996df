#pragma once
// One chip's core in time: decides each cycle whether the bundle at pc can issue (scoreboard, unit
// occupancy, MXU FIFO, DMA queue, sync condition) and, if so, executes it and records its event. When it
// cannot, it says why, what it waits for, and the earliest cycle that could change.

#include "decoded_program.h"
#include "dma_system.h"
#include "execute.h"
#include "replayer.h"
#include "trace/trace.h"

namespace xps::sim {

struct Attempt
{
    bool issued = false;
    events::StallReason reason = events::StallReason::None;
    events::CauseKind causeKind = events::CauseKind::None;
    std::uint32_t cause = 0;
    std::uint64_t wake =
        kNever; // earliest cycle the stall could clear on its own; kNever if only a DMA or flag can
};

class CoreModel
{
public:
    CoreModel(const trace::ChipTrace& chip, ChipState& state, const isa::MachineConfig& config,
              DmaSystem& dma, events::EventStore& store, const ExecOptions& exec, ChipStats& stats,
              bool perPcStats);

    // Throws SimFault (with the chip's pc still at the failing bundle).
    Attempt tryIssue(std::uint64_t cycle);

    bool halted() const { return m_stats.halted; }
    std::uint64_t nextIssue() const { return m_nextIssue; }
    std::uint32_t pc() const { return m_pc; }
    const trace::ChipTrace& chip() const { return m_chip; }
    // Fills the chip's per-pc execution counts and its bundle, instruction and unit-busy totals (once, when
    // the replay ends: they are not kept up to date while it runs).
    void finishStats();
    // How often the bundle at `pc` has issued so far.
    std::uint64_t executions(std::uint32_t pc) const { return m_executions[pc]; }
    std::uint32_t programSize() const { return m_programSize; }
    // For a deadlock report: what the stalled bundle waits on.
    std::string waitDescription() const;

private:
    Attempt stall(std::uint64_t cycle, events::StallReason reason, events::CauseKind kind,
                  std::uint32_t cause, std::uint64_t wake);
    void accountStall(std::uint64_t cycle);
    // The checks beyond operand readiness (unit occupancy, MXU FIFO, DMA queue, sync condition).
    Attempt checkIssueConditions(const DecodedBundle& bundle, std::uint64_t cycle);
    void issue(const DecodedBundle& bundle, std::uint64_t cycle);
    // Every register `d` reads holds a value (else execute() reports the first that does not).
    // Timing-only mode: valid, or unknown scalars (ChipState::sUnknown) an instruction that only writes a
    // vector register may read, its result not being computed.
    bool sourcesKnowable(const DecodedInstruction& d) const;
    std::uint64_t& busyUntil(const DecodedInstruction& d)
    {
        if (d.unit == isa::Unit::MxuWeights || d.unit == isa::Unit::MxuMatmul)
            return m_mxuBusy[d.mxu][d.unit == isa::Unit::MxuMatmul ? 1 : 0];
        return m_unitBusy[static_cast<int>(d.unit)];
    }

    // What every attempt reads first, together: a 4-chip replay visits each chip's model in turn, and the
    // hot part of all of them (and of their programs) must stay in the L1 data cache.
    std::uint32_t m_pc = 0;
    std::uint32_t m_programSize; // m_program.bundles.size(), tested every attempt (pcs are 32-bit)
    std::uint64_t m_nextIssue = 0;
    bool m_stalled = false;
    std::uint32_t m_pendingReasons = 0; // bit r: m_reasonCycles[r] may be non-zero
    std::uint32_t m_seq = 0;            // sequence number of the next issued bundle
    Attempt m_lastStall;
    std::uint64_t m_stallVersion = 0; // the DMA system's version when the stall was last checked
    // The pending bundle's stall bookkeeping.
    std::uint64_t m_eligibleSince = 0;
    std::uint64_t m_lastAttempt = 0;
    ChipState& m_state;
    DmaSystem& m_dma;
    events::EventStore& m_store;
    ChipStats& m_stats;
    const DecodedBundle* m_bundles; // m_program.bundles.data()
    const DecodedInstruction* m_instructions;
    // Issues by pc: counted here, 8 bytes a pc, rather than in ChipStats::perPc (80 bytes a pc, its stall
    // cycles beside the count), whose lines the issue loop then touched at every bundle.
    std::uint64_t* m_executions;
    ExecOptions m_exec;
    std::array<std::uint64_t, isa::kScalarRegisters> m_sReady{};
    std::array<std::uint64_t, isa::kVectorRegisters> m_vReady{};
    std::array<std::uint32_t, isa::kScalarRegisters> m_sProducer{};
    std::array<std::uint32_t, isa::kVectorRegisters> m_vProducer{};
    std::uint64_t m_reasonCycles[events::kStallReasonCount] = {};
    std::uint64_t m_unitBusy[kUnitCount] = {};
    // Each MXU's weight path and LHS stream are busy on their own (the MXU units' entries above stay 0).
    std::array<std::array<std::uint64_t, 2>, isa::kMaxMxus> m_mxuBusy{};

    const trace::ChipTrace& m_chip;
    const isa::MachineConfig& m_config;
    DecodedProgram m_program;
    std::vector<std::uint64_t> m_executionsByPc;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> m_regions; // open regions: (id, enter cycle)
    PendingWrites m_writes; // last: its MXU results are two 4 KiB products, rarely touched
};

} // namespace xps::sim

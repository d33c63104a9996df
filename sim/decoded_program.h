#pragma once
// Per-pc facts the issue loop needs every cycle, derived once per replay from the opcode table and the
// machine config: which registers an instruction reads and writes, its latency, unit and occupancy.

#include "events/replay_stats.h"
#include "isa/machine_config.h"
#include "isa/program.h"

#include <array>
#include <cstdint>
#include <vector>

namespace xps::sim {

struct DecodedInstruction
{
    const isa::Instruction* insn;
    std::uint32_t readsS = 0; // bit r: reads scalar register r
    std::uint32_t readsV = 0;
    int writesS = -1;
    int writesV = -1;
    std::uint32_t latency = 1;   // cycles until the result is usable
    std::uint32_t occupancy = 0; // cycles its unit stays busy (0: pipelined)
    isa::Unit unit = isa::Unit::Control;
    std::uint8_t mxu = 0;    // an MXU instruction's MXU (its mxu= operand)
    std::uint8_t format = 0; // an MXU instruction's operand format (fmt=: isa::kMxuF32, kMxuF16, kMxuBf16)
    // A vector or cross-lane op whose only effect, when values are not computed, is to write vd: in
    // timing-only mode the core model marks vd written once every source register is valid.
    bool onlyWritesVd = false;
    bool scalarAlu = false; // a two-operand scalar ALU op: the core model computes it without execute()
};

struct DecodedBundle
{
    std::vector<DecodedInstruction> instructions;
    std::uint32_t readsS = 0;
    std::uint32_t readsV = 0;
    int popMxu = -1; // the MXU an mxu.pop in it pops, or -1
    // Holds an instruction with a check beyond operand readiness (a unit with occupancy, the MXU FIFO, a
    // DMA queue, a flag): most bundles hold none, and the core model skips those checks for them.
    bool hasIssueChecks = false;
    // Per unit, the cycles the bundle keeps it busy (its instructions' occupancy, at least 1 each): the
    // replay counts executions per pc and derives unit busy cycles from these at the end.
    std::array<std::uint32_t, events::kUnitCount> unitCycles{};
};

std::vector<DecodedBundle> decodeProgram(const isa::Program& program, const isa::MachineConfig& config);

} // namespace xps::sim

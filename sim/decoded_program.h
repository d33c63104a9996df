#pragma once
// Per-pc facts the issue loop needs every cycle, derived once per replay from the opcode table and the
// machine config: which registers an instruction reads and writes, its latency, unit and occupancy, and
// what the core model does to execute it.
//
// Kept small and in one array per chip: the issue loop of a 4-chip replay reads the program of every chip
// in turn, and while it went through the trace's own instructions (over a hundred bytes each, operands as
// the assembler wrote them) and a vector of instructions per bundle, a 4-chip stress loop's working set no
// longer fit the 32 KiB L1 data cache (cachegrind: 6.4 L1 read misses a bundle, the opcode load behind the
// issue switch the largest site). An instruction the fast paths below cover is executed from its
// DecodedInstruction alone; the others keep a pointer to the trace's instruction.

#include "events/replay_stats.h"
#include "isa/machine_config.h"
#include "isa/program.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace xps::sim {

// How CoreModel::issue executes an instruction.
enum class ExecKind : std::uint8_t {
    ScalarAlu,    // two-operand scalar ALU op: computed in place from `src`
    VectorOnly,   // a vector or cross-lane op whose only effect is to write vd (see onlyWritesVd)
    Branch,       // br, brz, brnz: src[0] the condition (brz/brnz), `target` the pc
    SyncWait,     // src[0] the flag, src[1] the target
    SyncSetAdd,   // sync.set, sync.add: src[0] the flag, src[1] the value (a remote chip: the instruction)
    DmaStart,     // the descriptor is read from the instruction
    VectorMemory, // vld, vld.s, vld.sh, vst, vst.s: execute() and a VMEM access
    RegionBegin,  // `target` is the region
    RegionEnd,
    Halt,
    // execute()
    Other,
};

// A scalar operand as scalarOperand() reads it: an immediate, or register `reg` (which must hold a value).
struct ScalarSource
{
    std::uint32_t imm = 0;
    std::uint8_t reg = 0;
    bool isImm = true;
};

struct DecodedInstruction
{
    const isa::Instruction* insn = nullptr;
    std::array<ScalarSource, 2> src{}; // see ExecKind
    std::uint32_t target = 0;          // a branch's pc, a region's id, a scalar ALU op's rd
    std::uint32_t readsS = 0;          // bit r: reads scalar register r
    std::uint32_t readsV = 0;
    std::uint32_t latency = 1;   // cycles until the result is usable
    std::uint32_t occupancy = 0; // cycles its unit stays busy (0: pipelined)
    isa::Opcode opcode = isa::Opcode::Halt;
    std::int8_t writesS = -1;
    std::int8_t writesV = -1;
    ExecKind kind = ExecKind::Other;
    isa::Unit unit = isa::Unit::Control;
    std::uint8_t mxu = 0;    // an MXU instruction's MXU (its mxu= operand)
    std::uint8_t format = 0; // an MXU instruction's operand format (fmt=: isa::kMxuF32, kMxuF16, kMxuBf16)
    // A vector or cross-lane op whose only effect, when values are not computed, is to write vd: in
    // timing-only mode the core model marks vd written once every source register is valid.
    bool onlyWritesVd = false;
};
static_assert(sizeof(DecodedInstruction) <= 64, "one cache line an instruction");

struct DecodedBundle
{
    std::uint32_t first = 0; // its instructions: DecodedProgram::instructions[first, first + count)
    // At most the bundle's slots: every source of a program (assembly, a JSON trace's lines, the StableHLO
    // lowering, a suggestion's edit) refuses a bundle whose instructions need more.
    std::uint32_t count = 0;
    std::uint32_t readsS = 0;
    std::uint32_t readsV = 0;
    std::int8_t popMxu = -1; // the MXU an mxu.pop in it pops, or -1
    // Holds an instruction with a check beyond operand readiness (a unit with occupancy, the MXU FIFO, a
    // DMA queue, a flag): most bundles hold none, and the core model skips those checks for them.
    bool hasIssueChecks = false;
};
static_assert(sizeof(DecodedBundle) <= 20, "three bundles a cache line");

struct DecodedProgram
{
    std::vector<DecodedBundle> bundles; // by pc
    std::vector<DecodedInstruction> instructions;

    std::span<const DecodedInstruction> instructionsOf(const DecodedBundle& b) const
    {
        return {instructions.data() + b.first, b.count};
    }
};

DecodedProgram decodeProgram(const isa::Program& program, const isa::MachineConfig& config);

} // namespace xps::sim

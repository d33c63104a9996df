#pragma once
// Functional semantics of the data instructions (scalar, vector, transcendental, memory, cross-lane, MXU),
// as docs/isa.md defines them. Control (branches, halt), DMA, sync and region markers are the core
// model's. All instructions of a bundle read state first; their register and memory writes are collected
// here and applied together afterwards.

#include "chip_state.h"
#include "isa/program.h"

#include <optional>
#include <vector>

namespace xps::sim {

struct PendingWrites
{
    struct Scalar
    {
        int reg;
        std::uint32_t value;
    };
    struct Vector
    {
        int reg;
        VReg value;
    };
    struct Memory
    {
        isa::Space space;
        std::uint64_t address;
        std::vector<std::uint8_t> bytes;
    };
    std::vector<Scalar> scalars;
    std::vector<Vector> vectors;
    std::vector<Memory> memory;
    std::optional<MxuResult> mxuPush; // mxu.mm product; `ready` set by the caller
    bool mxuPop = false;

    void clear()
    {
        scalars.clear();
        vectors.clear();
        memory.clear();
        mxuPush.reset();
        mxuPop = false;
    }
};

struct ExecOptions
{
    bool computeVectors = true; // false in timing-only mode: vector/MXU results are not computed
    std::uint64_t vmemAlignment = 512;
};

// Reads a scalar operand (register or immediate). Throws SimFault on an uninitialised register.
std::uint32_t scalarOperand(const ChipState& state, const isa::Operand& operand);
// Effective address of an Addr/SpaceAddr operand.
std::uint64_t effectiveAddress(const ChipState& state, const isa::Operand& operand);

// Executes one data instruction against `state`, appending its writes. Throws SimFault.
void execute(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
             PendingWrites& writes);
void commit(ChipState& state, PendingWrites& writes);

} // namespace xps::sim

#pragma once
// The architectural state of one chip: registers, flags, memories and the MXU. Timing state (scoreboard,
// unit occupancy) lives in core_model.h.

#include "isa/isa.h"
#include "isa/machine_config.h"
#include "sparse_memory.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace xps::sim {

using VReg = std::array<std::uint32_t, isa::kVectorElements>; // row-major: element r * 128 + l

struct MxuResult
{
    std::uint64_t ready;    // cycle the product enters the FIFO
    std::uint32_t producer; // bundle sequence number of the mxu.mm
    VReg value;
};

struct ChipState
{
    int chip = 0;
    std::array<std::uint32_t, isa::kScalarRegisters> s{};
    std::bitset<isa::kScalarRegisters> sValid;
    std::array<VReg, isa::kVectorRegisters> v{};
    std::bitset<isa::kVectorRegisters> vValid;
    std::vector<std::uint32_t> flags;
    SparseMemory hbm, vmem, smem;
    std::vector<float> mxuStaging = std::vector<float>(isa::kMxuDim * isa::kMxuDim);
    std::vector<float> mxuActive = std::vector<float>(isa::kMxuDim * isa::kMxuDim);
    int stagedRows = 0;
    bool weightsActive = false;
    std::deque<MxuResult> fifo;

    SparseMemory& memory(isa::Space space)
    {
        return space == isa::Space::Hbm ? hbm : space == isa::Space::Vmem ? vmem : smem;
    }
};

// A replay-stopping problem in the program (not in the simulator). The core model adds the chip, pc,
// cycle and instruction text.
struct SimFault
{
    std::string message;
};

} // namespace xps::sim

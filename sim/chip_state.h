#pragma once
// The architectural state of one chip: registers, flags, memories and the MXU. Timing state (scoreboard,
// unit occupancy) lives in core_model.h.

#include "isa/isa.h"
#include "isa/machine_config.h"
#include "ring.h"
#include "sparse_memory.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xps::sim {

using VReg = std::array<std::uint32_t, isa::kVectorElements>; // row-major: element r * 128 + l

// The 32 vector registers, each in a 4 KiB buffer of its own. A bundle computes a register's new value into
// a buffer of its pending writes, and the commit exchanges the two buffers: copying 4 KiB at every vector
// write was an eighth of a full-mode replay.
class VectorRegisters
{
public:
    VectorRegisters()
    {
        for (auto& r : m_regs)
            r = std::make_unique<VReg>(); // zero
    }
    VReg& operator[](std::size_t i) { return *m_regs[i]; }
    const VReg& operator[](std::size_t i) const { return *m_regs[i]; }
    // Makes `value` register i; `value` is left holding the register's previous buffer.
    void exchange(std::size_t i, std::unique_ptr<VReg>& value) { m_regs[i].swap(value); }

private:
    std::array<std::unique_ptr<VReg>, isa::kVectorRegisters> m_regs;
};

struct MxuResult
{
    std::uint64_t ready;    // cycle the product enters the FIFO
    std::uint32_t producer; // bundle sequence number of the mxu.mm
    VReg value;
};

// Timing-only mode computes no vector, MXU or DMA payload values, so some memory holds values the replay
// does not know. Scalars reach data only through SMEM, so it is enough to know which HBM/VMEM pages
// (64 KiB) and which SMEM words are stale: a DMA from a stale page makes SMEM stale, and an sld from stale
// SMEM stops the replay instead of letting control flow silently diverge.
// One bit per page or word, allocated on a space's first stale write: 64 KiB of bits cover 32 GiB of HBM,
// and marking is a few word operations (every vst of a timing-only replay marks).
class Staleness
{
public:
    // `spaceBytes`: the size of `space`'s memory (sizes the bitmap on first use). Inline for the common case
    // (a timing-only replay marks every vst and DMA chunk): a run within one unit of a sized bitmap.
    void mark(isa::Space space, std::uint64_t address, std::uint64_t bytes, std::uint64_t spaceBytes)
    {
        Bitmap& map = m_maps[static_cast<std::size_t>(space)];
        const int shift = unitShift(space);
        const std::uint64_t first = address >> shift;
        if (bytes != 0 && first < map.units && ((address + bytes - 1) >> shift) == first) [[likely]] {
            map.words[static_cast<std::size_t>(first / 64)] |= std::uint64_t{1} << (first % 64);
            return;
        }
        markSlow(space, address, bytes, spaceBytes);
    }
    bool any(isa::Space space, std::uint64_t address, std::uint64_t bytes) const;
    // SMEM words written with known values (a page of HBM or VMEM is never known again once stale).
    void clearSmem(std::uint64_t address, std::uint64_t bytes);

private:
    struct Bitmap
    {
        std::vector<std::uint64_t> words; // bit u: unit u (a page, or an SMEM word) is stale
        std::uint64_t units = 0;
    };
    static int unitShift(isa::Space space)
    {
        static_assert(SparseMemory::kPageBytes == 1u << 16);
        return space == isa::Space::Smem ? 2 : 16; // SMEM words; HBM and VMEM pages
    }
    void markSlow(isa::Space space, std::uint64_t address, std::uint64_t bytes, std::uint64_t spaceBytes);
    std::array<Bitmap, 3> m_maps; // by isa::Space
};

// One matrix unit: its staged and active 128 x 128 weights, allocated by its first mxu.wpush that computes
// values (128 KiB a chip that never uses the MXU, as most chips of a many-chip DMA program, or an MXU the
// program leaves idle, does not pay for), and its result FIFO.
struct MxuState
{
    std::vector<float> staging;
    std::vector<float> active;
    int stagedRows = 0;
    bool weightsActive = false;
    Ring<MxuResult> fifo; // a deque allocated a block per 4 KiB product
};

struct ChipState
{
    ChipId chip = ChipId(0);
    std::array<std::uint32_t, isa::kScalarRegisters> s{};
    std::bitset<isa::kScalarRegisters> sValid;
    // Timing-only mode: registers an sld loaded from SMEM that a DMA filled with data this mode does not
    // compute (a computed scalar, broadcast by vbcast). Not valid: any scalar use of one is a fault that
    // says so; a vector instruction may read one, its result being uncomputed anyway. A bit means something
    // only while its register is not valid.
    std::bitset<isa::kScalarRegisters> sUnknown;
    VectorRegisters v;
    std::bitset<isa::kVectorRegisters> vValid;
    std::vector<std::uint32_t> flags;
    SparseMemory hbm, vmem, smem;
    // By an instruction's mxu= operand; the trace validator keeps it below the machine's mxu_count.
    std::array<MxuState, isa::kMaxMxus> mxus;
    Staleness stale; // timing-only mode

    SparseMemory& memory(isa::Space space)
    {
        return space == isa::Space::Hbm ? hbm : space == isa::Space::Vmem ? vmem : smem;
    }
    const SparseMemory& memory(isa::Space space) const
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

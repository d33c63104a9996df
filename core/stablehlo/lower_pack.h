#pragma once
// VLIW packing of the lowering's straight-line code. Kernels write one instruction at a time, in an
// order that is correct one per bundle; the packer places each into the earliest bundle of the current
// window that keeps every dependence (registers: read after write, write after read, write after write;
// VMEM ranges; the MXU's weight staging, commit, matmul stream and result FIFO in program order and within
// its depth) and has a free slot of its kind, and not before its operands are ready by the machine's
// latencies unless that would only add a bundle at the end. Instructions with effects the packer does not
// model (DMA, sync, regions, scalar memory, strided addresses, branches) close the
// window and stand alone, so packing never crosses a kernel's DMA waits or an op's region. A load or store
// through a loop's register ([sN + offset]) is packed too: in the lowering's loop bodies each buffer has
// a register of its own, so accesses through different registers never overlap (lower_pack.cpp, pageKey).
//
// The values computed are the same as unpacked: every instruction still reads what it read before.

#include "asm/lexer.h"
#include "asm/parser.h"
#include "isa/machine_config.h"
#include "isa/program.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace xps::shlo::lower {

class BundlePacker
{
public:
    explicit BundlePacker(const isa::MachineConfig& machine);

    // Takes one instruction's text into the window, or returns false for one the packer leaves alone
    // (the caller flushes, then emits it as its own bundle).
    bool add(const std::string& text);
    // The window's bundles, each in the assembler's canonical order (by slot); the window is emptied.
    std::vector<isa::Bundle> flush();
    std::size_t pending() const { return m_windowSize; }

private:
    struct Bundle
    {
        std::array<std::uint8_t, isa::kSlotKinds> used{};
        std::vector<assembly::PlacedInstruction> placed;
    };
    struct Place
    {
        int after = -1;  // the bundle must come strictly after this one
        int atLeast = 0; // and not before this one (write after read may share a bundle)
        int ready = 0;   // bundle by which the operands are ready
    };
    struct PageUse
    {
        int lastStore = -1;
        int lastLoad = -1;
    };
    void require(Place& p, int strictlyAfter) const;
    int latency(const isa::Instruction& insn) const;
    int occupancy(const isa::Instruction& insn) const;

    isa::MachineConfig m_machine;
    std::vector<assembly::Token> m_tokens; // scratch for lexing one instruction
    isa::OpcodeCycles m_cycles;
    std::vector<Bundle> m_window; // the first m_windowSize are the window's
    std::size_t m_windowSize = 0;
    // Per register, within the window: the bundle of its last write, when that value is ready, its last read.
    std::array<int, isa::kVectorRegisters> m_vWrite{}, m_vReady{}, m_vRead{};
    std::array<int, isa::kScalarRegisters> m_sWrite{}, m_sReady{}, m_sRead{};
    std::array<int, 32> m_unitFree{}; // by unit: the bundle from which it takes another instruction
    std::unordered_map<std::uint64_t, PageUse> m_pages; // 4 KiB VMEM pages touched in the window
    std::vector<std::uint64_t> m_touched;               // scratch: the pages the access being placed touches
    // One MXU's state, in program order: its instructions depend on each other, never on another MXU's.
    struct MxuTrack
    {
        // Every matmul and pop since the start; those still in the window carry bundles.
        std::uint64_t matmuls = 0, pops = 0;
        std::deque<std::pair<std::uint64_t, int>> matmulBundles; // (matmul number, bundle), not yet popped
        std::deque<std::pair<std::uint64_t, int>> popBundles;    // (pop number, bundle) in the window
        int lastMatmul = -1, lastPop = -1, lastPush = -1, lastCommit = -1, commitReady = 0;
        std::array<int, 2> unitFree{}; // the weight path's and the LHS stream's (occupancy)
    };
    std::array<MxuTrack, isa::kMaxMxus> m_mxus;
};

} // namespace xps::shlo::lower

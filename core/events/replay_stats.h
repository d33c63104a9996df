#pragma once
// Per-chip totals a replay accumulates as it goes (cheaper than re-deriving them from the events), shared
// by the replayer that fills them and the analyses, CLI and views that read them.

#include "events/events.h"
#include "isa/isa.h"

#include <cstdint>
#include <vector>

namespace xps::events {

inline constexpr int kUnitCount = static_cast<int>(isa::Unit::Control) + 1;

// What the disassembly view shows per bundle.
struct PcStats
{
    std::uint64_t executions = 0;
    std::uint64_t stallCycles[kStallReasonCount] = {};
};

struct ChipStats
{
    std::uint64_t bundles = 0;
    std::uint64_t instructions = 0;
    std::uint64_t haltCycle = 0;
    bool halted = false;
    std::uint64_t stallCycles[kStallReasonCount] = {};
    std::uint64_t unitBusyCycles[kUnitCount] = {};
    std::vector<PcStats> perPc; // indexed by pc
};

} // namespace xps::events

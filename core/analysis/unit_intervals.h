#pragma once
// When each functional unit was busy. Not stored: an instruction occupies its unit from its issue cycle
// for its occupancy (the machine-config value its opcode names, at least one cycle), so the intervals
// follow from the recorded bundle issues and the opcode table, at no memory cost per event.

#include "events/event_store.h"
#include "isa/isa.h"
#include "trace/trace.h"

#include <vector>

namespace xps::analysis {

struct UnitInterval
{
    events::Cycle start = 0;
    events::Cycle end = 0; // exclusive
    std::uint32_t pc = 0;
};

// Intervals of `unit` on `chip` from the bundle events [first, last) of `bundles`, in start order.
std::vector<UnitInterval> unitIntervals(const trace::Trace& trace, const events::BundleSnapshot& bundles,
                                        std::size_t first, std::size_t last, ChipId chip, isa::Unit unit);

} // namespace xps::analysis

#pragma once
// What the activity lanes (and the replay seen as a profile) classify events by: the unit groups a kernel
// author thinks in, and what a DMA's bytes moved between.

#include "events/events.h"
#include "isa/isa.h"
#include "trace/trace.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace xps::analysis {

// The functional units a timeline shows, grouped the way a kernel author thinks of them.
enum class UnitGroup : std::uint8_t { Scalar, VectorAlu, LoadStore, Mxu, CrossLane, Count_ };
inline constexpr int kUnitGroupCount = static_cast<int>(UnitGroup::Count_);
std::string_view unitGroupName(UnitGroup group);
// The group whose lane shows `unit`, as an index; -1 for units drawn in their own lanes or not at all (DMA,
// sync, markers, control).
int unitGroupIndex(isa::Unit unit);
// Cycles each pc of `chip` keeps each unit group busy (0: not at all): the largest occupancy of its
// instructions on the group's units (the machine-config value the opcode names), at least 1.
std::vector<std::array<std::uint32_t, kUnitGroupCount>> unitGroupBusyPerPc(const trace::Trace& trace,
                                                                           ChipId chip);

// DMA lane categories: what the bytes moved between.
enum class DmaPathClass : std::uint8_t { Load, Store, Other, Ici, Count_ };
inline constexpr int kDmaPathClassCount = static_cast<int>(DmaPathClass::Count_);
std::string_view dmaPathClassName(DmaPathClass c);
DmaPathClass dmaPathClass(const events::DmaRecord& dma);

} // namespace xps::analysis

#pragma once
// Words for events, shared by every view that shows them: tooltips, short labels drawn inside bars, and
// cycle counts with their time.

#include "analysis/activity_lanes.h"
#include "trace/trace.h"

#include <QString>

namespace xps::ui {

QString cyclesText(std::uint64_t cycles); // "12,345"
QString timeText(std::uint64_t cycles, const isa::MachineConfig& machine); // "11.76 µs"
QString bytesText(std::uint64_t bytes);   // "4 KiB"
QString bundleText(const trace::Trace& trace, ChipId chip, std::uint32_t pc); // the disassembled bundle
QString regionName(const trace::Trace& trace, ChipId chip, std::uint32_t region);
QString dmaSummary(const trace::Trace& trace, const events::DmaRecord& dma); // "HBM->VMEM 4 KiB, engine 1"

// A lane item in words: `label` fits inside a bar (short), `tooltip` is rich text with every detail.
QString itemLabel(const trace::Trace& trace, const analysis::ActivityLanes& lanes, const analysis::LaneInfo& lane,
                  const analysis::LaneItem& item);
QString itemTooltip(const trace::Trace& trace, const analysis::ActivityLanes& lanes, const analysis::LaneInfo& lane,
                    const analysis::LaneItem& item);

} // namespace xps::ui

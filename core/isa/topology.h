#pragma once
// The ICI network: which link directions a chip-to-chip transfer crosses. One place for the routing rule,
// so the GRM's bandwidth sharing and the analyses' link utilization agree.

#include "isa/chip_id.h"
#include "isa/machine_config.h"

#include <string>
#include <vector>

namespace xps::isa {

// Link directions are numbered chip * 4 + d with d = 0: +x (next chip on the ring/row), 1: -x, 2: +y
// (next row), 3: -y.
inline constexpr int kLinkDirectionsPerChip = 4;
int linkCount(const MachineConfig& config);

// Dimension-ordered route (x along the ring/row, then y along the column). The shortest way round each
// ring unless `longWay` (dma.start route=1), which takes the other way in every dimension it moves in, so
// a transfer can use the links the shortest route leaves idle; ties go forward (longWay: backward).
std::vector<int> iciRoute(const MachineConfig& config, ChipId from, ChipId to, bool longWay = false);

// "chip 2 +x" etc.; and the chip the link direction leads to.
std::string linkName(int link);
int linkDestination(const MachineConfig& config, int link);

} // namespace xps::isa

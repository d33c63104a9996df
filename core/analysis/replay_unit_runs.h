#pragma once
// A replay's unit runs: back-to-back busy cycles of a unit group, merged into one run, derived from the
// store's bundle columns and each pc's busy cycles per group (as the lanes bin them), not recorded: at
// 1 M stress bundles they are 600 k runs, which kept as slices would add 11 bytes to every event of the
// store. A replay's profile shows them as its units' slices (analysis/replay_profile.h).

#include "analysis/activity_classes.h"
#include "analysis/replay_view.h"
#include "util/cancel.h"

#include <array>
#include <cstdint>
#include <vector>

namespace xps::analysis {

// The unit groups a replay's profile shows, in the order a kernel author reads a chip: the core's work,
// what a GPU profile calls kernels (a kernel's loads and stores are compute too; copies are the DMAs). The
// scalar unit, busy nearly every cycle a core issues, would only say the core ran.
inline constexpr std::array<UnitGroup, 4> kProfiledUnits = {UnitGroup::Mxu, UnitGroup::VectorAlu,
                                                            UnitGroup::CrossLane, UnitGroup::LoadStore};

struct UnitRun
{
    events::Cycle start = 0, end = 0; // the first busy cycle, and the one after the last
    std::uint32_t firstPc = 0;        // the bundle that began it
};

// Per chip, per profiled unit (kProfiledUnits' order), its runs in time order. One pass over the bundles,
// `cancel` polled per bundle.
using ChipUnitRuns = std::array<std::vector<UnitRun>, kProfiledUnits.size()>;
std::vector<ChipUnitRuns> unitRunsOf(const ReplayView& replay, CancelPoint& cancel);

} // namespace xps::analysis

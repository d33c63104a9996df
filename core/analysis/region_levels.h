#pragma once
// The declared levels of the regions at each nesting depth of a chip's program ("layer", "op", "op, loop"),
// so a timeline's region lanes can say what they show. The last of `depths` holds every deeper region.

#include <string>
#include <vector>

#include "trace/trace.h"

namespace xps::analysis {

// From the program's static nesting of region.begin / region.end; an empty string where no region at that
// depth declares a level.
std::vector<std::string> regionLevelsByDepth(const trace::ChipTrace& chip, int depths);

} // namespace xps::analysis

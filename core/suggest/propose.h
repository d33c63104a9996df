#pragma once
// Turns the analyses of a replay into suggestions, each with a change the tool can apply: hoist a late
// dma.start within its basic block (also across a sync.wait on DMAs it does not depend on: the fix for a
// serialized pair), split an engine-bound transfer over two engines, spread a chip's DMAs over idle
// engines, and hardware what-ifs for capacity planning. Legality is checked statically and against the
// replay's recorded addresses; the measurement (sim/what_if.h) still proves each change by comparing
// outputs bit for bit.

#include "analysis/analyze.h"
#include "suggest/suggestion.h"

#include <vector>

namespace xps::suggest {

// Throws Cancelled (util/cancel.h) once replay.stop is requested.
std::vector<Suggestion> proposeSuggestions(const analysis::ReplayView& replay,
                                           const analysis::Analyses& analyses);

} // namespace xps::suggest

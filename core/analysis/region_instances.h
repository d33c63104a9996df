#pragma once
// Where a region ran: its first instance by nesting path ("decode_layer > attention"), the key the summary's
// region rows and the comparison of two runs use (analysis/summary.h, analysis/run_diff.h). A region's path
// is built as the summary builds it: the regions open on its chip when it entered, outermost first.

#include "analysis/replay_view.h"

#include <optional>
#include <string>

namespace xps::analysis {

struct CycleRange
{
    events::Cycle from = 0, to = 0;
};

// The instance of `path` that entered first, over every chip (ties: the lowest chip); none if it never ran.
std::optional<CycleRange> firstInstanceOfRegion(const ReplayView& replay, const std::string& path);

} // namespace xps::analysis

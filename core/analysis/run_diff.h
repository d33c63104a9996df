#pragma once
// Two analysed replays compared (issue #24, its first part: what `xpushark-cli diff` prints): the runs'
// totals side by side with their deltas (cycles, bundles, stall cycles by reason, the critical path's
// composition, DMA bytes and exposed DMA cycles, VMEM peak), and per region (matched by its nesting path,
// "decode > mlp > tile", aggregated over instances and chips as the summary does) baseline, other and
// delta, the largest change first. Every number is the difference of the two runs' own numbers, as
// `analyze --json` reports them, so the diff's totals are those of the runs. Per-pc rows, bundle alignment
// of changed programs and the explorer's comparison views are later parts of #24.

#include "analysis/analyze.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xps::analysis {

// One number of both runs.
struct Compared
{
    std::uint64_t baseline = 0;
    std::uint64_t other = 0;
    std::int64_t delta() const
    {
        return static_cast<std::int64_t>(other) - static_cast<std::int64_t>(baseline);
    }
    // Relative change in percent of the baseline; none when the baseline is 0.
    std::optional<double> percent() const;
};

struct RegionDelta
{
    std::string path; // the key: "decode > mlp > tile"
    std::string name;
    std::string level; // "layer", "op", "loop", ... (the baseline's, else the other run's)
    int depth = 0;
    bool inBaseline = false, inOther = false; // a region only one program has
    Compared instances, cycles, bundles, stallCycles, dmaBytes;
    Compared stallByReason[events::kStallReasonCount];
};

struct RunTotals
{
    std::string name; // the file, as given
    std::uint64_t chips = 0;
    double microseconds = 0.0;
};

struct RunDiff
{
    RunTotals baseline, other;
    Compared cycles, bundles, stallCycles, dmaBytes, exposedDmaCycles, vmemPeakBytes;
    Compared stallByReason[events::kStallReasonCount];
    Compared criticalPath[kPathKindCount]; // cycles of each kind on the critical path
    std::vector<RegionDelta> regions;      // largest |cycles delta| first; equals in path order

    // (other - baseline) / baseline of the total cycles in percent: how much slower the other run is
    // (negative: faster). 0 when the baseline took no cycles.
    double slowdownPercent() const;
    // The row of the region named `name` (its name or its whole path), or null.
    const RegionDelta* findRegion(const std::string& name) const;
};

RunDiff diffRuns(const Analyses& baseline, const Analyses& other, RunTotals baselineRun, RunTotals otherRun);

} // namespace xps::analysis

#pragma once
// Two analysed replays compared (what `xpushark-cli diff` prints): the runs'
// totals side by side with their deltas (cycles, bundles, stall cycles by reason, the critical path's
// composition, DMA bytes and exposed DMA cycles, VMEM peak), and per region (matched by its nesting path,
// "decode > mlp > tile", aggregated over instances and chips as the summary does) baseline, other and
// delta, the largest change first. Every number is the difference of the two runs' own numbers, as
// `analyze --json` reports them, so the diff's totals are those of the runs; and per bundle, matched across
// the two programs (analysis/program_alignment.h), executions and stall cycles. The explorer's comparison
// views build on it.

#include "analysis/analyze.h"
#include "analysis/replay_view.h"
#include "util/compared.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xps::analysis {

using xps::Compared; // util/compared.h

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

// One bundle of a chip in both runs, matched by its text (analysis/program_alignment.h): its executions and
// stall cycles in each. A bundle only one program has (a suggestion inserted or removed it) has no pc in
// the other, and counts 0 there.
struct PcDelta
{
    ChipId chip;
    std::optional<std::uint32_t> baselinePc, otherPc;
    std::string text; // the bundle's disassembly
    Compared executions, stallCycles;
    Compared stallByReason[events::kStallReasonCount];
    // The cycles the bundle took: one to issue per execution, plus those it stalled before issuing.
    Compared cycles;
    // The DMAs it started (a dma.start's bundle): their bytes, and the sync.wait stall cycles they ended
    // (DmaFacts::exposedCycles, counted at the DMA's issuing bundle, not at the wait's).
    Compared dmaBytes, exposedDmaCycles;
};

// How a chip's two programs were matched: how many bundles both have, and how many one only; `aligned`
// false when they differ too much to be versions of one program (then there are no rows for the chip).
struct ChipAlignment
{
    ChipId chip;
    bool aligned = false;
    std::uint64_t matched = 0, inserted = 0, removed = 0;
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
    // Filled by addPcDeltas: the bundles whose numbers changed, or that one program only has, the largest
    // change of stall cycles (then executions) first; and per chip both runs have, how it was aligned.
    std::vector<PcDelta> pcs;
    std::vector<ChipAlignment> alignment;

    // (other - baseline) / baseline of the total cycles in percent: how much slower the other run is
    // (negative: faster). 0 when the baseline took no cycles.
    double slowdownPercent() const;
    // The row of the region named `name` (its name or its whole path), or null.
    const RegionDelta* findRegion(const std::string& name) const;
};

RunDiff diffRuns(const Analyses& baseline, const Analyses& other, RunTotals baselineRun, RunTotals otherRun);

// The per-bundle rows of `diff`, from the two replays' per-pc counts and their DMA analyses (each run's
// `analyses`). `maxEdits`: as alignPrograms.
void addPcDeltas(RunDiff& diff, const ReplayView& baseline, const Analyses& baselineAnalyses,
                 const ReplayView& other, const Analyses& otherAnalyses, std::size_t maxEdits = 2000);

} // namespace xps::analysis

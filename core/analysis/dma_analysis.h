#pragma once
// What the DMAs of a replay did and where they cost time: engine occupancy, achieved bandwidth over time,
// concurrency, exposed time (the core stalled in a sync.wait for it), serialized pairs (issued only after a
// wait on an earlier DMA that it does not depend on), late issue (slack between the earliest point the
// data flow allows and the actual issue), transfers too small to amortise the setup, and engine imbalance.

#include "analysis/replay_view.h"

#include <string>
#include <vector>

namespace xps::analysis {

struct EngineUse
{
    ChipId chip = ChipId(0);
    int engine = 0;
    std::uint64_t transfers = 0;
    std::uint64_t bytes = 0;
    std::uint64_t busyCycles = 0;       // setup + transfer, overlaps merged
    std::uint64_t queueDelayCycles = 0; // waiting behind earlier descriptors on the same engine
    double occupancy = 0.0;             // busyCycles / total cycles
};

// Per DMA (indexed like DmaAnalysis::dmas, which is sorted by id).
struct DmaFacts
{
    events::DmaRecord record;
    std::uint64_t exposedCycles = 0;  // sync.wait stall cycles this DMA ended
    std::int64_t slackCycles = -1;    // from its end to the start of the next wait on its flag; -1: none
    std::uint64_t earliestIssue = 0;  // source written and destination dead (data flow only)
    std::uint64_t lateCycles = 0;     // issue - earliestIssue
    double setupEfficiency = 1.0;     // transfer time / (setup + transfer) at the engine's peak
};

struct SerializedPair
{
    std::uint32_t first = 0;  // DMA id the wait waited for
    std::uint32_t second = 0; // DMA issued after that wait
    ChipId chip = ChipId(0);
    std::uint32_t waitPc = 0;
    std::uint64_t overlapCycles = 0; // min of the two transfer times: what running them together could save
};

// DMAs of one issuing pc: late, small or both.
struct DmaPcGroup
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t transfers = 0;
    std::uint64_t bytes = 0;
    std::uint64_t exposedCycles = 0;
    std::uint64_t lateCycles = 0;      // sum over its transfers
    std::uint64_t hideableCycles = 0;  // sum of min(late, exposed): stall an earlier issue could hide
    std::uint64_t setupCycles = 0;     // setup overhead paid by transfers below 50% efficiency
    std::uint64_t smallTransfers = 0;
    int engine = 0;                    // engine of its first transfer
};

struct EngineBalance
{
    ChipId chip = ChipId(0);
    int enginesUsed = 0;
    int engines = 0;
    double imbalance = 1.0; // busiest engine's busy cycles / mean over all engines of the chip
    std::uint64_t queueDelayCycles = 0;
};

struct DmaAnalysis
{
    std::vector<DmaFacts> dmas;
    std::vector<EngineUse> engines;
    std::vector<EngineBalance> balance; // per chip
    std::uint64_t exposedCycles = 0;
    std::vector<SerializedPair> serialized;
    std::vector<DmaPcGroup> byPc;     // sorted by hideable + setup cycles, largest first
    int maxConcurrency = 0;
    double meanConcurrency = 0.0;     // over cycles with at least one transfer active
    std::uint64_t binCycles = 1;      // width of one bandwidth bin
    std::vector<std::vector<double>> hbmBytesPerBin; // [chip][bin]: bytes to or from the chip's HBM

    const DmaFacts* find(std::uint32_t id) const;
};

DmaAnalysis analyzeDmas(const ReplayView& replay);

// analyzeDmas in two steps, so the dependency graph (which reads only the records) can be built while the
// rest runs: the first fills `dmas` with the records sorted by id; the second adds everything else and
// writes no DmaFacts::record and does not resize `dmas`.
DmaAnalysis collectDmas(const ReplayView& replay);
void finishDmaAnalysis(const ReplayView& replay, DmaAnalysis& out);

} // namespace xps::analysis

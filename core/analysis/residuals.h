#pragma once
// Replayed vs recorded hardware timing. A trace may carry per-region durations and sampled (pc, cycle)
// pairs measured on the real chip; the residual of each is replayed minus recorded, so a kernel author can
// see where the model and the hardware disagree before trusting a what-if.

#include "events/event_store.h"
#include "trace/trace.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::analysis {

struct RegionResidual
{
    ChipId chip = ChipId(0);
    std::string region;
    std::uint64_t instance = 0;
    std::uint64_t recorded = 0;
    std::optional<std::uint64_t> replayed; // empty if the replay never completed that instance
    std::uint64_t replayedEnter = 0;       // the replayed instance's first cycle, when `replayed` is set
    double relativeError() const;          // (replayed - recorded) / recorded
};

// Sample k of (chip, pc) is compared with the k-th issue of that pc on that chip; both are cycles since
// the start of the region the trace captured.
struct SampleResidual
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t recorded = 0;
    std::optional<std::uint64_t> replayed;
};

struct Residuals
{
    std::vector<RegionResidual> regions;
    std::vector<SampleResidual> samples;
};

// Matching samples reads every bundle issue: `stop` is polled there (throws Cancelled, util/cancel.h).
Residuals computeResiduals(const trace::Trace& trace, const events::EventStore& store,
                           const std::stop_token& stop = {});

// How far the replay is from the recorded region durations, over the instances the replay completed: the
// mean and median absolute percentage error (calibration's measures) and the worst instance.
struct RegionErrorStats
{
    std::size_t recorded = 0;                                          // region instances the trace recorded
    std::size_t matched = 0;                                           // of which the replay completed
    double meanAbsPercent = 0, medianAbsPercent = 0, worstPercent = 0; // worst keeps its sign
    std::size_t worst = 0; // index into Residuals::regions, when matched > 0
};
RegionErrorStats regionErrorStats(const Residuals& residuals);

// The sampled pcs: how many the replay reached, and the mean absolute residual of those, in cycles.
struct SampleErrorStats
{
    std::size_t recorded = 0, matched = 0;
    double meanAbsCycles = 0;
};
SampleErrorStats sampleErrorStats(const Residuals& residuals);

// Indices into residuals.regions, worst first by absolute relative error; instances the replay never
// completed lead (the model is furthest from the chip there). Ties keep the trace's order.
std::vector<std::size_t> worstFirst(const Residuals& residuals);

// One line for a headline: "12 of 14 recorded region instances replayed; mean |error| 6.1%, median 4.0%,
// worst +25.0% (attention #2)". The report and the explorer say it the same way.
std::string describeRegionErrors(const Residuals& residuals, const RegionErrorStats& stats);

} // namespace xps::analysis

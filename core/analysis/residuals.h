#pragma once
// Replayed vs recorded hardware timing. A trace may carry per-region durations and sampled (pc, cycle)
// pairs measured on the real chip; the residual of each is replayed minus recorded, so a kernel author can
// see where the model and the hardware disagree before trusting a what-if.

#include "events/event_store.h"
#include "trace/trace.h"

#include <optional>
#include <vector>

namespace xps::analysis {

struct RegionResidual
{
    int chip = 0;
    std::string region;
    std::uint64_t instance = 0;
    std::uint64_t recorded = 0;
    std::optional<std::uint64_t> replayed; // empty if the replay never completed that instance
    double relativeError() const;          // (replayed - recorded) / recorded
};

// Sample k of (chip, pc) is compared with the k-th issue of that pc on that chip; both are cycles since
// the start of the region the trace captured.
struct SampleResidual
{
    int chip = 0;
    std::uint32_t pc = 0;
    std::uint64_t recorded = 0;
    std::optional<std::uint64_t> replayed;
};

struct Residuals
{
    std::vector<RegionResidual> regions;
    std::vector<SampleResidual> samples;
};

Residuals computeResiduals(const trace::Trace& trace, const events::EventStore& store);

} // namespace xps::analysis

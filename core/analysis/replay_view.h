#pragma once
// What every analysis reads: the trace that was replayed, the events the replay recorded and the per-chip
// totals it accumulated. A view of a replay, not an owner: the caller keeps the three alive.

#include "events/event_store.h"
#include "events/replay_stats.h"
#include "trace/trace.h"
#include "util/cancel.h"

#include <vector>

namespace xps::analysis {

struct ReplayView
{
    const trace::Trace& trace;
    const events::EventStore& store;
    std::uint64_t totalCycles = 0;
    const std::vector<events::ChipStats>& chips;
    // The analyses and proposal rules poll it and throw Cancelled (util/cancel.h) once it is requested.
    std::stop_token stop = {};
    CancelPoint cancelPoint() const { return CancelPoint(stop); }
};

// Cycles a bundle keeps `unit` busy (the largest occupancy of its instructions on that unit, at least 1;
// 0 if it does not use the unit), per pc of `chip`.
std::vector<std::uint32_t> unitBusyPerPc(const trace::Trace& trace, ChipId chip, isa::Unit unit);

} // namespace xps::analysis

#pragma once
// Measures suggestions: applies each change, replays the changed trace in full functional mode, and
// compares cycles and outputs with the baseline replay. A change whose outputs differ in a single bit is
// rejected, whatever it gains. Runs on the caller's thread (the CLI's, or a worker of the GUI's), can be
// cancelled between and within replays, and reports progress per suggestion.

#include "replayer.h"
#include "suggest/group.h"
#include "suggest/suggestion.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::sim {

// The first difference between the output buffers of two final states of the same trace (or of a trace
// and its transformed version, which keep the buffer table), or nothing if they are bit-identical. Stops
// early (saying nothing) once `stop` is requested: gigabytes of outputs take a while.
// Reads without materialising pages, so several what-ifs may compare with one baseline at once.
std::optional<std::string> compareOutputs(const trace::Trace& trace, const std::vector<ChipState>& a,
                                          const std::vector<ChipState>& b, std::stop_token stop = {});

// The changed trace and its replay, for callers that look further than the cycle count (Apply and compare).
struct ChangedRun
{
    trace::Trace trace;
    events::EventStore store;
    ReplayResult result;
};

// `baseline` is the full-mode replay of `trace`. With `keep`, the changed trace and its replay stay there.
// `replayProgress` hears, at least every 50 ms, how far the changed replay has come: its cycle over the
// baseline's, below 1 until it ends.
suggest::Measurement measureChange(const trace::Trace& trace, ReplayResult& baseline,
                                   const suggest::Change& change, std::stop_token stop = {},
                                   ChangedRun* keep = nullptr,
                                   const std::function<void(double fraction)>& replayProgress = {});

// How far a measurement has come. Several what-ifs may replay at once (one per worker).
struct WhatIfStatus
{
    std::size_t done = 0;  // items (suggestions or groups) measured
    std::size_t total = 0;
    double current = 0.0;  // how far the items being replayed have come, summed (0 .. inFlight)
    std::size_t inFlight = 0;
    std::size_t oldest = 0; // of the items being replayed, the one started first (total if none)
};
// Called on the measuring threads, never two calls at once.
using WhatIfProgress = std::function<void(const WhatIfStatus&)>;

// What-ifs replayed side by side: at most `requested` (0: one per hardware thread), no more than there
// are items, and no more than fit in half the memory available now, each holding a copy of the trace and
// a machine state about the baseline's final one. Always at least 1.
unsigned whatIfWorkers(const trace::Trace& trace, const ReplayResult& baseline, std::size_t items,
                       unsigned requested = 0);

// Measures every suggestion, then orders them: improving program changes by measured gain, then the
// hardware what-ifs by gain, then the rest. Each suggestion's measurement is its own replay, so they run
// on whatIfWorkers(..., workers) threads; the results do not depend on how many.
void measureSuggestions(std::vector<suggest::Suggestion>& suggestions, const trace::Trace& trace,
                        ReplayResult& baseline, std::stop_token stop = {}, const WhatIfProgress& progress = {},
                        unsigned workers = 0);

// The groups among measured suggestions (suggest/group.h), each measured by replaying the program with all
// its members' changes applied together. Progress counts groups. A group left when `stop` is requested
// keeps no combined measurement.
std::vector<suggest::SuggestionGroup> measureGroups(const std::vector<suggest::Suggestion>& suggestions,
                                                    const trace::Trace& trace, ReplayResult& baseline,
                                                    std::stop_token stop = {},
                                                    const WhatIfProgress& progress = {}, unsigned workers = 0);

} // namespace xps::sim

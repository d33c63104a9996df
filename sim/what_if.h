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
std::optional<std::string> compareOutputs(const trace::Trace& trace, std::vector<ChipState>& a,
                                          std::vector<ChipState>& b, std::stop_token stop = {});

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

// `done` suggestions of `total` are measured; `current` is how far the one being measured has come (0..1).
using WhatIfProgress = std::function<void(std::size_t done, std::size_t total, double current)>;
// Measures every suggestion, then orders them: improving program changes by measured gain, then the
// hardware what-ifs by gain, then the rest.
void measureSuggestions(std::vector<suggest::Suggestion>& suggestions, const trace::Trace& trace,
                        ReplayResult& baseline, std::stop_token stop = {}, const WhatIfProgress& progress = {});

// The groups among measured suggestions (suggest/group.h), each measured by replaying the program with all
// its members' changes applied together. Progress counts groups. A group left when `stop` is requested
// keeps no combined measurement.
std::vector<suggest::SuggestionGroup> measureGroups(const std::vector<suggest::Suggestion>& suggestions,
                                                    const trace::Trace& trace, ReplayResult& baseline,
                                                    std::stop_token stop = {},
                                                    const WhatIfProgress& progress = {});

} // namespace xps::sim

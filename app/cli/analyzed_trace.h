#pragma once
// A trace replayed in full mode with every analysis run and suggestions proposed: what `analyze`, `apply`
// and `report` start from.

#include "analysis/analyze.h"
#include "commands.h"
#include "replayer.h"
#include "suggest/group.h"
#include "suggest/suggestion.h"
#include "trace/trace.h"

#include <memory>
#include <string>

namespace xps::cli {

struct Analyzed
{
    trace::Trace trace;
    events::EventStore store;
    sim::ReplayResult result;
    std::unique_ptr<analysis::ReplayView> view;
    analysis::Analyses analyses;
    std::vector<suggest::Suggestion> suggestions;
    std::vector<suggest::SuggestionGroup> groups; // measured applied together (with measuring)
};

// Replays (within `limits`: their cycle and bundle caps), analyses, proposes and, with `measure`, measures
// each suggestion by replaying its change; returns nullptr after printing the error (and sets `exitCode`).
std::unique_ptr<Analyzed> analyzeFile(const std::string& path, Streams io, int& exitCode, bool measure,
                                      const sim::ReplayOptions& limits = {});

// --max-cycles N / --max-bundles N at args[i] (every command that replays takes them): consumes the value
// and sets the limit (0: none). Returns false if args[i] is neither; sets `error` if its value is bad.
bool takeLimitOption(const std::vector<std::string>& args, std::size_t& i, sim::ReplayOptions& options,
                     std::string& error);

} // namespace xps::cli

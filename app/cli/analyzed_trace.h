#pragma once
// A trace replayed in full mode with every analysis run and suggestions proposed: what `analyze`, `apply`
// and `report` start from.

#include "analysis/analyze.h"
#include "commands.h"
#include "replayer.h"
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
};

// Replays, analyses, proposes and, with `measure`, measures each suggestion by replaying its change;
// returns nullptr after printing the error (and sets `exitCode`).
std::unique_ptr<Analyzed> analyzeFile(const std::string& path, Streams io, int& exitCode, bool measure);

} // namespace xps::cli

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
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>

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

// Whether suggestions are measured (each by a replay of its change), and on how many threads.
struct Measuring
{
    bool on = true;
    unsigned threads = 0; // what-ifs replayed side by side at most (--threads); 0: one per CPU allowed
};

// Replays (within `limits`: their cycle, bundle and memory caps), analyses, proposes and, with `measure`,
// measures each suggestion by replaying its change; returns nullptr after printing the error (and sets
// `exitCode`). A stop requested on `stop` ends the replay and the analyses early: nullptr, nothing printed.
std::unique_ptr<Analyzed> analyzeFile(const std::string& path, Streams io, int& exitCode, Measuring measure,
                                      const sim::ReplayOptions& limits = {}, std::stop_token stop = {});

// A run analysed (not measured) on a thread of its own while the command analyses the one it is compared
// with (diff, report --baseline): the comparison takes the slower of the two, not their sum. What it prints
// is held until take(); a command that returns without taking it stops it.
class BackgroundAnalysis
{
public:
    BackgroundAnalysis(std::string path, const sim::ReplayOptions& limits);
    // Waits for it, then prints what it printed to `io`; nullptr (and `exitCode` set) if it failed.
    std::unique_ptr<Analyzed> take(Streams io, int& exitCode);

private:
    std::ostringstream m_out, m_err;
    int m_code = kExitOk;
    std::unique_ptr<Analyzed> m_result;
    std::jthread m_thread; // last: stopped and joined before the rest goes
};

// --max-cycles N / --max-bundles N / --max-memory SIZE at args[i] (every command that replays takes them):
// consumes the value and sets the limit (0: none). Returns false if args[i] is none of them; sets `error` if
// its value is bad.
bool takeLimitOption(const std::vector<std::string>& args, std::size_t& i, sim::ReplayOptions& options,
                     std::string& error);
// --threads N at args[i] (analyze, report): consumes N, at most that many what-ifs replay side by side
// (1..256). Returns false if args[i] is not it; sets `error` if its value is bad.
bool takeThreadsOption(const std::vector<std::string>& args, std::size_t& i, unsigned& threads,
                       std::string& error);
// The option that raises the limit a replay stopped at (ReplayResult::limit).
std::string limitOption(const sim::ReplayResult& result);

} // namespace xps::cli

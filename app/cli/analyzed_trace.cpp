#include "analyzed_trace.h"

#include "suggest/propose.h"
#include "trace/trace_io.h"
#include "what_if.h"

namespace xps::cli {

std::unique_ptr<Analyzed> analyzeFile(const std::string& path, Streams io, int& exitCode, bool measure)
{
    auto a = std::make_unique<Analyzed>();
    auto loaded = trace::loadTrace(path);
    if (!loaded) {
        exitCode = inputError(io, loaded.error());
        return nullptr;
    }
    a->trace = std::move(loaded).value();
    a->result = sim::replay(a->trace, {sim::ReplayMode::Full}, a->store);
    if (a->result.fault) {
        io.err << path << ": replay stopped: " << a->result.fault->toString() << "\n";
        exitCode = kExitBadInput;
        return nullptr;
    }
    if (a->result.status == sim::ReplayResult::Status::LimitReached) {
        // Analysing part of a run would mislead: the program did not end (`replay --max-cycles` shows it).
        io.err << path << ": replay stopped at " << a->result.limitMessage
               << "; the program did not end, so there is nothing whole to analyse\n";
        exitCode = kExitBadInput;
        return nullptr;
    }
    a->view = std::make_unique<analysis::ReplayView>(
        analysis::ReplayView{a->trace, a->store, a->result.totalCycles, a->result.chips});
    a->analyses = analysis::analyzeReplay(*a->view);
    a->suggestions = suggest::proposeSuggestions(*a->view, a->analyses);
    if (measure)
        sim::measureSuggestions(a->suggestions, a->trace, a->result);
    return a;
}

} // namespace xps::cli

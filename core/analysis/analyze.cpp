#include "analysis/analyze.h"

#include <exception>
#include <thread>

namespace xps::analysis {

// The dependency graph and its critical-path walk are the longest part; they read only the DMA records,
// so they run on a second thread while the DMA, VMEM, summary and collective analyses run here.
std::unique_ptr<DependencyGraph> analyzeReplayInPlace(const ReplayView& replay, Analyses& analyses,
                                                      bool secondThread)
{
    analyses.dma = collectDmas(replay);
    std::unique_ptr<DependencyGraph> graph;
    std::exception_ptr walkerFailed; // a Cancelled (or any error) on the second thread, rethrown here
    const auto build = [&] {
        try {
            graph = std::make_unique<DependencyGraph>(replay, analyses.dma);
        } catch (...) {
            walkerFailed = std::current_exception();
        }
    };
    std::thread walker;
    if (secondThread)
        walker = std::thread(build);
    else
        build();
    try {
        finishDmaAnalysis(replay, analyses.dma);
        analyses.summary = summarize(replay);
        analyses.vmem = analyzeVmem(replay, analyses.dma);
        analyses.collectives = analyzeCollectives(replay);
    } catch (...) {
        if (walker.joinable())
            walker.join();
        throw;
    }
    if (walker.joinable())
        walker.join();
    if (walkerFailed)
        std::rethrow_exception(walkerFailed);
    analyses.criticalPath = graph->takeCriticalPath();
    return graph;
}

Analyses analyzeReplay(const ReplayView& replay, bool secondThread)
{
    Analyses a;
    analyzeReplayInPlace(replay, a, secondThread);
    return a;
}

} // namespace xps::analysis

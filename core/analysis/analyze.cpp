#include "analysis/analyze.h"

namespace xps::analysis {

Analyses analyzeReplay(const ReplayView& replay)
{
    Analyses a;
    a.summary = summarize(replay);
    a.dma = analyzeDmas(replay);
    a.vmem = analyzeVmem(replay, a.dma);
    a.collectives = analyzeCollectives(replay);
    a.criticalPath = DependencyGraph(replay, a.dma).criticalPath();
    return a;
}

std::unique_ptr<DependencyGraph> analyzeReplayInPlace(const ReplayView& replay, Analyses& analyses)
{
    analyses.summary = summarize(replay);
    analyses.dma = analyzeDmas(replay);
    analyses.vmem = analyzeVmem(replay, analyses.dma);
    analyses.collectives = analyzeCollectives(replay);
    auto graph = std::make_unique<DependencyGraph>(replay, analyses.dma);
    analyses.criticalPath = graph->criticalPath();
    return graph;
}

} // namespace xps::analysis

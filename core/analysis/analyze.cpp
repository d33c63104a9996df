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

} // namespace xps::analysis

#pragma once
// Every analysis of one replay, run together (what `xpushark-cli analyze`, the report and the views use).

#include "analysis/collectives.h"
#include "analysis/dependencies.h"
#include "analysis/dma_analysis.h"
#include "analysis/summary.h"
#include "analysis/vmem_analysis.h"

#include <memory>

namespace xps::analysis {

struct Analyses
{
    Summary summary;
    DmaAnalysis dma;
    VmemAnalysis vmem;
    CollectiveAnalysis collectives;
    CriticalPath criticalPath;
};

// With `secondThread`, the dependency graph and critical path are built on a thread of their own beside
// the other analyses (the CLI's default); without, one thread does all (an interactive caller on a small
// machine keeps a core free for its GUI).
Analyses analyzeReplay(const ReplayView& replay, bool secondThread = true);

// Both throw Cancelled (util/cancel.h) once replay.stop is requested, within a few milliseconds at any
// stage; `analyses` then holds part of the results and is to be discarded.
//
// The same into `analyses`, keeping the dependency graph for callers that explore it (the graph view). The
// graph refers to `replay` and `analyses.dma`: neither may move while it lives.
std::unique_ptr<DependencyGraph> analyzeReplayInPlace(const ReplayView& replay, Analyses& analyses,
                                                      bool secondThread = true);

} // namespace xps::analysis

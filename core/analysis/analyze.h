#pragma once
// Every analysis of one replay, run together (what `xpushark-cli analyze`, the report and the views use).

#include "analysis/collectives.h"
#include "analysis/dependencies.h"
#include "analysis/dma_analysis.h"
#include "analysis/summary.h"
#include "analysis/vmem_analysis.h"

namespace xps::analysis {

struct Analyses
{
    Summary summary;
    DmaAnalysis dma;
    VmemAnalysis vmem;
    CollectiveAnalysis collectives;
    CriticalPath criticalPath;
};

Analyses analyzeReplay(const ReplayView& replay);

} // namespace xps::analysis

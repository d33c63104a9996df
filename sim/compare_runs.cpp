#include "compare_runs.h"

namespace xps::sim {

std::vector<MetricRow> compareAnalyses(const analysis::Analyses& baseline, const analysis::Analyses& changed)
{
    std::vector<MetricRow> rows;
    auto add = [&](std::string name, double a, double b, std::string unit, bool lowerIsBetter = true) {
        rows.push_back({std::move(name), a, b, std::move(unit), lowerIsBetter});
    };
    const analysis::Summary& a = baseline.summary;
    const analysis::Summary& b = changed.summary;
    add("total cycles", static_cast<double>(a.totalCycles), static_cast<double>(b.totalCycles), "cycles");
    add("time", a.microseconds, b.microseconds, "us");
    add("MXU utilization", 100.0 * a.mxuUtilization, 100.0 * b.mxuUtilization, "%", false);
    add("HBM bandwidth utilization", 100.0 * a.hbmUtilization, 100.0 * b.hbmUtilization, "%", false);
    add("exposed DMA time", static_cast<double>(baseline.dma.exposedCycles), static_cast<double>(changed.dma.exposedCycles),
        "cycles");
    add("serialized DMA pairs", static_cast<double>(baseline.dma.serialized.size()),
        static_cast<double>(changed.dma.serialized.size()), "");
    add("mean DMA concurrency", baseline.dma.meanConcurrency, changed.dma.meanConcurrency, "", false);
    add("VMEM peak", static_cast<double>(baseline.vmem.peakLiveBytes), static_cast<double>(changed.vmem.peakLiveBytes),
        "bytes");
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (a.stallCycles[r] || b.stallCycles[r])
            add("stall: " + std::string(events::stallReasonName(static_cast<events::StallReason>(r))),
                static_cast<double>(a.stallCycles[r]), static_cast<double>(b.stallCycles[r]), "cycles");
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (baseline.criticalPath.cycles[k] || changed.criticalPath.cycles[k])
            add("critical path: " + std::string(analysis::pathKindName(static_cast<analysis::PathKind>(k))),
                static_cast<double>(baseline.criticalPath.cycles[k]), static_cast<double>(changed.criticalPath.cycles[k]),
                "cycles");
    return rows;
}

RunComparison compareChange(const trace::Trace& trace, ReplayResult& baseline,
                            const analysis::Analyses& baselineAnalyses, const suggest::Change& change,
                            std::stop_token stop, ChangedRun* keep)
{
    RunComparison comparison;
    ChangedRun local;
    ChangedRun& run = keep ? *keep : local;
    comparison.measurement = measureChange(trace, baseline, change, stop, &run);
    using Verdict = suggest::Measurement::Verdict;
    const Verdict v = comparison.measurement.verdict;
    if (v == Verdict::Failed || v == Verdict::Cancelled)
        return comparison;
    const analysis::ReplayView view{run.trace, run.store, run.result.totalCycles, run.result.chips, stop};
    try {
        comparison.rows = compareAnalyses(baselineAnalyses, analysis::analyzeReplay(view));
    } catch (const Cancelled&) {
        comparison.measurement.verdict = Verdict::Cancelled; // measured, but its analyses were cut short
    }
    return comparison;
}

} // namespace xps::sim

#pragma once
// "Apply and compare": replays a suggestion's changed trace and sets its numbers beside the baseline's,
// metric by metric (cycles, utilizations, exposed DMA time, stalls by reason, critical-path composition),
// with the output check that decides whether the change may be kept.

#include "analysis/analyze.h"
#include "what_if.h"

#include <string>
#include <vector>

namespace xps::sim {

struct MetricRow
{
    std::string name;
    double baseline = 0.0;
    double changed = 0.0;
    std::string unit;          // "cycles", "%", "bytes"
    bool lowerIsBetter = true; // for colouring the delta
    double delta() const { return changed - baseline; }
};

struct RunComparison
{
    suggest::Measurement measurement;
    std::vector<MetricRow> rows; // empty if the changed trace did not replay to completion
};

// The rows for two analysed replays of the same program (before and after a change).
std::vector<MetricRow> compareAnalyses(const analysis::Analyses& baseline, const analysis::Analyses& changed);

// `baseline` is the full-mode replay of `trace`, `baselineAnalyses` its analyses. A stop requested at any
// point (the replay, the comparison of outputs, the analyses) ends it within milliseconds as Cancelled.
// With `keep`, the changed trace and its replay (events included) stay there for whoever shows the fixed run
// next (the explorer's Open fixed run), instead of being replayed once more.
RunComparison compareChange(const trace::Trace& trace, ReplayResult& baseline,
                            const analysis::Analyses& baselineAnalyses, const suggest::Change& change,
                            std::stop_token stop = {}, ChangedRun* keep = nullptr);

} // namespace xps::sim

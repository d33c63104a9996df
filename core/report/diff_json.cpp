#include "report/diff_json.h"

namespace xps::report {
namespace {

using nlohmann::ordered_json;

ordered_json comparedJson(const analysis::Compared& c)
{
    const std::optional<double> percent = c.percent();
    return {{"baseline", c.baseline},
            {"other", c.other},
            {"delta", c.delta()},
            {"percent", percent ? ordered_json(*percent) : ordered_json()}};
}

// Per stall reason; `all`: every reason (the totals), else only those either run has (a region's row).
ordered_json stallsJson(const analysis::Compared (&stalls)[events::kStallReasonCount], bool all)
{
    ordered_json j = ordered_json::object();
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (all || stalls[r].baseline || stalls[r].other)
            j[std::string(events::stallReasonName(static_cast<events::StallReason>(r)))] =
                comparedJson(stalls[r]);
    return j;
}

ordered_json runJson(const analysis::RunTotals& run, std::uint64_t cycles)
{
    return {{"file", run.name},
            {"chips", run.chips},
            {"total_cycles", cycles},
            {"microseconds", run.microseconds}};
}

} // namespace

ordered_json diffToJson(const analysis::RunDiff& d)
{
    ordered_json j;
    j["format"] = "xpushark-diff";
    j["version"] = kDiffJsonVersion;
    j["kind"] = "replays";
    j["baseline"] = runJson(d.baseline, d.cycles.baseline);
    j["other"] = runJson(d.other, d.cycles.other);
    j["slowdown_percent"] = d.slowdownPercent();
    j["totals"] = {{"cycles", comparedJson(d.cycles)},
                   {"bundles", comparedJson(d.bundles)},
                   {"stall_cycles", comparedJson(d.stallCycles)},
                   {"dma_bytes", comparedJson(d.dmaBytes)},
                   {"exposed_dma_cycles", comparedJson(d.exposedDmaCycles)},
                   {"vmem_peak_bytes", comparedJson(d.vmemPeakBytes)}};
    j["stall_cycles_by_reason"] = stallsJson(d.stallByReason, true);
    ordered_json path = ordered_json::object();
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        path[std::string(analysis::pathKindName(static_cast<analysis::PathKind>(k)))] =
            comparedJson(d.criticalPath[k]);
    j["critical_path"] = std::move(path);
    j["regions"] = ordered_json::array();
    for (const analysis::RegionDelta& r : d.regions)
        j["regions"].push_back({{"path", r.path},
                                {"name", r.name},
                                {"level", r.level},
                                {"depth", r.depth},
                                {"in_baseline", r.inBaseline},
                                {"in_other", r.inOther},
                                {"instances", comparedJson(r.instances)},
                                {"cycles", comparedJson(r.cycles)},
                                {"bundles", comparedJson(r.bundles)},
                                {"stall_cycles", comparedJson(r.stallCycles)},
                                {"dma_bytes", comparedJson(r.dmaBytes)},
                                {"stall_cycles_by_reason", stallsJson(r.stallByReason, false)}});
    j["alignment"] = ordered_json::array();
    for (const analysis::ChipAlignment& a : d.alignment)
        j["alignment"].push_back({{"chip", a.chip.value},
                                  {"aligned", a.aligned},
                                  {"matched", a.matched},
                                  {"inserted", a.inserted},
                                  {"removed", a.removed}});
    j["pcs"] = ordered_json::array();
    for (const analysis::PcDelta& p : d.pcs)
        j["pcs"].push_back({{"chip", p.chip.value},
                            {"baseline_pc", p.baselinePc ? ordered_json(*p.baselinePc) : ordered_json()},
                            {"other_pc", p.otherPc ? ordered_json(*p.otherPc) : ordered_json()},
                            {"bundle", p.text},
                            {"executions", comparedJson(p.executions)},
                            {"stall_cycles", comparedJson(p.stallCycles)},
                            {"stall_cycles_by_reason", stallsJson(p.stallByReason, false)},
                            {"cycles", comparedJson(p.cycles)},
                            {"dma_bytes", comparedJson(p.dmaBytes)},
                            {"exposed_dma_cycles", comparedJson(p.exposedDmaCycles)}});
    return j;
}

ordered_json profileDiffToJson(const profile::ProfileDiff& d)
{
    ordered_json j;
    j["format"] = "xpushark-diff";
    j["version"] = kDiffJsonVersion;
    j["kind"] = "profiles";
    j["baseline"] = {{"file", d.baselineName}, {"span_ns", d.span.baseline}};
    j["other"] = {{"file", d.otherName}, {"span_ns", d.span.other}};
    j["slowdown_percent"] = d.slowdownPercent();
    j["span_ns"] = comparedJson(d.span);
    if (!d.window.empty())
        j["window"] = {{"name", d.window}, {"span_ns", comparedJson(d.windowSpan)}};
    j["devices"] = ordered_json::array();
    for (const profile::DeviceDelta& dev : d.devices)
        j["devices"].push_back({{"name", dev.name},
                                {"in_baseline", dev.inBaseline},
                                {"in_other", dev.inOther},
                                {"busy_ns", comparedJson(dev.busy)},
                                {"compute_ns", comparedJson(dev.compute)},
                                {"communication_ns", comparedJson(dev.communication)},
                                {"communication_exposed_ns", comparedJson(dev.communicationExposed)},
                                {"memcpy_ns", comparedJson(dev.memcpy)},
                                {"memcpy_exposed_ns", comparedJson(dev.memcpyExposed)},
                                {"memset_ns", comparedJson(dev.memset)},
                                {"idle_ns", comparedJson(dev.idle)}});
    j["ops"] = ordered_json::array();
    for (const profile::OpDelta& op : d.ops)
        j["ops"].push_back({{"name", op.name},
                            {"category", op.category},
                            {"where", op.where},
                            {"in_baseline", op.inBaseline},
                            {"in_other", op.inOther},
                            {"count", comparedJson(op.count)},
                            {"total_ns", comparedJson(op.total)},
                            {"self_ns", comparedJson(op.self)},
                            {"device_ns", comparedJson(op.deviceTime)}});
    ordered_json path;
    path["length_ns"] = comparedJson(d.criticalPathLength);
    path["by_kind_ns"] = ordered_json::object();
    for (int k = 0; k < profile::kPathSegmentKindCount; ++k)
        path["by_kind_ns"][std::string(profile::pathSegmentName(static_cast<profile::PathSegmentKind>(k)))] =
            comparedJson(d.criticalPathByKind[k]);
    path["ops"] = ordered_json::array();
    for (const profile::PathOpDelta& op : d.criticalPathOps)
        path["ops"].push_back({{"name", op.name},
                               {"kind", std::string(profile::pathSegmentName(op.kind))},
                               {"on_path_ns", comparedJson(op.onPath)}});
    j["critical_path"] = std::move(path);
    return j;
}

} // namespace xps::report

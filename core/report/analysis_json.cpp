#include "report/analysis_json.h"

#include "events/events.h"
#include "util/strong_id_json.h"

namespace xps::report {
namespace {

using nlohmann::json;

json stallsJson(const std::uint64_t (&stalls)[events::kStallReasonCount])
{
    json j = json::object();
    for (int r = 1; r < events::kStallReasonCount; ++r)
        j[std::string(events::stallReasonName(static_cast<events::StallReason>(r)))] = stalls[r];
    return j;
}

json summaryJson(const analysis::Summary& s)
{
    json j;
    j["total_cycles"] = s.totalCycles;
    j["microseconds"] = s.microseconds;
    j["mxu_utilization"] = s.mxuUtilization;
    j["hbm_utilization"] = s.hbmUtilization;
    j["stall_cycles"] = stallsJson(s.stallCycles);
    j["chips"] = json::array();
    for (const analysis::ChipSummary& c : s.chips) {
        json u = json::object();
        for (int k = 0; k < events::kUnitCount; ++k)
            if (c.unitBusyCycles[k])
                u[std::string(isa::unitName(static_cast<isa::Unit>(k)))] = c.unitBusyCycles[k];
        j["chips"].push_back({{"chip", c.chip},
                              {"bundles", c.bundles},
                              {"instructions", c.instructions},
                              {"active_cycles", c.activeCycles},
                              {"mxu_utilization", c.mxuUtilization},
                              {"hbm_bytes", c.hbmBytes},
                              {"hbm_utilization", c.hbmUtilization},
                              {"unit_busy_cycles", u},
                              {"stall_cycles", stallsJson(c.stallCycles)}});
    }
    j["dma_paths"] = json::array();
    for (const analysis::DmaPath& p : s.dmaPaths)
        j["dma_paths"].push_back({{"path", p.name()}, {"transfers", p.transfers}, {"bytes", p.bytes}});
    j["regions"] = json::array();
    for (const analysis::RegionSummary& r : s.regions)
        j["regions"].push_back({{"path", r.path},
                                {"name", r.name},
                                {"level", r.level},
                                {"depth", r.depth},
                                {"instances", r.instances},
                                {"cycles", r.cycles},
                                {"bundles", r.bundles},
                                {"stall_cycles", stallsJson(r.stallCycles)},
                                {"mxu_utilization", r.mxuUtilization()},
                                {"dma_bytes", r.dmaBytes}});
    return j;
}

json dmaJson(const analysis::DmaAnalysis& d)
{
    json j;
    j["transfers"] = d.dmas.size();
    j["exposed_cycles"] = d.exposedCycles;
    j["max_concurrency"] = d.maxConcurrency;
    j["mean_concurrency"] = d.meanConcurrency;
    j["engines"] = json::array();
    for (const analysis::EngineUse& e : d.engines)
        j["engines"].push_back({{"chip", e.chip},
                                {"engine", e.engine},
                                {"transfers", e.transfers},
                                {"bytes", e.bytes},
                                {"busy_cycles", e.busyCycles},
                                {"queue_delay_cycles", e.queueDelayCycles},
                                {"occupancy", e.occupancy}});
    j["balance"] = json::array();
    for (const analysis::EngineBalance& b : d.balance)
        j["balance"].push_back({{"chip", b.chip},
                                {"engines_used", b.enginesUsed},
                                {"engines", b.engines},
                                {"imbalance", b.imbalance},
                                {"queue_delay_cycles", b.queueDelayCycles}});
    j["serialized"] = json::array();
    for (const analysis::SerializedPair& p : d.serialized)
        j["serialized"].push_back({{"first_dma", p.first},
                                   {"second_dma", p.second},
                                   {"chip", p.chip},
                                   {"wait_pc", p.waitPc},
                                   {"overlap_cycles", p.overlapCycles}});
    j["by_pc"] = json::array();
    for (const analysis::DmaPcGroup& g : d.byPc)
        j["by_pc"].push_back({{"chip", g.chip},
                              {"pc", g.pc},
                              {"engine", g.engine},
                              {"transfers", g.transfers},
                              {"bytes", g.bytes},
                              {"exposed_cycles", g.exposedCycles},
                              {"late_cycles", g.lateCycles},
                              {"hideable_cycles", g.hideableCycles},
                              {"small_transfers", g.smallTransfers},
                              {"setup_cycles", g.setupCycles}});
    return j;
}

json vmemJson(const analysis::VmemAnalysis& v)
{
    json j;
    j["capacity"] = v.capacity;
    j["peak_live_bytes"] = v.peakLiveBytes;
    j["unused_fraction"] = v.unusedFraction();
    j["chips"] = json::array();
    for (const analysis::VmemChipUse& c : v.chips)
        j["chips"].push_back({{"chip", c.chip},
                              {"peak_live_bytes", c.peakLiveBytes},
                              {"peak_cycle", c.peakCycle},
                              {"touched_bytes", c.touchedBytes}});
    j["buffers"] = json::array();
    for (const analysis::BufferLiveRange& b : v.buffers) {
        json x = {{"chip", b.chip},          {"name", b.name},           {"address", b.address},
                  {"size", b.size},          {"alias", b.alias},         {"accessed", b.accessed},
                  {"read_bytes", b.readBytes}, {"write_bytes", b.writeBytes}};
        if (b.accessed) {
            x["first_access"] = b.firstAccess;
            x["last_access"] = b.lastAccess;
        }
        j["buffers"].push_back(x);
    }
    j["single_buffered"] = json::array();
    for (const analysis::SingleBufferedLoop& l : v.singleBuffered)
        j["single_buffered"].push_back({{"chip", l.chip},
                                        {"buffer", l.buffer},
                                        {"buffer_bytes", l.bufferBytes},
                                        {"dma_pc", l.dmaPc},
                                        {"refills", l.refills},
                                        {"exposed_cycles", l.exposedCycles},
                                        {"fits_twice", l.fitsTwice}});
    return j;
}

json pathJson(const analysis::CriticalPath& p)
{
    json j;
    j["total_cycles"] = p.total();
    json composition = json::object();
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        composition[std::string(analysis::pathKindName(static_cast<analysis::PathKind>(k)))] = p.cycles[k];
    j["composition"] = composition;
    j["segment_count"] = p.segments.size();
    // The longest segments tell the story; all of them can be millions for a long replay.
    std::vector<const analysis::PathSegment*> longest;
    for (const analysis::PathSegment& s : p.segments)
        longest.push_back(&s);
    const std::size_t keep = std::min<std::size_t>(longest.size(), 50);
    std::partial_sort(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(keep), longest.end(),
                      [](const auto* a, const auto* b) { return a->to - a->from > b->to - b->from; });
    j["longest_segments"] = json::array();
    for (std::size_t i = 0; i < keep; ++i) {
        const analysis::PathSegment& s = *longest[i];
        j["longest_segments"].push_back({{"kind", analysis::pathKindName(s.kind)},
                                         {"chip", s.chip},
                                         {"from", s.from},
                                         {"to", s.to},
                                         {"steps", s.steps}});
    }
    return j;
}

json collectivesJson(const analysis::CollectiveAnalysis& c)
{
    json j;
    j["used_links"] = c.usedLinks;
    j["max_skew_cycles"] = c.maxSkew;
    j["links"] = json::array();
    for (const analysis::LinkUse& l : c.links)
        j["links"].push_back({{"link", l.name},
                              {"to_chip", l.to},
                              {"transfers", l.transfers},
                              {"bytes", l.bytes},
                              {"busy_cycles", l.busyCycles},
                              {"utilization", l.utilization}});
    j["steps"] = json::array();
    for (const analysis::CollectiveStep& s : c.steps)
        j["steps"].push_back({{"region", s.region},
                              {"instance", s.instance},
                              {"enter", s.enter},
                              {"exit", s.exit},
                              {"skew_cycles", s.skew},
                              {"max_duration_cycles", s.maxDuration}});
    return j;
}

} // namespace

json suggestionToJson(const suggest::Suggestion& s)
{
    json change = {{"kind", suggest::changeKindName(s.change.kind)}, {"description", s.change.describe()}};
    switch (s.change.kind) {
    case suggest::ChangeKind::HoistDma:
        change["chips"] = s.change.chips;
        change["pc"] = s.change.pc;
        change["to_pc"] = s.change.toPc;
        change["new_bundle"] = s.change.newBundle;
        break;
    case suggest::ChangeKind::SplitDma:
        change["chips"] = s.change.chips;
        change["pc"] = s.change.pc;
        change["engine"] = s.change.engine;
        break;
    case suggest::ChangeKind::SplitRoute:
        change["chips"] = s.change.chips;
        change["pc"] = s.change.pc;
        change["engine"] = s.change.engine;
        change["first_bytes"] = s.change.firstBytes;
        break;
    case suggest::ChangeKind::DoubleBuffer:
        change["chips"] = s.change.chips;
        change["pcs"] = s.change.pcs;
        change["first_buffer"] = s.change.firstBuffer;
        change["second_buffer"] = s.change.secondBuffer;
        change["spare_register"] = s.change.spareRegister;
        break;
    case suggest::ChangeKind::RelaxWait:
        change["chips"] = s.change.chips;
        change["pc"] = s.change.pc;
        change["waits"] = json::array();
        for (std::size_t i = 0; i < s.change.pcs.size() && i < s.change.targets.size(); ++i)
            change["waits"].push_back({{"before_pc", s.change.pcs[i]}, {"target", s.change.targets[i]}});
        break;
    case suggest::ChangeKind::RebalanceEngines:
        change["chips"] = s.change.chips;
        change["engines"] = json::array();
        for (const auto& [pc, engine] : s.change.engines)
            change["engines"].push_back({{"pc", pc}, {"engine", engine}});
        break;
    case suggest::ChangeKind::MachineParam:
    case suggest::ChangeKind::Regenerate:
        change["param"] = s.change.param;
        change["value"] = s.change.value;
        break;
    }
    json evidence = {{"dmas", s.evidence.dmas}, {"from_cycle", s.evidence.fromCycle}, {"to_cycle", s.evidence.toCycle}};
    evidence["pcs"] = json::array();
    for (const auto& [chip, pc] : s.evidence.pcs)
        evidence["pcs"].push_back({{"chip", chip}, {"pc", pc}});
    json j = {{"id", s.id},
              {"kind", s.kind},
              {"severity", suggest::severityName(s.severity)},
              {"title", s.title},
              {"explanation", s.explanation},
              {"what_if", s.whatIf},
              {"estimated_cycles", s.estimatedCycles},
              {"change", change},
              {"evidence", evidence}};
    if (s.measured) {
        j["baseline_cycles"] = s.measured->baselineCycles;
        j["new_cycles"] = s.measured->newCycles;
        j["gain_percent"] = s.measured->gainPercent;
        j["verdict"] = suggest::verdictName(s.measured->verdict);
        j["outputs_identical"] = s.measured->verdict == suggest::Measurement::Verdict::Improves ||
                                 s.measured->verdict == suggest::Measurement::Verdict::NoGain;
        if (!s.measured->detail.empty())
            j["detail"] = s.measured->detail;
    } else {
        j["verdict"] = "not measured";
    }
    return j;
}

namespace {
json measurementJson(const suggest::Measurement& m)
{
    json j = {{"baseline_cycles", m.baselineCycles},
              {"new_cycles", m.newCycles},
              {"gain_percent", m.gainPercent},
              {"verdict", suggest::verdictName(m.verdict)}};
    if (!m.detail.empty())
        j["detail"] = m.detail;
    return j;
}

json groupJson(const suggest::SuggestionGroup& g)
{
    json j = {{"kind", g.kind}, {"title", g.title}, {"members", g.members}, {"applied", g.applied}};
    j["combined"] = g.combined ? measurementJson(*g.combined) : json(nullptr);
    return j;
}
} // namespace

json analysisToJson(const analysis::ReplayView& replay, const analysis::Analyses& a,
                    const std::vector<suggest::Suggestion>& suggestions,
                    const std::vector<suggest::SuggestionGroup>& groups)
{
    json j;
    j["format"] = "xpushark-analysis";
    j["version"] = kAnalysisJsonVersion;
    j["trace"] = replay.trace.name;
    j["chips"] = replay.trace.chips.size();
    j["clock_mhz"] = replay.trace.machine.clockMhz;
    j["summary"] = summaryJson(a.summary);
    j["dma"] = dmaJson(a.dma);
    j["vmem"] = vmemJson(a.vmem);
    j["critical_path"] = pathJson(a.criticalPath);
    j["collectives"] = collectivesJson(a.collectives);
    j["suggestions"] = json::array();
    for (const suggest::Suggestion& s : suggestions)
        j["suggestions"].push_back(suggestionToJson(s));
    j["groups"] = json::array();
    for (const suggest::SuggestionGroup& g : groups)
        j["groups"].push_back(groupJson(g));
    return j;
}

} // namespace xps::report

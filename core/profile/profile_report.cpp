#include "profile/profile_report.h"
#include "profile/utilization_text.h"

#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace xps::profile {
std::string describeProfile(const Profile& p)
{
    std::ostringstream out;
    std::size_t processes = 0, threads = 0, device = 0, async = 0, counterTracks = 0;
    for (const Track& t : p.tracks) {
        processes += t.kind == TrackKind::Process;
        threads += t.kind == TrackKind::Thread && !t.device;
        device += t.kind == TrackKind::Thread && t.device;
        async += t.kind == TrackKind::Async;
        counterTracks += t.kind == TrackKind::Counter;
    }
    out << p.source << ": " << p.format << "\n";
    out << "  span " << p.timebase.ms(p.span()) << " ("
        << text::withThousands(static_cast<std::uint64_t>(std::max<Ticks>(p.span(), 0)))
        << (p.timebase.isNanoseconds() ? " ns)\n" : " ticks; " + p.timebase.describe() + ")\n");
    out << "  tracks: " << processes << " processes, " << threads << " host threads, " << device
        << " device streams, " << async << " async tracks, " << counterTracks << " counters\n";
    out << "  events: " << text::withThousands(p.slices.size()) << " slices, "
        << text::withThousands(p.counters.size()) << " counter samples, "
        << text::withThousands(p.flows.size()) << " flows; " << p.types.size() << " distinct names\n";
    if (p.eventCount() > 0) {
        char b[64];
        std::snprintf(b, sizeof b, "%.1f",
                      static_cast<double>(p.residentBytes()) / static_cast<double>(p.eventCount()));
        out << "  memory: " << text::formatBytes(p.residentBytes()) << " resident, " << b
            << " bytes per event\n";
    }
    for (const auto& [key, value] : p.metadata)
        out << "  " << key << ": " << (value.size() > 100 ? value.substr(0, 100) + "..." : value) << "\n";
    for (const Track& t : p.tracks)
        if (t.kind == TrackKind::Process)
            out << "  process " << t.pid << " \"" << t.name << "\"" << (t.device ? " (device)" : "") << "\n";
    if (!p.repairs.empty()) {
        out << "warnings:\n";
        for (const std::string& w : p.warningLines())
            out << "  " << w << "\n";
    }
    return out.str();
}

std::string idleDevicesLine(const ProfileAnalysis& a)
{
    constexpr std::size_t kNamed = 8;
    std::vector<const std::string*> idle;
    for (const DeviceBreakdown& d : a.devices)
        if (d.busy == 0)
            idle.push_back(&d.name);
    if (idle.empty())
        return {};
    std::string line =
        idle.size() == 1 ? "1 device ran nothing: " : std::to_string(idle.size()) + " devices ran nothing: ";
    for (std::size_t i = 0; i < idle.size() && i < kNamed; ++i)
        line += (i ? ", " : "") + *idle[i];
    if (idle.size() > kNamed)
        line += " and " + std::to_string(idle.size() - kNamed) + " more";
    return line;
}

std::string formatProfileAnalysis(const Profile& p, const ProfileAnalysis& a, std::size_t topOps)
{
    const Timebase& tb = a.timebase;
    std::ostringstream out;
    out << p.source << ": " << p.format << ", " << tb.ms(a.span) << "\n";
    if (const std::string idle = idleDevicesLine(a); !idle.empty())
        out << "\n" << idle << "\n";
    for (const DeviceBreakdown& d : a.devices) {
        if (d.busy == 0)
            continue; // named in the line above
        out << "\n"
            << d.name << ": busy " << formatPercent(d.busy, d.span) << " of the profile (idle "
            << tb.ms(d.idle()) << "), " << formatPercent(d.busy, d.activeSpan()) << " of its active span "
            << tb.ms(d.activeSpan()) << " (idle " << tb.ms(d.activeIdle()) << ")\n";
        out << "  compute " << tb.ms(d.compute) << ", communication " << tb.ms(d.communication)
            << " (exposed " << tb.ms(d.communicationExposed()) << ", overlapped "
            << formatPercent(d.communicationOverlapped, d.communication) << "), memcpy " << tb.ms(d.memcpy);
        if (d.memcpy > 0) // HTA's exposed copy time, then TraceLens's (not under communication either)
            out << " (exposed " << tb.ms(d.memcpyExposed()) << ", " << tb.ms(d.memcpyExposedTraceLens())
                << " under neither compute nor communication)";
        out << ", memset " << tb.ms(d.memset) << "\n";
        if (d.kernels.process.valid()) {
            out << "  GPU utilization " << kernelUtilizationText(p, d.kernels);
            if (d.kernels.smEfficiency)
                out << ", SM efficiency " << text::percentText(100 * *d.kernels.smEfficiency);
            if (d.kernels.occupancyPct)
                out << ", achieved occupancy " << text::percentText(*d.kernels.occupancyPct);
            out << "\n";
        }
        if (d.transferBytes > 0)
            out << "  transfers " << text::withThousands(d.transfers) << ", "
                << text::formatBytes(d.transferBytes) << "\n";
    }
    if (!a.streams.empty()) {
        out << "\nstreams:\n";
        char line[400];
        std::snprintf(line, sizeof line, "  %-36s %9s %14s %14s %22s\n", "stream", "items", "busy", "idle",
                      "waiting for launch");
        out << line;
        for (const StreamUse& s : a.streams) {
            if (s.communication) // waits for the next collective's data, not for launches
                std::snprintf(line, sizeof line, "  %-36s %9llu %14s %14s %22s\n",
                              s.name.substr(0, 36).c_str(), static_cast<unsigned long long>(s.items),
                              tb.ms(s.busy).c_str(), tb.ms(s.idle).c_str(), "(communication)");
            else
                std::snprintf(line, sizeof line, "  %-36s %9llu %14s %14s %14s in %5llu\n",
                              s.name.substr(0, 36).c_str(), static_cast<unsigned long long>(s.items),
                              tb.ms(s.busy).c_str(), tb.ms(s.idle).c_str(), tb.ms(s.launchIdle).c_str(),
                              static_cast<unsigned long long>(s.launchBoundGaps));
            out << line;
        }
    }
    if (a.launch.launches > 0)
        out << "\nlaunches: " << text::withThousands(a.launch.launches) << ", delay from call to start: mean "
            << tb.us(a.launch.meanDelay) << ", median " << tb.us(a.launch.p50Delay) << ", p95 "
            << tb.us(a.launch.p95Delay) << ", max " << tb.us(a.launch.maxDelay) << "; "
            << text::withThousands(a.launch.shortKernels) << " ran shorter than their launch call\n";
    if (const StepBreakdown& b = a.stepTimes; b.steps.annotated && !b.perStep.empty()) {
        // The TensorBoard plugin's overview: the average step, by what ran (profiler_steps.h).
        const auto avg = [&](double t) { return tb.ms(static_cast<Ticks>(std::llround(t))); };
        out << "\nsteps " << stepsLabel(b) << ": average " << avg(b.averageTotal) << ":";
        for (std::size_t k = 0; k < kStepRoleCount; ++k)
            if (b.present[k])
                out << " " << stepRoleName(static_cast<StepRole>(k)) << " " << avg(b.averageRole[k]) << " ("
                    << text::percentText(b.averageTotal > 0 ? 100 * b.averageRole[k] / b.averageTotal : 0)
                    << ")" << (k + 1 < kStepRoleCount ? "," : "");
        out << "\n";
    }
    if (!a.criticalPath.segments.empty()) {
        out << "\ncritical path " << tb.ms(a.criticalPath.length) << " (" << a.criticalPath.segments.size()
            << " segments"
            << (a.criticalPath.approximate ? ", approximate: too many synchronizing calls" : "") << "):";
        for (int k = 0; k < kPathSegmentKindCount; ++k)
            if (a.criticalPath.byKind[static_cast<std::size_t>(k)] > 0)
                out << " " << pathSegmentName(static_cast<PathSegmentKind>(k)) << " "
                    << formatPercent(a.criticalPath.byKind[static_cast<std::size_t>(k)],
                                     a.criticalPath.length)
                    << ";";
        out << "\n";
    }
    out << "\ntop operations by total time:\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-48s %-14s %-16s %8s %13s %13s %13s %13s\n", "name", "kind",
                  "device", "count", "total", "self", "mean", "device time");
    out << line;
    for (std::size_t i = 0; i < a.ops.size() && i < topOps; ++i) {
        const OpStats& o = a.ops[i];
        const std::string& name = p.string(p.types[o.type].name);
        const std::string device = o.process.valid() ? p.track(o.process).name : std::string();
        std::snprintf(line, sizeof line, "  %-48s %-14s %-16s %8llu %13s %13s %13s %13s\n",
                      (name.size() > 48 ? name.substr(0, 45) + "..." : name).c_str(),
                      std::string(sliceClassName(o.cls)).c_str(),
                      (device.size() > 16 ? "..." + device.substr(device.size() - 13) : device).c_str(),
                      static_cast<unsigned long long>(o.count), tb.ms(o.total).c_str(), tb.ms(o.self).c_str(),
                      tb.us(o.total / static_cast<Ticks>(o.count)).c_str(),
                      o.deviceTime ? tb.ms(o.deviceTime).c_str() : "");
        out << line;
    }
    if (!a.opCategories.empty()) {
        out << "\ndevice time by operator category (TraceLens's categories: each kernel charged to the "
               "operator that launched it):\n";
        for (const DeviceTimeShare& c : a.opCategories) {
            std::snprintf(line, sizeof line, "  %-24s %8llu %-9s %13s %6.1f%%\n", c.key.c_str(),
                          static_cast<unsigned long long>(c.count), c.count == 1 ? "launcher" : "launchers",
                          tb.ms(c.time).c_str(), c.percent);
            out << line;
        }
    }
    out << "\n" << findingsCaption(p) << ":\n";
    if (a.findings.empty())
        out << "  none\n";
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
        const ProfileFinding& f = a.findings[i];
        out << "  F" << i + 1 << " [" << f.kind << "] " << f.title << "\n      " << f.detail
            << "\n      up to " << tb.ms(f.estimatedSavings) << " ("
            << formatPercent(f.estimatedSavings, a.span) << "); look at " << tb.ms(f.from - p.startTime())
            << " .. " << tb.ms(f.to - p.startTime()) << "\n";
    }
    if (!p.repairs.empty()) {
        out << "\nimport warnings:\n";
        for (const std::string& w : p.warningLines())
            out << "  " << w << "\n";
    }
    return out.str();
}

namespace {

// The TensorBoard plugin's overview (profiler_steps.h): each role of the roles that occur, per step and on
// average.
template <typename ToNanos> nlohmann::json stepTimesJson(const StepBreakdown& b, const ToNanos& ns)
{
    using nlohmann::json;
    const auto roles = [&](const auto& value) {
        json r = json::object();
        for (std::size_t k = 0; k < kStepRoleCount; ++k)
            if (b.present[k])
                r[std::string(stepRoleJsonKey(static_cast<StepRole>(k))) + "_ns"] = value(k);
        return r;
    };
    json out = {{"from", b.steps.annotated ? "ProfilerStep annotations" : "host operators"},
                {"dropped_tail", b.steps.droppedTail}};
    json average = roles([&](std::size_t k) { return ns(std::llround(b.averageRole[k])); });
    average["total_ns"] = ns(std::llround(b.averageTotal));
    out["average"] = std::move(average);
    out["per_step"] = json::array();
    for (const StepCosts& c : b.perStep) {
        json step = roles([&](std::size_t k) { return ns(c.role[k]); });
        step["name"] = c.name;
        step["start_ns"] = ns(c.start);
        step["end_ns"] = ns(c.end);
        out["per_step"].push_back(std::move(step));
    }
    return out;
}

} // namespace

nlohmann::json profileAnalysisJson(const Profile& p, const ProfileAnalysis& a, std::size_t topOps)
{
    using nlohmann::json;
    const auto ns = [&](Ticks t) { return a.timebase.toNanos(t); };
    json j;
    j["format"] = "xpushark-profile-analysis";
    j["version"] = 1;
    j["source"] = p.source;
    j["input_format"] = p.format;
    j["start_ns"] = ns(p.startTime());
    j["span_ns"] = ns(a.span);
    if (!a.timebase.isNanoseconds())
        j["ns_per_tick"] = {a.timebase.nsNumerator, a.timebase.nsDenominator};
    j["devices"] = json::array();
    for (const DeviceBreakdown& d : a.devices)
        j["devices"].push_back(
            {{"name", d.name},
             {"busy_ns", ns(d.busy)},
             {"idle_ns", ns(d.idle())},
             {"active_start_ns", ns(d.activeStart)},
             {"active_span_ns", ns(d.activeSpan())},
             {"active_idle_ns", ns(d.activeIdle())},
             {"compute_ns", ns(d.compute)},
             {"communication_ns", ns(d.communication)},
             {"communication_exposed_ns", ns(d.communicationExposed())},
             {"memcpy_ns", ns(d.memcpy)},
             {"memcpy_exposed_ns", ns(d.memcpyExposed())},
             {"memcpy_exposed_tracelens_ns", ns(d.memcpyExposedTraceLens())},
             {"memset_ns", ns(d.memset)},
             {"gpu_utilization", d.kernels.process.valid() ? json(d.kernels.utilization) : json()},
             {"sm_efficiency", d.kernels.smEfficiency ? json(*d.kernels.smEfficiency) : json()},
             {"achieved_occupancy_pct", d.kernels.occupancyPct ? json(*d.kernels.occupancyPct) : json()},
             {"transfers", d.transfers},
             {"transfer_bytes", d.transferBytes}});
    j["streams"] = json::array();
    for (const StreamUse& s : a.streams)
        j["streams"].push_back({{"name", s.name},
                                {"items", s.items},
                                {"busy_ns", ns(s.busy)},
                                {"idle_ns", ns(s.idle)},
                                {"launch_idle_ns", ns(s.launchIdle)},
                                {"launch_bound_gaps", s.launchBoundGaps},
                                {"communication", s.communication}});
    j["launches"] = {{"count", a.launch.launches},
                     {"mean_delay_ns", ns(a.launch.meanDelay)},
                     {"p50_delay_ns", ns(a.launch.p50Delay)},
                     {"p95_delay_ns", ns(a.launch.p95Delay)},
                     {"max_delay_ns", ns(a.launch.maxDelay)},
                     {"shorter_than_launch", a.launch.shortKernels}};
    json path = {{"length_ns", ns(a.criticalPath.length)}, {"segments", a.criticalPath.segments.size()}};
    if (a.criticalPath.windowStart != INT64_MIN || a.criticalPath.windowEnd != INT64_MAX)
        path["window_ns"] = {ns(a.criticalPath.windowStart), ns(a.criticalPath.windowEnd)};
    if (a.criticalPath.approximate)
        path["approximate"] = true;
    for (int k = 0; k < kPathSegmentKindCount; ++k)
        path["by_kind_ns"][std::string(pathSegmentName(static_cast<PathSegmentKind>(k)))] =
            ns(a.criticalPath.byKind[static_cast<std::size_t>(k)]);
    j["critical_path"] = path;
    j["steps"] = stepTimesJson(a.stepTimes, ns);
    j["ops"] = json::array();
    for (std::size_t i = 0; i < a.ops.size() && i < topOps; ++i) {
        const OpStats& o = a.ops[i];
        j["ops"].push_back({{"name", p.string(p.types[o.type].name)},
                            {"category", p.string(p.types[o.type].category)},
                            {"device", o.process.valid() ? json(p.track(o.process).name) : json()},
                            {"kind", std::string(sliceClassName(o.cls))},
                            {"count", o.count},
                            {"total_ns", ns(o.total)},
                            {"self_ns", ns(o.self)},
                            {"min_ns", ns(o.min)},
                            {"max_ns", ns(o.max)},
                            {"device_ns", ns(o.deviceTime)},
                            {"device_total_ns", ns(o.deviceTotal)}});
    }
    j["op_categories"] = json::array();
    for (const DeviceTimeShare& c : a.opCategories)
        j["op_categories"].push_back(
            {{"category", c.key}, {"launchers", c.count}, {"time_ns", ns(c.time)}, {"percent", c.percent}});
    j["findings"] = json::array();
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
        const ProfileFinding& f = a.findings[i];
        j["findings"].push_back({{"id", "F" + std::to_string(i + 1)},
                                 {"kind", f.kind},
                                 {"title", f.title},
                                 {"detail", f.detail},
                                 {"estimated_savings_ns", ns(f.estimatedSavings)},
                                 {"from_ns", ns(f.from)},
                                 {"to_ns", ns(f.to)}});
    }
    j["warnings"] = p.warningLines();
    nlohmann::json repairs = nlohmann::json::array();
    for (const ImportRepair& r : p.repairs)
        repairs.push_back({{"kind", std::string(repairKindName(r.kind))},
                           {"count", r.count},
                           {"what", r.what},
                           {"first_at", r.firstAt}});
    j["repairs"] = std::move(repairs);
    return j;
}

std::string findingsCaption(const Profile& profile)
{
    if (profile.format == kReplayFormat)
        return "findings (estimated from the replay seen as a profile; the replay's suggestions measure each "
               "change by replaying it)";
    return "findings (estimated from the profile, not measured: an import has no program to re-simulate)";
}

} // namespace xps::profile

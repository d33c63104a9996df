// The report of an imported profile: what a review passes around for a PyTorch, JAX or Chakra trace, from
// the same analyses the profile explorer shows (profile/profile_analysis.h) and in the same three forms as
// a replay's report (report_formats.cpp).
#include "report/report.h"

#include "profile/profile_report.h"
#include "report/palette.h"
#include "report/report_entries.h"
#include "session/slice_anchor.h"

#include <algorithm>

namespace xps::report {
namespace {

using profile::formatMs;
using profile::formatPercent;
using profile::Nanos;

double percentOf(Nanos part, Nanos whole)
{
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Where each device's time went, as HTA's temporal breakdown splits it: a bar per device over the profile's
// span. Memsets count with copies here (both are transfers a kernel does not overlap by itself).
Figure deviceFigure(const profile::ProfileAnalysis& a)
{
    Figure f;
    f.id = "devices";
    f.title = "Where each device's time went";
    f.caption = "Each bar is the profile's span on one device: compute, communication and copies not hidden "
                "under compute, and idle time. Overlapped communication and copies count as compute.";
    f.unit = "%";
    f.fullScale = 100;
    for (const profile::DeviceBreakdown& d : a.devices) {
        const Nanos commExposed = d.communicationExposed();
        const Nanos copiesExposed = d.memcpyExposed() + d.memset;
        const Nanos compute = std::max<Nanos>(d.busy - commExposed - copiesExposed, 0);
        Figure::Row row;
        row.label = d.name;
        row.parts = {
            {"compute", percentOf(compute, d.span), palette::hex(palette::kBlue)},
            {"exposed communication", percentOf(commExposed, d.span), palette::hex(palette::kPurple)},
            {"exposed copies and memsets", percentOf(copiesExposed, d.span), palette::hex(palette::kOrange)},
            {"idle", percentOf(d.idle(), d.span), palette::hex(palette::kGrey)}};
        row.note = formatPercent(d.busy, d.span) + " busy";
        f.rows.push_back(std::move(row));
    }
    return f;
}

Table deviceTable(const profile::ProfileAnalysis& a)
{
    const profile::Timebase& tb = a.timebase;
    // Narrow columns: a printed page holds the table whole.
    const auto withExposed = [&tb](profile::Ticks all, profile::Ticks exposed) {
        return tb.us(all) + " / " + tb.us(exposed);
    };
    Table t{"devices",
            "Devices",
            {"device", "busy", "compute", "comm. / exposed", "copies / exposed", "idle"},
            {false, true, true, true, true, true},
            {}};
    for (const profile::DeviceBreakdown& d : a.devices)
        t.rows.push_back({d.name, formatPercent(d.busy, d.span), tb.us(d.compute),
                          withExposed(d.communication, d.communicationExposed()),
                          withExposed(d.memcpy, d.memcpyExposed()), tb.us(d.idle())});
    return t;
}

Table operationsTable(const profile::Profile& p, const profile::ProfileAnalysis& a, std::size_t top)
{
    // No class column: the page holds five (the analysis JSON carries each operation's class).
    Table t{"operations",
            "Top operations by total time",
            {"operation", "count", "total", "self", "device time"},
            {false, true, true, true, true},
            {}};
    const profile::Timebase& tb = a.timebase;
    for (std::size_t i = 0; i < std::min(top, a.ops.size()); ++i) {
        const profile::OpStats& op = a.ops[i];
        t.rows.push_back({detail::elided(p.string(p.types[op.type].name)), std::to_string(op.count),
                          tb.ms(op.total), tb.ms(op.self), tb.ms(op.deviceTime)});
    }
    return t;
}

Table findingsTable(const profile::Profile& p, const profile::ProfileAnalysis& a)
{
    Table t{"findings", "Findings", {"#", "finding", "up to", "where"}, {true, false, true, false}, {}};
    const profile::Timebase& tb = a.timebase;
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
        const profile::ProfileFinding& f = a.findings[i];
        t.rows.push_back({std::to_string(i + 1), f.title, tb.ms(f.estimatedSavings),
                          tb.ms(f.from - p.startTime()) + "-" + tb.ms(f.to - p.startTime())});
    }
    return t;
}

} // namespace

Report buildImportedReport(const profile::Profile& profile, const profile::ProfileAnalysis& analysis,
                           const std::string& source, const std::string& generator)
{
    Report r;
    r.imported = true;
    r.timeOrigin = profile.startTime();
    r.timebase = profile.timebase;
    const profile::Timebase& tb = profile.timebase;
    r.title = "Profile report: " + source.substr(source.find_last_of('/') + 1);
    r.source = source;
    r.generator = generator;
    r.machine = profile.format + ", " + std::to_string(analysis.devices.size()) + " device(s), " +
                std::to_string(profile.slices.size()) + " slices";
    r.headline = {{"Span", tb.ms(analysis.span)},
                  {"Devices", std::to_string(analysis.devices.size())},
                  {"Critical path", tb.ms(analysis.criticalPath.length)},
                  {"Kernel launches", std::to_string(analysis.launch.launches)},
                  {"Launch delay, median / p95",
                   tb.ms(analysis.launch.p50Delay) + " / " + tb.ms(analysis.launch.p95Delay)},
                  {"Findings", std::to_string(analysis.findings.size())}};
    if (!analysis.devices.empty())
        r.figures.push_back(deviceFigure(analysis));
    r.chips = deviceTable(analysis);
    r.regions = operationsTable(profile, analysis, 20);
    r.findings = findingsTable(profile, analysis);
    for (std::size_t i = 0; i < analysis.findings.size(); ++i)
        r.findingDetails.push_back(std::to_string(i + 1) + ". " + analysis.findings[i].detail);
    r.analysis = profile::profileAnalysisJson(profile, analysis);
    return r;
}

void addImportedSessionContent(Report& report, const std::vector<session::Annotation>& notes,
                               const std::vector<session::Bookmark>& bookmarks)
{
    std::vector<session::Annotation> inTimeOrder = notes; // numbered as the explorer numbers them
    std::stable_sort(
        inTimeOrder.begin(), inTimeOrder.end(),
        [](const session::Annotation& a, const session::Annotation& b) { return a.fromCycle < b.fromCycle; });
    for (const session::Annotation& n : inTimeOrder) {
        Annotation a{n.text, n.fromCycle, n.toCycle};
        if (n.slice) // what it is pinned to, for a reader without the profile at hand
            a.text = n.slice->name + " on " + n.slice->track + ": " + a.text;
        report.annotations.push_back(std::move(a));
    }
    for (const session::Bookmark& b : bookmarks)
        report.bookmarks.push_back({b.name, b.fromCycle, b.toCycle});
}

} // namespace xps::report

// A report's comparison of two imported profiles (report/comparison.h), at the level HTA's TraceDiff and
// TraceLens compare PyTorch runs: the span and each device's time breakdown side by side, the operations
// that changed most bar beside bar, and the largest changes of operations with their numbers in words.
#include "report/comparison.h"

#include "report/delta_text.h"
#include "report/diff_json.h"
#include "report/palette.h"
#include "report/report_entries.h"

#include <algorithm>

namespace xps::report {
namespace {

using delta::percentCell;
using delta::percentText;
using delta::signedUs;
using profile::formatUs;

constexpr std::size_t kFigureOps = 6;
constexpr std::size_t kListedOpChanges = 5;
constexpr std::size_t kOpTableRows = 25;

using delta::kBaselineColumn;
using delta::kOtherColumn;

std::int64_t signedNs(std::uint64_t ns)
{
    return static_cast<std::int64_t>(ns);
}

std::vector<std::string> timeRow(const std::string& label, const Compared& c)
{
    return {label, formatUs(signedNs(c.baseline)), formatUs(signedNs(c.other)), signedUs(c.delta()),
            percentCell(c)};
}

// "1.20 ms -> 1.32 ms (+10.0%)".
std::string timeFromTo(const Compared& c)
{
    std::string s = formatUs(signedNs(c.baseline)) + " -> " + formatUs(signedNs(c.other));
    if (const std::string p = percentText(c); !p.empty() && c.delta() != 0)
        s += " (" + p + ")";
    return s;
}

std::string whereText(const profile::OpDelta& op)
{
    return op.where == "host" ? std::string("on the host") : "on " + op.where;
}

Table totalsTable(const profile::ProfileDiff& d)
{
    Table t{"comparison-totals",
            "Span and devices",
            {"", kBaselineColumn, kOtherColumn, "change", "%"},
            {false, true, true, true, true},
            {}};
    t.rows.push_back(timeRow("span", d.span));
    for (const profile::DeviceDelta& dev : d.devices) {
        const std::string state = dev.inBaseline ? dev.inOther ? "" : " (baseline only)" : " (this run only)";
        t.rows.push_back(timeRow(dev.name + state + ": busy", dev.busy));
        const std::pair<const char*, const Compared*> parts[] = {
            {"compute", &dev.compute},
            {"communication", &dev.communication},
            {"communication not under compute", &dev.communicationExposed},
            {"copies", &dev.memcpy},
            {"copies not under compute", &dev.memcpyExposed},
            {"memsets", &dev.memset},
            {"idle", &dev.idle}};
        for (const auto& [name, value] : parts)
            if (value->baseline || value->other)
                t.rows.push_back(timeRow(std::string("  ") + name, *value));
    }
    return t;
}

// Microseconds, as the figure's bars are drawn.
double us(std::uint64_t ns)
{
    return static_cast<double>(ns) / 1e3;
}

Figure deviceFigure(const profile::ProfileDiff& d)
{
    Figure f{"comparison-devices",
             "Where each device's time went, baseline and this run",
             "Each device's span in the baseline (upper bar) and this run: compute, communication and copies "
             "not hidden under compute, and idle time; the number after each bar is the device's busy share "
             "of it.",
             "us",
             {}};
    for (const profile::DeviceDelta& dev : d.devices) {
        const auto parts = [&](bool other) {
            const auto side = [other](const Compared& c) { return other ? c.other : c.baseline; };
            const std::uint64_t exposedComm = side(dev.communicationExposed);
            const std::uint64_t exposedCopies = side(dev.memcpyExposed) + side(dev.memset);
            const std::uint64_t busy = side(dev.busy);
            const std::uint64_t compute = busy - std::min(busy, exposedComm + exposedCopies);
            return std::vector<Figure::Part>{
                {"compute", us(compute), palette::hex(palette::kBlue)},
                {"exposed communication", us(exposedComm), palette::hex(palette::kPurple)},
                {"exposed copies and memsets", us(exposedCopies), palette::hex(palette::kOrange)},
                {"idle", us(side(dev.idle)), palette::hex(palette::kGrey)}};
        };
        // The bar is the profile's span: the device's busy and idle time (profile/profile_analysis.h).
        const auto busyShare = [](std::uint64_t busy, std::uint64_t idle) {
            return profile::formatPercent(signedNs(busy), signedNs(busy + idle)) + " busy";
        };
        f.rows.push_back({dev.name + " · " + kBaselineColumn, parts(false),
                          busyShare(dev.busy.baseline, dev.idle.baseline)});
        f.rows.push_back(
            {dev.name + " · " + kOtherColumn, parts(true), busyShare(dev.busy.other, dev.idle.other)});
    }
    return f;
}

Figure opFigure(const profile::ProfileDiff& d)
{
    Figure f{"comparison-ops",
             "Operations that changed most, baseline and this run",
             "Each operation's total time in the baseline and in this run; the number after this run's bar "
             "is the change.",
             "us",
             {}};
    for (const profile::OpDelta& op : d.ops) {
        if (f.rows.size() >= 2 * kFigureOps || op.total.delta() == 0)
            break;
        const std::string name = detail::elided(op.name, 14); // with " · this run", fits the label column
        f.rows.push_back({name + " · " + kBaselineColumn,
                          {{kBaselineColumn, us(op.total.baseline), palette::hex(palette::kSkyBlue)}},
                          formatUs(signedNs(op.total.baseline))});
        f.rows.push_back({name + " · " + kOtherColumn,
                          {{kOtherColumn, us(op.total.other), palette::hex(palette::kBlue)}},
                          signedUs(op.total.delta())});
    }
    return f;
}

// Both paths' lengths split by kind of segment.
Figure pathFigure(const profile::ProfileDiff& d)
{
    Figure f{
        "comparison-critical-path",
        "Critical path, baseline and this run",
        "The longest chain of dependent work in each profile (HTA's model; a replay's own path for a replay), by "
        "what its time was spent on; "
        "the number after this run's bar is its length's change.",
        "us",
        {}};
    const auto parts = [&](bool other) {
        std::vector<Figure::Part> out;
        for (int k = 0; k < profile::kPathSegmentKindCount; ++k)
            if (d.criticalPathByKind[k].baseline || d.criticalPathByKind[k].other) {
                const auto kind = static_cast<profile::PathSegmentKind>(k);
                out.push_back({std::string(profile::pathSegmentName(kind)),
                               us(other ? d.criticalPathByKind[k].other : d.criticalPathByKind[k].baseline),
                               palette::hex(palette::pathSegmentColour(kind))});
            }
        return out;
    };
    f.rows.push_back({std::string("path · ") + kBaselineColumn, parts(false),
                      formatUs(signedNs(d.criticalPathLength.baseline))});
    f.rows.push_back(
        {std::string("path · ") + kOtherColumn, parts(true), signedUs(d.criticalPathLength.delta())});
    return f;
}

Table pathTable(const profile::ProfileDiff& d)
{
    Table t{"comparison-critical-path",
            "Critical paths side by side",
            {"", kBaselineColumn, kOtherColumn, "change", "%"},
            {false, true, true, true, true},
            {}};
    t.rows.push_back(timeRow("length", d.criticalPathLength));
    for (int k = 0; k < profile::kPathSegmentKindCount; ++k)
        if (d.criticalPathByKind[k].baseline || d.criticalPathByKind[k].other)
            t.rows.push_back(timeRow(
                "  " + std::string(profile::pathSegmentName(static_cast<profile::PathSegmentKind>(k))),
                d.criticalPathByKind[k]));
    constexpr std::size_t kPathOps = 10;
    for (std::size_t i = 0; i < std::min(d.criticalPathOps.size(), kPathOps); ++i) {
        const profile::PathOpDelta& op = d.criticalPathOps[i];
        if (op.onPath.delta() == 0)
            break;
        t.rows.push_back(timeRow("on the path: " + detail::elided(op.name) + " (" +
                                     std::string(profile::pathSegmentName(op.kind)) + ")",
                                 op.onPath));
    }
    return t;
}

std::string opChange(const profile::OpDelta& op)
{
    std::string s = "Operation " + op.name + " (" + op.category + ", " + whereText(op) + "): ";
    if (!op.inBaseline)
        s += "new in this run, ";
    else if (!op.inOther)
        s += "not in this run, ";
    s += "total " + timeFromTo(op.total) + ". Evidence: " +
         (op.count.delta() == 0
              ? std::to_string(op.count.other)
              : std::to_string(op.count.baseline) + " -> " + std::to_string(op.count.other)) +
         " calls; self time " + signedUs(op.self.delta());
    if (op.where == "host" && (op.deviceTime.baseline || op.deviceTime.other))
        s += "; device time it launched " + signedUs(op.deviceTime.delta());
    return s + ".";
}

Table opTable(const profile::ProfileDiff& d)
{
    Table t{"comparison-ops",
            "Operations, largest change first",
            {"operation", "where", "calls", kBaselineColumn, kOtherColumn, "change", "%"},
            {false, false, true, true, true, true, true},
            {}};
    for (const profile::OpDelta& op : d.ops) {
        if (t.rows.size() >= kOpTableRows || op.total.delta() == 0)
            break;
        std::vector<std::string> row = timeRow(detail::elided(op.name), op.total);
        const std::string calls = op.count.delta() == 0 ? std::to_string(op.count.other)
                                                        : std::to_string(op.count.baseline) + " -> " +
                                                              std::to_string(op.count.other);
        row.insert(row.begin() + 1, {op.where, calls});
        t.rows.push_back(std::move(row));
    }
    return t;
}

} // namespace

Comparison compareProfiles(const profile::ProfileDiff& d)
{
    Comparison c;
    c.baselineSource = d.baselineName;
    if (d.span.delta() == 0)
        c.verdict = "This profile spans the same " + formatUs(signedNs(d.span.other)) + " as the baseline.";
    else
        c.verdict = "This profile spans " + formatUs(signedNs(d.span.other)) + " against the baseline's " +
                    formatUs(signedNs(d.span.baseline)) + ": " + percentText(d.span).substr(1) +
                    (d.span.delta() > 0 ? " longer" : " shorter") + " (" + signedUs(d.span.delta()) + ").";
    if (!d.devices.empty())
        c.figures.push_back(deviceFigure(d));
    if (Figure ops = opFigure(d); !ops.rows.empty())
        c.figures.push_back(std::move(ops));
    const bool paths = d.criticalPathLength.baseline || d.criticalPathLength.other;
    if (paths)
        c.figures.push_back(pathFigure(d));
    for (std::size_t i = 0; i < std::min(d.ops.size(), kListedOpChanges); ++i)
        if (d.ops[i].total.delta() != 0)
            c.changes.push_back(opChange(d.ops[i]));
    c.tables = {totalsTable(d), opTable(d)};
    if (paths)
        c.tables.push_back(pathTable(d));
    const auto changed = std::count_if(d.ops.begin(), d.ops.end(),
                                       [](const profile::OpDelta& op) { return op.total.delta() != 0; });
    if (static_cast<std::size_t>(changed) > kOpTableRows)
        c.notes.push_back("The table shows the " + std::to_string(kOpTableRows) + " largest of " +
                          std::to_string(changed) + " changed operations; the JSON report has every one.");
    c.notes.push_back("Device work is compared device by device: a kernel that moved from one device to "
                      "another shows as removed from one and new on the other (HTA's TraceDiff keys by name "
                      "only).");
    c.json = profileDiffToJson(d);
    return c;
}

} // namespace xps::report

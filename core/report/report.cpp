#include "report/report.h"

#include "analysis/activity_lanes.h"
#include "analysis/residuals.h"
#include "report/analysis_json.h"
#include "report/palette.h"
#include "report/report_entries.h"
#include "util/strong_id_json.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace xps::report {
namespace {

// Figures use the explorer's colours (report/palette), so a stall reason looks the same in a report.
const std::string kGreen = palette::hex(palette::kGreen);
const std::string kOrange = palette::hex(palette::kOrange);
const std::string kPurple = palette::hex(palette::kPurple);
const std::string kGrey = palette::hex(palette::kGrey);
const std::string kBlue = palette::hex(palette::kBlue);
constexpr std::size_t kResidualFigureRows = 12;

std::string pct(double fraction)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * fraction);
    return b;
}

std::string microseconds(double us)
{
    char b[48];
    std::snprintf(b, sizeof b, "%.2f µs", us);
    return b;
}

std::string signedPercent(double percent)
{
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f%%", percent);
    return b;
}

// The trace's recorded region durations against the replay: a headline figure (the error measures
// calibration uses), a figure of the largest errors and a table of every instance, worst first.
void addRecordedTiming(Report& r, const analysis::ReplayView& replay)
{
    if (!replay.trace.recorded || replay.trace.recorded->regions.empty())
        return;
    const analysis::Residuals residuals = analysis::computeResiduals(replay.trace, replay.store);
    const analysis::RegionErrorStats stats = analysis::regionErrorStats(residuals);
    r.headline.emplace_back("Replay vs recorded timing", analysis::describeRegionErrors(residuals, stats));
    nlohmann::json instances = nlohmann::json::array();

    r.recordedTiming = {"recorded-timing",
                        "Replay vs recorded timing (per region instance, worst first)",
                        {"chip", "region", "instance", "recorded cycles", "replayed cycles", "error"},
                        {true, false, true, true, true, true},
                        {}};
    const bool multiChip = replay.trace.chips.size() > 1;
    Figure figure{
        "recorded-timing",
        "Replay vs recorded timing",
        "Replayed minus recorded duration of the regions the model gets most wrong: orange where the "
        "replay is slower than the chip, blue where it is faster.",
        "%",
        {}};
    for (const std::size_t index : analysis::worstFirst(residuals)) {
        const analysis::RegionResidual* x = &residuals.regions[index];
        r.recordedTiming.rows.push_back({std::to_string(x->chip.value), x->region,
                                         text::withThousands(x->instance), text::withThousands(x->recorded),
                                         x->replayed ? text::withThousands(*x->replayed) : "not reached",
                                         x->replayed ? signedPercent(100.0 * x->relativeError()) : "—"});
        instances.push_back(
            {{"chip", x->chip},
             {"region", x->region},
             {"instance", x->instance},
             {"recorded_cycles", x->recorded},
             {"replayed_cycles", x->replayed ? nlohmann::json(*x->replayed) : nlohmann::json()},
             {"error_percent", x->replayed ? nlohmann::json(100.0 * x->relativeError()) : nlohmann::json()}});
        if (!x->replayed || figure.rows.size() >= kResidualFigureRows)
            continue;
        const double e = 100.0 * x->relativeError();
        figure.rows.push_back(
            {(multiChip ? "chip " + std::to_string(x->chip.value) + " " : std::string()) + x->region + " #" +
                 std::to_string(x->instance),
             {{e >= 0 ? "replay slower" : "replay faster", std::abs(e), e >= 0 ? kOrange : kBlue}},
             signedPercent(e)});
    }
    if (!figure.rows.empty())
        r.figures.push_back(std::move(figure));
    r.recordedTimingJson = {{"recorded", stats.recorded},
                            {"replayed", stats.matched},
                            {"mean_abs_error_percent", stats.meanAbsPercent},
                            {"median_abs_error_percent", stats.medianAbsPercent},
                            {"worst_error_percent", stats.worstPercent},
                            {"instances", std::move(instances)}};
}

} // namespace

std::string escapeHtml(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

namespace {

constexpr std::size_t kEvidenceFigures = 3; // the top entries get a figure of their evidence
constexpr int kFigureWidth = 720, kLabelWidth = 170, kNoteWidth = 90, kRowHeight = 26, kTop = 8, kLegendRow = 20;
constexpr int kLegendCharWidth = 7, kLegendGap = 30; // a generous estimate of a 12 px sans glyph

// The legend's entries (label, colour) in first-seen order, and where each starts: entries flow left to
// right and wrap at the figure's width.
struct LegendEntry
{
    std::string label, colour;
    int x = 0, row = 0;
};

std::vector<LegendEntry> legendOf(const std::vector<Figure::Row>& rows)
{
    std::vector<LegendEntry> legend;
    int x = kLabelWidth, row = 0;
    for (const Figure::Row& r : rows)
        for (const Figure::Part& p : r.parts) {
            if (std::any_of(legend.begin(), legend.end(), [&](const LegendEntry& l) { return l.label == p.label; }))
                continue;
            const int w = 14 + static_cast<int>(p.label.size()) * kLegendCharWidth + kLegendGap;
            if (x + w > kFigureWidth && x > kLabelWidth) {
                x = kLabelWidth;
                ++row;
            }
            legend.push_back({p.label, p.colour, x, row});
            x += w;
        }
    return legend;
}

} // namespace

int Figure::width() const { return kFigureWidth; }

int Figure::height() const
{
    const std::vector<LegendEntry> legend = legendOf(rows);
    const int legendRows = legend.empty() ? 0 : legend.back().row + 1;
    return kTop + static_cast<int>(rows.size()) * kRowHeight + 8 + legendRows * kLegendRow;
}

std::string Figure::svg() const
{
    constexpr int kWidth = kFigureWidth;
    constexpr int kBarWidth = kWidth - kLabelWidth - kNoteWidth;
    double maxTotal = 0;
    for (const Row& r : rows) {
        double total = 0;
        for (const Part& p : r.parts)
            total += p.value;
        maxTotal = std::max(maxTotal, total);
    }
    if (fullScale > 0)
        maxTotal = fullScale;
    const std::vector<LegendEntry> legend = legendOf(rows);
    const int svgHeight = height();
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << svgHeight << "\" viewBox=\"0 0 "
      << kWidth << " " << svgHeight << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
    s << "<title>" << escapeHtml(title) << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        const int y = kTop + static_cast<int>(i) * kRowHeight;
        s << "<text x=\"" << kLabelWidth - 8 << "\" y=\"" << y + 16 << "\" text-anchor=\"end\" fill=\"#202020\">"
          << escapeHtml(r.label) << "</text>\n";
        double x = kLabelWidth;
        if (!r.activity.empty()) {
            const double cell = static_cast<double>(kBarWidth) / static_cast<double>(r.activity.size());
            const std::string colour = r.parts.empty() ? kGrey : r.parts.front().colour;
            s << "<rect x=\"" << kLabelWidth << "\" y=\"" << y + 3 << "\" width=\"" << kBarWidth << "\" height=\"" << kRowHeight - 8
              << "\" fill=\"#f3f4f6\"/>\n"; // the strip's extent, idle included
            for (double a : r.activity) {
                if (a > 0.005) {
                    char rect[200];
                    std::snprintf(rect, sizeof rect, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" fill-opacity=\"%.2f\"/>\n",
                                  x, y + 3, cell + 0.3, kRowHeight - 8, colour.c_str(), 0.12 + 0.88 * a);
                    s << rect;
                }
                x += cell;
            }
            s << "<text x=\"" << static_cast<int>(x) + 6 << "\" y=\"" << y + 16 << "\" fill=\"#404040\">" << escapeHtml(r.note) << "</text>\n";
            continue;
        }
        for (const Part& p : r.parts) {
            const double w = maxTotal > 0 ? p.value / maxTotal * kBarWidth : 0;
            if (w <= 0)
                continue;
            char rect[256];
            std::snprintf(rect, sizeof rect, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">", x, y + 3, w,
                          kRowHeight - 8, p.colour.c_str());
            s << rect << "<title>" << escapeHtml(p.label) << ": " << text::formatDouble(p.value) << " " << escapeHtml(unit)
              << "</title></rect>\n";
            x += w;
        }
        s << "<text x=\"" << static_cast<int>(x) + 6 << "\" y=\"" << y + 16 << "\" fill=\"#404040\">" << escapeHtml(r.note)
          << "</text>\n";
    }
    const bool strips =
        std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.activity.empty(); });
    if (strips && markTo > markFrom && toCycle > fromCycle) {
        // The evidence range, outlined across the strips (clipped to the figure's time axis).
        const auto xOf = [&](std::uint64_t cycle) {
            const double f = static_cast<double>(std::clamp(cycle, fromCycle, toCycle) - fromCycle) /
                             static_cast<double>(toCycle - fromCycle);
            return kLabelWidth + f * kBarWidth;
        };
        const double x0 = xOf(markFrom), x1 = std::max(xOf(markTo), x0 + 2);
        char rect[240];
        std::snprintf(
            rect, sizeof rect,
            "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"none\" stroke=\"#d62728\" "
            "stroke-width=\"2\"><title>evidence</title></rect>\n",
            x0, kTop, x1 - x0, static_cast<int>(rows.size()) * kRowHeight);
        s << rect;
    }
    for (const LegendEntry& l : legend) {
        const int y = kTop + static_cast<int>(rows.size()) * kRowHeight + 8 + l.row * kLegendRow;
        s << "<rect x=\"" << l.x << "\" y=\"" << y + 3 << "\" width=\"10\" height=\"10\" fill=\"" << l.colour << "\"/>"
          << "<text x=\"" << l.x + 14 << "\" y=\"" << y + 12 << "\" fill=\"#202020\">" << escapeHtml(l.label) << "</text>\n";
    }
    s << "</svg>\n";
    return s.str();
}

Report buildReport(const analysis::ReplayView& replay, const analysis::Analyses& a,
                   const std::vector<suggest::Suggestion>& suggestions, const std::string& source,
                   const std::string& generator, const std::vector<suggest::SuggestionGroup>& groups)
{
    Report r;
    const trace::Trace& trace = replay.trace;
    const analysis::Summary& s = a.summary;
    const isa::MachineConfig& m = trace.machine;
    r.title = trace.name.empty() ? "Replay report" : "Replay report: " + trace.name;
    r.source = source;
    r.generator = generator;
    r.machine = std::to_string(trace.chips.size()) + " chip(s) at " + text::formatDouble(m.clockMhz) + " MHz, HBM " +
                text::formatDouble(m.hbmBandwidthGBs) + " GB/s, DMA engine " + text::formatDouble(m.dmaEnginePeakGBs) +
                " GB/s, ICI link " + text::formatDouble(m.iciLinkGBs) + " GB/s";

    r.headline = {
        {"Total", text::withThousands(s.totalCycles) + " cycles = " + microseconds(s.microseconds)},
        {"MXU utilization",
         pct(s.mxuUtilization) +
             (m.mxuCount > 1 ? " of " + std::to_string(m.mxuCount) + " MXUs" : std::string())},
        {"HBM bandwidth utilization", pct(s.hbmUtilization)},
        {"VMEM peak", text::formatBytes(a.vmem.peakLiveBytes) + " of " + text::formatBytes(a.vmem.capacity) +
                          " (" + pct(a.vmem.unusedFraction()) + " never used)"},
        {"Exposed DMA time", text::withThousands(a.dma.exposedCycles) + " cycles"},
        {"Serialized DMA pairs", std::to_string(a.dma.serialized.size())},
        {"Critical path", text::withThousands(a.criticalPath.total()) + " cycles"},
    };

    Figure stalls{"stalls", "Stall cycles by reason", "Why bundles could not issue, summed over chips.", "cycles", {}};
    std::uint64_t totalStalls = 0;
    for (int k = 1; k < events::kStallReasonCount; ++k)
        totalStalls += s.stallCycles[k];
    for (int k = 1; k < events::kStallReasonCount; ++k)
        if (s.stallCycles[k]) {
            const auto reason = static_cast<events::StallReason>(k);
            const std::string name(events::stallReasonName(reason));
            stalls.rows.push_back({name,
                                   {{name, static_cast<double>(s.stallCycles[k]), palette::hex(palette::stallColour(reason))}},
                                   pct(static_cast<double>(s.stallCycles[k]) / static_cast<double>(std::max<std::uint64_t>(1, totalStalls)))});
        }
    if (!stalls.rows.empty())
        r.figures.push_back(std::move(stalls));

    Figure path{"critical-path", "Critical path composition",
                "What the longest chain of dependent steps spent its cycles on: shorten the largest part first.", "cycles", {}};
    Figure::Row pathRow{"critical path", {}, text::withThousands(a.criticalPath.total()) + " cycles"};
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (a.criticalPath.cycles[k]) {
            const auto kind = static_cast<analysis::PathKind>(k);
            pathRow.parts.push_back({std::string(analysis::pathKindName(kind)) + " " + pct(a.criticalPath.share(kind)),
                                     static_cast<double>(a.criticalPath.cycles[k]), palette::hex(palette::pathKindColour(kind))});
        }
    if (!pathRow.parts.empty()) {
        path.rows.push_back(std::move(pathRow));
        r.figures.push_back(std::move(path));
    }

    Figure chips{"chips", "Utilization per chip", "MXU and HBM bandwidth utilization of each chip.", "%", {}};
    r.chips = {"chips", "Chips", {"chip", "bundles", "active cycles", "MXU", "HBM bytes", "HBM utilization", "stall cycles"},
               {false, true, true, true, true, true, true}, {}};
    for (const analysis::ChipSummary& c : s.chips) {
        std::uint64_t stallSum = 0;
        for (int k = 1; k < events::kStallReasonCount; ++k)
            stallSum += c.stallCycles[k];
        r.chips.rows.push_back({std::to_string(c.chip.value), text::withThousands(c.bundles),
                                text::withThousands(c.activeCycles), pct(c.mxuUtilization),
                                text::formatBytes(c.hbmBytes), pct(c.hbmUtilization),
                                text::withThousands(stallSum)});
        chips.rows.push_back({"chip " + std::to_string(c.chip.value) + " MXU",
                              {{"MXU", 100.0 * c.mxuUtilization, kGreen}},
                              pct(c.mxuUtilization)});
        chips.rows.push_back({"chip " + std::to_string(c.chip.value) + " HBM",
                              {{"HBM", 100.0 * c.hbmUtilization, kOrange}},
                              pct(c.hbmUtilization)});
    }
    if (!chips.rows.empty()) {
        chips.fullScale = 100.0; // utilizations against 100%, not against the largest one
        r.figures.push_back(std::move(chips));
    }

    r.regions = {"regions", "Regions (all chips, inclusive)", {"region", "level", "instances", "cycles", "MXU", "DMA bytes", "stall cycles"},
                 {false, false, true, true, true, true, true}, {}};
    for (const analysis::RegionSummary& g : s.regions)
        r.regions.rows.push_back({std::string(static_cast<std::size_t>(g.depth) * 2, ' ') + g.name, g.level,
                                  text::withThousands(g.instances), text::withThousands(g.cycles), pct(g.mxuUtilization()),
                                  text::formatBytes(g.dmaBytes), text::withThousands(g.totalStallCycles())});

    addRecordedTiming(r, replay);

    r.suggestions = detail::rankEntries(suggestions, groups);
    if (!r.suggestions.empty()) {
        analysis::ActivityLanes lanes(replay.trace);
        lanes.ingest(replay.store);
        detail::addEvidenceFigures(r.suggestions, lanes, s.totalCycles, kEvidenceFigures);
    }
    r.analysis = analysisToJson(replay, a, suggestions);
    return r;
}

std::vector<const Figure*> allFigures(const Report& report)
{
    std::vector<const Figure*> out;
    for (const Figure& f : report.figures)
        out.push_back(&f);
    if (report.comparison)
        for (const Figure& f : report.comparison->figures)
            out.push_back(&f);
    for (const SuggestionEntry& e : report.suggestions)
        if (e.figure)
            out.push_back(&*e.figure);
    return out;
}

void addSessionContent(Report& report, const analysis::ReplayView& replay, const std::vector<session::Annotation>& notes,
                       const std::vector<session::Bookmark>& bookmarks,
                       const std::map<std::string, session::SuggestionState>& states)
{
    if (!bookmarks.empty()) {
        analysis::ActivityLanes lanes(replay.trace);
        lanes.ingest(replay.store);
        for (std::size_t i = 0; i < bookmarks.size(); ++i) {
            const session::Bookmark& b = bookmarks[i];
            report.figures.push_back(detail::activityFigure(
                "bookmark-" + std::to_string(i + 1), "Bookmark " + std::to_string(i + 1) + ": " + b.name,
                "Activity of each unit, DMA engine and ICI link in cycles " +
                    text::withThousands(b.fromCycle) + "-" + text::withThousands(b.toCycle) +
                    ", darker = busier; the number is the mean.",
                b.fromCycle, b.toCycle, lanes));
        }
    }
    for (const session::Annotation& n : notes)
        report.annotations.push_back({n.text, n.fromCycle, n.toCycle});
    for (const session::Bookmark& b : bookmarks)
        report.bookmarks.push_back({b.name, b.fromCycle, b.toCycle});
    const auto stateOf = [&](const std::string& id) -> std::string {
        const auto state = states.find(id);
        return state == states.end() ? "open" : std::string(session::suggestionStateName(state->second));
    };
    for (SuggestionEntry& e : report.suggestions) {
        if (e.members.empty()) {
            e.state = stateOf(e.suggestion.id);
            continue;
        }
        // A group reads as its members' state when they agree.
        for (SuggestionEntry& m : e.members)
            m.state = stateOf(m.suggestion.id);
        const bool alike = std::all_of(e.members.begin(), e.members.end(), [&](const SuggestionEntry& m) {
            return m.state == e.members.front().state;
        });
        e.state = alike ? e.members.front().state : "mixed";
    }
    detail::placeAnnotations(report);
}

} // namespace xps::report

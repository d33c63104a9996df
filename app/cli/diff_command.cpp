// `xpushark-cli diff BASELINE OTHER [--json] [--fail-if-slower PCT] [--region NAME] [--window NAME]`: replays
// and analyses both traces and prints their totals and per-region numbers side by side with the deltas
// (analysis/run_diff.h). With --fail-if-slower it exits 3 when OTHER is more than PCT
// percent slower than BASELINE (in total, or in the region --region names), so that CI can gate a change on
// it.
#include "analyzed_trace.h"
#include "commands.h"

#include "analysis/run_diff.h"
#include "report/delta_text.h"
#include "report/diff_json.h"
#include "util/text.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace xps::cli {
namespace {

using report::delta::percentText;
using report::delta::signedCount;

std::string chipsText(std::uint64_t chips)
{
    return std::to_string(chips) + (chips == 1 ? " chip" : " chips");
}

// One line of the side-by-side table: label, baseline, other, delta (percent).
std::string row(const std::string& label, const analysis::Compared& c)
{
    char line[256];
    std::snprintf(line, sizeof line, "  %-34s %16s %16s %16s %9s\n", label.c_str(),
                  text::withThousands(c.baseline).c_str(), text::withThousands(c.other).c_str(),
                  signedCount(c.delta()).c_str(), percentText(c).c_str());
    return line;
}

std::string header(const std::string& title)
{
    char line[256];
    std::snprintf(line, sizeof line, "%-36s %16s %16s %16s\n", title.c_str(), "baseline", "other", "delta");
    return line;
}

std::string stallRows(const analysis::Compared (&stalls)[events::kStallReasonCount],
                      const std::string& indent)
{
    std::string out;
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (stalls[r].baseline || stalls[r].other)
            out += row(indent + std::string(events::stallReasonName(static_cast<events::StallReason>(r))),
                       stalls[r]);
    return out;
}

std::string regionRows(const analysis::RegionDelta& r)
{
    const std::string label = r.path + (r.inBaseline ? r.inOther ? "" : " (baseline only)" : " (other only)");
    std::string out = row(label, r.cycles);
    out += row("  stall cycles", r.stallCycles);
    out += stallRows(r.stallByReason, "    ");
    if (r.instances.baseline != r.instances.other)
        out += row("  instances", r.instances);
    if (r.dmaBytes.baseline || r.dmaBytes.other)
        out += row("  DMA bytes", r.dmaBytes);
    return out;
}

std::string pcLabel(const analysis::PcDelta& p)
{
    const auto pc = [](const std::optional<std::uint32_t>& v) {
        return v ? text::hex(*v) : std::string("-");
    };
    const std::string change = !p.baselinePc ? " (inserted)" : !p.otherPc ? " (removed)" : "";
    return "chip " + std::to_string(p.chip.value) + " pc " + pc(p.baselinePc) + " -> " + pc(p.otherPc) +
           change + ": " + p.text;
}

// The bundles that changed most (the JSON has them all), and how each chip's programs were matched.
std::string pcSection(const analysis::RunDiff& d)
{
    constexpr std::size_t kShown = 20;
    std::string out;
    for (const analysis::ChipAlignment& a : d.alignment)
        if (!a.aligned)
            out += "\nchip " + std::to_string(a.chip.value) +
                   ": the programs differ in too many bundles to match them; no per-bundle rows\n";
        else if (a.inserted || a.removed)
            out += "\nchip " + std::to_string(a.chip.value) + ": " + std::to_string(a.matched) +
                   " bundles in both programs, " + std::to_string(a.inserted) + " inserted, " +
                   std::to_string(a.removed) + " removed\n";
    if (d.pcs.empty())
        return out;
    out += "\n" + header("bundles, largest change first");
    for (std::size_t i = 0; i < std::min(d.pcs.size(), kShown); ++i) {
        const analysis::PcDelta& p = d.pcs[i];
        out += "  " + pcLabel(p) + "\n";
        out += row("  executions", p.executions);
        out += row("  cycles", p.cycles);
        out += row("  stall cycles", p.stallCycles);
        out += stallRows(p.stallByReason, "    ");
        if (p.dmaBytes.baseline || p.dmaBytes.other)
            out += row("  DMA bytes", p.dmaBytes);
        if (p.exposedDmaCycles.baseline || p.exposedDmaCycles.other)
            out += row("  exposed DMA cycles", p.exposedDmaCycles);
    }
    if (d.pcs.size() > kShown)
        out += "  ... and " + std::to_string(d.pcs.size() - kShown) + " more (--json has them all)\n";
    return out;
}

std::string diffText(const analysis::RunDiff& d, const analysis::RegionDelta* only)
{
    std::string out;
    out += "baseline: " + d.baseline.name + " (" + text::withThousands(d.cycles.baseline) + " cycles, " +
           text::formatDouble(d.baseline.microseconds) + " us, " + chipsText(d.baseline.chips) + ")\n";
    out += "other:    " + d.other.name + " (" + text::withThousands(d.cycles.other) + " cycles, " +
           text::formatDouble(d.other.microseconds) + " us, " + chipsText(d.other.chips) + ")\n";
    const analysis::Compared& measured = only ? only->cycles : d.cycles;
    const std::string what = only ? "region " + only->path : std::string("the run");
    if (measured.delta() == 0)
        out += what + ": the same cycles in both\n";
    else if (const std::optional<double> p = measured.percent())
        out += what + ": other is " + percentText(measured).substr(1) +
               (measured.delta() > 0 ? " slower" : " faster") + " (" + signedCount(measured.delta()) +
               " cycles)\n";
    else
        out += what + ": " + signedCount(measured.delta()) + " cycles in other, none in baseline\n";
    if (only) {
        out += "\n" + header("region") + regionRows(*only);
        return out;
    }
    out += "\n" + header("totals");
    out += row("cycles", d.cycles);
    out += row("bundles", d.bundles);
    out += row("stall cycles", d.stallCycles);
    out += stallRows(d.stallByReason, "  ");
    out += row("DMA bytes", d.dmaBytes);
    out += row("exposed DMA cycles", d.exposedDmaCycles);
    out += row("VMEM peak bytes", d.vmemPeakBytes);
    out += "\n" + header("critical path");
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (d.criticalPath[k].baseline || d.criticalPath[k].other)
            out += row(std::string(analysis::pathKindName(static_cast<analysis::PathKind>(k))),
                       d.criticalPath[k]);
    if (!d.regions.empty()) {
        out += "\n" + header("regions, largest change first");
        for (const analysis::RegionDelta& r : d.regions)
            out += regionRows(r);
    }
    out += pcSection(d);
    return out;
}

} // namespace

int runDiff(const std::vector<std::string>& args, Streams io)
{
    std::vector<std::string> paths;
    std::string region, window;
    std::optional<double> threshold;
    bool json = false;
    sim::ReplayOptions limits;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (std::string error; takeLimitOption(args, i, limits, error)) {
            if (!error.empty())
                return usageError(io, "diff: " + error);
        } else if (a == "--json")
            json = true;
        else if (a == "--fail-if-slower") {
            double pct = -1.0;
            if (i + 1 < args.size()) {
                char* end = nullptr;
                pct = std::strtod(args[i + 1].c_str(), &end);
                if (end == args[i + 1].c_str() || *end != '\0' || !std::isfinite(pct))
                    pct = -1.0;
            }
            if (pct < 0.0)
                return usageError(
                    io, "diff: --fail-if-slower needs a percentage >= 0 (e.g. --fail-if-slower 2.5)");
            threshold = pct;
            ++i;
        } else if (a == "--region") {
            if (i + 1 >= args.size() || args[i + 1].empty())
                return usageError(io, "diff: --region needs a region name or path (e.g. --region mlp)");
            region = args[++i];
        } else if (a == "--window") {
            if (i + 1 >= args.size() || args[i + 1].empty())
                return usageError(io,
                                  "diff: --window needs the name of a slice (e.g. --window ProfilerStep#2)");
            window = args[++i];
        } else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "diff: unknown option '" + a + "'");
        else
            paths.push_back(a);
    }
    if (paths.size() != 2)
        return usageError(io, "diff: expected two TRACE files (BASELINE OTHER), got " +
                                  std::to_string(paths.size()));
    // A profile and a trace: the trace's replay is compared as its profile (the GRM beside a measured run).
    if (isImportedProfile(paths[0]) || isImportedProfile(paths[1])) {
        if (!region.empty())
            return usageError(io, "diff: --region is for two xpushark traces (a profile's operations are all "
                                  "shown)");
        return diffProfiles(paths[0], paths[1], json, threshold, window, limits, io);
    }
    if (!window.empty())
        return usageError(io,
                          "diff: --window is for imported profiles (one step of each); two xpushark traces "
                          "are compared region by region (--region)");

    int code = kExitOk;
    BackgroundAnalysis second(paths[1], limits);
    const std::unique_ptr<Analyzed> baseline = analyzeFile(paths[0], io, code, {false}, limits);
    if (!baseline)
        return code; // the other run's analysis is stopped
    const std::unique_ptr<Analyzed> other = second.take(io, code);
    if (!other)
        return code;
    analysis::RunDiff d = analysis::diffRuns(baseline->analyses, other->analyses, {paths[0]}, {paths[1]});
    analysis::addPcDeltas(d, *baseline->view, baseline->analyses, *other->view, other->analyses);
    const analysis::RegionDelta* only = nullptr;
    if (!region.empty()) {
        only = d.findRegion(region);
        if (!only)
            return inputError(io, Error(paths[0] + ", " + paths[1], "no region named '" + region +
                                                                        "' in either run (a name or a path "
                                                                        "such as 'decode > mlp')"));
    }
    if (json) {
        nlohmann::ordered_json j = report::diffToJson(d);
        if (only) {
            nlohmann::ordered_json kept = nlohmann::ordered_json::array();
            for (const auto& r : j["regions"])
                if (r["path"] == only->path)
                    kept.push_back(r);
            j["regions"] = std::move(kept);
            j["region"] = only->path;
        }
        io.out << j.dump(2) << "\n";
    } else {
        io.out << diffText(d, only);
    }
    if (threshold) {
        const std::optional<double> slower = (only ? only->cycles : d.cycles).percent();
        if (slower && *slower > *threshold) {
            io.err << "xpushark-cli: diff: " << (only ? "region " + only->path : std::string("the run"))
                   << " is " << percentText(only ? only->cycles : d.cycles).substr(1)
                   << " slower than the baseline (threshold " << text::formatDouble(*threshold) << "%)\n";
            return kExitSlower;
        }
    }
    return kExitOk;
}

} // namespace xps::cli

// `xpushark-cli analyze` and `apply`: replay a trace in full mode, run every analysis, propose suggestions
// and measure each by replaying the changed trace; `apply` writes one suggestion's changed trace.
#include "commands.h"
#include "util/json_text.h"
#include <algorithm>

#include "analyzed_trace.h"

#include "analysis/replay_profile.h"
#include "profile/profile_analysis.h"
#include "profile/profile_report.h"
#include "report/analysis_json.h"
#include "suggest/transform.h"
#include "trace/trace_io.h"
#include "util/text.h"

#include <cstdio>
#include <memory>

namespace xps::cli {
namespace {

std::string pct(double fraction)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * fraction);
    return b;
}

void printText(const Analyzed& a, std::ostream& out)
{
    const analysis::Analyses& x = a.analyses;
    const analysis::Summary& s = x.summary;
    out << a.trace.name << ": " << text::withThousands(s.totalCycles)
        << " cycles = " << text::formatDouble(s.microseconds) << " us on " << a.trace.chips.size()
        << " chip(s)\n";
    out << "  MXU utilization " << pct(s.mxuUtilization) << ", HBM bandwidth utilization "
        << pct(s.hbmUtilization) << ", VMEM peak " << text::formatBytes(x.vmem.peakLiveBytes) << " of "
        << text::formatBytes(x.vmem.capacity) << " (" << pct(x.vmem.unusedFraction()) << " unused)\n";
    out << "  stalls:";
    for (int r = 1; r < events::kStallReasonCount; ++r)
        if (s.stallCycles[r])
            out << " " << events::stallReasonName(static_cast<events::StallReason>(r)) << " "
                << text::withThousands(s.stallCycles[r]) << ";";
    out << "\n  DMA:";
    for (const analysis::DmaPath& p : s.dmaPaths)
        out << " " << p.name() << " " << text::formatBytes(p.bytes) << " (" << p.transfers << ");";
    out << "\n  exposed DMA time " << text::withThousands(x.dma.exposedCycles) << " cycles, "
        << x.dma.serialized.size() << " serialized DMA pairs, concurrency max " << x.dma.maxConcurrency
        << " mean " << text::formatDouble(x.dma.meanConcurrency) << "\n";
    out << "  critical path " << text::withThousands(x.criticalPath.total()) << " cycles:";
    for (int k = 0; k < analysis::kPathKindCount; ++k)
        if (x.criticalPath.cycles[k])
            out << " " << analysis::pathKindName(static_cast<analysis::PathKind>(k)) << " "
                << pct(x.criticalPath.share(static_cast<analysis::PathKind>(k)));
    out << "\n";
    if (!x.collectives.links.empty())
        out << "  ICI: " << x.collectives.usedLinks << " of " << x.collectives.links.size()
            << " link directions used, max chip skew " << text::withThousands(x.collectives.maxSkew)
            << " cycles\n";
    if (!s.regions.empty()) {
        out << "\nregions (all chips, inclusive):\n";
        // The name column is as wide as the longest name (compiled StableHLO ops are named by op, JAX name
        // and line), counted in characters, not bytes.
        const auto width = [](const std::string& text) {
            return static_cast<std::size_t>(
                std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
        };
        std::vector<std::string> names;
        std::size_t column = 40;
        for (std::size_t i = 0; i < s.regions.size() && i < 30; ++i) {
            names.push_back(std::string(static_cast<std::size_t>(s.regions[i].depth) * 2, ' ') +
                            s.regions[i].name);
            column = std::max(column, width(names.back()));
        }
        const auto padded = [&](const std::string& text) {
            return text + std::string(column - width(text), ' ');
        };
        char line[320];
        std::snprintf(line, sizeof line, " %9s %14s %8s %10s\n", "instances", "cycles", "MXU", "stalls");
        out << "  " << padded("region") << line;
        for (std::size_t i = 0; i < names.size(); ++i) {
            const analysis::RegionSummary& r = s.regions[i];
            std::snprintf(line, sizeof line, " %9llu %14s %8s %10s\n",
                          static_cast<unsigned long long>(r.instances), text::withThousands(r.cycles).c_str(),
                          pct(r.mxuUtilization()).c_str(), text::withThousands(r.totalStallCycles()).c_str());
            out << "  " << padded(names[i]) << line;
        }
    }
    for (const analysis::SingleBufferedLoop& l : x.vmem.singleBuffered)
        out << "\nsingle-buffered: chip " << l.chip.value << " buffer " << l.buffer << " refilled "
            << l.refills << " times by pc " << l.dmaPc << ", core waited "
            << text::withThousands(l.exposedCycles) << " cycles"
            << (l.fitsTwice ? " (VMEM has room to double-buffer it)" : "") << "\n";
    out << "\nsuggestions (measured by replaying the changed trace; outputs compared bit for bit):\n";
    if (a.suggestions.empty())
        out << "  none: no finding with a change the tool can make\n";
    for (const suggest::Suggestion& g : a.suggestions) {
        out << "  " << g.id << " [" << suggest::severityName(g.severity) << (g.whatIf ? ", what-if" : "")
            << "] " << g.title << "\n";
        if (g.measured) {
            const suggest::Measurement& m = *g.measured;
            char b[200];
            std::snprintf(b, sizeof b, "      %s: %s -> %s cycles (%+.2f%%)",
                          std::string(suggest::verdictName(m.verdict)).c_str(),
                          text::withThousands(m.baselineCycles).c_str(),
                          text::withThousands(m.newCycles).c_str(), m.gainPercent);
            out << b << (m.detail.empty() ? "" : ": " + m.detail) << "\n";
        }
        out << "      " << g.explanation << "\n      change: " << g.change.describe() << "\n";
    }
    if (!a.groups.empty())
        out << "\ntogether (the suggestions of one kind applied at once, measured the same way):\n";
    for (const suggest::SuggestionGroup& g : a.groups) {
        std::string members;
        for (const std::string& id : g.applied)
            members += (members.empty() ? "" : ", ") + id;
        out << "  " << g.title << ": " << members;
        if (g.applied.size() < g.members.size())
            out << " (" << g.applied.size() << " of " << g.members.size() << "; the others overlap these)";
        out << "\n";
        if (g.combined) {
            char b[200];
            std::snprintf(b, sizeof b, "      %s: %s -> %s cycles (%+.2f%%)",
                          std::string(suggest::verdictName(g.combined->verdict)).c_str(),
                          text::withThousands(g.combined->baselineCycles).c_str(),
                          text::withThousands(g.combined->newCycles).c_str(), g.combined->gainPercent);
            out << b << (g.combined->detail.empty() ? "" : ": " + g.combined->detail) << "\n";
        }
    }
}

} // namespace

int runAnalyze(const std::vector<std::string>& args, Streams io)
{
    std::string path, window;
    bool json = false, measure = true, asProfile = false;
    sim::ReplayOptions limits;
    unsigned threads = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (std::string error;
            takeLimitOption(args, i, limits, error) || takeThreadsOption(args, i, threads, error)) {
            if (!error.empty())
                return usageError(io, "analyze: " + error);
        } else if (a == "--json")
            json = true;
        else if (a == "--as-profile")
            asProfile = true;
        else if (a == "--window") {
            if (i + 1 >= args.size() || args[i + 1].empty())
                return usageError(
                    io, "analyze: --window needs the name of a slice (e.g. --window ProfilerStep#2)");
            window = args[++i];
        } else if (a == "--no-measure")
            measure = false;
        else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "analyze: unknown option '" + a + "'");
        else if (path.empty())
            path = a;
        else
            return usageError(io, "analyze: expected exactly one TRACE file");
    }
    if (path.empty())
        return usageError(io, "analyze: expected exactly one TRACE file, got 0");
    if (isImportedProfile(path))
        return analyzeProfile(path, json, window, io);
    if (!window.empty())
        return usageError(
            io,
            "analyze: --window restricts an imported profile's critical path and operations to one step; " +
                path + " is an xpushark trace");
    int code = kExitOk;
    std::unique_ptr<Analyzed> a = analyzeFile(path, io, code, {measure && !asProfile, threads}, limits);
    if (!a)
        return code;
    if (asProfile) {
        // The replay through the profile model: the analyses an imported profile gets.
        const profile::Profile p = analysis::replayAsProfile(*a->view, path, a->analyses.criticalPath);
        const profile::ProfileAnalysis pa = profile::analyzeProfile(p);
        if (json)
            io.out << text::jsonText(profile::profileAnalysisJson(p, pa), 2) << "\n";
        else
            io.out << profile::formatProfileAnalysis(p, pa);
        return kExitOk;
    }
    if (json)
        io.out << text::jsonText(report::analysisToJson(*a->view, a->analyses, a->suggestions, a->groups), 2)
               << "\n";
    else
        printText(*a, io.out);
    return kExitOk;
}

int runApply(const std::vector<std::string>& args, Streams io)
{
    std::string path, id, output;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--suggestion" || a == "-o") {
            if (i + 1 >= args.size())
                return usageError(io, "apply: " + a + " needs a value");
            (a == "-o" ? output : id) = args[++i];
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError(io, "apply: unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return usageError(io, "apply: expected exactly one TRACE file");
        }
    }
    if (path.empty() || id.empty() || output.empty())
        return usageError(io, "apply: usage: apply TRACE --suggestion ID -o FIXED");
    int code = kExitOk;
    std::unique_ptr<Analyzed> a = analyzeFile(path, io, code, {false});
    if (!a)
        return code;
    const auto it = std::find_if(a->suggestions.begin(), a->suggestions.end(),
                                 [&](const suggest::Suggestion& s) { return s.id == id; });
    if (it == a->suggestions.end()) {
        std::string known;
        for (const suggest::Suggestion& s : a->suggestions)
            known += (known.empty() ? "" : ", ") + s.id;
        io.err << path << ": no suggestion " << id << "; this trace has "
               << (known.empty() ? std::string("none") : known) << "\n";
        return kExitBadInput;
    }
    Result<trace::Trace> changed = suggest::applyChange(a->trace, it->change);
    if (!changed)
        return inputError(io, changed.error());
    if (Status saved = trace::saveTrace(changed.value(), output); !saved)
        return inputError(io, saved.error());
    io.out << "wrote " << output << ": " << it->change.describe() << "\n";
    return kExitOk;
}

} // namespace xps::cli

// The CLI on imported profiles (Chrome / Perfetto / PyTorch profiler JSON): `info`, `analyze` and `convert`
// hand a file here when importing::detectInput says it is not an xpushark trace, or when it is a session on
// an imported profile (which stands for its profile, found as the explorer finds it).
#include "commands.h"
#include "interrupt.h"
#include "util/json_text.h"

#include "export/chrome_trace.h"
#include "import/import.h"
#include "profile/critical_path.h"
#include "profile/profile_analysis.h"
#include "profile/profile_diff.h"
#include "profile/profile_report.h"
#include "replayed_profile.h"
#include "report/diff_json.h"
#include "session/session.h"
#include "util/cancel.h"
#include "util/text.h"

namespace xps::cli {

bool isImportedProfile(const std::string& path)
{
    if (session::isProfileSession(path))
        return true;
    const auto kind = importing::detectInput(path);
    return kind && *kind != importing::InputKind::XpuTrace;
}

Result<std::string> profilePathOf(const std::string& path)
{
    if (!session::isProfileSession(path))
        return path;
    Result<session::Session> s = session::readSessionTables(path);
    if (!s)
        return s.error();
    return session::resolveProfileSource(path, s->profileSource);
}

namespace {

// A stop requested on `stop` (Ctrl-C) ends the import within about 16 MiB of input.
Result<profile::Profile> importProfileOrSession(const std::string& path, std::stop_token stop)
{
    Result<std::string> source = profilePathOf(path);
    if (!source)
        return source.error();
    importing::ImportOptions options;
    options.progress = [stop](std::uint64_t) { return !stop.stop_requested(); };
    return importing::importProfile(*source, options);
}

int importFailed(Streams io, const Error& error, const std::string& path, const InterruptScope& interrupt)
{
    if (!interrupt.interrupted())
        return inputError(io, error);
    io.err << path << (isImportedProfile(path) ? ": import interrupted\n" : ": replay interrupted\n");
    return kExitInterrupted;
}

} // namespace

Result<profile::Profile> profileToCompare(const std::string& path, const sim::ReplayOptions& limits,
                                          std::stop_token stop)
{
    if (isImportedProfile(path) || !importing::detectInput(path)) // an unreadable file: the importer says why
        return importProfileOrSession(path, stop);
    try {
        return sim::replayedProfileOf(path, limits, stop);
    } catch (const Cancelled&) {
        return Error(path, "replay interrupted");
    }
}

int infoProfile(const std::string& path, Streams io)
{
    const InterruptScope interrupt;
    auto profile = importProfileOrSession(path, interrupt.token());
    if (!profile)
        return importFailed(io, profile.error(), path, interrupt);
    io.out << profile::describeProfile(*profile);
    return kExitOk;
}

int analyzeProfile(const std::string& path, bool json, const std::string& window, Streams io)
{
    const InterruptScope interrupt;
    auto profile = importProfileOrSession(path, interrupt.token());
    if (!profile)
        return importFailed(io, profile.error(), path, interrupt);
    profile::ProfileAnalysis analysis = profile::analyzeProfile(*profile);
    if (!window.empty()) {
        const auto span = profile::windowOfSlice(*profile, window);
        if (!span)
            return inputError(io, Error(path, "--window: no slice is named '" + window + "'"));
        analysis.ops = profile::operationsIn(*profile, *span);
        analysis.criticalPath = profile::computeCriticalPath(*profile, *span);
    }
    if (json)
        io.out << text::jsonText(profile::profileAnalysisJson(*profile, analysis), 2) << "\n";
    else
        io.out << profile::formatProfileAnalysis(*profile, analysis);
    return kExitOk;
}

int convertProfile(const std::string& in, const std::string& out, Streams io)
{
    if (out.size() < 5 || out.compare(out.size() - 5, 5, ".json") != 0 || out.ends_with(".xtrace.json"))
        return usageError(io, "convert: an imported profile converts to Chrome trace JSON: name the output "
                              "OUT.json (not .xtrace.json or .xps)");
    const InterruptScope interrupt; // Ctrl-C stops the import or the export; nothing is written
    auto profile = importProfileOrSession(in, interrupt.token());
    if (!profile)
        return importFailed(io, profile.error(), in, interrupt);
    if (Status saved = exporting::writeChromeTrace(*profile, out, nullptr, {interrupt.token(), {}}); !saved)
        return exportFailed(io, saved.error(), out);
    for (const std::string& w : profile->warningLines())
        io.err << "warning: " << w << "\n";
    io.out << "wrote " << out << " (" << profile->slices.size() << " slices, " << profile->counters.size()
           << " counter samples, " << profile->flows.size() << " flows)\n";
    return kExitOk;
}

namespace {

// "50.6 us", "1,214,987.0 us": to a tenth of a microsecond, as the explorer and the reports say it (whole
// microseconds read "-0 us" for a kernel-level profile's changes).
std::string nsText(std::uint64_t ns)
{
    const std::uint64_t tenths = ns / 100 + (ns % 100 >= 50 ? 1 : 0);
    return text::withThousands(tenths / 10) + "." + std::to_string(tenths % 10) + " us";
}

std::string comparedRow(const std::string& label, const Compared& c, bool times)
{
    const std::optional<double> p = c.percent();
    char percent[32] = "";
    if (p)
        std::snprintf(percent, sizeof percent, "%+.1f%%", *p);
    const std::int64_t delta = c.delta();
    const std::string magnitude = times ? nsText(static_cast<std::uint64_t>(std::llabs(delta)))
                                        : text::withThousands(std::llabs(delta));
    char line[512];
    std::snprintf(line, sizeof line, "  %-44s %16s %16s %17s %9s\n", label.c_str(),
                  (times ? nsText(c.baseline) : text::withThousands(c.baseline)).c_str(),
                  (times ? nsText(c.other) : text::withThousands(c.other)).c_str(),
                  ((delta < 0   ? "-"
                    : delta > 0 ? "+"
                                : "") +
                   magnitude)
                      .c_str(),
                  percent);
    return line;
}

std::string profileDiffText(const profile::ProfileDiff& d)
{
    constexpr std::size_t kShownOps = 30;
    std::string out = "baseline: " + d.baselineName + " (" + nsText(d.span.baseline) + ")\n";
    out += "other:    " + d.otherName + " (" + nsText(d.span.other) + ")\n";
    char head[256];
    std::snprintf(head, sizeof head, "\n%-46s %16s %16s %17s\n", "", "baseline", "other", "delta");
    out += head;
    out += comparedRow("span", d.span, true);
    if (!d.window.empty()) {
        out += comparedRow("window " + d.window, d.windowSpan, true);
        out += "  (operations and critical paths: inside the window; devices: the whole profiles)\n";
    }
    for (const profile::DeviceDelta& dev : d.devices) {
        out += "\n" + dev.name + (dev.inBaseline ? dev.inOther ? "" : " (baseline only)" : " (other only)") +
               "\n";
        out += comparedRow("busy", dev.busy, true);
        out += comparedRow("compute", dev.compute, true);
        out += comparedRow("communication", dev.communication, true);
        out += comparedRow("  exposed", dev.communicationExposed, true);
        out += comparedRow("memcpy", dev.memcpy, true);
        out += comparedRow("  exposed", dev.memcpyExposed, true);
        out += comparedRow("memset", dev.memset, true);
        out += comparedRow("idle", dev.idle, true);
    }
    out += "\noperations, largest change of total time first\n";
    for (std::size_t i = 0; i < std::min(d.ops.size(), kShownOps); ++i) {
        const profile::OpDelta& op = d.ops[i];
        out += "  " + op.name + " [" + op.where + "]" +
               (op.inBaseline ? op.inOther ? "" : " (removed)" : " (added)") + "\n";
        out += comparedRow("  count", op.count, false);
        out += comparedRow("  total", op.total, true);
        out += comparedRow("  self", op.self, true);
        if (op.deviceTime.baseline || op.deviceTime.other)
            out += comparedRow("  device", op.deviceTime, true);
    }
    if (d.ops.size() > kShownOps)
        out += "  ... and " + std::to_string(d.ops.size() - kShownOps) + " more (--json has them all)\n";
    if (!d.criticalPathLength.baseline && !d.criticalPathLength.other)
        return out;
    out += "\ncritical path (HTA's model; a replay's own path for a replay)\n";
    out += comparedRow("length", d.criticalPathLength, true);
    for (int k = 0; k < profile::kPathSegmentKindCount; ++k)
        if (d.criticalPathByKind[k].baseline || d.criticalPathByKind[k].other)
            out += comparedRow(
                "  " + std::string(profile::pathSegmentName(static_cast<profile::PathSegmentKind>(k))),
                d.criticalPathByKind[k], true);
    out += "operations on the critical path, largest change first\n";
    constexpr std::size_t kShownPathOps = 10;
    for (std::size_t i = 0; i < std::min(d.criticalPathOps.size(), kShownPathOps); ++i) {
        const profile::PathOpDelta& op = d.criticalPathOps[i];
        if (op.onPath.delta() == 0)
            break;
        const std::string name = op.name.size() > 28 ? op.name.substr(0, 25) + "..." : op.name;
        out += comparedRow("  " + name + " (" + std::string(profile::pathSegmentName(op.kind)) + ")",
                           op.onPath, true);
    }
    return out;
}

} // namespace

int diffProfiles(const std::string& baseline, const std::string& other, bool json,
                 std::optional<double> threshold, const std::string& window, const sim::ReplayOptions& limits,
                 Streams io)
{
    const InterruptScope interrupt;
    auto a = profileToCompare(baseline, limits, interrupt.token());
    if (!a)
        return importFailed(io, a.error(), baseline, interrupt);
    auto b = profileToCompare(other, limits, interrupt.token());
    if (!b)
        return importFailed(io, b.error(), other, interrupt);
    profile::ProfileAnalysis analyses[2] = {profile::analyzeProfile(*a), profile::analyzeProfile(*b)};
    profile::CriticalPathWindow spans[2];
    if (!window.empty()) {
        // Each profile's first slice of that name: the same iteration of two runs.
        const profile::Profile* profiles[2] = {&*a, &*b};
        for (int k = 0; k < 2; ++k) {
            const auto span = profile::windowOfSlice(*profiles[k], window);
            if (!span)
                return inputError(
                    io, Error(k == 0 ? baseline : other, "--window: no slice is named '" + window + "'"));
            spans[k] = *span;
            analyses[k].ops = profile::operationsIn(*profiles[k], *span);
            analyses[k].criticalPath = profile::computeCriticalPath(*profiles[k], *span);
        }
    }
    profile::ProfileDiff d = profile::diffProfiles(*a, analyses[0], *b, analyses[1]);
    if (!window.empty()) {
        d.window = window;
        d.windowSpan.baseline = static_cast<std::uint64_t>(a->timebase.toNanos(spans[0].to - spans[0].from));
        d.windowSpan.other = static_cast<std::uint64_t>(b->timebase.toNanos(spans[1].to - spans[1].from));
    }
    if (json)
        io.out << report::profileDiffToJson(d).dump(2) << "\n";
    else
        io.out << profileDiffText(d);
    if (const std::optional<double> slower = d.span.percent(); threshold && slower && *slower > *threshold) {
        char line[160];
        std::snprintf(line, sizeof line,
                      "xpushark-cli: diff: the profile's span is %.1f%% longer than the "
                      "baseline's (threshold %s%%)\n",
                      *slower, text::formatDouble(*threshold).c_str());
        io.err << line;
        return kExitSlower;
    }
    return kExitOk;
}

} // namespace xps::cli

// `xpushark-cli replay`: replays a trace on the GRM and prints what a kernel author looks at first.
#include "analyzed_trace.h"
#include "commands.h"
#include "interrupt.h"

#include "analysis/residuals.h"
#include "export/chrome_trace.h"
#include "replayer.h"
#include "trace/trace_io.h"
#include "util/text.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stop_token>

namespace xps::cli {
namespace {

std::string percent(double part, double whole)
{
    char b[32];
    std::snprintf(b, sizeof b, "%5.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return b;
}

void printSummary(const trace::Trace& t, const sim::ReplayResult& r, const events::EventStore& store,
                  double seconds, std::ostream& out)
{
    const isa::MachineConfig& m = t.machine;
    char line[256];
    std::snprintf(line, sizeof line, "total: %llu cycles = %.3f us at %g MHz (replayed in %.3f s)\n",
                  static_cast<unsigned long long>(r.totalCycles),
                  m.cyclesToMicroseconds(static_cast<double>(r.totalCycles)), m.clockMhz, seconds);
    out << line;
    const double cycles = static_cast<double>(r.totalCycles);
    for (std::size_t c = 0; c < r.chips.size(); ++c) {
        const sim::ChipStats& s = r.chips[c];
        out << "\nchip " << c << ": " << s.bundles << " bundles, " << s.instructions << " instructions, "
            << (s.halted ? "halted at cycle " + std::to_string(s.haltCycle) : std::string("did not halt"))
            << "\n";
        // Of all the core's MXUs: busy cycles are summed over them.
        const double mxus = static_cast<double>(m.mxuCount);
        out << "  MXU utilization:            "
            << percent(static_cast<double>(s.unitBusyCycles[static_cast<int>(isa::Unit::MxuMatmul)]),
                       cycles * mxus)
            << (m.mxuCount > 1 ? "  (of " + std::to_string(m.mxuCount) + " MXUs)" : std::string()) << "\n";
        const double hbmPeak = m.bytesPerCycle(m.hbmBandwidthGBs) * cycles;
        out << "  HBM bandwidth utilization:  " << percent(static_cast<double>(r.dma[c].hbmBytes), hbmPeak)
            << "  (" << text::formatBytes(r.dma[c].hbmBytes) << " moved)\n";
        out << "  unit busy:\n";
        for (int u = 0; u < sim::kUnitCount; ++u) {
            if (s.unitBusyCycles[u] == 0)
                continue;
            const auto unit = static_cast<isa::Unit>(u);
            const bool perMxu =
                unit == isa::Unit::MxuWeights || unit == isa::Unit::MxuMatmul || unit == isa::Unit::MxuResult;
            std::snprintf(
                line, sizeof line, "    %-16s %s  (%llu cycles)\n", std::string(isa::unitName(unit)).c_str(),
                percent(static_cast<double>(s.unitBusyCycles[u]), cycles * (perMxu ? mxus : 1.0)).c_str(),
                static_cast<unsigned long long>(s.unitBusyCycles[u]));
            out << line;
        }
        std::uint64_t stalled = 0;
        for (std::uint64_t v : s.stallCycles)
            stalled += v;
        out << "  stall cycles: " << stalled << " (" << percent(static_cast<double>(stalled), cycles)
            << " of the run)\n";
        for (int reason = 1; reason < events::kStallReasonCount; ++reason) {
            if (s.stallCycles[reason] == 0)
                continue;
            std::snprintf(
                line, sizeof line, "    %-20s %10llu  %s\n",
                std::string(events::stallReasonName(static_cast<events::StallReason>(reason))).c_str(),
                static_cast<unsigned long long>(s.stallCycles[reason]),
                percent(static_cast<double>(s.stallCycles[reason]), static_cast<double>(stalled)).c_str());
            out << line;
        }
    }
    if (t.recorded) {
        const analysis::Residuals res = analysis::computeResiduals(t, store);
        out << "\nrecorded hardware timing (replayed - recorded):\n";
        for (const analysis::RegionResidual& x : res.regions) {
            if (x.replayed)
                std::snprintf(line, sizeof line,
                              "  chip %d region %-20s #%-4llu recorded %10llu  replayed %10llu  %+6.1f%%\n",
                              int{x.chip.value}, x.region.c_str(),
                              static_cast<unsigned long long>(x.instance),
                              static_cast<unsigned long long>(x.recorded),
                              static_cast<unsigned long long>(*x.replayed), 100.0 * x.relativeError());
            else
                std::snprintf(line, sizeof line,
                              "  chip %d region %-20s #%-4llu recorded %10llu  not reached in the replay\n",
                              int{x.chip.value}, x.region.c_str(),
                              static_cast<unsigned long long>(x.instance),
                              static_cast<unsigned long long>(x.recorded));
            out << line;
        }
        const analysis::SampleErrorStats samples = analysis::sampleErrorStats(res);
        if (samples.recorded)
            out << "  samples: " << samples.matched << " of " << samples.recorded
                << " matched, mean |residual| " << samples.meanAbsCycles << " cycles\n";
    }
    // Bundle issues live in chunks of 65,536 (24 bytes each), so small replays carry one mostly empty chunk.
    out << "\nevents: " << store.eventCount() << " recorded, " << text::formatBytes(store.residentBytes())
        << " held (bundle issues in chunks of " << events::kChunkEvents << ", 24 bytes each)\n";
}

} // namespace

int runReplay(const std::vector<std::string>& args, Streams io)
{
    std::string path;
    sim::ReplayOptions options;
    bool summary = false;
    std::string chromeTrace;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--mode") {
            if (i + 1 >= args.size())
                return usageError(io, "replay: --mode needs full or timing");
            const std::string& mode = args[++i];
            if (mode != "full" && mode != "timing")
                return usageError(io, "replay: unknown mode '" + mode + "'; expected full or timing");
            options.mode = mode == "full" ? sim::ReplayMode::Full : sim::ReplayMode::TimingOnly;
        } else if (a == "--summary") {
            summary = true;
        } else if (std::string error; takeLimitOption(args, i, options, error)) {
            if (!error.empty())
                return usageError(io, "replay: " + error);
        } else if (a == "--chrome-trace") {
            if (i + 1 >= args.size())
                return usageError(io, "replay: --chrome-trace needs an output file name");
            chromeTrace = args[++i];
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError(io, "replay: unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return usageError(io, "replay: expected exactly one TRACE file");
        }
    }
    if (path.empty())
        return usageError(io, "replay: expected exactly one TRACE file, got 0");
    auto trace = trace::loadTrace(path);
    if (!trace)
        return inputError(io, trace.error());
    events::EventStore store;
    const auto start = std::chrono::steady_clock::now();
    // Ctrl-C stops the replay like the GUI's cancel button: what ran so far is still summarised (and
    // not exported: a second Ctrl-C is not needed to skip a partial export).
    const InterruptScope interrupt;
    sim::ReplayResult result = sim::Replayer(*trace, options, store).run(interrupt.token());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.fault) {
        io.err << path << ": replay stopped: " << result.fault->toString() << "\n";
        return kExitBadInput;
    }
    if (!chromeTrace.empty() && !interrupt.interrupted()) {
        const analysis::ReplayView view{*trace, store, result.totalCycles, result.chips};
        if (Status written =
                exporting::writeReplayChromeTrace(view, path, chromeTrace, {interrupt.token(), {}});
            !written)
            return exportFailed(io, written.error(), chromeTrace);
    }
    if (result.status == sim::ReplayResult::Status::LimitReached)
        io.err << path << ": replay stopped at " << result.limitMessage << "\n"
               << path
               << ": the results below are partial; " << limitOption(result) << " raises that limit (0: none)\n";
    if (result.status == sim::ReplayResult::Status::Cancelled)
        io.err << path << ": replay interrupted at cycle " << result.totalCycles
               << "; the results below are partial\n";
    if (summary)
        printSummary(*trace, result, store, seconds, io.out);
    else
        io.out << "replayed " << path << ": " << result.totalCycles << " cycles\n";
    return kExitOk;
}

int convertReplayToChrome(const std::string& in, const std::string& out, Streams io)
{
    if (out.size() < 5 || out.compare(out.size() - 5, 5, ".json") != 0 || out.ends_with(".xtrace.json"))
        return usageError(
            io, "convert: --to chrome writes Chrome trace JSON: name the output OUT.json (not .xtrace.json)");
    auto trace = trace::loadTrace(in);
    if (!trace)
        return inputError(io, trace.error());
    events::EventStore store;
    sim::ReplayOptions options;
    options.mode = sim::ReplayMode::Full;
    const InterruptScope interrupt; // Ctrl-C stops the replay, then writes nothing
    const sim::ReplayResult result = sim::Replayer(*trace, options, store).run(interrupt.token());
    if (result.fault) {
        io.err << in << ": replay stopped: " << result.fault->toString() << "\n";
        return kExitBadInput;
    }
    if (result.status == sim::ReplayResult::Status::Cancelled) {
        io.err << in << ": replay interrupted at cycle " << result.totalCycles << "; " << out
               << " was not written\n";
        return kExitInterrupted;
    }
    const analysis::ReplayView view{*trace, store, result.totalCycles, result.chips};
    if (Status written = exporting::writeReplayChromeTrace(view, in, out, {interrupt.token(), {}}); !written)
        return exportFailed(io, written.error(), out);
    io.out << "wrote " << out << " (the replay: " << result.totalCycles << " cycles)\n";
    return kExitOk;
}

} // namespace xps::cli

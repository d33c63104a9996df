// Cost against size: the whole pipeline `xpushark-cli analyze` runs — a full-mode replay, every
// analysis and the suggestion proposals, then each suggestion measured by replaying the changed program —
// plus a timing-only replay, on the stress loop at several sizes (default 1, 3, 10, 30 and 100 M bundles,
// 4 chips). For each size it prints throughput, bytes per event and the peak RSS of that size alone (the
// kernel's high-water mark is reset before each size), so anyone can see whether cost grows linearly.
//
//   bench_scale [CHIPS=4] [MILLIONS ...]      e.g. bench_scale 4 1 3 10
//
// XPS_BENCH_NO_MEASURE=1 skips measuring the suggestions (the longest stage: one full replay each).
#include "chips_and_sizes.h"

#include "analysis/analyze.h"
#include "replayer.h"
#include "suggest/propose.h"
#include "what_if.h"
#include "workloads/workloads.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace xps;

namespace {

// The kernel's "VmHWM" (peak resident set) of this process, in MiB; resettable with resetPeak().
double peakMiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0; // in kB
    return 0;
}

double residentMiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return 0;
}

// Writing 5 to clear_refs sets the high-water mark to the current resident set (Linux >= 4.0).
void resetPeak()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

// The process's CPU time so far, user and system apart: a replay's system time is the kernel handing out
// the store's pages, which on a VM grows faster than the memory (docs/performance.md).
struct CpuSeconds
{
    double user = 0.0;
    double system = 0.0;
    CpuSeconds operator-(const CpuSeconds& o) const { return {user - o.user, system - o.system}; }
};

CpuSeconds cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto of = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return {of(u.ru_utime), of(u.ru_stime)};
}

template <typename Fn> double seconds(Fn&& fn)
{
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t bundlesOf(const sim::ReplayResult& r)
{
    std::uint64_t n = 0;
    for (const auto& c : r.chips)
        n += c.bundles;
    return n;
}

bool measureOne(int chips, std::uint64_t millions, bool measureSuggestions)
{
    auto trace = workloads::generate(
        "stress", "", {{"chips", chips}, {"bundles", static_cast<std::int64_t>(millions * 1'000'000)}});
    if (!trace) {
        std::fprintf(stderr, "%s\n", trace.error().toString().c_str());
        return false;
    }
    resetPeak();
    const double startMiB = residentMiB();
    std::printf("\n== %llu M bundles, %d chips (resident before: %.0f MiB)\n",
                static_cast<unsigned long long>(millions), chips, startMiB);

    { // timing-only first, on its own: its store is freed before the full-mode one is filled
        events::EventStore store;
        sim::ReplayResult r;
        const CpuSeconds cpu0 = cpuSeconds();
        const double wall = seconds([&] {
            r = sim::replay(*trace, {sim::ReplayMode::TimingOnly, 0, 0}, store);
        });
        const CpuSeconds cpu = cpuSeconds() - cpu0;
        const auto bundles = static_cast<double>(bundlesOf(r));
        std::printf(
            "timing-only replay: %.2f s wall, %.2f s user + %.2f s system: %.1f M bundles per user "
            "second, %.1f per CPU second (user + system), %.1f per wall second; %.1f M cycles, %.1f M "
            "events, %.1f bytes/event\n",
            wall, cpu.user, cpu.system, bundles / cpu.user / 1e6, bundles / (cpu.user + cpu.system) / 1e6,
            bundles / wall / 1e6, static_cast<double>(r.totalCycles) / 1e6,
            static_cast<double>(store.eventCount()) / 1e6,
            static_cast<double>(store.residentBytes()) / static_cast<double>(store.eventCount()));
    }

    events::EventStore store;
    sim::ReplayResult baseline;
    const CpuSeconds cpu0 = cpuSeconds();
    const double replayWall = seconds([&] {
        baseline = sim::replay(*trace, {sim::ReplayMode::Full, 0, 0}, store);
    });
    const CpuSeconds replayCpu = cpuSeconds() - cpu0;
    if (baseline.status != sim::ReplayResult::Status::Completed) {
        std::fprintf(stderr, "the replay did not complete: %s\n",
                     baseline.fault ? baseline.fault->toString().c_str() : baseline.limitMessage.c_str());
        return false;
    }
    const auto bundles = static_cast<double>(bundlesOf(baseline));
    const auto events = static_cast<double>(store.eventCount());
    const double afterReplayMiB = residentMiB();
    std::printf(
        "full replay       : %.2f s wall, %.2f s user + %.2f s system: %.1f M bundles per user second, "
        "%.1f per CPU second (user + system), %.1f per wall second; %.1f M events, %.1f bytes/event by "
        "the store's accounting, resident memory grew %.1f bytes/event\n",
        replayWall, replayCpu.user, replayCpu.system, bundles / replayCpu.user / 1e6,
        bundles / (replayCpu.user + replayCpu.system) / 1e6, bundles / replayWall / 1e6, events / 1e6,
        static_cast<double>(store.residentBytes()) / events,
        (afterReplayMiB - startMiB) * 1048576.0 / events);

    const analysis::ReplayView view{*trace, store, baseline.totalCycles, baseline.chips};
    analysis::Analyses analyses;
    std::vector<suggest::Suggestion> suggestions;
    const double analysisWall = seconds([&] {
        analyses = analysis::analyzeReplay(view);
        suggestions = suggest::proposeSuggestions(view, analyses);
    });
    std::printf("analyses          : %.2f s = %.0f%% of the full replay (%zu critical-path segments, %zu "
                "suggestions)\n",
                analysisWall, 100.0 * analysisWall / replayWall, analyses.criticalPath.segments.size(),
                suggestions.size());
    const double afterAnalysesPeak = peakMiB();
    // What the explorer keeps from here on (the store, the analyses, the proposals) against the peak it took
    // to get there: the transient part is the analyses' working memory.
    const double keptMiB = residentMiB();
    std::printf("memory            : %.0f MiB resident after the analyses (%.1f bytes/event), peak %.0f MiB "
                "= %.2fx what is kept\n",
                keptMiB, keptMiB * 1048576.0 / events, afterAnalysesPeak, afterAnalysesPeak / keptMiB);

    if (measureSuggestions && !suggestions.empty()) {
        std::vector<suggest::SuggestionGroup> groups;
        // XPS_BENCH_WHATIF_WORKERS=N replays N what-ifs side by side (default: one per CPU, as analyze does).
        const char* workersText = std::getenv("XPS_BENCH_WHATIF_WORKERS");
        const unsigned requested =
            workersText ? static_cast<unsigned>(std::strtoul(workersText, nullptr, 10)) : 0;
        const unsigned workers = sim::whatIfWorkers(*trace, baseline, suggestions.size(), requested);
        const double measureWall = seconds([&] {
            sim::measureSuggestions(suggestions, *trace, baseline, {}, {}, requested);
            groups = sim::measureGroups(suggestions, *trace, baseline, {}, {}, requested);
        });
        std::size_t replays = suggestions.size();
        for (const auto& g : groups)
            replays += g.combined ? 1 : 0;
        std::size_t improving = 0;
        for (const auto& s : suggestions)
            improving += s.measured && s.measured->gainPercent > 0 ? 1 : 0;
        // Side by side, a replay takes at most the wall time times the workers over the replays.
        const double each = measureWall * workers / static_cast<double>(replays);
        std::printf(
            "suggestions       : %zu measured (%zu groups) by %zu changed replays in %.2f s on %u workers: "
            "%.2f s each at most = %.0f%% of the baseline replay; %zu gain\n",
            suggestions.size(), groups.size(), replays, measureWall, workers, each, 100.0 * each / replayWall,
            improving);
    }
    const double peak = peakMiB();
    std::printf("peak RSS          : %.0f MiB for this size (%.0f after the analyses) = %.1f bytes per event "
                "above what was resident before\n",
                peak, afterAnalysesPeak, (peak - startMiB) * 1048576.0 / events);
    std::fflush(stdout);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    const auto args =
        bench::chipsAndSizes(argc, argv, {1, 3, 10, 30, 100}, "bench_scale [CHIPS=4 (1..64)] [MILLIONS ...]");
    if (!args)
        return 2;
    const char* noMeasure = std::getenv("XPS_BENCH_NO_MEASURE");
    const bool measure = !(noMeasure && std::strcmp(noMeasure, "1") == 0);
    for (const std::uint64_t millions : args->millions)
        if (!measureOne(args->chips, millions, measure))
            return 1;
    return 0;
}

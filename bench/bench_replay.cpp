// Replay throughput on a generated multi-chip trace of at least 10M bundles: each chip runs a loop of
// scalar, vector and load/store bundles with a DMA and a flag wait every iteration. Prints bundles per
// second in timing-only and full mode, resident bytes per event and peak RSS.
#include "analysis/analyze.h"
#include "analysis/dependencies.h"
#include "analysis/replay_critical_path.h"
#include "analysis/replay_profile.h"
#include "asm/assembler.h"
#include "blas.h"
#include "profile/profile_analysis.h"
#include "replayer.h"
#include "suggest/propose.h"
#include "workloads/workloads.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <utility>
#include <vector>

using namespace xps;

namespace {

// An MXU-bound loop: one 8 x 128 x 128 product per iteration, popped and accumulated.
std::string matmulSource(std::uint64_t products)
{
    std::string s =
        ".init v1, random_f32, seed=1\n.init v2, random_f32, seed=2\n.init v4, zero\n.sreg s1, 0\n";
    for (int i = 0; i < 16; ++i)
        s += "mxu.wpush v2\n";
    s += "mxu.wcommit\nloop:\n    mxu.mm v1 ; sadd s1, s1, 1\n    mxu.pop v3 ; scmp.lt s2, s1, " +
         std::to_string(products) + "\n    vadd.f32 v4, v4, v3 ; brnz s2, loop\n    halt\n";
    return s;
}

// Host sgemm rate of the same library with the same kernels, single-threaded as the GRM runs it, on a large
// square problem.
double hostSgemmGflops()
{
    constexpr int n = 1024;
    std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
    sim::blas::sgemm(n, n, n, a.data(), b.data(), c.data()); // warm-up
    const auto start = std::chrono::steady_clock::now();
    constexpr int reps = 5;
    for (int r = 0; r < reps; ++r)
        sim::blas::sgemm(n, n, n, a.data(), b.data(), c.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return 2.0 * n * n * n * reps / s / 1e9;
}

// The same library on the MXU's own shape, one 8 x 128 x 128 product per call as the GRM makes them: what
// a call of that size can reach at best on this host.
double hostMxuShapedGflops()
{
    constexpr int D = 128;
    std::vector<float> a(8 * D, 0.5f), w(D * D, 0.25f), c(8 * D);
    constexpr int calls = 100'000;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < calls; ++r)
        sim::blas::sgemm(8, D, D, a.data(), w.data(), c.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return 2.0 * 8 * D * D * calls / s / 1e9;
}

// Resident memory of the process now: the store's chunks are mapped directly, not taken from the heap.
std::size_t residentBytesNow()
{
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return static_cast<std::size_t>(resident) * 4096;
}

// CPU time of the calling thread, user and system apart: on a virtual machine the kernel's share (zeroing
// the pages the store fills) varies several-fold from run to run with the host, the user share does not.
std::pair<double, double> threadCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return {seconds(u.ru_utime), seconds(u.ru_stime)};
}

double peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

} // namespace

int main(int argc, char** argv)
{
    sim::blas::useOneThread();
    const int chips = argc > 1 ? std::atoi(argv[1]) : 4;
    const std::uint64_t totalBundles = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000'000;
    auto t = workloads::generate("stress", "",
                                 {{"chips", chips}, {"bundles", static_cast<std::int64_t>(totalBundles)}});
    if (!t) {
        std::fprintf(stderr, "%s\n", t.error().toString().c_str());
        return 1;
    }
    const std::string only = argc > 3 ? argv[3] : "";
    for (const auto mode : {sim::ReplayMode::TimingOnly, sim::ReplayMode::Full}) {
        if (only == "mxu" || (only == "timing" && mode != sim::ReplayMode::TimingOnly) ||
            (only == "full" && mode != sim::ReplayMode::Full))
            continue;
        const std::size_t heapBefore = residentBytesNow();
        events::EventStore store;
        const auto cpuBefore = threadCpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        const sim::ReplayResult r = sim::replay(*t, {mode, 0}, store);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const auto cpuAfter = threadCpuSeconds();
        if (r.fault) {
            std::fprintf(stderr, "%s\n", r.fault->toString().c_str());
            return 1;
        }
        std::uint64_t bundles = 0;
        for (const auto& c : r.chips)
            bundles += c.bundles;
        const std::size_t heapAfter = residentBytesNow();
        std::printf("%s: %d chips, %llu bundles, %llu cycles in %.2f s: %.2f M bundles/s; %zu events, %.1f "
                    "bytes/event resident\n",
                    mode == sim::ReplayMode::Full ? "full       " : "timing-only", chips,
                    static_cast<unsigned long long>(bundles), static_cast<unsigned long long>(r.totalCycles),
                    s, static_cast<double>(bundles) / s / 1e6, store.eventCount(),
                    static_cast<double>(store.residentBytes()) / static_cast<double>(store.eventCount()));
        const events::EventStore::ResidentBytes held = store.residentBytesByKind();
        const auto mib = [](std::size_t b) { return static_cast<double>(b) / 1048576.0; };
        std::printf(
            "             held: bundles %.1f MiB (%.2f B each), their stall details %.1f MiB (%.2f B a "
            "bundle), %zu VMEM accesses %.1f MiB, slices and rows %.1f MiB (%zu DMAs, %zu waits, %zu "
            "regions)\n",
            mib(held.bundles), static_cast<double>(held.bundles) / static_cast<double>(bundles),
            mib(held.stallDetails), static_cast<double>(held.stallDetails) / static_cast<double>(bundles),
            store.vmemAccessCount(), mib(held.vmemAccesses), mib(held.slicesAndRows), store.dmaCount(),
            store.syncWaitCount(), store.regionCount());
        std::printf("             CPU: %.2f s user (%.2f M bundles per user second), %.2f s system\n",
                    cpuAfter.first - cpuBefore.first,
                    static_cast<double>(bundles) / (cpuAfter.first - cpuBefore.first) / 1e6,
                    cpuAfter.second - cpuBefore.second);
        std::printf(
            "             resident memory grew by %.1f bytes per event (the store plus the machine state "
            "the replay touched)\n",
            static_cast<double>(heapAfter - heapBefore) / static_cast<double>(store.eventCount()));
        if (mode != sim::ReplayMode::Full)
            continue;
        // Issue 4's bar: every analysis plus the suggestion proposals take no longer than the replay.
        const auto analysisStart = std::chrono::steady_clock::now();
        const analysis::ReplayView view{*t, store, r.totalCycles, r.chips};
        const analysis::Analyses analyses = analysis::analyzeReplay(view);
        const std::vector<suggest::Suggestion> suggestions = suggest::proposeSuggestions(view, analyses);
        const double a =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - analysisStart).count();
        std::printf("analyses   : summary, DMA, VMEM, critical path (%zu segments), collectives and %zu "
                    "suggestions in %.2f s = %.0f%% of the replay time\n",
                    analyses.criticalPath.segments.size(), suggestions.size(), a, 100.0 * a / s);
        // Where that time goes, each stage on its own (run sequentially; analyzeReplay may overlap them).
        const auto time = [](auto&& f) {
            const auto t0 = std::chrono::steady_clock::now();
            f();
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        };
        analysis::Analyses parts;
        const double tSummary = time([&] { parts.summary = analysis::summarize(view); });
        const double tDma = time([&] { parts.dma = analysis::analyzeDmas(view); });
        const double tVmem = time([&] { parts.vmem = analysis::analyzeVmem(view, parts.dma); });
        const double tCollectives = time([&] { parts.collectives = analysis::analyzeCollectives(view); });
        const double tGraph =
            time([&] { parts.criticalPath = analysis::DependencyGraph(view, parts.dma).takeCriticalPath(); });
        const double tPropose = time([&] { (void)suggest::proposeSuggestions(view, parts); });
        std::printf(
            "             summary %.2f s, DMA %.2f s, VMEM %.2f s, collectives %.2f s, dependency graph and "
            "critical path %.2f s, proposals %.2f s\n",
            tSummary, tDma, tVmem, tCollectives, tGraph, tPropose);
        const double again = time([&] {
            const analysis::Analyses second = analysis::analyzeReplay(view);
            (void)suggest::proposeSuggestions(view, second);
        });
        std::printf(
            "             all again (memory the process already has): %.2f s = %.0f%% of the replay time\n",
            again, 100.0 * again / s);
        // The replay seen as a profile (View > Replay as a profile, analyze --as-profile).
        profile::Profile asProfile;
        const double tConvert =
            time([&] { asProfile = analysis::replayAsProfile(view, "bench", parts.criticalPath); });
        profile::ProfileAnalysis profileAnalysis;
        const double tProfile = time([&] { profileAnalysis = profile::analyzeProfile(asProfile); });
        std::printf("as profile : %zu slices, %zu flows (%.1f MiB, %.1f bytes/event) in %.2f s; profile "
                    "analyses %.2f s (critical path %zu segments)\n",
                    asProfile.slices.size(), asProfile.flows.size(),
                    static_cast<double>(asProfile.residentBytes()) / 1048576.0,
                    static_cast<double>(asProfile.residentBytes()) /
                        static_cast<double>(asProfile.eventCount()),
                    tConvert, tProfile, profileAnalysis.criticalPath.segments.size());
        // What the profile analyses cost before the profile carried the replay's own path: the
        // same analyses with HTA's model of the path over the unit runs and flows.
        const double tPlace = time([&] { analysis::criticalPathInProfile(asProfile, parts.criticalPath); });
        asProfile.exactCriticalPath.reset();
        const double tHta = time([&] { profileAnalysis = profile::analyzeProfile(asProfile); });
        std::printf("             placing the replay's path in it (in the conversion) %.3f s; the analyses "
                    "with HTA's model of "
                    "the path instead %.2f s (%zu segments)\n",
                    tPlace, tHta, profileAnalysis.criticalPath.segments.size());
    }
    if (only.empty() || only == "mxu") {
        const std::uint64_t products = 200'000;
        auto mm = assembly::assemble(matmulSource(products), "matmul.xasm");
        if (!mm) {
            std::fprintf(stderr, "%s\n", mm.error().toString().c_str());
            return 1;
        }
        events::EventStore store;
        const auto start = std::chrono::steady_clock::now();
        const sim::ReplayResult r = sim::replay(*mm, {}, store);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (r.fault) {
            std::fprintf(stderr, "%s\n", r.fault->toString().c_str());
            return 1;
        }
        const double replayGflops = 2.0 * 8 * 128 * 128 * static_cast<double>(products) / s / 1e9;
        const double host = hostSgemmGflops();
        const double shaped = hostMxuShapedGflops();
        std::printf("BLAS: %s\n", sim::blas::describe().c_str());
        std::printf(
            "MXU-bound replay (full mode): %llu products of 8x128x128 in %.2f s: %.2f GFLOP/s of MXU math; "
            "host sgemm (1024^3, 1 thread): %.2f GFLOP/s; ratio %.0f%%\n"
            "             the same library on 8x128x128 alone: %.2f GFLOP/s (%.0f%% of the host rate); the "
            "replay reaches %.0f%% of it\n",
            static_cast<unsigned long long>(products), s, replayGflops, host, 100.0 * replayGflops / host,
            shaped, 100.0 * shaped / host, 100.0 * replayGflops / shaped);
    }
    std::printf("peak RSS: %.0f MiB\n", peakRssMiB());
    return 0;
}

// Comparing two runs (the bar: "a 10 M-bundle pair diffs in under the time of one replay"): the stress loop at
// several sizes (default 1, 3 and 10 M bundles, 4 chips) against the same loop run 10% longer (its loop
// bound is another immediate: a changed program, one bundle removed and one inserted per chip). Both are
// replayed in full mode and analysed as `xpushark-cli diff` does; the diff itself (analysis::diffRuns and
// the per-bundle rows with the programs' alignment, analysis::addPcDeltas) is timed against one replay.
// Its cost follows the regions, the programs' bundles and the DMAs (summed by issuing bundle), never the
// bundle issues or VMEM accesses (tst_program_alignment covers the aligner's cost on programs that differ).
//
//   bench_diff [CHIPS=4] [MILLIONS ...]      e.g. bench_diff 4 1 3 10
#include "chips_and_sizes.h"

#include "analysis/analyze.h"
#include "analysis/run_diff.h"
#include "replayer.h"
#include "workloads/workloads.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace xps;

namespace {

template <typename Fn> double seconds(Fn&& fn)
{
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One run replayed and analysed, as the CLI's `diff` holds it.
struct Run
{
    trace::Trace trace;
    events::EventStore store;
    sim::ReplayResult result;
    std::unique_ptr<analysis::ReplayView> view;
    analysis::Analyses analyses;
    double replaySeconds = 0, analysisSeconds = 0;
};

bool replayAndAnalyse(Run& run)
{
    run.replaySeconds = seconds([&] {
        run.result = sim::replay(run.trace, {sim::ReplayMode::Full, 0, 0}, run.store);
    });
    if (run.result.status != sim::ReplayResult::Status::Completed) {
        std::fprintf(stderr, "the replay did not complete\n");
        return false;
    }
    run.view = std::make_unique<analysis::ReplayView>(
        analysis::ReplayView{run.trace, run.store, run.result.totalCycles, run.result.chips});
    run.analysisSeconds = seconds([&] { run.analyses = analysis::analyzeReplay(*run.view); });
    return true;
}

bool measureOne(int chips, std::uint64_t millions)
{
    const auto bundles = static_cast<std::int64_t>(millions * 1'000'000);
    Run baseline, other;
    for (auto [run, n] : {std::pair{&baseline, bundles}, std::pair{&other, bundles + bundles / 10}}) {
        auto generated = workloads::generate("stress", "", {{"chips", chips}, {"bundles", n}});
        if (!generated) {
            std::fprintf(stderr, "%s\n", generated.error().toString().c_str());
            return false;
        }
        run->trace = std::move(generated).value();
        if (!replayAndAnalyse(*run))
            return false;
    }

    analysis::RunDiff diff;
    const double totalsSeconds = seconds(
        [&] { diff = analysis::diffRuns(baseline.analyses, other.analyses, {"baseline"}, {"changed"}); });
    const double bundlesSeconds = seconds(
        [&] { analysis::addPcDeltas(diff, *baseline.view, baseline.analyses, *other.view, other.analyses); });
    std::uint64_t inserted = 0, removed = 0;
    for (const analysis::ChipAlignment& a : diff.alignment) {
        inserted += a.inserted;
        removed += a.removed;
    }
    const double diffSeconds = totalsSeconds + bundlesSeconds;
    std::printf("\n== %llu M bundles against 10%% more, %d chips\n",
                static_cast<unsigned long long>(millions), chips);
    std::printf("replays    : baseline %.2f s, changed %.2f s (full mode); analyses %.2f s and %.2f s\n",
                baseline.replaySeconds, other.replaySeconds, baseline.analysisSeconds, other.analysisSeconds);
    std::printf("diff       : %.4f s (totals and regions %.4f s, bundles %.4f s) = %.2f%% of the baseline's "
                "replay; %+.2f%% cycles, %zu regions, %zu bundle rows, %llu inserted and %llu removed\n",
                diffSeconds, totalsSeconds, bundlesSeconds, 100.0 * diffSeconds / baseline.replaySeconds,
                diff.slowdownPercent(), diff.regions.size(), diff.pcs.size(),
                static_cast<unsigned long long>(inserted), static_cast<unsigned long long>(removed));
    std::fflush(stdout);
    return diffSeconds < baseline.replaySeconds;
}

} // namespace

int main(int argc, char** argv)
{
    const auto args =
        bench::chipsAndSizes(argc, argv, {1, 3, 10}, "bench_diff [CHIPS=4 (1..64)] [MILLIONS ...]");
    if (!args)
        return 2;
    bool allUnder = true;
    for (const std::uint64_t millions : args->millions)
        allUnder = measureOne(args->chips, millions) && allUnder;
    return allUnder ? 0 : 1;
}

// How long Cancel takes to be honoured at every stage of the explorer's pipeline on a replay: the replay
// itself, the analyses, the suggestion proposals, the measurement of suggestions (each one a what-if
// replay), and the replay seen as a profile (the conversion, then the profile analyses). For each stage,
// the stage runs on a worker; the main thread requests a stop at several points spread over the stage's
// uncancelled duration and times how long the worker takes to return. The bar is
// 50 ms at every point.
//
//   bench_cancel [CHIPS [BUNDLES [TRIALS]]]      defaults: 4 chips, 10,000,000 bundles, 8 points per stage
#include "analysis/analyze.h"
#include "analysis/dependencies.h"
#include "analysis/replay_profile.h"
#include "profile/profile_analysis.h"
#include "replayer.h"
#include "suggest/propose.h"
#include "util/cancel.h"
#include "what_if.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

using namespace xps;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// What a stage leaves behind for the explorer (the events of a partial replay, the analyses' partial
// results): the explorer keeps it, or frees it after it has said the stage was cancelled, so its freeing is
// not part of the latency (on this VM, giving back a few hundred MB to the kernel takes 30-50 ms).
using Kept = std::shared_ptr<void>;
using Stage = std::function<void(std::stop_token, Kept&)>;

// Runs `stage` once to completion (its duration), then `trials` times with a stop requested at evenly spaced
// points inside that duration; prints the duration and the worst and median latency from the request to the
// stage noticing it (its Cancelled thrown, or its return), and the worst to the stage's return (unwinding
// included: the frames' own vectors are freed then; the explorer never waits for that, its worker is not
// joined on cancel).
bool measureStage(const char* name, int trials, const Stage& stage)
{
    // XPS_BENCH_ONLY=TEXT: only the stages whose name contains TEXT ("profile").
    if (const char* only = std::getenv("XPS_BENCH_ONLY");
        only && std::string(name).find(only) == std::string::npos)
        return true;
    const Clock::time_point start = Clock::now();
    {
        Kept kept;
        stage({}, kept);
    }
    const double full = secondsSince(start);
    std::vector<double> latencies, returns;
    for (int k = 1; k <= trials; ++k) {
        const auto delay = std::chrono::duration<double>(full * k / (trials + 1));
        std::stop_source source;
        Clock::time_point requested{};
        std::optional<Clock::time_point> noticed;
        Kept kept;
        std::jthread worker([&] {
            try {
                stage(source.get_token(), kept);
            } catch (const Cancelled& e) {
                noticed = e.thrownAt;
            }
        });
        std::this_thread::sleep_for(delay);
        requested = Clock::now();
        source.request_stop();
        worker.join();
        returns.push_back(secondsSince(requested) * 1000.0);
        latencies.push_back(
            noticed ? std::max(0.0, std::chrono::duration<double>(*noticed - requested).count() * 1000.0)
                    : returns.back());
        if (std::getenv("XPS_BENCH_VERBOSE"))
            std::printf("  %-20s stop at %6.0f ms: noticed in %6.1f ms, returned in %6.1f ms\n", name,
                        delay.count() * 1000.0, latencies.back(), returns.back());
    }
    std::sort(latencies.begin(), latencies.end());
    std::sort(returns.begin(), returns.end());
    const double worst = latencies.empty() ? 0.0 : latencies.back();
    const double median = latencies.empty() ? 0.0 : latencies[latencies.size() / 2];
    std::printf("%-22s %8.2f s   cancel latency over %zu points: median %6.1f ms, worst %6.1f ms  %s"
                "  (returned: worst %6.1f ms)\n",
                name, full, latencies.size(), median, worst, worst <= 50.0 ? "ok" : "OVER 50 ms",
                returns.empty() ? 0.0 : returns.back());
    return worst <= 50.0;
}

} // namespace

int main(int argc, char** argv)
{
    const int chips = argc > 1 ? std::atoi(argv[1]) : 4;
    const std::uint64_t bundles = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000'000;
    const int trials = argc > 3 ? std::atoi(argv[3]) : 8;
    auto trace = workloads::generate("stress", "",
                                     {{"chips", chips}, {"bundles", static_cast<std::int64_t>(bundles)}});
    if (!trace) {
        std::fprintf(stderr, "%s\n", trace.error().toString().c_str());
        return 1;
    }
    std::printf("stress trace: %d chips, %llu bundles; full mode\n", chips,
                static_cast<unsigned long long>(bundles));
    bool ok = measureStage("replay", trials, [&](std::stop_token stop, Kept& kept) {
        auto store = std::make_shared<events::EventStore>();
        kept = store; // the views show what ran
        sim::Replayer(*trace, {sim::ReplayMode::Full}, *store).run(stop);
    });

    events::EventStore store;
    sim::ReplayResult result = sim::Replayer(*trace, {sim::ReplayMode::Full}, store).run();
    ok &= measureStage("analyses", trials, [&](std::stop_token stop, Kept& kept) {
        const analysis::ReplayView view{*trace, store, result.totalCycles, result.chips, stop};
        auto analyses = std::make_shared<analysis::Analyses>();
        kept = analyses;
        analysis::analyzeReplayInPlace(view, *analyses, std::thread::hardware_concurrency() > 2);
    });
    const analysis::ReplayView view{*trace, store, result.totalCycles, result.chips};
    analysis::Analyses analyses;
    const auto graph = analysis::analyzeReplayInPlace(view, analyses, false);
    std::vector<suggest::Suggestion> proposed;
    ok &= measureStage("proposals", trials, [&](std::stop_token stop, Kept&) {
        const analysis::ReplayView v{*trace, store, result.totalCycles, result.chips, stop};
        proposed = suggest::proposeSuggestions(v, analyses);
    });
    proposed = suggest::proposeSuggestions(view, analyses);
    ok &= measureStage("measuring suggestions", trials, [&](std::stop_token stop, Kept& kept) {
        auto measured = std::make_shared<std::vector<suggest::Suggestion>>(proposed);
        kept = measured;
        sim::measureSuggestions(*measured, *trace, result, stop);
    });
    // The explorer's "Analyse as a profile": the conversion, then the analyses an imported profile gets.
    ok &= measureStage("replay as profile", trials, [&](std::stop_token stop, Kept& kept) {
        auto converted = std::make_shared<profile::Profile>(
            analysis::replayAsProfile(view, "stress", analyses.criticalPath, stop));
        kept = converted;
    });
    const profile::Profile asProfile = analysis::replayAsProfile(view, "stress", analyses.criticalPath);
    ok &= measureStage("profile analyses", trials, [&](std::stop_token stop, Kept& kept) {
        auto analysed = std::make_shared<profile::ProfileAnalysis>(profile::analyzeProfile(asProfile, stop));
        kept = analysed;
    });
    return ok ? 0 : 3;
}

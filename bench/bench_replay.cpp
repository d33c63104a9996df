// Replay throughput on a generated multi-chip trace of at least 10M bundles: each chip runs a loop of
// scalar, vector and load/store bundles with a DMA and a flag wait every iteration. Prints bundles per
// second in timing-only and full mode, resident bytes per event and peak RSS.
#include "asm/assembler.h"
#include "replayer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <sys/resource.h>

using namespace xps;

namespace {

std::string stressSource(int chips, std::uint64_t iterations)
{
    // 8 bundles per iteration; a DMA every iteration keeps the DMA system and sync waits in the loop.
    return ".name \"stress\"\n.machine chips=" + std::to_string(chips) + R"(
.vmem a, 0, 65536
.vmem b, 0x10000, 65536
.hbm  src, 0, 65536
.init a, random_f32, seed=1
.init v2, const_f32, 1.0
.sreg s1, 0
.sreg s5, 0
loop:
    sadd s1, s1, 1 ; sand s3, s1, 7
    smul s4, s3, 4096 ; vadd.f32 v1, v2, v2
    vld v3, [s4] ; vmul.f32 v4, v2, v2
    vst v4, [s4 + 0x10000] ; sadd s5, s5, 1
    dma.start vmem[s4 + 0x10000], hbm[s4], 4096, 0, engine=0
    vadd.f32 v5, v3, v4 ; scmp.lt s6, s1, )" +
           std::to_string(iterations) + R"(
    sync.wait 0, s5
    brnz s6, loop
    halt
)";
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
    const int chips = argc > 1 ? std::atoi(argv[1]) : 4;
    const std::uint64_t totalBundles = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000'000;
    const std::uint64_t iterations = totalBundles / 8 / static_cast<std::uint64_t>(chips) + 1;
    auto t = assembly::assemble(stressSource(chips, iterations), "stress.xasm");
    if (!t) {
        std::fprintf(stderr, "%s\n", t.error().toString().c_str());
        return 1;
    }
    const std::string only = argc > 3 ? argv[3] : "";
    for (const auto mode : {sim::ReplayMode::TimingOnly, sim::ReplayMode::Full}) {
        if ((only == "timing" && mode != sim::ReplayMode::TimingOnly) ||
            (only == "full" && mode != sim::ReplayMode::Full))
            continue;
        const std::size_t heapBefore = mallinfo2().uordblks + mallinfo2().hblkhd;
        events::EventStore store;
        const auto start = std::chrono::steady_clock::now();
        const sim::ReplayResult r = sim::replay(*t, {mode, 0}, store);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (r.fault) {
            std::fprintf(stderr, "%s\n", r.fault->toString().c_str());
            return 1;
        }
        std::uint64_t bundles = 0;
        for (const auto& c : r.chips)
            bundles += c.bundles;
        const std::size_t heapAfter = mallinfo2().uordblks + mallinfo2().hblkhd;
        std::printf("%s: %d chips, %llu bundles, %llu cycles in %.2f s: %.2f M bundles/s; %zu events, %.1f "
                    "bytes/event resident\n",
                    mode == sim::ReplayMode::Full ? "full       " : "timing-only", chips,
                    static_cast<unsigned long long>(bundles), static_cast<unsigned long long>(r.totalCycles),
                    s, static_cast<double>(bundles) / s / 1e6, store.eventCount(),
                    static_cast<double>(store.residentBytes()) / static_cast<double>(store.eventCount()));
        std::printf("             heap grew by %.1f bytes per event (the store plus the machine state the "
                    "replay touched)\n",
                    static_cast<double>(heapAfter - heapBefore) / static_cast<double>(store.eventCount()));
    }
    std::printf("peak RSS: %.0f MiB\n", peakRssMiB());
    return 0;
}

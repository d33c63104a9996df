#pragma once
// The generated multi-chip loop both replay benchmarks run: each iteration (8 bundles per chip) has scalar,
// vector and load/store work, a 4 KiB DMA and a flag wait on it, so the DMA system and sync waits stay in
// the loop. About 1.63 events per bundle (bundle issues, VMEM accesses, DMAs, waits).

#include <cstdint>
#include <string>

namespace xps::bench {

inline std::string stressSource(int chips, std::uint64_t iterations)
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

} // namespace xps::bench

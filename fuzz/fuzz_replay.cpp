// The GRM: a program that assembles is replayed in both modes under small caps. A crash, a sanitizer report,
// or a replay that runs past libFuzzer's -timeout despite the caps (a spin inside one step) is a finding.
#include "asm/assembler.h"
#include "fuzz_support.h"
#include "replayer.h"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto trace = xps::assembly::assemble(text, "fuzz.xasm");
    if (!trace.ok())
        return 0;
    // A cap like the cycle cap below: the memory a program declares is its own to use, and the GRM
    // materialises what it touches. Many chips multiply it: past 64 chips and 256 MiB declared over all of
    // them (4,096 chips x 4 buffers of 64 KiB is 1 GiB: 3.1 GB and 21 s under ASan), an input only measures
    // how fast ASan hands out pages. One chip's huge sparse buffers are still fuzzed.
    std::uint64_t declared = 0;
    for (const auto& chip : trace->chips)
        for (const auto& buffer : chip.symbols.buffers)
            declared += std::min<std::uint64_t>(buffer.size, std::uint64_t{1} << 40);
    if (trace->chips.size() > 64 && declared > (std::uint64_t{256} << 20))
        return 0;
    for (const auto mode : {xps::sim::ReplayMode::Full, xps::sim::ReplayMode::TimingOnly}) {
        xps::events::EventStore store;
        xps::sim::ReplayOptions options{mode};
        options.maxCycles = 2'000'000;
        options.maxBundles = 20'000;
        const xps::sim::ReplayResult r = xps::sim::replay(*trace, options, store);
        if (r.fault)
            xps::fuzz::requireValidUtf8(r.fault->toString());
    }
    return 0;
}

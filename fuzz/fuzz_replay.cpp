// The GRM: a program that assembles is replayed in both modes under small caps. A crash, a sanitizer report,
// or a replay that runs past libFuzzer's -timeout despite the caps (a spin inside one step) is a finding.
#include "asm/assembler.h"
#include "fuzz_support.h"
#include "replayer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto trace = xps::assembly::assemble(text, "fuzz.xasm");
    if (!trace.ok())
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

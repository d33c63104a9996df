// The StableHLO frontend: the MLIR text parser (both op forms, attributes, dense literals, locations); for
// text that parses, the reference interpreter under small limits, checks included; and for modules it
// evaluates, the lowering to xpu-v1 (unrolled, or with loops) and a full-mode replay of the compiled program
// under a cycle cap.
#include "fuzz_support.h"
#include "stablehlo/compile.h"
#include "stablehlo/interpreter.h"
#include "stablehlo/parser.h"
#include "stablehlo_replay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (auto& part : xps::shlo::splitInputFile(text)) {
        auto module = xps::shlo::parseModule(std::move(part.text), "fuzz.mlir");
        if (!module)
            continue;
        xps::shlo::InterpreterLimits limits;
        limits.maxWork = std::uint64_t{1} << 22;
        limits.maxTensorElements = std::int64_t{1} << 16;
        const bool evaluates = xps::shlo::checkModule(*module, limits).ok();
        // Compiling must refuse a malformed module (the explorer compiles without evaluating first); a
        // module small enough to evaluate is small enough to replay (the program within 4,096 bundles).
        xps::shlo::CompileOptions options;
        options.machine.imemBundles = 4096;
        // Half the inputs (by length) compile with every long kernel as a loop, so the looped code is fuzzed
        // on small modules too.
        if (size % 2 == 1)
            options.loops = xps::shlo::CompileOptions::Loops::Always;
        // A third with a kernel per op (no fusion, broadcasts written), so both lowerings are fuzzed.
        if (size % 3 == 0)
            options.fuse = false;
        auto compiled = xps::shlo::compileModule(*module, options);
        if (compiled && evaluates)
            (void)xps::sim::replayAndCheck(*module, *compiled);
    }
    return 0;
}

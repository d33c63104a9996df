// The StableHLO frontend: the MLIR text parser (both op forms, attributes, dense literals, locations) and,
// for text that parses, the reference interpreter under small limits, checks included.
#include "fuzz_support.h"
#include "stablehlo/interpreter.h"
#include "stablehlo/parser.h"

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
        (void)xps::shlo::checkModule(*module, limits);
    }
    return 0;
}

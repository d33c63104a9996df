#pragma once
// A compiled StableHLO module on the GRM: replays it in full mode and evaluates the module's checks on the
// tensors the replay left in HBM, so `xpushark-cli check` holds the compiled program, not only the
// reference interpreter, to the expected values.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "stablehlo/compile.h"
#include "stablehlo/interpreter.h"
#include "util/result.h"

namespace xps::sim {

struct ReplayedModuleCheck
{
    shlo::ModuleCheck check;
    std::vector<shlo::TensorValue> results; // @main's results as the replay left them
    std::uint64_t cycles = 0;
    std::uint64_t bundles = 0; // program length
};

// Fails with the replay's fault or limit message if the program does not run to its end. With
// `compareWithReference`, @main's results are also held to the reference interpreter's on the same inputs
// (the arguments as the trace's generators filled them), as one more check named "reference.results":
// every element within 1e-4 x max(1, |reference|) (sums in another order and the vector unit's f32
// transcendental functions differ by a few ulp; a wrong kernel differs by far more).
Result<ReplayedModuleCheck> replayAndCheck(const shlo::Module& module, const shlo::CompiledModule& compiled,
                                           bool compareWithReference = false);

} // namespace xps::sim

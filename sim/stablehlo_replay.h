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

// Fails with the replay's fault or limit message if the program does not run to its end.
Result<ReplayedModuleCheck> replayAndCheck(const shlo::Module& module, const shlo::CompiledModule& compiled);

} // namespace xps::sim

#pragma once
// Constant folding, as XLA's HloConstantFolding does it: an op whose operands are all constants is evaluated
// when compiling (by the reference interpreter, so its result is the one `check` expects, bit for bit) and
// becomes a constant of the program. Broadcasts and iotas are left to the kernels that read them (XLA leaves
// them too: folded they would only grow the constants), and so are calls, collectives and checks.

#include <memory>
#include <vector>

#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::lower {

struct FoldedBody
{
    std::vector<bool> folded;                               // per op of the body
    std::vector<std::shared_ptr<const TensorValue>> values; // per value: its constant, where one is known
};

// At most this many elements in one folded result (what a compile may spend on one constant).
inline constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 20;

FoldedBody foldConstants(const Module& module, const Body& body);

} // namespace xps::shlo::lower

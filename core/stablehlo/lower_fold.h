#pragma once
// Constant folding, as XLA's HloConstantFolding does it: an op whose operands are all constants is evaluated
// when compiling (by the reference interpreter, so its result is the one `check` expects, bit for bit) and
// becomes a constant of the program. Broadcasts and iotas are left to the kernels that read them (XLA leaves
// them too: folded they would only grow the constants), and so are calls, collectives and checks.

#include <map>
#include <memory>
#include <vector>

#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::lower {

struct FoldedBody
{
    std::vector<bool> folded;                               // per op of the body
    std::vector<std::shared_ptr<const TensorValue>> values; // per value a folded op computed: its constant
    std::vector<const Operation*> foldedBy;                 // per value: the op that computed it (messages)
};

// At most this many elements in one folded result (what a compile may spend on one constant).
inline constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 20;

FoldedBody foldConstants(const Module& module, const Body& body);
// Every function's body of `module`, folded once for all the chips and attempts of a compile.
using FoldedModule = std::map<const Body*, FoldedBody>;
FoldedModule foldConstants(const Module& module);

} // namespace xps::shlo::lower

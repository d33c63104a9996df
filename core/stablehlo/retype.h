#pragma once
// `--dtype bf16` (estimate, compile, the explorer's open dialog): a model exported in f32 or f16 run as a
// bf16 deployment runs it. Every floating-point tensor of the module (arguments, results, constants, every
// op's result, reducer regions) becomes bf16: held in 2 bytes in HBM, multiplied in bf16 on the MXU,
// computed in f32 on the vector unit and rounded where it is written. Integers and booleans keep their types;
// a conversion between two float types becomes none. Constants keep their values, rounded to bf16.

#include "stablehlo/module.h"
#include <optional>

#include "util/result.h"

namespace xps::shlo {

// The type `f32`, `f16` or `bf16` names (what every float may become); nothing for any other name.
std::optional<ElementType> floatTypeNamed(const std::string& name);

// Rewrites `module` in place; an error (a constant whose literal does not read as its type) at its line.
Result<bool> retypeFloats(Module& module, ElementType to);

} // namespace xps::shlo

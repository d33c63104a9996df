#pragma once
// XLA's AlgebraicSimplifier on floats, where a model is compiled as XLA compiles it (internal to
// core/stablehlo; CompileOptions::foldConstants): x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 are x; x / c
// for c one value everywhere (a constant, or broadcasts and element-wise ops of such) is x * (1 / c); x^2 is
// x * x; a broadcast_in_dim that only adds dimensions of size 1 is a reshape. Then ops without effects that
// nothing reads are dropped, as XLA's dead code elimination drops them (a batch norm's statistics
// torch_xla's LayerNorm never reads). JAX writes a batch norm with running statistics of zeros and ones, or
// `slope * x + bias` with slope 1 and bias 0, as these ops, and XLA runs none of them: SCALE-Sim's measured
// NCHW batch norm is XLA's convert_multiply_fusion. A result the function returns is kept (XLA copies a
// returned parameter into the result buffer rather than aliasing it).

#include <optional>

#include "stablehlo/module.h"

namespace xps::shlo::lower {

// A copy of `module` simplified; nothing when there is nothing to simplify.
std::optional<Module> simplifyAlgebra(const Module& module);

} // namespace xps::shlo::lower

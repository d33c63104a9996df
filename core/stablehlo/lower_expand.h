#pragma once
// Ops the lowering writes as other ops (internal to core/stablehlo), expanded in the module before it is
// folded, fused and lowered, so that the fusion planner sees their pieces as it sees the same computation
// written out by an exporter: batch_norm_training and batch_norm_inference (lower_batch_norm.cpp), which
// torch_xla writes for every LayerNorm, and chlo's inverse trigonometric and hyperbolic functions
// (lower_chlo.cpp), as StableHLO's chlo legalization writes them.

#include <optional>

#include "stablehlo/module.h"

namespace xps::shlo::lower {

// A copy of `module` with every batch norm and chlo function expanded; nothing when it has none (it compiles
// as it is). An op the expansion refuses is a LoweringError at its line.
std::optional<Module> expandComposites(const Module& module);

} // namespace xps::shlo::lower

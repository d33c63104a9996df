#pragma once
// Evaluating one check op of a StableHLO test module (checks.cpp has the tolerances and their sources).
// Shared by the reference interpreter and the check of a compiled module's replay.

#include <string>
#include <vector>

#include "stablehlo/interpreter.h"
#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo {

bool isCheckOp(const Operation& op);
// `operands` are the check's operands' values (actual, expected; or actual alone for the _const forms,
// whose expected literal is in the op). Throws detail::EvalError for a malformed check.
CheckOutcome evaluateCheck(const Operation& op, const std::vector<const TensorValue*>& operands,
                           const std::string& location);

} // namespace xps::shlo

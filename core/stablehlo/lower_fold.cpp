#include "stablehlo/lower_fold.h"

#include "stablehlo/checks.h"
#include "stablehlo/eval_ops.h"
#include "stablehlo/interpreter.h"

namespace xps::shlo::lower {

namespace {

bool foldable(const Operation& op)
{
    switch (op.kind) {
    case OpKind::Constant: // already one
    case OpKind::Iota:
    case OpKind::BroadcastInDim:
    case OpKind::Call:
    case OpKind::Return:
    case OpKind::CustomCall:
    case OpKind::AllGather:
    case OpKind::AllReduce:
    case OpKind::ReduceScatter:
    case OpKind::CollectivePermute: return false;
    default: return !isCheckOp(op) && !op.operands.empty();
    }
}

} // namespace

FoldedBody foldConstants(const Module& module, const Body& body)
{
    FoldedBody out;
    out.folded.assign(body.operations.size(), false);
    out.values.resize(body.valueTypes.size());
    out.foldedBy.resize(body.valueTypes.size(), nullptr);
    // A literal's values are read only when an op that folds needs them: most constants are weights.
    std::vector<const Operation*> literal(body.valueTypes.size(), nullptr);
    const auto known = [&](std::uint32_t v) -> const TensorValue* {
        if (v >= out.values.size())
            return nullptr;
        if (!out.values[v] && literal[v]) {
            try {
                out.values[v] =
                    std::make_shared<const TensorValue>(detail::evalConstant(*literal[v], module.fileName));
            } catch (const detail::EvalError&) {
                // the lowering of the constant says what is wrong with it
            }
            literal[v] = nullptr;
        }
        return out.values[v].get();
    };
    for (std::size_t i = 0; i < body.operations.size(); ++i) {
        const Operation& op = body.operations[i];
        if (op.kind == OpKind::Constant && op.resultTypes.size() == 1 && op.firstResult < literal.size() &&
            op.resultTypes[0].elementCount() <= kMaxFoldedElements) {
            literal[op.firstResult] = &op;
            continue;
        }
        std::int64_t elements = 0;
        for (const auto& t : op.resultTypes)
            elements += t.elementCount();
        if (!foldable(op) || elements > kMaxFoldedElements ||
            op.firstResult + op.resultTypes.size() > out.values.size())
            continue;
        std::vector<const TensorValue*> operands;
        for (const auto v : op.operands)
            if (const auto* value = known(v))
                operands.push_back(value);
        if (operands.size() != op.operands.size())
            continue;
        InterpreterLimits limits;
        limits.maxWork = std::uint64_t{1} << 28;
        auto results = Interpreter::evaluateOne(module, op, operands, limits);
        if (!results || results->size() != op.resultTypes.size())
            continue; // the op's own lowering reports what is wrong
        for (std::size_t r = 0; r < results->size(); ++r) {
            out.values[op.firstResult + r] = std::make_shared<const TensorValue>(std::move((*results)[r]));
            out.foldedBy[op.firstResult + r] = &op;
        }
        out.folded[i] = true;
    }
    return out;
}

FoldedModule foldConstants(const Module& module)
{
    FoldedModule out;
    for (const auto& f : module.functions)
        out.emplace(&f.body, foldConstants(module, f.body));
    return out;
}

} // namespace xps::shlo::lower

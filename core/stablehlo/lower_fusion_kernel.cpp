// A fusion's members as one element-wise kernel (lower_fusion.h): steps in program order over registers,
// every value from outside the fusion an input read once, each reduce a reduction of the kernel, and the
// results it writes given their HBM.

#include "stablehlo/lower_fusion.h"

#include <algorithm>

namespace xps::shlo::lower {

FusionKernel fusionKernel(const Body& body, std::size_t root, const std::vector<std::size_t>& members,
                          const std::set<std::size_t>& written, const std::vector<TensorRef>& values,
                          const std::function<TensorRef(const Operation&)>& allocate)
{
    const auto& ops = body.operations;
    FusionKernel made;
    ElementwiseKernel& kernel = made.kernel;
    const bool reduction = std::any_of(members.begin(), members.end(),
                                       [&](std::size_t m) { return ops[m].kind == OpKind::Reduce; });
    std::map<std::uint32_t, int> stepOf, inputOf; // by value
    const auto input = [&](std::uint32_t v) {
        const auto [it, added] = inputOf.emplace(v, static_cast<int>(kernel.inputs.size()));
        if (added)
            kernel.inputs.push_back(values[v]);
        return it->second;
    };
    for (const std::size_t j : members) {
        const Operation& member = ops[j];
        if (j != root)
            made.fused += (made.fused.empty() ? "" : " ") + member.resultName;
        if (member.kind == OpKind::Reduce) { // it sums what a step computed (or an input), row by row
            const std::uint32_t x = member.operands.at(0);
            const auto step = stepOf.find(x);
            kernel.reductions.push_back({fusibleReduceWidth(body, member), values[member.operands.at(1)],
                                         step != stepOf.end() ? ~step->second : input(x), allocate(member),
                                         reductionRegisters(member) == 4 ? OpKind::Maximum : OpKind::Add});
            made.results.emplace_back(j, kernel.reductions.back().out);
            continue;
        }
        ElementwiseStep step{&member, {}, body.valueTypes.at(member.operands.at(0)).element};
        std::vector<TensorRef> seen; // what validateOp checks: the operands' types
        for (const auto v : member.operands) {
            if (const auto it = stepOf.find(v); it != stepOf.end()) {
                step.operands.push_back(~it->second);
                TensorRef kept;
                kept.type = body.valueTypes.at(v);
                seen.push_back(kept);
                continue;
            }
            step.operands.push_back(input(v));
            seen.push_back(values[v]);
        }
        try {
            validateOp(member, seen);
        } catch (const LoweringError& e) {
            throw MemberError{&member, e.message};
        }
        stepOf[member.firstResult] = static_cast<int>(kernel.steps.size());
        kernel.steps.push_back(std::move(step));
        // Written besides the kernel's own result: a step other ops read too (multi-output fusion), and the
        // root of a kernel whose result is its reductions' sums.
        if (written.count(j) || (j == root && reduction)) {
            kernel.outputs.push_back({kernel.steps.size() - 1, allocate(member)});
            made.results.emplace_back(j, kernel.outputs.back().out);
        }
    }
    if (reduction) {
        made.out = kernel.reductions.front().out;
    } else { // the last step's (the root is the last member)
        made.out = allocate(ops[root]);
        made.results.emplace_back(root, made.out);
    }
    return made;
}

DotBias dotBias(const Body& body, const BiasFusion& fusion, const std::vector<TensorRef>& values,
                std::uint32_t dotResult)
{
    const Operation& add = body.operations.at(fusion.add);
    DotBias bias;
    bias.vector = values.at(fusion.source);
    bias.vector.type = body.valueTypes.at(fusion.vector);
    bias.add = &add;
    bias.dotFirst = add.operands.at(0) == dotResult;
    const Operation& broadcast = body.operations.at(fusion.broadcast);
    bias.broadcast = bias.vector;
    bias.broadcast.type = broadcast.resultTypes.at(0);
    bias.broadcast.broadcastStrides =
        broadcastStrides(broadcast, bias.vector.type, bias.vector.broadcastStrides)
            .value_or(std::vector<std::int64_t>{});
    if (fusion.residual) {
        bias.residual = values.at(fusion.residual->value);
        bias.residualAdd = &body.operations.at(fusion.residual->add);
        bias.residualDotFirst = bias.residualAdd->operands.at(1) == fusion.residual->value;
    }
    return bias;
}

} // namespace xps::shlo::lower

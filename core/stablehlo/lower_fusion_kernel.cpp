// A fusion's members as one element-wise kernel (lower_fusion.h): steps in program order over registers,
// every value from outside the fusion an input read once, each reduce a reduction of the kernel.

#include "stablehlo/lower_fusion.h"

namespace xps::shlo::lower {

ElementwiseKernel fusionKernel(const Body& body, std::size_t root, const std::vector<std::size_t>& members,
                               const std::vector<TensorRef>& values, std::vector<std::size_t>& reduces,
                               std::string& fused)
{
    const auto& ops = body.operations;
    ElementwiseKernel kernel;
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
            fused += (fused.empty() ? "" : " ") + member.resultName;
        if (member.kind == OpKind::Reduce) { // it sums what a step computed (or an input), row by row
            reduces.push_back(j);
            const std::uint32_t x = member.operands.at(0);
            const auto step = stepOf.find(x);
            kernel.reductions.push_back({fusibleReduceWidth(body, member),
                                         values[member.operands.at(1)],
                                         step != stepOf.end() ? ~step->second : input(x),
                                         {}});
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
    }
    return kernel;
}

} // namespace xps::shlo::lower

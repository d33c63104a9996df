// Output fusion into dot_general (lower_fusion.h planBiasFusions): which adds after a dot its kernel
// computes, a bias and the residual after it.

#include "stablehlo/lower_fusion.h"

#include "stablehlo/attribute.h"

namespace xps::shlo::lower {

std::map<std::size_t, BiasFusion> planBiasFusions(const Body& body, const FusionPlan& plan,
                                                  const std::vector<bool>& excluded, bool excessPrecision)
{
    const auto& ops = body.operations;
    const ValueUses uses = valueUses(body);
    std::map<std::size_t, BiasFusion> fusions;
    for (std::size_t d = 0; d < ops.size(); ++d) {
        const Operation& dot = ops[d];
        if ((dot.kind != OpKind::DotGeneral && dot.kind != OpKind::Dot) || dot.resultTypes.size() != 1 ||
            (d < excluded.size() && excluded[d]) || uses.readers[dot.firstResult].size() != 1)
            continue;
        const TensorType& result = dot.resultTypes[0];
        const std::size_t a = uses.readers[dot.firstResult].front();
        const Operation& add = ops[a];
        // The add a kernel of its own, or fused only into the residual add after it (which joins too).
        const auto own = plan.rootOf[a] >= 0 ? plan.members.find(static_cast<std::size_t>(plan.rootOf[a]))
                                             : plan.members.end();
        const bool alone = own != plan.members.end() && own->second.size() == 1;
        const bool withResidual = own != plan.members.end() && own->second.size() == 2 && own->first != a;
        if (add.kind != OpKind::Add || add.operands.size() != 2 || add.operands[0] == add.operands[1] ||
            add.resultTypes.size() != 1 || add.resultTypes[0] != result || !isFloat(result.element) ||
            result.shape.empty() || (!alone && !withResidual) ||
            (storageBytes(result.element) != 4 && !excessPrecision))
            continue;
        const std::uint32_t other = add.operands[add.operands[0] == dot.firstResult ? 1 : 0];
        const std::int32_t b = uses.producer[other];
        if (b < 0 || ops[static_cast<std::size_t>(b)].kind != OpKind::BroadcastInDim)
            continue;
        const Operation& broadcast = ops[static_cast<std::size_t>(b)];
        const Attribute* attribute = broadcast.attributes.find("broadcast_dimensions");
        const auto dims = attribute ? attribute->integers() : std::nullopt;
        const std::uint32_t vector = broadcast.operands.at(0);
        const TensorType& bias = body.valueTypes[vector];
        // Ready when the dot runs: computed before it, or through reshapes (no code) of such a value.
        std::uint32_t source = vector;
        while (uses.producer[source] > static_cast<std::int32_t>(d) &&
               ops[static_cast<std::size_t>(uses.producer[source])].kind == OpKind::Reshape)
            source = ops[static_cast<std::size_t>(uses.producer[source])].operands.at(0);
        const std::int32_t p = uses.producer[source];
        const bool ready =
            p < static_cast<std::int32_t>(d) ||
            (static_cast<std::size_t>(p) < excluded.size() && excluded[static_cast<std::size_t>(p)]);
        // Its values along the result's last dimension only (any other dimension of size 1: JAX broadcasts a
        // bias [N] as [1, 1, N] first).
        bool alongRows = dims && dims->size() == bias.shape.size() && isFloat(bias.element) && ready &&
                         bias.elementCount() == result.shape.back();
        for (std::size_t k = 0; alongRows && k < dims->size(); ++k)
            alongRows =
                bias.shape[k] == 1 || (*dims)[k] == static_cast<std::int64_t>(result.shape.size()) - 1;
        if (!alongRows || !broadcastStrides(broadcast, bias))
            continue;
        BiasFusion fusion{a, static_cast<std::size_t>(b), vector, source, std::nullopt};
        // A residual add after it (through reshapes, which keep the bytes): the add's other operand a tensor
        // of the result's elements and type, ready before the dot, and the add a kernel of its own.
        std::uint32_t biased = add.firstResult;
        while (uses.readers[biased].size() == 1 && ops[uses.readers[biased].front()].kind == OpKind::Reshape)
            biased = ops[uses.readers[biased].front()].firstResult;
        const std::size_t r = uses.readers[biased].size() == 1 ? uses.readers[biased].front() : 0;
        const Operation& residual = ops[r];
        const auto its = plan.members.find(r);
        if (r > 0 && residual.kind == OpKind::Add && residual.operands.size() == 2 &&
            residual.operands[0] != residual.operands[1] && its != plan.members.end() &&
            its->second.size() == (withResidual ? 2u : 1u) && (!withResidual || own->first == r)) {
            const std::uint32_t skip = residual.operands[residual.operands[0] == biased ? 1 : 0];
            const TensorType& t = body.valueTypes[skip];
            const std::int32_t q = uses.producer[skip];
            if (t.element == result.element && t.elementCount() == result.elementCount() &&
                residual.resultTypes.at(0).element == result.element && q < static_cast<std::int32_t>(d))
                fusion.residual = ResidualFusion{r, skip};
        }
        if (withResidual && !fusion.residual)
            continue; // the add stays in the fusion that took it
        fusions[d] = fusion;
    }
    return fusions;
}

} // namespace xps::shlo::lower

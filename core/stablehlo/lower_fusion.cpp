#include "stablehlo/lower_fusion.h"

#include <algorithm>
#include <set>

namespace xps::shlo::lower {

namespace {

// An element-wise op with a kernel of its own: not an alias (a conversion that keeps every value's bytes).
bool elementwiseKernel(const Body& body, const Operation& op)
{
    if (elementwiseArity(op.kind) == 0 || op.resultTypes.size() != 1 || op.operands.empty())
        return false;
    return op.kind != OpKind::Convert ||
           !sameBytes(body.valueTypes.at(op.operands[0]).element, op.resultTypes[0].element);
}

} // namespace

bool sameBytes(ElementType from, ElementType to)
{
    if (from == to)
        return true;
    if (isFloat(from) || isFloat(to) || to == ElementType::I1)
        return false;
    // Integers are 32-bit words holding their value modulo 2^32 (storageBytes): a conversion to 32 or 64
    // bits keeps that, and so does one to a narrower type that holds every value of the source as it is.
    const int fromBits = integerBits(from), toBits = integerBits(to);
    if (toBits >= 32 || from == ElementType::I1)
        return true;
    return fromBits < toBits && (isUnsigned(from) || !isUnsigned(to));
}

std::vector<std::int32_t> planFusion(const Body& body, int registers, const std::vector<bool>& excluded,
                                     bool excessPrecision)
{
    const auto isExcluded = [&](std::size_t i) { return i < excluded.size() && excluded[i]; };
    const auto& ops = body.operations;
    std::vector<std::int32_t> rootOf(ops.size(), -1);
    std::vector<std::uint32_t> uses(body.valueTypes.size(), 0);
    std::vector<std::int32_t> producer(body.valueTypes.size(), -1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        for (const std::uint32_t v : ops[i].operands)
            if (v < uses.size())
                ++uses[v];
        for (std::size_t r = 0; r < ops[i].resultTypes.size(); ++r)
            if (ops[i].firstResult + r < producer.size())
                producer[ops[i].firstResult + r] = static_cast<std::int32_t>(i);
    }
    // From the last op back: each element-wise op not yet in a fusion roots one, and takes in every operand
    // whose producer can join (element-wise, read by this fusion only; an f16 or bf16 intermediate only with
    // excess precision, as it is rounded on its way through HBM and fused it is not), while the registers
    // last.
    for (std::size_t r = ops.size(); r-- > 0;) {
        if (rootOf[r] >= 0 || isExcluded(r) || !elementwiseKernel(body, ops[r]))
            continue;
        const auto root = static_cast<std::int32_t>(r);
        rootOf[r] = root;
        const std::int64_t elements = ops[r].resultTypes[0].elementCount();
        std::set<std::uint32_t> inputs(ops[r].operands.begin(), ops[r].operands.end());
        int members = 1;
        std::vector<std::uint32_t> pending(ops[r].operands.begin(), ops[r].operands.end());
        while (!pending.empty()) {
            const std::uint32_t v = pending.back();
            pending.pop_back();
            const std::int32_t p = v < producer.size() ? producer[v] : -1;
            if (p < 0 || rootOf[static_cast<std::size_t>(p)] >= 0 ||
                isExcluded(static_cast<std::size_t>(p)) || uses[v] != 1 || !inputs.count(v))
                continue;
            const Operation& op = ops[static_cast<std::size_t>(p)];
            if (!elementwiseKernel(body, op) || op.resultTypes[0].elementCount() != elements ||
                (storageBytes(op.resultTypes[0].element) != 4 && !excessPrecision))
                continue;
            std::set<std::uint32_t> grown = inputs;
            grown.erase(v);
            grown.insert(op.operands.begin(), op.operands.end());
            if (static_cast<int>(grown.size()) + members > registers) // the root's result is v6
                continue;
            inputs = std::move(grown);
            ++members;
            rootOf[static_cast<std::size_t>(p)] = root;
            pending.insert(pending.end(), op.operands.begin(), op.operands.end());
        }
    }
    return rootOf;
}

std::optional<std::vector<std::int64_t>> broadcastStrides(const Operation& op, const TensorType& operand,
                                                          const std::vector<std::int64_t>& operandStrides)
{
    if (op.kind != OpKind::BroadcastInDim || op.resultTypes.size() != 1)
        return std::nullopt;
    const TensorType& out = op.resultTypes[0];
    const Attribute* attribute = op.attributes.find("broadcast_dimensions");
    const auto dims = attribute ? attribute->integers() : std::nullopt;
    if (!dims || dims->size() != operand.shape.size() || out.shape.empty())
        return std::nullopt;
    std::vector<std::int64_t> inner = operandStrides;
    if (inner.empty()) { // row-major; a dimension of size 1 is never stepped along
        inner.assign(operand.shape.size(), 0);
        for (std::int64_t d = static_cast<std::int64_t>(operand.shape.size()) - 1, stride = 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            inner[u] = operand.shape[u] == 1 ? 0 : stride;
            stride *= operand.shape[u];
        }
    }
    if (inner.size() != operand.shape.size())
        return std::nullopt;
    std::vector<std::int64_t> strides(out.shape.size(), 0);
    std::int64_t previous = -1;
    for (std::size_t k = 0; k < dims->size(); ++k) {
        const std::int64_t d = (*dims)[k];
        if (d <= previous || d >= static_cast<std::int64_t>(out.shape.size()))
            return std::nullopt;
        previous = d;
        const auto u = static_cast<std::size_t>(d);
        if (operand.shape[k] == out.shape[u])
            strides[u] = inner[k];
        else if (operand.shape[k] != 1)
            return std::nullopt;
    }
    return strides;
}

std::vector<bool> registerBroadcasts(const Body& body)
{
    const auto& ops = body.operations;
    std::vector<bool> inRegisters(ops.size(), false);
    // Readers come after their producers: from the last op back, each reader's fate is known.
    std::vector<bool> readByOthers(body.valueTypes.size(), false);
    for (std::size_t i = ops.size(); i-- > 0;) {
        const Operation& op = ops[i];
        if (op.kind == OpKind::BroadcastInDim && op.operands.size() == 1 &&
            op.firstResult < readByOthers.size() && op.operands[0] < body.valueTypes.size())
            inRegisters[i] = !readByOthers[op.firstResult] &&
                             broadcastStrides(op, body.valueTypes[op.operands[0]]).has_value();
        if (!inRegisters[i] && !elementwiseKernel(body, op))
            for (const std::uint32_t v : op.operands)
                if (v < readByOthers.size())
                    readByOthers[v] = true;
    }
    return inRegisters;
}

} // namespace xps::shlo::lower

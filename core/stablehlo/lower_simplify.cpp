#include "stablehlo/lower_simplify.h"

#include <cmath>
#include <cstdio>
#include <memory>

#include "stablehlo/attribute.h"
#include "stablehlo/eval_ops.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::lower {

namespace {

// The one value of a splat constant, read from its literal.
std::optional<double> splatConstant(const Operation& op)
{
    const Attribute* value = op.attributes.find("value");
    if (!value || value->kind != Attribute::Kind::Dense || !value->dense || !value->dense->isSplat() ||
        op.resultTypes.size() != 1 || !isFloat(op.resultTypes[0].element))
        return std::nullopt;
    Operation scalar = op;
    scalar.resultTypes[0].shape.clear();
    Attribute literal = *value;
    literal.denseShape.clear();
    scalar.attributes.set("value", std::move(literal));
    try {
        const TensorValue v = detail::evalConstant(scalar, "splat");
        if (v.data.size() == 1)
            return v.data[0];
    } catch (const detail::EvalError&) { // a literal the interpreter refuses: the lowering says why
    }
    return std::nullopt;
}

class Simplifier
{
public:
    Simplifier(Module& module, Body& body) : m_module(module), m_body(body) {}

    bool run()
    {
        const std::size_t n = m_body.valueTypes.size();
        m_splat.assign(n, std::nullopt);
        m_replace.resize(n);
        for (std::size_t v = 0; v < n; ++v)
            m_replace[v] = static_cast<std::uint32_t>(v);
        std::vector<bool> returned(n, false);
        for (const Operation& op : m_body.operations)
            if (op.kind == OpKind::Return)
                for (const auto v : op.operands)
                    returned[v] = true;
        bool changed = false;
        std::vector<Operation> out;
        out.reserve(m_body.operations.size());
        for (Operation op : m_body.operations) {
            for (auto& v : op.operands)
                v = m_replace[v];
            if (op.kind == OpKind::Power && op.operands.size() == 2 &&
                isFloat(op.resultTypes.at(0).element) &&
                m_splat[op.operands[1]] == 2.0) { // x^2 is x * x, as XLA's simplifier writes it
                op.kind = OpKind::Multiply;
                op.operands[1] = op.operands[0];
                changed = true;
            }
            if (reshapes(op)) { // the same elements in the same order: XLA makes it a reshape (no kernel)
                op.kind = OpKind::Reshape;
                changed = true;
            }
            const bool single = op.resultTypes.size() == 1 && op.operands.size() <= 2;
            if (single && !returned[op.firstResult])
                if (const auto same = identityOperand(op)) {
                    m_replace[op.firstResult] = *same;
                    changed = true;
                    continue;
                }
            if (single)
                if (auto reciprocal = reciprocalOf(op)) {
                    out.push_back(splatOp(op, *reciprocal));
                    op.kind = OpKind::Multiply;
                    op.operands[1] = out.back().firstResult;
                    changed = true;
                }
            if (single)
                m_splat[op.firstResult] = splatOf(op);
            out.push_back(std::move(op));
        }
        // As XLA's dead code elimination after it, whether or not an identity applied: a batch norm's mean
        // and variance that torch_xla's LayerNorm never reads cost no kernel.
        const std::size_t before = out.size();
        m_body.operations = dropUnread(std::move(out));
        return changed || m_body.operations.size() != before;
    }

private:
    std::optional<double> splatOf(const Operation& op) const
    {
        const TensorType& type = op.resultTypes[0];
        const auto operand = [&](std::size_t i) { return m_splat[op.operands.at(i)]; };
        switch (op.kind) {
        case OpKind::Constant: return splatConstant(op);
        case OpKind::BroadcastInDim:
        case OpKind::Reshape: return operand(0);
        default: break;
        }
        // Element-wise ops of splats, evaluated as the reference interpreter evaluates each element.
        if (!isFloat(type.element) || op.operands.empty())
            return std::nullopt;
        const ElementType in = m_body.valueTypes[op.operands.at(0)].element;
        if (op.operands.size() == 1 && operand(0) &&
            (op.kind == OpKind::Negate || op.kind == OpKind::Sqrt || op.kind == OpKind::Rsqrt))
            return roundTo(type.element, detail::applyUnary(op.kind, in, type.element, *operand(0)));
        if (op.operands.size() == 2 && operand(0) && operand(1) &&
            (op.kind == OpKind::Add || op.kind == OpKind::Subtract || op.kind == OpKind::Multiply ||
             op.kind == OpKind::Divide))
            return roundTo(type.element, detail::applyBinary(op.kind, in, *operand(0), *operand(1)));
        return std::nullopt;
    }

    // A broadcast_in_dim that only adds dimensions of size 1, its operand's in order (a row's sum [1, 128]
    // as [1, 128, 1]).
    bool reshapes(const Operation& op) const
    {
        if (op.kind != OpKind::BroadcastInDim || op.operands.size() != 1 || op.resultTypes.size() != 1)
            return false;
        const TensorType& in = m_body.valueTypes[op.operands[0]];
        const Attribute* attribute = op.attributes.find("broadcast_dimensions");
        const auto dims = attribute ? attribute->integers() : std::nullopt;
        if (!dims || in.elementCount() != op.resultTypes[0].elementCount() ||
            in.element != op.resultTypes[0].element)
            return false;
        const auto& out = op.resultTypes[0].shape;
        if (dims->size() != in.shape.size())
            return false;
        for (std::size_t k = 0; k < dims->size(); ++k) {
            const std::int64_t d = (*dims)[k];
            if (d < 0 || d >= static_cast<std::int64_t>(out.size()) || (k > 0 && d <= (*dims)[k - 1]) ||
                in.shape[k] != out[static_cast<std::size_t>(d)])
                return false;
        }
        return true;
    }

    // The operand `op` leaves unchanged (x + 0, x * 1, ...), of the result's very type.
    std::optional<std::uint32_t> identityOperand(const Operation& op) const
    {
        if (op.operands.size() != 2 || !isFloat(op.resultTypes[0].element))
            return std::nullopt;
        const auto is = [&](std::size_t i, double value) {
            const auto s = m_splat[op.operands[i]];
            return s && *s == value;
        };
        const auto keep = [&](std::size_t i) -> std::optional<std::uint32_t> {
            if (m_body.valueTypes[op.operands[i]] != op.resultTypes[0])
                return std::nullopt;
            return op.operands[i];
        };
        // x + 0, x - 0, x * 1, x / 1; and 0 + x, 1 * x.
        const bool additive = op.kind == OpKind::Add || op.kind == OpKind::Subtract;
        if (!additive && op.kind != OpKind::Multiply && op.kind != OpKind::Divide)
            return std::nullopt;
        const double identity = additive ? 0.0 : 1.0;
        if (is(1, identity))
            return keep(0);
        if ((op.kind == OpKind::Add || op.kind == OpKind::Multiply) && is(0, identity))
            return keep(1);
        return std::nullopt;
    }

    // x / c with c one finite value everywhere and x not: 1 / c in the result's type, as XLA's
    // InvertConstant computes it.
    std::optional<double> reciprocalOf(const Operation& op) const
    {
        const ElementType type = op.resultTypes[0].element;
        if (op.kind != OpKind::Divide || !isFloat(type) || m_splat[op.operands[0]])
            return std::nullopt;
        const auto c = m_splat[op.operands[1]];
        if (!c || *c == 0.0 || !std::isfinite(*c))
            return std::nullopt;
        return roundTo(type, detail::applyBinary(OpKind::Divide, type, 1.0, *c));
    }

    // A constant of `of`'s result type, every element `value`: a new value of the body.
    Operation splatOp(const Operation& of, double value)
    {
        auto text = std::make_shared<std::string>();
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.9g", value);
        *text = buffer;
        auto dense = std::make_shared<DenseLiteral>();
        dense->elements = {std::string_view(*text)};
        m_module.rewrittenText.push_back(std::move(text));
        Attribute literal;
        literal.kind = Attribute::Kind::Dense;
        literal.dense = std::move(dense);
        literal.denseShape = of.resultTypes[0].shape;
        literal.denseElement = std::string(elementTypeName(of.resultTypes[0].element));
        Operation c;
        c.kind = OpKind::Constant;
        c.location = of.location;
        c.resultTypes = of.resultTypes;
        c.resultName = of.resultName + ".reciprocal";
        c.attributes.set("value", std::move(literal));
        c.firstResult = static_cast<std::uint32_t>(m_body.valueTypes.size());
        m_body.valueTypes.push_back(of.resultTypes[0]);
        m_splat.push_back(value);
        m_replace.push_back(c.firstResult);
        return c;
    }

    // Ops without effects none of whose results anything reads, dropped from the last one back.
    std::vector<Operation> dropUnread(std::vector<Operation> ops) const
    {
        std::vector<std::size_t> reads(m_body.valueTypes.size(), 0);
        for (const Operation& op : ops)
            for (const auto v : op.operands)
                ++reads[v];
        std::vector<bool> dropped(ops.size(), false);
        for (std::size_t i = ops.size(); i-- > 0;) {
            const Operation& op = ops[i];
            bool unread = pure(op.kind) && !op.resultTypes.empty();
            for (std::size_t r = 0; unread && r < op.resultTypes.size(); ++r)
                unread = reads[op.firstResult + r] == 0;
            if (!unread)
                continue;
            dropped[i] = true;
            for (const auto v : op.operands)
                --reads[v];
        }
        std::vector<Operation> kept;
        for (std::size_t i = 0; i < ops.size(); ++i)
            if (!dropped[i])
                kept.push_back(std::move(ops[i]));
        return kept;
    }

    // Ops with no effect beyond their results: not a collective (every chip of its group waits for it), a
    // call or custom_call (what it does is not known here), a check or the return.
    static bool pure(OpKind kind)
    {
        switch (kind) {
        case OpKind::AllGather:
        case OpKind::AllReduce:
        case OpKind::ReduceScatter:
        case OpKind::CollectivePermute:
        case OpKind::Call:
        case OpKind::Return:
        case OpKind::CustomCall:
        case OpKind::ExpectEq:
        case OpKind::ExpectEqConst:
        case OpKind::ExpectAlmostEq:
        case OpKind::ExpectAlmostEqConst:
        case OpKind::ExpectClose: return false;
        default: return true;
        }
    }

    Module& m_module;
    Body& m_body;
    std::vector<std::optional<double>> m_splat; // per value: its one value, where it has one
    std::vector<std::uint32_t> m_replace;       // per value: the value standing for it
};

} // namespace

std::optional<Module> simplifyAlgebra(const Module& module)
{
    Module simplified = module;
    bool any = false;
    for (auto& f : simplified.functions)
        any = Simplifier(simplified, f.body).run() || any;
    if (!any)
        return std::nullopt;
    return simplified;
}

} // namespace xps::shlo::lower

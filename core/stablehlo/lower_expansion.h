#pragma once
// Writing one op as others (internal to core/stablehlo): the pieces an expansion appends to the module
// through an OpEmitter (lower_expand.h), each named after the op it expands ("%output.mean"), with its
// location, so the explorer's regions and the fusion planner see them as the exporter's own ops would be.

#include <string>
#include <vector>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

// The region of a reduce that adds: (a, b) -> a + b on f32 scalars.
inline Body addRegion()
{
    Body body;
    const TensorType scalar{{}, ElementType::F32};
    body.argumentTypes = {scalar, scalar};
    body.valueTypes = {scalar, scalar, scalar};
    Operation add;
    add.kind = OpKind::Add;
    add.operands = {0, 1};
    add.resultTypes = {scalar};
    add.firstResult = 2;
    Operation ret;
    ret.kind = OpKind::Return;
    ret.operands = {2};
    body.operations = {add, ret};
    return body;
}

class Expansion
{
public:
    Expansion(const Operation& op, const OpEmitter& emit) : m_op(op), m_emit(emit) {}

    Operation make(OpKind kind, const TensorType& result, const std::string& what) const
    {
        Operation o;
        o.kind = kind;
        o.location = m_op.location;
        o.resultTypes = {result};
        o.resultName = m_op.resultName + "." + what; // "%output.mean": the region names the batch norm
        return o;
    }
    TensorRef apply(Operation o, const std::vector<TensorRef>& in) const { return m_emit.op(o, in).at(0); }
    TensorRef unary(OpKind kind, const TensorRef& x, const std::string& what) const
    {
        return apply(make(kind, x.type, what), {x});
    }
    TensorRef binary(OpKind kind, const TensorRef& a, const TensorRef& b, const std::string& what) const
    {
        return apply(make(kind, a.type, what), {a, b});
    }
    TensorRef convert(const TensorRef& x, ElementType to, const std::string& what) const
    {
        if (x.type.element == to)
            return x;
        return apply(make(OpKind::Convert, TensorType{x.type.shape, to}, what), {x});
    }
    TensorRef splat(const std::vector<std::int64_t>& shape, double value, const std::string& what) const
    {
        TensorType type{shape, ElementType::F32};
        return m_emit.constant(
            TensorValue{type, std::vector<double>(static_cast<std::size_t>(type.elementCount()), value)},
            what);
    }
    // The sum over every dimension but `feature` of x (f32).
    TensorRef featureSum(const TensorRef& x, std::int64_t feature, const std::string& what) const
    {
        std::vector<std::int64_t> dims;
        for (std::int64_t d = 0; d < x.type.rank(); ++d)
            if (d != feature)
                dims.push_back(d);
        Operation o =
            make(OpKind::Reduce,
                 TensorType{{x.type.shape[static_cast<std::size_t>(feature)]}, ElementType::F32}, what);
        o.attributes.set("dimensions", integerList(dims));
        o.regions.push_back(addRegion());
        return apply(std::move(o), {x, splat({}, 0.0, what + "_init")});
    }
    // A feature vector broadcast to x's shape along `feature` (only element-wise pieces read it: fusion
    // holds it in their registers).
    TensorRef alongFeature(const TensorRef& vector, const TensorType& shape, std::int64_t feature,
                           const std::string& what) const
    {
        Operation o = make(OpKind::BroadcastInDim, TensorType{shape.shape, ElementType::F32}, what);
        o.attributes.set("broadcast_dimensions", integerList({feature}));
        return apply(std::move(o), {vector});
    }

    // A scalar f32 constant broadcast to `shape` (kept in registers by the element-wise kernels that read
    // it).
    TensorRef filled(const std::vector<std::int64_t>& shape, double value, const std::string& what) const
    {
        const TensorRef scalar = splat({}, value, what);
        if (shape.empty())
            return scalar;
        Operation o = make(OpKind::BroadcastInDim, TensorType{shape, ElementType::F32}, what + "_b");
        o.attributes.set("broadcast_dimensions", integerList({}));
        return apply(std::move(o), {scalar});
    }
    // a `direction` b ("LT", "GE", ...) as an i1 tensor.
    TensorRef compare(const TensorRef& a, const TensorRef& b, const char* direction,
                      const std::string& what) const
    {
        Operation o = make(OpKind::Compare, TensorType{a.type.shape, ElementType::I1}, what);
        Attribute word;
        word.kind = Attribute::Kind::Word;
        word.text = direction;
        o.attributes.set("comparison_direction", std::move(word));
        return apply(std::move(o), {a, b});
    }
    TensorRef select(const TensorRef& p, const TensorRef& a, const TensorRef& b,
                     const std::string& what) const
    {
        return apply(make(OpKind::Select, a.type, what), {p, a, b});
    }

private:
    const Operation& m_op;
    const OpEmitter& m_emit;
};

} // namespace xps::shlo::lower

// Data-movement ops of the reference interpreter (see eval_ops.h), and the attribute helpers.

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

void evalFail(std::string message)
{
    throw EvalError{std::move(message)};
}

void WorkMeter::charge(std::uint64_t work)
{
    m_used += work;
    if (m_used > m_budget)
        evalFail("evaluating the module takes more than " + std::to_string(m_budget) +
                 " element operations, the reference interpreter's limit");
    if (m_cancel && m_cancel->load(std::memory_order_relaxed))
        evalFail("cancelled");
}

std::vector<std::int64_t> intsAttr(const Operation& op, std::string_view name, bool required)
{
    const auto* a = op.attributes.find(name);
    if (!a) {
        if (required)
            evalFail("missing attribute '" + std::string(name) + "'");
        return {};
    }
    auto values = a->integers();
    if (!values)
        evalFail("attribute '" + std::string(name) + "' must be a list of integers");
    return *values;
}

std::int64_t intAttr(const Operation& op, std::string_view name, std::int64_t fallback, bool required)
{
    const auto* a = op.attributes.find(name);
    if (!a) {
        if (required)
            evalFail("missing attribute '" + std::string(name) + "'");
        return fallback;
    }
    if (a->kind != Attribute::Kind::Integer)
        evalFail("attribute '" + std::string(name) + "' must be an integer");
    return a->integer;
}

std::string wordAttr(const Operation& op, std::string_view name, const std::string& fallback)
{
    const auto* a = op.attributes.find(name);
    return a && a->kind == Attribute::Kind::Word ? a->text : fallback;
}

namespace {
const TensorType& result(const Operation& op)
{
    return op.resultTypes.at(0);
}

void requireElement(const TensorValue& operand, const TensorType& out)
{
    if (operand.type.element != out.element)
        evalFail("the operand is " + operand.type.toString() + "; the result " + out.toString() +
                 " must have the same element type");
}

// The result whose element at each index is the operand's element at `source(index)`: broadcast, transpose,
// slice and reverse differ only in that function.
template <typename Source>
TensorValue gather(const TensorValue& x, const TensorType& out, WorkMeter& meter, Source&& source)
{
    meter.charge(static_cast<std::uint64_t>(out.elementCount()));
    TensorValue r{out, {}};
    r.data.reserve(static_cast<std::size_t>(out.elementCount()));
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t) {
        r.data.push_back(x.data[static_cast<std::size_t>(source(idx))]);
    });
    return r;
}

void requireDimension(std::int64_t d, int rank, const char* what)
{
    if (d < 0 || d >= rank)
        evalFail(std::string(what) + " " + std::to_string(d) + " is not a dimension of a rank-" +
                 std::to_string(rank) + " tensor");
}
} // namespace

TensorValue evalConstant(const Operation& op, const std::string& where)
{
    const auto* value = op.attributes.find("value");
    if (!value)
        evalFail("stablehlo.constant without a value");
    auto v = literalValue(*value, result(op), where);
    if (!v)
        evalFail(v.error().message());
    return std::move(*v);
}

TensorValue evalBroadcastInDim(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& x = *in[0];
    const auto& out = result(op);
    requireElement(x, out);
    const auto dims = intsAttr(op, "broadcast_dimensions");
    if (static_cast<int>(dims.size()) != x.type.rank())
        evalFail("broadcast_dimensions has " + std::to_string(dims.size()) +
                 " entries for an operand of rank " + std::to_string(x.type.rank()));
    for (std::size_t i = 0; i < dims.size(); ++i) {
        requireDimension(dims[i], out.rank(), "broadcast dimension");
        const auto size = x.type.shape[i];
        if (size != 1 && size != out.shape[static_cast<std::size_t>(dims[i])])
            evalFail("operand dimension " + std::to_string(i) + " (" + std::to_string(size) +
                     ") is neither 1 nor the result's dimension " + std::to_string(dims[i]));
    }
    const auto strides = stridesOf(x.type.shape);
    return gather(x, out, meter, [&](const std::vector<std::int64_t>& idx) {
        std::int64_t src = 0;
        for (std::size_t i = 0; i < dims.size(); ++i)
            if (x.type.shape[i] != 1)
                src += idx[static_cast<std::size_t>(dims[i])] * strides[i];
        return src;
    });
}

TensorValue evalReshape(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& out = result(op);
    requireElement(*in[0], out);
    if (in[0]->type.elementCount() != out.elementCount())
        evalFail("reshape of " + in[0]->type.toString() + " to " + out.toString() +
                 " changes the element count");
    meter.charge(static_cast<std::uint64_t>(out.elementCount()));
    return TensorValue{out, in[0]->data};
}

TensorValue evalTranspose(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& x = *in[0];
    const auto& out = result(op);
    requireElement(x, out);
    const auto perm = intsAttr(op, "permutation");
    if (static_cast<int>(perm.size()) != x.type.rank())
        evalFail("permutation has " + std::to_string(perm.size()) + " entries for rank " +
                 std::to_string(x.type.rank()));
    std::vector<bool> seen(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) {
        requireDimension(perm[d], x.type.rank(), "permutation entry");
        if (seen[static_cast<std::size_t>(perm[d])])
            evalFail("permutation repeats dimension " + std::to_string(perm[d]));
        seen[static_cast<std::size_t>(perm[d])] = true;
        if (out.shape[d] != x.type.shape[static_cast<std::size_t>(perm[d])])
            evalFail("result dimension " + std::to_string(d) + " must be operand dimension " +
                     std::to_string(perm[d]));
    }
    const auto strides = stridesOf(x.type.shape);
    return gather(x, out, meter, [&](const std::vector<std::int64_t>& idx) {
        std::int64_t src = 0;
        for (std::size_t d = 0; d < perm.size(); ++d)
            src += idx[d] * strides[static_cast<std::size_t>(perm[d])];
        return src;
    });
}

TensorValue evalSlice(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& x = *in[0];
    const auto& out = result(op);
    requireElement(x, out);
    const auto start = intsAttr(op, "start_indices");
    const auto limit = intsAttr(op, "limit_indices");
    auto strides = intsAttr(op, "strides", false);
    if (strides.empty())
        strides.assign(start.size(), 1);
    const auto rank = static_cast<std::size_t>(x.type.rank());
    if (start.size() != rank || limit.size() != rank || strides.size() != rank)
        evalFail("slice needs a start, limit and stride for each of the operand's " + std::to_string(rank) +
                 " dimensions");
    for (std::size_t d = 0; d < rank; ++d) {
        if (start[d] < 0 || start[d] > limit[d] || limit[d] > x.type.shape[d] || strides[d] < 1)
            evalFail("slice [" + std::to_string(start[d]) + ":" + std::to_string(limit[d]) + ":" +
                     std::to_string(strides[d]) + "] does not fit dimension " + std::to_string(d) +
                     " of size " + std::to_string(x.type.shape[d]));
        if (out.shape[d] != (limit[d] - start[d] + strides[d] - 1) / strides[d])
            evalFail("the result's dimension " + std::to_string(d) + " does not match the slice");
    }
    const auto xs = stridesOf(x.type.shape);
    return gather(x, out, meter, [&](const std::vector<std::int64_t>& idx) {
        std::int64_t src = 0;
        for (std::size_t d = 0; d < rank; ++d)
            src += (start[d] + idx[d] * strides[d]) * xs[d];
        return src;
    });
}

TensorValue evalConcatenate(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& out = result(op);
    const auto dim = intAttr(op, "dimension", 0, true);
    requireDimension(dim, out.rank(), "concatenate dimension");
    const auto ud = static_cast<std::size_t>(dim);
    std::int64_t total = 0;
    for (const auto* x : in) {
        requireElement(*x, out);
        if (x->type.rank() != out.rank())
            evalFail("concatenate operands must have the result's rank");
        for (std::size_t d = 0; d < out.shape.size(); ++d)
            if (d != ud && x->type.shape[d] != out.shape[d])
                evalFail("concatenate operands differ outside dimension " + std::to_string(dim));
        total += x->type.shape[ud];
    }
    if (total != out.shape[ud])
        evalFail("the operands' sizes along dimension " + std::to_string(dim) + " add up to " +
                 std::to_string(total) + ", not the result's " + std::to_string(out.shape[ud]));
    meter.charge(static_cast<std::uint64_t>(out.elementCount()));
    TensorValue r{out, {}};
    r.data.reserve(static_cast<std::size_t>(out.elementCount()));
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t) {
        auto offset = idx[ud];
        for (const auto* x : in) {
            if (offset < x->type.shape[ud]) {
                const auto xs = stridesOf(x->type.shape);
                std::int64_t src = 0;
                for (std::size_t d = 0; d < idx.size(); ++d)
                    src += (d == ud ? offset : idx[d]) * xs[d];
                r.data.push_back(x->data[static_cast<std::size_t>(src)]);
                return;
            }
            offset -= x->type.shape[ud];
        }
    });
    return r;
}

TensorValue evalPad(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& x = *in[0];
    const auto& out = result(op);
    requireElement(x, out);
    if (!in[1]->type.shape.empty())
        evalFail("the padding value must be a scalar");
    const auto low = intsAttr(op, "edge_padding_low");
    const auto high = intsAttr(op, "edge_padding_high");
    const auto interior = intsAttr(op, "interior_padding");
    const auto rank = static_cast<std::size_t>(x.type.rank());
    if (low.size() != rank || high.size() != rank || interior.size() != rank)
        evalFail("pad needs low, high and interior padding for each of " + std::to_string(rank) +
                 " dimensions");
    for (std::size_t d = 0; d < rank; ++d) {
        const auto n = x.type.shape[d];
        if (interior[d] < 0)
            evalFail("interior padding must not be negative");
        const auto size = low[d] + high[d] + n + (n > 0 ? (n - 1) * interior[d] : 0);
        if (size != out.shape[d])
            evalFail("padding dimension " + std::to_string(d) + " gives " + std::to_string(size) +
                     ", the result has " + std::to_string(out.shape[d]));
    }
    meter.charge(static_cast<std::uint64_t>(out.elementCount() + x.type.elementCount()));
    TensorValue r{out, std::vector<double>(static_cast<std::size_t>(out.elementCount()), in[1]->data[0])};
    const auto os = stridesOf(out.shape);
    forEachIndex(x.type.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t linear) {
        std::int64_t dst = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            const auto p = low[d] + idx[d] * (interior[d] + 1);
            if (p < 0 || p >= out.shape[d])
                return; // cropped by negative padding
            dst += p * os[d];
        }
        r.data[static_cast<std::size_t>(dst)] = x.data[static_cast<std::size_t>(linear)];
    });
    return r;
}

TensorValue evalIota(const Operation& op, WorkMeter& meter)
{
    const auto& out = result(op);
    const auto dim = intAttr(op, "iota_dimension", 0, true);
    requireDimension(dim, out.rank(), "iota dimension");
    meter.charge(static_cast<std::uint64_t>(out.elementCount()));
    TensorValue r{out, {}};
    r.data.reserve(static_cast<std::size_t>(out.elementCount()));
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t) {
        r.data.push_back(roundTo(out.element, static_cast<double>(idx[static_cast<std::size_t>(dim)])));
    });
    return r;
}

TensorValue evalReverse(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& x = *in[0];
    const auto& out = result(op);
    requireElement(x, out);
    if (out.shape != x.type.shape)
        evalFail("reverse keeps the operand's shape");
    const auto dims = intsAttr(op, "dimensions");
    std::vector<bool> flip(static_cast<std::size_t>(x.type.rank()));
    for (const auto d : dims) {
        requireDimension(d, x.type.rank(), "reversed dimension");
        flip[static_cast<std::size_t>(d)] = true;
    }
    const auto xs = stridesOf(x.type.shape);
    return gather(x, out, meter, [&](const std::vector<std::int64_t>& idx) {
        std::int64_t src = 0;
        for (std::size_t d = 0; d < idx.size(); ++d)
            src += (flip[d] ? x.type.shape[d] - 1 - idx[d] : idx[d]) * xs[d];
        return src;
    });
}

} // namespace xps::shlo::detail

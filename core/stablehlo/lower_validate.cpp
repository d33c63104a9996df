// What the lowering's kernels take on trust, checked before they run: attribute dimensions in range, shapes
// that agree, positive strides. The reference interpreter checks the same while it computes; `compile` and
// the explorer lower a module without evaluating it, so a malformed module must stop here with its op's
// location instead of indexing out of range in a kernel.

#include <algorithm>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

void dimensionsIn(const std::vector<std::int64_t>& dims, int rank, const char* what, bool distinct = true)
{
    std::vector<bool> seen(static_cast<std::size_t>(std::max(rank, 0)));
    for (const auto d : dims) {
        if (d < 0 || d >= rank)
            lowerFail(std::string(what) + " " + std::to_string(d) + " is not a dimension of a rank-" +
                      std::to_string(rank) + " tensor");
        if (distinct && seen[static_cast<std::size_t>(d)])
            lowerFail(std::string(what) + " repeats dimension " + std::to_string(d));
        seen[static_cast<std::size_t>(d)] = true;
    }
}

void sizeIs(const std::vector<std::int64_t>& v, std::size_t n, const char* what)
{
    if (v.size() != n)
        lowerFail(std::string(what) + " needs " + std::to_string(n) + " entries, has " +
                  std::to_string(v.size()));
}

// How many operands the kernels below index without looking: {least, most}.
std::pair<std::size_t, std::size_t> operandsOf(OpKind kind)
{
    constexpr std::size_t any = SIZE_MAX;
    switch (kind) {
    case OpKind::BroadcastInDim:
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::Reverse: return {1, 1};
    case OpKind::Pad:
    case OpKind::ReduceWindow:
    case OpKind::Convolution:
    case OpKind::DotGeneral:
    case OpKind::Dot:
    case OpKind::Gather: return {2, 2};
    case OpKind::Scatter: return {3, any};
    case OpKind::DynamicSlice: return {1, any};
    case OpKind::DynamicUpdateSlice: return {2, any};
    case OpKind::Concatenate: return {1, any};
    case OpKind::Reduce: return {2, any};
    default: return {0, any};
    }
}

// The reducer's kernels take one scalar from the region's return per result (regionCode's registers,
// combineBlocks' moves): a return of fewer values, or none at all, must stop here.
void reducerReturns(const Operation& op, std::size_t count)
{
    const auto& body = op.regions[0];
    if (body.operations.empty() || body.operations.back().kind != OpKind::Return)
        lowerFail("the reducer does not end with a return");
    const auto& returned = body.operations.back().operands;
    if (returned.size() != count)
        lowerFail("the reducer returns " + std::to_string(returned.size()) + " values; " +
                  std::to_string(count) + " expected");
    for (const auto v : returned)
        if (v >= body.valueTypes.size() || !body.valueTypes[v].shape.empty())
            lowerFail("the reducer must return scalars");
}

} // namespace

void validateOp(const Operation& op, const std::vector<TensorRef>& in)
{
    if (op.resultTypes.empty())
        lowerFail("the op has no result");
    const auto& out = op.resultTypes[0];
    const auto rank = out.rank();
    const int arity = elementwiseArity(op.kind);
    if (arity > 0) {
        if (static_cast<int>(in.size()) != arity)
            lowerFail("expected " + std::to_string(arity) + " operands");
        for (std::size_t i = 0; i < in.size(); ++i)
            if (in[i].type.shape != out.shape && !in[i].type.shape.empty())
                lowerFail("operand " + std::to_string(i) + " is " + in[i].type.toString() +
                          "; the result is " + out.toString() + " (element-wise ops do not broadcast)");
        return;
    }
    if (const auto [least, most] = operandsOf(op.kind); in.size() < least || in.size() > most)
        lowerFail("expected " +
                  (least == most ? std::to_string(least) : "at least " + std::to_string(least)) + " operand" +
                  (least == 1 && least == most ? "" : "s") + ", has " + std::to_string(in.size()));
    switch (op.kind) {
    case OpKind::BroadcastInDim: {
        const auto dims = detail::intsAttr(op, "broadcast_dimensions");
        sizeIs(dims, in.at(0).type.shape.size(), "broadcast_dimensions");
        dimensionsIn(dims, rank, "broadcast dimension");
        for (std::size_t i = 0; i < dims.size(); ++i)
            if (in[0].type.shape[i] != 1 &&
                in[0].type.shape[i] != out.shape[static_cast<std::size_t>(dims[i])])
                lowerFail("operand dimension " + std::to_string(i) + " is neither 1 nor the result's");
        break;
    }
    case OpKind::Transpose: {
        const auto perm = detail::intsAttr(op, "permutation");
        sizeIs(perm, in.at(0).type.shape.size(), "permutation");
        dimensionsIn(perm, in[0].type.rank(), "permutation entry");
        for (std::size_t d = 0; d < perm.size(); ++d)
            if (d >= out.shape.size() || out.shape[d] != in[0].type.shape[static_cast<std::size_t>(perm[d])])
                lowerFail("the result does not have the permuted shape");
        break;
    }
    case OpKind::Slice:
    case OpKind::Reverse:
    case OpKind::Pad: {
        // The interpreter's own checks of these are complete and cheap: shapes only, no data.
        std::vector<TensorValue> empty;
        for (const auto& t : in)
            empty.push_back(TensorValue{
                TensorType{std::vector<std::int64_t>(t.type.shape.size(), 0), t.type.element}, {}});
        if (op.kind == OpKind::Slice) {
            const auto start = detail::intsAttr(op, "start_indices"),
                       limit = detail::intsAttr(op, "limit_indices");
            auto strides = detail::intsAttr(op, "strides", false);
            if (strides.empty())
                strides.assign(start.size(), 1);
            sizeIs(start, in.at(0).type.shape.size(), "start_indices");
            sizeIs(limit, start.size(), "limit_indices");
            sizeIs(strides, start.size(), "strides");
            for (std::size_t d = 0; d < start.size(); ++d)
                if (start[d] < 0 || start[d] > limit[d] || limit[d] > in[0].type.shape[d] || strides[d] < 1 ||
                    d >= out.shape.size() ||
                    out.shape[d] != (limit[d] - start[d] + strides[d] - 1) / strides[d])
                    lowerFail("the slice does not fit the operand or the result");
        } else if (op.kind == OpKind::Reverse) {
            dimensionsIn(detail::intsAttr(op, "dimensions"), in.at(0).type.rank(), "reversed dimension");
            if (out.shape != in[0].type.shape)
                lowerFail("reverse keeps the operand's shape");
        } else {
            const auto low = detail::intsAttr(op, "edge_padding_low"),
                       high = detail::intsAttr(op, "edge_padding_high"),
                       interior = detail::intsAttr(op, "interior_padding");
            const auto n = in.at(0).type.shape.size();
            sizeIs(low, n, "edge_padding_low");
            sizeIs(high, n, "edge_padding_high");
            sizeIs(interior, n, "interior_padding");
            if (in.size() != 2 || !in[1].type.shape.empty())
                lowerFail("pad takes an operand and a scalar padding value");
            for (std::size_t d = 0; d < n; ++d) {
                const auto size = in[0].type.shape[d];
                if (interior[d] < 0 || d >= out.shape.size() ||
                    low[d] + high[d] + size + (size > 0 ? (size - 1) * interior[d] : 0) != out.shape[d])
                    lowerFail("the padding does not give the result's shape");
            }
        }
        break;
    }
    case OpKind::Concatenate: {
        const auto* dim = op.attributes.find("dimension");
        if (!dim || dim->kind != Attribute::Kind::Integer || dim->integer < 0 || dim->integer >= rank)
            lowerFail("concatenate needs a dimension of the result");
        std::int64_t total = 0;
        for (const auto& t : in) {
            if (t.type.rank() != rank)
                lowerFail("concatenate's operands must have the result's rank");
            for (int d = 0; d < rank; ++d)
                if (d != dim->integer &&
                    t.type.shape[static_cast<std::size_t>(d)] != out.shape[static_cast<std::size_t>(d)])
                    lowerFail("concatenate's operands differ outside the concatenated dimension");
            total += t.type.shape[static_cast<std::size_t>(dim->integer)];
        }
        if (total != out.shape[static_cast<std::size_t>(dim->integer)])
            lowerFail("concatenate's operands do not add up to the result");
        break;
    }
    case OpKind::Reduce: {
        if (in.empty() || in.size() % 2 != 0 || op.resultTypes.size() != in.size() / 2)
            lowerFail("reduce takes inputs and as many initial values, one result each");
        const auto& shape = in[0].type.shape;
        const auto dims = detail::intsAttr(op, "dimensions");
        dimensionsIn(dims, static_cast<int>(shape.size()), "reduced dimension");
        std::vector<std::int64_t> kept;
        for (std::size_t d = 0; d < shape.size(); ++d)
            if (std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) == dims.end())
                kept.push_back(shape[d]);
        for (std::size_t i = 0; i < in.size() / 2; ++i)
            if (in[i].type.shape != shape || !in[in.size() / 2 + i].type.shape.empty() ||
                op.resultTypes[i].shape != kept)
                lowerFail("reduce's inputs, initial values and results do not agree in shape");
        if (op.regions.size() != 1 || op.regions[0].argumentTypes.size() != in.size())
            lowerFail("reduce's reducer takes " + std::to_string(in.size()) + " arguments");
        reducerReturns(op, in.size() / 2);
        break;
    }
    case OpKind::Scatter:
        if (op.regions.size() != 1 || op.regions[0].argumentTypes.size() != in.size() - 1)
            lowerFail("scatter's update computation takes " + std::to_string(in.size() - 1) + " arguments");
        reducerReturns(op, in.size() / 2);
        break;
    case OpKind::ReduceWindow: {
        const auto n = in.at(0).type.shape.size();
        const auto window = detail::flatIntsAttr(op, "window_dimensions", n, 1);
        const auto strides = detail::flatIntsAttr(op, "window_strides", n, 1);
        const auto base = detail::flatIntsAttr(op, "base_dilations", n, 1);
        const auto dil = detail::flatIntsAttr(op, "window_dilations", n, 1);
        const auto padding = detail::flatIntsAttr(op, "padding", 2 * n, 0);
        for (std::size_t d = 0; d < n; ++d)
            if (window[d] < 1 || strides[d] < 1 || base[d] < 1 || dil[d] < 1 ||
                window[d] > kMaxTensorElements || strides[d] > kMaxTensorElements ||
                base[d] > kMaxTensorElements || dil[d] > kMaxTensorElements ||
                std::abs(padding[2 * d]) > kMaxTensorElements ||
                std::abs(padding[2 * d + 1]) > kMaxTensorElements)
                lowerFail("window sizes, strides and dilations must be positive and in range");
        if (out.shape.size() != n || in.size() != 2 || !in[1].type.shape.empty())
            lowerFail("reduce_window takes an operand of the result's rank and a scalar initial value");
        if (op.regions.size() != 1 || op.regions[0].argumentTypes.size() != 2)
            lowerFail("reduce_window needs a reducer region of 2 arguments");
        reducerReturns(op, 1);
        for (std::size_t d = 0; d < n; ++d) {
            const auto size = in[0].type.shape[d];
            const auto dilated = size == 0 ? 0 : (size - 1) * base[d] + 1;
            const auto padded = dilated + padding[2 * d] + padding[2 * d + 1];
            const auto extent = (window[d] - 1) * dil[d] + 1;
            if (out.shape[d] != (padded < extent ? 0 : (padded - extent) / strides[d] + 1))
                lowerFail("the result does not have the shape the window gives");
        }
        break;
    }
    case OpKind::Convolution: {
        const auto* numbers = op.attributes.find("dimension_numbers");
        const int r = in.at(0).type.rank();
        if (!numbers || numbers->kind != Attribute::Kind::List || numbers->items.size() != 3 || r < 2 ||
            in.size() != 2 || in[1].type.rank() != r || out.rank() != r)
            lowerFail("convolution needs dimension numbers and operands and a result of one rank");
        const auto L = detail::convLayout(numbers->items[0], 'b', 'f', r);
        const auto K = detail::convLayout(numbers->items[1], 'i', 'o', r);
        const auto O = detail::convLayout(numbers->items[2], 'b', 'f', r);
        const auto S = static_cast<std::size_t>(r - 2);
        const auto strides = detail::flatIntsAttr(op, "window_strides", S, 1);
        const auto padding = detail::flatIntsAttr(op, "padding", 2 * S, 0);
        const auto lhsDil = detail::flatIntsAttr(op, "lhs_dilation", S, 1);
        const auto rhsDil = detail::flatIntsAttr(op, "rhs_dilation", S, 1);
        (void)detail::flatIntsAttr(op, "window_reversal", S, 0);
        const auto at = [](const TensorType& t, std::int64_t d) {
            return t.shape[static_cast<std::size_t>(d)];
        };
        const auto* groups = op.attributes.find("feature_group_count");
        const std::int64_t G = groups && groups->kind == Attribute::Kind::Integer ? groups->integer : 1;
        if (G < 1 || at(in[0].type, L.feature) != at(in[1].type, K.batch) * G ||
            at(in[1].type, K.feature) % G != 0 || at(out, O.feature) != at(in[1].type, K.feature) ||
            at(out, O.batch) != at(in[0].type, L.batch))
            lowerFail("the convolution's features or batch do not match its operands");
        for (std::size_t s = 0; s < S; ++s) {
            if (strides[s] < 1 || lhsDil[s] < 1 || rhsDil[s] < 1 || strides[s] > kMaxTensorElements ||
                lhsDil[s] > kMaxTensorElements || rhsDil[s] > kMaxTensorElements ||
                std::abs(padding[2 * s]) > kMaxTensorElements ||
                std::abs(padding[2 * s + 1]) > kMaxTensorElements)
                lowerFail("convolution strides and dilations must be positive and in range");
            const auto n = at(in[0].type, L.spatial[s]);
            const auto k = at(in[1].type, K.spatial[s]);
            const auto dilated = n == 0 ? 0 : (n - 1) * lhsDil[s] + 1;
            const auto padded = dilated + padding[2 * s] + padding[2 * s + 1];
            const auto extent = k == 0 ? 0 : (k - 1) * rhsDil[s] + 1;
            if (at(out, O.spatial[s]) != (padded < extent ? 0 : (padded - extent) / strides[s] + 1))
                lowerFail("the convolution's result does not have the shape its window gives");
        }
        break;
    }
    case OpKind::DotGeneral:
    case OpKind::Dot: {
        if (in.size() != 2)
            lowerFail("dot_general takes two operands");
        if (op.kind == OpKind::Dot) {
            if (in[0].type.rank() < 1 || in[0].type.rank() > 2 || in[1].type.rank() < 1 ||
                in[1].type.rank() > 2 || in[0].type.shape.back() != in[1].type.shape.front())
                lowerFail("stablehlo.dot takes vectors and matrices whose inner sizes match");
            break;
        }
        const auto lb = detail::intsAttr(op, "lhs_batching_dimensions", false),
                   rb = detail::intsAttr(op, "rhs_batching_dimensions", false);
        const auto lc = detail::intsAttr(op, "lhs_contracting_dimensions", false),
                   rc = detail::intsAttr(op, "rhs_contracting_dimensions", false);
        auto lAll = lb, rAll = rb;
        lAll.insert(lAll.end(), lc.begin(), lc.end());
        rAll.insert(rAll.end(), rc.begin(), rc.end());
        dimensionsIn(lAll, in[0].type.rank(), "lhs batching or contracting dimension");
        dimensionsIn(rAll, in[1].type.rank(), "rhs batching or contracting dimension");
        if (lb.size() != rb.size() || lc.size() != rc.size())
            lowerFail("lhs and rhs need as many batching and as many contracting dimensions");
        const auto size = [](const TensorRef& t, std::int64_t d) {
            return t.type.shape[static_cast<std::size_t>(d)];
        };
        for (std::size_t i = 0; i < lb.size(); ++i)
            if (size(in[0], lb[i]) != size(in[1], rb[i]))
                lowerFail("batching dimensions differ in size");
        for (std::size_t i = 0; i < lc.size(); ++i)
            if (size(in[0], lc[i]) != size(in[1], rc[i]))
                lowerFail("contracting dimensions differ in size");
        const auto expected = static_cast<std::size_t>(in[0].type.rank() + in[1].type.rank()) - lb.size() -
                              lc.size() - rc.size();
        if (out.shape.size() != expected)
            lowerFail("the result does not have the shape the dimension numbers give");
        break;
    }
    default: break;
    }
}

} // namespace xps::shlo::lower

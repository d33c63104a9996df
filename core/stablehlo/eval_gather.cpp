// The indexed data movements of the reference interpreter (see eval_ops.h): gather, scatter, dynamic_slice
// and dynamic_update_slice, from the StableHLO spec.

#include <algorithm>
#include <cmath>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

std::vector<std::int64_t> optionalInts(const Operation& op, std::string_view name)
{
    return op.attributes.find(name) ? intsAttr(op, name) : std::vector<std::int64_t>{};
}

bool contains(const std::vector<std::int64_t>& list, std::int64_t x)
{
    return std::find(list.begin(), list.end(), x) != list.end();
}

void checkDims(const std::vector<std::int64_t>& dims, std::int64_t rank, const char* what)
{
    std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(rank, 0)), false);
    for (const auto d : dims) {
        if (d < 0 || d >= rank || seen[static_cast<std::size_t>(d)])
            evalFail(std::string(what) + " must be distinct dimensions below " + std::to_string(rank));
        seen[static_cast<std::size_t>(d)] = true;
    }
}

std::string listText(const std::vector<std::int64_t>& v)
{
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
}

} // namespace

bool GatherDims::keeps(std::int64_t operandDim) const
{
    return !contains(collapsedSliceDims, operandDim) && !contains(operandBatchingDims, operandDim);
}

GatherDims gatherDims(const Operation& op, const TensorType& operand, const TensorType& indices,
                      const TensorType& result)
{
    GatherDims g;
    g.offsetDims = optionalInts(op, "offset_dims");
    g.collapsedSliceDims = optionalInts(op, "collapsed_slice_dims");
    g.operandBatchingDims = optionalInts(op, "operand_batching_dims");
    g.startIndicesBatchingDims = optionalInts(op, "start_indices_batching_dims");
    g.startIndexMap = intsAttr(op, "start_index_map");
    g.sliceSizes = intsAttr(op, "slice_sizes");
    // #stablehlo.gather<...> leaves out a field at its default, and index_vector_dim's is 0.
    g.indexVectorDim = intAttr(op, "index_vector_dim", 0);
    if (isFloat(indices.element) || indices.element == ElementType::I1)
        evalFail("start_indices must be integers, not " + std::string(elementTypeName(indices.element)));
    const auto operandRank = static_cast<std::int64_t>(operand.rank());
    if (g.indexVectorDim < 0 || g.indexVectorDim > indices.rank())
        evalFail("index_vector_dim " + std::to_string(g.indexVectorDim) + " is outside 0.." +
                 std::to_string(indices.rank()));
    if (static_cast<std::int64_t>(g.sliceSizes.size()) != operandRank)
        evalFail("slice_sizes has " + std::to_string(g.sliceSizes.size()) + " sizes; the operand has rank " +
                 std::to_string(operandRank));
    for (std::size_t d = 0; d < g.sliceSizes.size(); ++d)
        if (g.sliceSizes[d] < 0 || g.sliceSizes[d] > operand.shape[d])
            evalFail("slice_sizes[" + std::to_string(d) + "] = " + std::to_string(g.sliceSizes[d]) +
                     " is outside 0.." + std::to_string(operand.shape[d]));
    checkDims(g.collapsedSliceDims, operandRank, "collapsed_slice_dims");
    checkDims(g.operandBatchingDims, operandRank, "operand_batching_dims");
    checkDims(g.startIndexMap, operandRank, "start_index_map");
    checkDims(g.offsetDims, result.rank(), "offset_dims");
    for (const auto d : g.collapsedSliceDims) {
        if (g.sliceSizes[static_cast<std::size_t>(d)] > 1)
            evalFail("a collapsed dimension's slice size must be 0 or 1 (dimension " + std::to_string(d) +
                     ")");
        if (contains(g.operandBatchingDims, d))
            evalFail("dimension " + std::to_string(d) + " is both collapsed and a batching dimension");
    }
    for (const auto d : g.operandBatchingDims)
        if (g.sliceSizes[static_cast<std::size_t>(d)] > 1)
            evalFail("a batching dimension's slice size must be 0 or 1 (dimension " + std::to_string(d) +
                     ")");
    if (g.operandBatchingDims.size() != g.startIndicesBatchingDims.size())
        evalFail("operand_batching_dims and start_indices_batching_dims must have the same size");
    for (const auto d : g.startIndicesBatchingDims)
        if (d < 0 || d >= indices.rank() || d == g.indexVectorDim)
            evalFail("start_indices_batching_dims must be dimensions of start_indices other than "
                     "index_vector_dim");
    const std::int64_t indexCount =
        g.indexVectorDim < indices.rank() ? indices.shape[static_cast<std::size_t>(g.indexVectorDim)] : 1;
    if (static_cast<std::int64_t>(g.startIndexMap.size()) != indexCount)
        evalFail("start_index_map has " + std::to_string(g.startIndexMap.size()) +
                 " dimensions; each index vector has " + std::to_string(indexCount));
    // The result: the batch dimensions (start_indices' without index_vector_dim) with the slice's kept
    // dimensions at offset_dims.
    std::vector<std::int64_t> batchShape, offsetShape;
    for (std::int64_t d = 0; d < indices.rank(); ++d)
        if (d != g.indexVectorDim)
            batchShape.push_back(indices.shape[static_cast<std::size_t>(d)]);
    for (std::int64_t d = 0; d < operandRank; ++d)
        if (g.keeps(d))
            offsetShape.push_back(g.sliceSizes[static_cast<std::size_t>(d)]);
    if (offsetShape.size() != g.offsetDims.size())
        evalFail("offset_dims has " + std::to_string(g.offsetDims.size()) + " dimensions; the slice keeps " +
                 std::to_string(offsetShape.size()));
    std::vector<std::int64_t> expected;
    for (std::size_t d = 0, b = 0, o = 0; d < batchShape.size() + offsetShape.size(); ++d)
        expected.push_back(contains(g.offsetDims, static_cast<std::int64_t>(d)) ? offsetShape[o++]
                                                                                : batchShape[b++]);
    if (expected != result.shape)
        evalFail("the result must have shape " + listText(expected) + "; it is " + result.toString());
    for (std::size_t d = 0; d < expected.size(); ++d)
        (contains(g.offsetDims, static_cast<std::int64_t>(d)) ? g.resultOffsetDims : g.resultBatchDims)
            .push_back(static_cast<std::int64_t>(d));
    if (operand.element != result.element)
        evalFail("the result's element type must be the operand's");
    return g;
}

TensorValue evalGather(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const TensorValue& operand = *in.at(0);
    const TensorValue& indices = *in.at(1);
    const TensorType& resultType = op.resultTypes.at(0);
    const GatherDims g = gatherDims(op, operand.type, indices.type, resultType);
    meter.charge(static_cast<std::uint64_t>(resultType.elementCount()) * (g.startIndexMap.size() + 1));
    const auto operandStrides = stridesOf(operand.type.shape);
    const auto indexStrides = stridesOf(indices.type.shape);
    const auto operandRank = static_cast<std::size_t>(operand.type.rank());
    TensorValue out{resultType, std::vector<double>(static_cast<std::size_t>(resultType.elementCount()))};
    std::vector<std::int64_t> operandIndex(operandRank), batchIndex(g.resultBatchDims.size());
    forEachIndex(resultType.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t linear) {
        for (std::size_t i = 0; i < g.resultBatchDims.size(); ++i)
            batchIndex[i] = idx[static_cast<std::size_t>(g.resultBatchDims[i])];
        // start_indices' index of component k of this batch position's index vector
        const auto indexAt = [&](std::int64_t k) {
            std::int64_t at = 0;
            for (std::int64_t d = 0, b = 0; d < indices.type.rank(); ++d)
                at += (d == g.indexVectorDim ? k : batchIndex[static_cast<std::size_t>(b++)]) *
                      indexStrides[static_cast<std::size_t>(d)];
            return at;
        };
        std::fill(operandIndex.begin(), operandIndex.end(), 0);
        for (std::size_t k = 0; k < g.startIndexMap.size(); ++k) {
            const auto d = static_cast<std::size_t>(g.startIndexMap[k]);
            const double start =
                indices.data[static_cast<std::size_t>(indexAt(static_cast<std::int64_t>(k)))];
            const double limit = static_cast<double>(operand.type.shape[d] - g.sliceSizes[d]);
            operandIndex[d] = static_cast<std::int64_t>(std::clamp(start, 0.0, std::max(limit, 0.0)));
        }
        for (std::size_t i = 0; i < g.operandBatchingDims.size(); ++i) {
            const auto dStart = g.startIndicesBatchingDims[i];
            operandIndex[static_cast<std::size_t>(g.operandBatchingDims[i])] +=
                batchIndex[static_cast<std::size_t>(dStart - (dStart < g.indexVectorDim ? 0 : 1))];
        }
        for (std::size_t d = 0, o = 0; d < operandRank; ++d)
            if (g.keeps(static_cast<std::int64_t>(d)))
                operandIndex[d] += idx[static_cast<std::size_t>(g.offsetDims[o++])];
        std::int64_t at = 0;
        for (std::size_t d = 0; d < operandRank; ++d)
            at += operandIndex[d] * operandStrides[d];
        out.data[static_cast<std::size_t>(linear)] = operand.data[static_cast<std::size_t>(at)];
    });
    return out;
}

bool ScatterDims::windowed(std::int64_t inputDim) const
{
    return !contains(insertedWindowDims, inputDim) && !contains(inputBatchingDims, inputDim);
}

ScatterDims scatterDims(const Operation& op, const TensorType& input, const TensorType& indices,
                        const TensorType& updates)
{
    ScatterDims s;
    s.updateWindowDims = optionalInts(op, "update_window_dims");
    s.insertedWindowDims = optionalInts(op, "inserted_window_dims");
    s.inputBatchingDims = optionalInts(op, "input_batching_dims");
    s.scatterIndicesBatchingDims = optionalInts(op, "scatter_indices_batching_dims");
    s.scatterDimsToOperandDims = optionalInts(op, "scatter_dims_to_operand_dims");
    s.indexVectorDim = intAttr(op, "index_vector_dim", 0);
    if (isFloat(indices.element) || indices.element == ElementType::I1)
        evalFail("scatter_indices must be integers, not " + std::string(elementTypeName(indices.element)));
    const auto inputRank = static_cast<std::int64_t>(input.rank());
    if (s.indexVectorDim < 0 || s.indexVectorDim > indices.rank())
        evalFail("index_vector_dim " + std::to_string(s.indexVectorDim) + " is outside 0.." +
                 std::to_string(indices.rank()));
    checkDims(s.updateWindowDims, updates.rank(), "update_window_dims");
    checkDims(s.insertedWindowDims, inputRank, "inserted_window_dims");
    checkDims(s.inputBatchingDims, inputRank, "input_batching_dims");
    checkDims(s.scatterDimsToOperandDims, inputRank, "scatter_dims_to_operand_dims");
    if (!std::is_sorted(s.updateWindowDims.begin(), s.updateWindowDims.end()) ||
        !std::is_sorted(s.insertedWindowDims.begin(), s.insertedWindowDims.end()))
        evalFail("update_window_dims and inserted_window_dims must be sorted");
    for (const auto d : s.insertedWindowDims)
        if (contains(s.inputBatchingDims, d))
            evalFail("dimension " + std::to_string(d) + " is both inserted and a batching dimension");
    for (const auto d : s.scatterDimsToOperandDims)
        if (contains(s.inputBatchingDims, d))
            evalFail("dimension " + std::to_string(d) + " is both scattered to and a batching dimension");
    if (static_cast<std::int64_t>(s.updateWindowDims.size() + s.insertedWindowDims.size() +
                                  s.inputBatchingDims.size()) != inputRank)
        evalFail("update_window_dims, inserted_window_dims and input_batching_dims must together have the "
                 "input's rank " +
                 std::to_string(inputRank));
    if (s.inputBatchingDims.size() != s.scatterIndicesBatchingDims.size())
        evalFail("input_batching_dims and scatter_indices_batching_dims must have the same size");
    for (const auto d : s.scatterIndicesBatchingDims)
        if (d < 0 || d >= indices.rank() || d == s.indexVectorDim)
            evalFail("scatter_indices_batching_dims must be dimensions of scatter_indices other than "
                     "index_vector_dim");
    const std::int64_t indexCount =
        s.indexVectorDim < indices.rank() ? indices.shape[static_cast<std::size_t>(s.indexVectorDim)] : 1;
    if (static_cast<std::int64_t>(s.scatterDimsToOperandDims.size()) != indexCount)
        evalFail("scatter_dims_to_operand_dims has " + std::to_string(s.scatterDimsToOperandDims.size()) +
                 " dimensions; each index vector has " + std::to_string(indexCount));
    // The updates: scatter_indices' dimensions but index_vector_dim, in order, at the dimensions that are
    // not window dimensions; at the window dimensions, at most the input's windowed dimensions, in order.
    std::vector<std::int64_t> scatterShape, windowLimit;
    for (std::int64_t d = 0; d < indices.rank(); ++d)
        if (d != s.indexVectorDim)
            scatterShape.push_back(indices.shape[static_cast<std::size_t>(d)]);
    for (std::int64_t d = 0; d < inputRank; ++d)
        if (s.windowed(d))
            windowLimit.push_back(input.shape[static_cast<std::size_t>(d)]);
    if (updates.rank() != static_cast<int>(scatterShape.size() + s.updateWindowDims.size()))
        evalFail("the updates must have rank " +
                 std::to_string(scatterShape.size() + s.updateWindowDims.size()) + "; they are " +
                 updates.toString());
    for (std::int64_t d = 0, sc = 0, wi = 0; d < updates.rank(); ++d) {
        const auto size = updates.shape[static_cast<std::size_t>(d)];
        if (contains(s.updateWindowDims, d)) {
            if (size > windowLimit[static_cast<std::size_t>(wi++)])
                evalFail("update window dimension " + std::to_string(d) + " (" + std::to_string(size) +
                         ") is larger than the input's dimension it covers");
        } else {
            if (size != scatterShape[static_cast<std::size_t>(sc++)])
                evalFail("the updates' scatter dimensions must be scatter_indices' " +
                         listText(scatterShape) + "; they are " + updates.toString());
            s.updateScatterDims.push_back(d);
        }
    }
    return s;
}

std::vector<TensorValue> evalScatter(const Operation& op, const Inputs& in, RegionRunner& runner,
                                     WorkMeter& meter)
{
    const std::size_t n = op.resultTypes.size();
    if (n == 0 || in.size() != 2 * n + 1)
        evalFail("scatter takes N inputs, the indices and N updates for its N results");
    const TensorValue& indices = *in[n];
    const TensorType& input = in[0]->type;
    const TensorType& updates = in[n + 1]->type;
    for (std::size_t i = 0; i < n; ++i) {
        if (in[i]->type != input || in[n + 1 + i]->type.shape != updates.shape)
            evalFail("every input must have one shape and every update one shape");
        if (op.resultTypes[i] != in[i]->type || in[n + 1 + i]->type.element != input.element)
            evalFail("each result must have its input's type, and its updates the input's element type");
    }
    if (op.regions.size() != 1 || op.regions[0].argumentTypes.size() != 2 * n)
        evalFail("scatter needs an update computation of " + std::to_string(2 * n) + " arguments");
    const ScatterDims s = scatterDims(op, input, indices.type, updates);
    meter.charge(static_cast<std::uint64_t>(updates.elementCount()) * n *
                 (s.scatterDimsToOperandDims.size() + 2));

    std::vector<TensorValue> results;
    for (std::size_t i = 0; i < n; ++i)
        results.push_back(*in[i]);
    const auto inputStrides = stridesOf(input.shape);
    const auto indexStrides = stridesOf(indices.type.shape);
    const auto updateStrides = stridesOf(updates.shape);
    std::vector<std::int64_t> scatterShape, windowShape;
    for (const auto d : s.updateScatterDims)
        scatterShape.push_back(updates.shape[static_cast<std::size_t>(d)]);
    for (const auto d : s.updateWindowDims)
        windowShape.push_back(updates.shape[static_cast<std::size_t>(d)]);
    const auto rank = static_cast<std::size_t>(input.rank());
    std::vector<std::int64_t> start(rank), at(rank);
    std::vector<double> args(2 * n), out(n);
    // The schedule is the implementation's to choose (the spec); this one is XLA's: index vector after
    // index vector, each one's window in row-major order, so colliding float updates round as XLA's do.
    forEachIndex(scatterShape, [&](const std::vector<std::int64_t>& pos, std::int64_t) {
        std::fill(start.begin(), start.end(), 0);
        std::int64_t updateBase = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            updateBase += pos[i] * updateStrides[static_cast<std::size_t>(s.updateScatterDims[i])];
        for (std::size_t k = 0; k < s.scatterDimsToOperandDims.size(); ++k) {
            std::int64_t word = 0;
            for (std::int64_t d = 0, b = 0; d < indices.type.rank(); ++d)
                word += (d == s.indexVectorDim ? static_cast<std::int64_t>(k)
                                               : pos[static_cast<std::size_t>(b++)]) *
                        indexStrides[static_cast<std::size_t>(d)];
            const double value = indices.data[static_cast<std::size_t>(word)];
            // An index past any dimension puts every element of its window out of bounds.
            start[static_cast<std::size_t>(s.scatterDimsToOperandDims[k])] =
                static_cast<std::int64_t>(std::clamp(value, -9.0e15, 9.0e15));
        }
        for (std::size_t i = 0; i < s.inputBatchingDims.size(); ++i) {
            const auto dStart = s.scatterIndicesBatchingDims[i];
            start[static_cast<std::size_t>(s.inputBatchingDims[i])] +=
                pos[static_cast<std::size_t>(dStart - (dStart < s.indexVectorDim ? 0 : 1))];
        }
        forEachIndex(windowShape, [&](const std::vector<std::int64_t>& win, std::int64_t) {
            std::int64_t target = 0, source = updateBase;
            bool inBounds = true;
            for (std::size_t d = 0, o = 0; d < rank; ++d) {
                at[d] = start[d];
                if (s.windowed(static_cast<std::int64_t>(d))) {
                    at[d] += win[o];
                    source += win[o] * updateStrides[static_cast<std::size_t>(s.updateWindowDims[o])];
                    ++o;
                }
                inBounds = inBounds && at[d] >= 0 && at[d] < input.shape[d];
                target += at[d] * inputStrides[d];
            }
            if (!inBounds) // the spec: an update whose element lies outside the result is skipped
                return;
            for (std::size_t i = 0; i < n; ++i) {
                args[i] = results[i].data[static_cast<std::size_t>(target)];
                args[n + i] = in[n + 1 + i]->data[static_cast<std::size_t>(source)];
            }
            runner.apply(op.regions[0], args, out);
            for (std::size_t i = 0; i < n; ++i)
                results[i].data[static_cast<std::size_t>(target)] = out[i];
        });
    });
    return results;
}

namespace {

// dynamic_slice's and dynamic_update_slice's start: each scalar index clamped so that a window of `sizes`
// fits the operand (the spec), an index of any integer type.
std::vector<std::int64_t> clampedStart(const Inputs& in, std::size_t first, const TensorType& operand,
                                       const std::vector<std::int64_t>& sizes)
{
    const auto rank = static_cast<std::size_t>(operand.rank());
    if (in.size() != first + rank)
        evalFail("expected one start index for each of the operand's " + std::to_string(rank) +
                 " dimensions");
    std::vector<std::int64_t> start(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const TensorValue& index = *in[first + d];
        if (index.type.rank() != 0 || isFloat(index.type.element) || index.type.element == ElementType::I1)
            evalFail("start index " + std::to_string(d) + " must be an integer scalar, not " +
                     index.type.toString());
        if (index.type.element != in[first]->type.element)
            evalFail("every start index must have one type");
        const double limit = static_cast<double>(operand.shape[d] - sizes[d]);
        start[d] = static_cast<std::int64_t>(std::clamp(index.data.at(0), 0.0, std::max(limit, 0.0)));
    }
    return start;
}

} // namespace

TensorValue evalDynamicSlice(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    if (in.empty() || op.resultTypes.size() != 1)
        evalFail("dynamic_slice takes an operand and its start indices to one result");
    const TensorValue& x = *in[0];
    const TensorType& out = op.resultTypes[0];
    const auto sizes = intsAttr(op, "slice_sizes");
    const auto rank = static_cast<std::size_t>(x.type.rank());
    if (sizes.size() != rank || out.shape != sizes || out.element != x.type.element)
        evalFail("slice_sizes must give each of the operand's " + std::to_string(rank) +
                 " dimensions, and the result have those sizes and the operand's element type");
    for (std::size_t d = 0; d < rank; ++d)
        if (sizes[d] < 0 || sizes[d] > x.type.shape[d])
            evalFail("slice_sizes[" + std::to_string(d) + "] = " + std::to_string(sizes[d]) +
                     " is outside 0.." + std::to_string(x.type.shape[d]));
    const auto start = clampedStart(in, 1, x.type, sizes);
    meter.charge(static_cast<std::uint64_t>(out.elementCount()));
    const auto strides = stridesOf(x.type.shape);
    TensorValue r{out, std::vector<double>(static_cast<std::size_t>(out.elementCount()))};
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t linear) {
        std::int64_t at = 0;
        for (std::size_t d = 0; d < rank; ++d)
            at += (start[d] + idx[d]) * strides[d];
        r.data[static_cast<std::size_t>(linear)] = x.data[static_cast<std::size_t>(at)];
    });
    return r;
}

TensorValue evalDynamicUpdateSlice(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    if (in.size() < 2 || op.resultTypes.size() != 1)
        evalFail("dynamic_update_slice takes an operand, an update and its start indices to one result");
    const TensorValue& x = *in[0];
    const TensorValue& update = *in[1];
    if (op.resultTypes[0] != x.type || update.type.element != x.type.element ||
        update.type.rank() != x.type.rank())
        evalFail("the result must have the operand's type, and the update its element type and rank");
    const auto rank = static_cast<std::size_t>(x.type.rank());
    for (std::size_t d = 0; d < rank; ++d)
        if (update.type.shape[d] > x.type.shape[d])
            evalFail("the update's dimension " + std::to_string(d) + " is larger than the operand's");
    const auto start = clampedStart(in, 2, x.type, update.type.shape);
    meter.charge(static_cast<std::uint64_t>(x.type.elementCount() + update.type.elementCount()));
    const auto strides = stridesOf(x.type.shape);
    TensorValue r = x;
    forEachIndex(update.type.shape, [&](const std::vector<std::int64_t>& idx, std::int64_t linear) {
        std::int64_t at = 0;
        for (std::size_t d = 0; d < rank; ++d)
            at += (start[d] + idx[d]) * strides[d];
        r.data[static_cast<std::size_t>(at)] = update.data[static_cast<std::size_t>(linear)];
    });
    return r;
}

} // namespace xps::shlo::detail

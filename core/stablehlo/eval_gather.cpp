// gather of the reference interpreter (see eval_ops.h), from the StableHLO spec.

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

} // namespace xps::shlo::detail

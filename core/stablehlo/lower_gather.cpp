// gather as XLA runs it on a TPU-class core: the start indices come into SMEM, the scalar unit clamps each
// index vector and turns it into an HBM address, and one DMA per slice fetches the slice from HBM into a
// VMEM copy of the result, written back in one piece. An embedding lookup is one DMA per token of the row
// that token names.

#include <algorithm>
#include <limits>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

std::vector<std::int64_t> sizesAt(const std::vector<std::int64_t>& shape,
                                  const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> sizes;
    for (const auto d : dims)
        sizes.push_back(shape.at(static_cast<std::size_t>(d)));
    return sizes;
}

std::int64_t productOf(const std::vector<std::int64_t>& sizes)
{
    std::int64_t n = 1;
    for (const auto s : sizes)
        n *= s;
    return n;
}

void lowerGather(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const TensorRef& out)
{
    const TensorRef& operand = in.at(0);
    const TensorRef& indices = in.at(1);
    const detail::GatherDims g = detail::gatherDims(op, operand.type, indices.type, out.type);
    if (operand.elementBytes != out.elementBytes)
        lowerFail("the operand and the result are held in different element sizes (a lowering bug)");
    const std::int64_t bytes = operand.elementBytes;
    // A slice's offset in the table is computed in a 32-bit scalar register.
    if (operand.type.elementCount() * bytes > std::numeric_limits<std::int32_t>::max())
        lowerFail("a gather from a table of " + std::to_string(operand.type.elementCount() * bytes) +
                  " bytes: offsets past 2 GiB do not fit the scalar unit's 32-bit registers");
    const auto operandStrides = byteStrides(operand.type.shape, bytes);
    const auto outStrides = byteStrides(out.type.shape, bytes);
    const auto indexStrides = stridesOf(indices.type.shape);
    const auto K = static_cast<std::int64_t>(g.startIndexMap.size());
    const std::vector<std::int64_t> batchShape = sizesAt(out.type.shape, g.resultBatchDims);
    const std::int64_t positions = productOf(batchShape);

    // One slice: the operand's dimensions in order, each kept one at the result's offset dimension it maps
    // to, collapsed and batching ones (of size 1) with no destination stride.
    std::vector<MoveDim> slice;
    std::int64_t sliceBytes = bytes;
    for (std::int64_t d = 0, o = 0; d < operand.type.rank(); ++d) {
        const auto u = static_cast<std::size_t>(d);
        const std::int64_t dst =
            g.keeps(d) ? outStrides[static_cast<std::size_t>(g.offsetDims[static_cast<std::size_t>(o++)])]
                       : 0;
        slice.push_back({g.sliceSizes[u], operandStrides[u], dst});
        sliceBytes *= g.sliceSizes[u];
    }
    if (sliceBytes == 0)
        return;

    // The result's batch dimensions before its offset dimensions: each position's slice is one block of
    // the result, and a run of positions a run of blocks, so the result is written in pieces VMEM holds.
    bool batchFirst = true;
    for (std::size_t i = 0; i < g.resultBatchDims.size(); ++i)
        batchFirst = batchFirst && g.resultBatchDims[i] == static_cast<std::int64_t>(i);
    // Each position's index vector is K consecutive words when index_vector_dim is last (or K is 1).
    const bool indexRuns = K == 1 || g.indexVectorDim == indices.type.rank() - 1;
    const auto smemWords = static_cast<std::int64_t>(w.machine().smemBytes / 4);
    const auto vmemBytes = static_cast<std::int64_t>(w.vmemAvailable());
    const std::int64_t indexWords = indices.type.elementCount();
    std::int64_t perChunk = positions;
    if (batchFirst)
        perChunk = std::min(perChunk, vmemBytes / sliceBytes);
    else if (out.type.elementCount() * bytes > vmemBytes)
        lowerFail("a gather whose result (" + std::to_string(out.type.elementCount() * bytes) +
                  " bytes) does not fit VMEM and whose batch dimensions do not lead the result");
    if (indexWords > smemWords) {
        if (!indexRuns)
            lowerFail("a gather whose " + std::to_string(indexWords) +
                      " start indices do not fit SMEM and are not laid out one index vector after another");
        perChunk = std::min(perChunk, smemWords / std::max<std::int64_t>(K, 1));
    }
    if (perChunk < 1)
        lowerFail("one slice of the gather (" + std::to_string(sliceBytes) + " bytes) does not fit VMEM");
    const bool unsignedIndices = isUnsigned(indices.type.element) && integerBits(indices.type.element) >= 32;

    const std::uint64_t staging = w.vmem(
        static_cast<std::uint64_t>(batchFirst ? perChunk * sliceBytes : out.type.elementCount() * bytes),
        "gather result");
    std::vector<std::int64_t> batchIndex(batchShape.size(), 0);
    for (std::int64_t first = 0; first < positions; first += perChunk) {
        const std::int64_t count = std::min(perChunk, positions - first);
        // The index words this chunk reads: all of them, or its positions' run.
        const std::int64_t wordBase = indexWords > smemWords ? first * K : 0;
        const std::int64_t words = indexWords > smemWords ? count * K : indexWords;
        if (first == 0 || indexWords > smemWords) {
            auto s = w.stream();
            w.dma(s, isa::Space::Smem, 0, isa::Space::Hbm,
                  indices.address + static_cast<std::uint64_t>(wordBase * 4),
                  static_cast<std::uint64_t>(words * 4));
            w.waitAll(s);
        }
        auto slices = w.stream();
        for (std::int64_t p = first; p < first + count; ++p) {
            // This position's result block and the static part of its source (batching dimensions).
            std::int64_t dst = 0, rest = p;
            for (std::size_t i = batchShape.size(); i-- > 0;) {
                batchIndex[i] = rest % batchShape[i];
                rest /= batchShape[i];
                dst += batchIndex[i] * outStrides[static_cast<std::size_t>(g.resultBatchDims[i])];
            }
            std::int64_t src = 0;
            for (std::size_t i = 0; i < g.operandBatchingDims.size(); ++i) {
                const auto dStart = g.startIndicesBatchingDims[i];
                src += batchIndex[static_cast<std::size_t>(dStart - (dStart < g.indexVectorDim ? 0 : 1))] *
                       operandStrides[static_cast<std::size_t>(g.operandBatchingDims[i])];
            }
            // s1 = sum over k of clamp(index k, 0, dimension - slice size) * stride, from SMEM
            for (std::int64_t k = 0; k < K; ++k) {
                std::int64_t word = 0;
                for (std::int64_t d = 0, b = 0; d < indices.type.rank(); ++d)
                    word += (d == g.indexVectorDim ? k : batchIndex[static_cast<std::size_t>(b++)]) *
                            indexStrides[static_cast<std::size_t>(d)];
                const auto dim = static_cast<std::size_t>(g.startIndexMap[static_cast<std::size_t>(k)]);
                const std::int64_t limit = operand.type.shape[dim] - g.sliceSizes[dim];
                const std::string r = k == 0 ? "s1" : "s2";
                w.bundle("sld " + r + ", [" + std::to_string((word - wordBase) * 4) + "]");
                if (unsignedIndices) // a word past 2^31 is a large unsigned index: the limit
                    w.bundle("sshr s3, " + r + ", 31");
                w.bundle("smax " + r + ", " + r + ", 0");
                w.bundle("smin " + r + ", " + r + ", " + std::to_string(limit));
                if (unsignedIndices) {
                    w.bundle("smul s3, s3, " + std::to_string(limit));
                    w.bundle("smax " + r + ", " + r + ", s3");
                }
                w.bundle("smul " + r + ", " + r + ", " + std::to_string(operandStrides[dim]));
                if (k > 0)
                    w.bundle("sadd s1, s1, s2");
            }
            if (K == 0)
                w.bundle("smov s1, 0");
            const std::int64_t block = batchFirst ? (p - first) * sliceBytes : dst;
            DmaAddressing from;
            from.srcRegister = "s1";
            w.move(slices, isa::Space::Vmem, staging + static_cast<std::uint64_t>(block), isa::Space::Hbm,
                   operand.address + static_cast<std::uint64_t>(src), slice, Convert::None, bytes, from);
        }
        w.waitAll(slices);
        auto back = w.stream();
        const std::int64_t outFirst = batchFirst ? first * sliceBytes : 0;
        const std::int64_t outBytes = batchFirst ? count * sliceBytes : out.type.elementCount() * bytes;
        w.dma(back, isa::Space::Hbm, out.address + static_cast<std::uint64_t>(outFirst), isa::Space::Vmem,
              staging, static_cast<std::uint64_t>(outBytes));
        w.waitAll(back);
    }
}

std::pair<std::int64_t, std::int64_t> integerArgumentRange(const Body& body, std::uint32_t argument)
{
    const ElementType type = body.valueTypes.at(argument).element;
    if (type == ElementType::I1)
        return {0, 1};
    const int width = std::min(integerBits(type), 32); // within 32 bits: what the program holds
    const std::int64_t maxS32 = (std::int64_t{1} << 31) - 1;
    std::int64_t lo = isUnsigned(type) ? 0 : -(std::int64_t{1} << (width - 1));
    std::int64_t hi = std::min(
        isUnsigned(type) ? (std::int64_t{1} << width) - 1 : (std::int64_t{1} << (width - 1)) - 1, maxS32);
    // The values it reaches as it is (reshaped, converted between integers, broadcast), and the gathers
    // that take any of them as start indices: indices within every dimension they index.
    std::vector<bool> reaches(body.valueTypes.size(), false);
    reaches[argument] = true;
    bool indexes = false;
    for (const Operation& op : body.operations) {
        if (op.operands.empty() || op.operands[0] >= reaches.size())
            continue;
        const bool alias =
            op.kind == OpKind::Reshape || op.kind == OpKind::BroadcastInDim ||
            (op.kind == OpKind::Convert && !op.resultTypes.empty() && !isFloat(op.resultTypes[0].element));
        if (alias && reaches[op.operands[0]] && op.firstResult < reaches.size())
            reaches[op.firstResult] = true;
        if (op.kind != OpKind::Gather || op.operands.size() != 2 || op.operands[1] >= reaches.size() ||
            !reaches[op.operands[1]])
            continue;
        const TensorType& operand = body.valueTypes.at(op.operands[0]);
        const auto* map = op.attributes.find("start_index_map");
        const auto* sizes = op.attributes.find("slice_sizes");
        const auto dims = map ? map->integers() : std::nullopt;
        const auto slice = sizes ? sizes->integers() : std::nullopt;
        if (!dims || !slice || slice->size() != operand.shape.size())
            continue;
        for (const auto d : *dims)
            if (d >= 0 && d < operand.rank()) {
                const auto u = static_cast<std::size_t>(d);
                hi = std::min(hi, std::max<std::int64_t>(operand.shape[u] - (*slice)[u], 0));
                indexes = true;
            }
    }
    if (indexes)
        lo = 0;
    return {lo, hi};
}

} // namespace xps::shlo::lower

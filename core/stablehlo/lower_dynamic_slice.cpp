// dynamic_slice and dynamic_update_slice as XLA runs them on a TPU-class core: the start indices come into
// SMEM (those known when compiling are folded into the address), the scalar unit clamps each so the window
// fits, as the spec says, and turns them into a byte offset; one strided DMA then moves the window between
// HBM buffers. An update of a KV cache is the copy of the cache and one DMA of the new rows.

#include <algorithm>
#include <limits>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

// Leaves in s1 the byte offset of the window's start that depends on indices computed at run time, and
// returns the part known when compiling. `indices` are the scalar start indices, one per dimension.
std::int64_t windowStart(ProgramWriter& w, const std::vector<TensorRef>& indices, const TensorType& operand,
                         const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides)
{
    const auto rank = static_cast<std::size_t>(operand.rank());
    if (indices.size() != rank)
        lowerFail("expected one start index for each of the operand's " + std::to_string(rank) +
                  " dimensions");
    if (rank * 4 > static_cast<std::size_t>(w.machine().smemBytes))
        lowerFail("more start indices than SMEM holds");
    for (const auto& index : indices)
        if (index.type.rank() != 0 || !heldAsWord(index.type.element))
            lowerFail("each start index must be an integer scalar, not " + index.type.toString());
    auto loads = w.stream();
    bool loaded = false;
    for (std::size_t d = 0; d < rank; ++d)
        if (!indices[d].scalarConstant) {
            w.dma(loads, isa::Space::Smem, d * 4, isa::Space::Hbm, indices[d].address, 4);
            loaded = true;
        }
    if (loaded)
        w.waitAll(loads);
    w.bundle("smov s1, 0");
    std::int64_t known = 0;
    for (std::size_t d = 0; d < rank; ++d) {
        const std::int64_t limit = operand.shape[d] - sizes[d];
        if (indices[d].scalarConstant) {
            const double at = std::clamp(*indices[d].scalarConstant, 0.0, static_cast<double>(limit));
            known += static_cast<std::int64_t>(at) * strides[d];
            continue;
        }
        // An unsigned word past 2^31 is a large index: the limit.
        const bool wide = unsignedWord(indices[d].type.element);
        w.bundle("sld s2, [" + std::to_string(d * 4) + "]");
        if (wide)
            w.bundle("sshr s3, s2, 31");
        w.bundle("smax s2, s2, 0");
        w.bundle("smin s2, s2, " + std::to_string(limit));
        if (wide) {
            w.bundle("smul s3, s3, " + std::to_string(limit));
            w.bundle("smax s2, s2, s3");
        }
        w.bundle("smul s2, s2, " + std::to_string(strides[d]));
        w.bundle("sadd s1, s1, s2");
    }
    return known;
}

void requireOffsets(const TensorRef& t)
{
    if (t.type.elementCount() * t.elementBytes > std::numeric_limits<std::int32_t>::max())
        lowerFail("a tensor of " + std::to_string(t.type.elementCount() * t.elementBytes) +
                  " bytes: offsets past 2 GiB do not fit the scalar unit's 32-bit registers");
}

} // namespace

void lowerDynamicSlice(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out)
{
    const TensorRef& x = in.at(0);
    if (x.elementBytes != out.elementBytes || x.type.element != out.type.element)
        lowerFail("the operand and the result are held in different element types (a lowering bug)");
    if (out.type.rank() != x.type.rank())
        lowerFail("the result must have the operand's rank");
    for (int d = 0; d < x.type.rank(); ++d)
        if (out.type.shape[static_cast<std::size_t>(d)] > x.type.shape[static_cast<std::size_t>(d)])
            lowerFail("the slice's dimension " + std::to_string(d) + " is larger than the operand's");
    requireOffsets(x);
    const auto xStrides = byteStrides(x.type.shape, x.elementBytes);
    const auto outStrides = byteStrides(out.type.shape, out.elementBytes);
    const std::vector<TensorRef> indices(in.begin() + 1, in.end());
    const std::int64_t known = windowStart(w, indices, x.type, out.type.shape, xStrides);
    std::vector<MoveDim> dims;
    for (std::size_t d = 0; d < out.type.shape.size(); ++d)
        dims.push_back({out.type.shape[d], xStrides[d], outStrides[d]});
    DmaAddressing from;
    from.srcRegister = "s1";
    auto s = w.stream();
    w.move(s, isa::Space::Hbm, out.address, isa::Space::Hbm, x.address + static_cast<std::uint64_t>(known),
           dims, Convert::None, out.elementBytes, from);
    w.waitAll(s);
}

void lowerDynamicUpdateSlice(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out)
{
    const TensorRef& x = in.at(0);
    const TensorRef& update = in.at(1);
    if (x.elementBytes != out.elementBytes || update.elementBytes != out.elementBytes ||
        update.type.element != out.type.element)
        lowerFail(
            "the operand, the update and the result are held in different element types (a lowering bug)");
    if (update.type.rank() != out.type.rank())
        lowerFail("the update must have the operand's rank");
    for (int d = 0; d < out.type.rank(); ++d)
        if (update.type.shape[static_cast<std::size_t>(d)] > out.type.shape[static_cast<std::size_t>(d)])
            lowerFail("the update's dimension " + std::to_string(d) + " is larger than the operand's");
    requireOffsets(out);
    // The result starts as the operand.
    auto s = w.stream();
    w.dma(s, isa::Space::Hbm, out.address, isa::Space::Hbm, x.address,
          static_cast<std::uint64_t>(out.type.elementCount() * out.elementBytes));
    w.waitAll(s);
    if (update.type.elementCount() == 0)
        return;
    const auto outStrides = byteStrides(out.type.shape, out.elementBytes);
    const auto updateStrides = byteStrides(update.type.shape, update.elementBytes);
    const std::vector<TensorRef> indices(in.begin() + 2, in.end());
    const std::int64_t known = windowStart(w, indices, out.type, update.type.shape, outStrides);
    std::vector<MoveDim> dims;
    for (std::size_t d = 0; d < update.type.shape.size(); ++d)
        dims.push_back({update.type.shape[d], updateStrides[d], outStrides[d]});
    DmaAddressing to;
    to.dstRegister = "s1";
    w.move(s, isa::Space::Hbm, out.address + static_cast<std::uint64_t>(known), isa::Space::Hbm,
           update.address, dims, Convert::None, out.elementBytes, to);
    w.waitAll(s);
}

} // namespace xps::shlo::lower

// dynamic_slice and dynamic_update_slice as XLA runs them on a TPU-class core: the start indices come into
// SMEM (those known when compiling are folded into the address), the scalar unit clamps each so the window
// fits, as the spec says, and turns them into a byte offset; one strided DMA then moves the window between
// HBM buffers. An update of a KV cache is the copy of the cache and one DMA of the new rows.

#include <algorithm>
#include <limits>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

// Leaves in s1 the byte offset of the start of a window of `sizes` in `operand` (its byte strides
// `strides`) that depends on indices computed at run time, and returns the part known when compiling.
// `indices` are the scalar start indices, one per dimension; a window that is not one of the operand's is
// refused here, and so is an operand past the scalar unit's 32-bit offsets.
std::int64_t windowStart(ProgramWriter& w, const std::vector<TensorRef>& indices, const TensorRef& operand,
                         const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides)
{
    const auto rank = static_cast<std::size_t>(operand.type.rank());
    if (sizes.size() != rank)
        lowerFail("the window must have the operand's rank");
    for (std::size_t d = 0; d < rank; ++d)
        if (sizes[d] > operand.type.shape[d])
            lowerFail("the window's dimension " + std::to_string(d) + " is larger than the operand's");
    if (operand.type.elementCount() * operand.elementBytes > std::numeric_limits<std::int32_t>::max())
        lowerFail("a tensor of " + std::to_string(operand.type.elementCount() * operand.elementBytes) +
                  " bytes: offsets past 2 GiB do not fit the scalar unit's 32-bit registers");
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
        const std::int64_t limit = operand.type.shape[d] - sizes[d];
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

// The window of `sizes` as one move: its elements at `windowStrides` on one side, `tensorStrides` on the
// other (source or destination as `fromTensor` says).
std::vector<MoveDim> windowDims(const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& tensorStrides,
                                const std::vector<std::int64_t>& windowStrides, bool fromTensor)
{
    std::vector<MoveDim> dims;
    for (std::size_t d = 0; d < sizes.size(); ++d)
        dims.push_back(fromTensor ? MoveDim{sizes[d], tensorStrides[d], windowStrides[d]}
                                  : MoveDim{sizes[d], windowStrides[d], tensorStrides[d]});
    return dims;
}

} // namespace

void lowerDynamicSlice(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out)
{
    const TensorRef& x = in.at(0);
    if (x.elementBytes != out.elementBytes || x.type.element != out.type.element)
        lowerFail("the operand and the result are held in different element types (a lowering bug)");
    const auto xStrides = byteStrides(x.type.shape, x.elementBytes);
    const std::vector<TensorRef> indices(in.begin() + 1, in.end());
    const std::int64_t known = windowStart(w, indices, x, out.type.shape, xStrides);
    DmaAddressing from;
    from.srcRegister = "s1";
    auto s = w.stream();
    w.move(s, isa::Space::Hbm, out.address, isa::Space::Hbm, x.address + static_cast<std::uint64_t>(known),
           windowDims(out.type.shape, xStrides, byteStrides(out.type.shape, out.elementBytes), true),
           Convert::None, out.elementBytes, from);
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
    const auto outStrides = byteStrides(out.type.shape, out.elementBytes);
    const std::vector<TensorRef> indices(in.begin() + 2, in.end());
    // The start first (its checks refuse a window that does not fit before anything moves), then the
    // result starts as the operand.
    const std::int64_t known = windowStart(w, indices, out, update.type.shape, outStrides);
    auto s = w.stream();
    w.dma(s, isa::Space::Hbm, out.address, isa::Space::Hbm, x.address,
          static_cast<std::uint64_t>(out.type.elementCount() * out.elementBytes));
    w.waitAll(s); // the update lands on the copy, not under it
    if (update.type.elementCount() > 0) {
        DmaAddressing to;
        to.dstRegister = "s1";
        w.move(s, isa::Space::Hbm, out.address + static_cast<std::uint64_t>(known), isa::Space::Hbm,
               update.address,
               windowDims(update.type.shape, outStrides, byteStrides(update.type.shape, update.elementBytes),
                          false),
               Convert::None, out.elementBytes, to);
    }
    w.waitAll(s);
}

} // namespace xps::shlo::lower

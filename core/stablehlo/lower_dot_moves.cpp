// How a dot_general's operands are cut into the MXU's blocks for their moves (internal to core/stablehlo,
// declared in lower_dot_tile.h).

#include "stablehlo/lower_dot_tile.h"

namespace xps::shlo::lower::dot {

// MoveDims of `dims` of `t` whose destination strides nest inside `outer` (the innermost dimension gets
// `inner`), e.g. rows of 512 B for the M dimensions.
void appendNested(std::vector<MoveDim>& out, const std::vector<std::int64_t>& dims, const TensorType& t,
                  const std::vector<std::int64_t>& srcStrides, std::int64_t inner)
{
    std::vector<MoveDim> m;
    std::int64_t stride = inner;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        const auto d = static_cast<std::size_t>(*it);
        m.insert(m.begin(), MoveDim{t.shape[d], srcStrides[d], stride});
        stride *= t.shape[d];
    }
    out.insert(out.end(), m.begin(), m.end());
}

// The one dimension a 128-wide block of K or N is cut from; several are allowed only when the whole
// extent fits one block.
MoveDim blockOf(const std::vector<std::int64_t>& dims, const TensorType& t,
                const std::vector<std::int64_t>& strides, std::int64_t block, std::int64_t dstStride,
                std::int64_t& srcOffset, std::vector<MoveDim>& whole)
{
    if (dims.size() != 1) {
        appendNested(whole, dims, t, strides, dstStride);
        return {1, 0, 0};
    }
    const auto d = static_cast<std::size_t>(dims[0]);
    const auto size = std::min<std::int64_t>(128, t.shape[d] - block * 128);
    srcOffset += block * 128 * strides[d];
    return {size, strides[d], dstStride};
}

// Where batch `b` (an index over the batch dimensions, row-major) starts in a tensor with these strides.
std::int64_t batchOffset(const std::vector<std::int64_t>& batchDims, const TensorType& t,
                         const std::vector<std::int64_t>& strides, std::int64_t b)
{
    std::int64_t offset = 0;
    for (auto it = batchDims.rbegin(); it != batchDims.rend(); ++it) {
        const auto d = static_cast<std::size_t>(*it);
        offset += (b % t.shape[d]) * strides[d];
        b /= t.shape[d];
    }
    return offset;
}

} // namespace xps::shlo::lower::dot

#pragma once
// What the kernels that work in slabs share. A result too large for VMEM is assembled a slab at a time: a
// run of indices of one dimension k at fixed indices of the dimensions before it, with every dimension
// after it whole, so each slab is one contiguous piece of the row-major result and leaves in one transfer.
// Windowed ops and pad read their input through progressions: along one dimension, the output positions
// that read a real input element form an arithmetic progression, which a slab cuts to its own range.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xps::shlo::lower {

// Output positions o = o0 + t * oStep (t < count) reading input positions i0 + t * iStep.
struct Progression
{
    std::int64_t o0 = 0, oStep = 1, i0 = 0, iStep = 0, count = 0;
};

// The output positions o < outSize whose input position p = o * stride + offset is a real element of an
// input of inSize elements dilated by baseDilation: 0 <= p <= (inSize - 1) * baseDilation, p a multiple of
// baseDilation. Pad is the case stride 1, offset -low, baseDilation interior + 1.
Progression progression(std::int64_t outSize, std::int64_t inSize, std::int64_t stride, std::int64_t offset,
                        std::int64_t baseDilation);
// Every output position o < size reads input position o.
Progression identityProgression(std::int64_t size);
// The members of `p` with lo <= o < hi.
Progression restrictTo(const Progression& p, std::int64_t lo, std::int64_t hi);

// One slab of a row-major result of `sizes` (byte strides `strides`): the index range [lo[d], hi[d]) of
// every dimension, where it starts in the result (bytes) and how many bytes it spans.
struct Slab
{
    std::vector<std::int64_t> lo, hi;
    std::int64_t offset = 0;
    std::uint64_t bytes = 0;
    std::size_t dimension = 0; // k: the dimension the slab runs along
};

// Calls fn for every slab of at most `capacity` bytes, in the result's order. k is the outermost
// dimension, not before `minDim`, one index of which fits; when even one index of the innermost does not
// fit, a located refusal names `what` and the bytes it needs.
void forEachSlab(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                 std::uint64_t capacity, std::size_t minDim, const std::string& what,
                 const std::function<void(const Slab&)>& fn);

} // namespace xps::shlo::lower

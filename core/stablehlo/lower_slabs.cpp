#include "stablehlo/lower_slabs.h"

#include <algorithm>
#include <numeric>

#include "stablehlo/lower_program.h"

namespace xps::shlo::lower {

namespace {

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return -floorDiv(-a, b);
}

} // namespace

Progression progression(std::int64_t outSize, std::int64_t inSize, std::int64_t stride, std::int64_t offset,
                        std::int64_t baseDilation)
{
    Progression p;
    if (inSize == 0 || outSize == 0)
        return p;
    p.oStep = baseDilation / std::gcd(stride, baseDilation);
    const std::int64_t oMin = std::max<std::int64_t>(0, -floorDiv(offset, stride));
    std::int64_t o0 = -1;
    for (std::int64_t o = oMin; o < oMin + p.oStep; ++o)
        if ((o * stride + offset) >= 0 && (o * stride + offset) % baseDilation == 0) {
            o0 = o;
            break;
        }
    const std::int64_t oMax = std::min(outSize - 1, floorDiv((inSize - 1) * baseDilation - offset, stride));
    if (o0 < 0 || o0 > oMax)
        return p;
    p.o0 = o0;
    p.count = (oMax - o0) / p.oStep + 1;
    p.i0 = (o0 * stride + offset) / baseDilation;
    p.iStep = p.oStep * stride / baseDilation;
    return p;
}

Progression identityProgression(std::int64_t size)
{
    return Progression{0, 1, 0, 1, size};
}

Progression restrictTo(const Progression& p, std::int64_t lo, std::int64_t hi)
{
    if (p.count == 0 || hi <= lo)
        return Progression{};
    const std::int64_t first = std::max<std::int64_t>(0, ceilDiv(lo - p.o0, p.oStep));
    const std::int64_t last = std::min(p.count - 1, floorDiv(hi - 1 - p.o0, p.oStep));
    if (last < first)
        return Progression{};
    return Progression{p.o0 + first * p.oStep, p.oStep, p.i0 + first * p.iStep, p.iStep, last - first + 1};
}

void forEachSlab(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                 std::uint64_t capacity, std::size_t minDim, const std::string& what,
                 const std::function<void(const Slab&)>& fn)
{
    const std::size_t rank = sizes.size();
    if (rank == 0 || std::find(sizes.begin(), sizes.end(), 0) != sizes.end())
        return; // nothing to move
    std::size_t k = std::min(minDim, rank - 1);
    while (k + 1 < rank && static_cast<std::uint64_t>(strides[k]) > capacity)
        ++k;
    const auto slabStride = static_cast<std::uint64_t>(strides[k]); // bytes of one index of dimension k
    if (slabStride > capacity)
        lowerFail(what + " whose innermost dimension alone needs " + std::to_string(slabStride) +
                  " bytes of VMEM; " + std::to_string(capacity) + " are free");
    const std::int64_t run =
        std::min<std::int64_t>(sizes[k], static_cast<std::int64_t>(capacity / slabStride));
    std::int64_t leading = 1; // index combinations of the dimensions before k
    for (std::size_t d = 0; d < k; ++d)
        leading *= sizes[d];
    Slab slab;
    slab.dimension = k;
    slab.lo.assign(rank, 0);
    slab.hi = sizes;
    for (std::int64_t l = 0; l < leading; ++l) {
        std::int64_t base = 0;
        for (std::int64_t rest = l, d = static_cast<std::int64_t>(k) - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            slab.lo[u] = rest % sizes[u];
            slab.hi[u] = slab.lo[u] + 1;
            rest /= sizes[u];
            base += slab.lo[u] * strides[u];
        }
        for (std::int64_t first = 0; first < sizes[k]; first += run) {
            const std::int64_t n = std::min(run, sizes[k] - first);
            slab.lo[k] = first;
            slab.hi[k] = first + n;
            slab.offset = base + first * strides[k];
            slab.bytes = static_cast<std::uint64_t>(n) * slabStride;
            fn(slab);
        }
    }
}

} // namespace xps::shlo::lower

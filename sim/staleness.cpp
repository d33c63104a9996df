#include "chip_state.h"

#include <algorithm>

namespace xps::sim {

namespace {

// Sets (or clears) bits [first, last] of `words`, a word at a time.
void assignBits(std::vector<std::uint64_t>& words, std::uint64_t first, std::uint64_t last, bool value)
{
    for (std::uint64_t w = first / 64; w <= last / 64; ++w) {
        const std::uint64_t lo = w == first / 64 ? first % 64 : 0;
        const std::uint64_t hi = w == last / 64 ? last % 64 : 63;
        const std::uint64_t mask = (hi == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (hi + 1)) - 1) &
                                   ~((std::uint64_t{1} << lo) - 1);
        if (value)
            words[static_cast<std::size_t>(w)] |= mask;
        else
            words[static_cast<std::size_t>(w)] &= ~mask;
    }
}

bool anyBits(const std::vector<std::uint64_t>& words, std::uint64_t first, std::uint64_t last)
{
    for (std::uint64_t w = first / 64; w <= last / 64; ++w) {
        const std::uint64_t lo = w == first / 64 ? first % 64 : 0;
        const std::uint64_t hi = w == last / 64 ? last % 64 : 63;
        const std::uint64_t mask = (hi == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (hi + 1)) - 1) &
                                   ~((std::uint64_t{1} << lo) - 1);
        if (words[static_cast<std::size_t>(w)] & mask)
            return true;
    }
    return false;
}

} // namespace

void Staleness::markSlow(isa::Space space, std::uint64_t address, std::uint64_t bytes,
                         std::uint64_t spaceBytes)
{
    if (bytes == 0)
        return;
    Bitmap& map = m_maps[static_cast<std::size_t>(space)];
    const int shift = unitShift(space);
    if (map.words.empty()) {
        map.units = (spaceBytes + (std::uint64_t{1} << shift) - 1) >> shift;
        map.words.assign(static_cast<std::size_t>((map.units + 63) / 64), 0);
    }
    const std::uint64_t first = address >> shift;
    const std::uint64_t last = std::min((address + bytes - 1) >> shift, map.units - 1);
    if (first <= last && map.units > 0)
        assignBits(map.words, first, last, true);
}

bool Staleness::any(isa::Space space, std::uint64_t address, std::uint64_t bytes) const
{
    const Bitmap& map = m_maps[static_cast<std::size_t>(space)];
    if (bytes == 0 || map.words.empty())
        return false;
    const int shift = unitShift(space);
    const std::uint64_t first = address >> shift;
    const std::uint64_t last = std::min((address + bytes - 1) >> shift, map.units - 1);
    return first <= last && anyBits(map.words, first, last);
}

void Staleness::clearSmem(std::uint64_t address, std::uint64_t bytes)
{
    Bitmap& map = m_maps[static_cast<std::size_t>(isa::Space::Smem)];
    if (bytes == 0 || map.words.empty())
        return;
    const int shift = unitShift(isa::Space::Smem);
    const std::uint64_t first = address >> shift;
    const std::uint64_t last = std::min((address + bytes - 1) >> shift, map.units - 1);
    if (first <= last)
        assignBits(map.words, first, last, false);
}

} // namespace xps::sim

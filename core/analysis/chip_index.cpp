#include "analysis/chip_index.h"

#include "util/cancel.h"

#include <algorithm>
#include <stdexcept>

namespace xps::analysis {

ChipIndex::ChipIndex(const events::BundleSnapshot& bundles, int chips, std::stop_token stop)
    : m_events(static_cast<std::size_t>(std::max(chips, 0)))
{
    if (bundles.size() > UINT32_MAX)
        throw std::length_error("more than 2^32 bundle events: the chip index stores 32-bit indexes");
    std::size_t i = 0;
    for (const auto& chunk : bundles.chunks()) {
        throwIfStopped(stop); // a chunk is 65,536 events: well under a millisecond
        const std::size_t n = std::min(chunk->size, bundles.size() - i);
        for (std::size_t k = 0; k < n; ++k, ++i) {
            const std::size_t chip = chunk->chip[k].value;
            if (chip < m_events.size())
                m_events[chip].push_back(static_cast<std::uint32_t>(i));
        }
    }
}

std::int64_t ChipIndex::lastAtOrBefore(const events::BundleSnapshot& bundles, ChipId chip,
                                       events::Cycle cycle) const
{
    const auto& seq = m_events[chip.value];
    const auto it = std::upper_bound(seq.begin(), seq.end(), cycle,
                                     [&](events::Cycle c, std::uint32_t e) { return c < bundles[e].cycle; });
    return static_cast<std::int64_t>(it - seq.begin()) - 1;
}

} // namespace xps::analysis

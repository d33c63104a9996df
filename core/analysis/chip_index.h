#pragma once
// Bundle events are stored in global time order, all chips interleaved; causes and VMEM access sources
// name a bundle by its sequence number on its chip. This index maps (chip, sequence) to the global event
// index, 4 bytes per event, built in one pass.

#include "events/event_store.h"

#include <cstdint>
#include <stop_token>
#include <vector>

namespace xps::analysis {

class ChipIndex
{
public:
    // Throws Cancelled (util/cancel.h) if `stop` is requested while it indexes.
    ChipIndex(const events::BundleSnapshot& bundles, int chips, std::stop_token stop = {});

    std::size_t count(ChipId chip) const { return m_events[chip.value].size(); }
    // Global event index of the chip's `seq`-th bundle; the caller checks seq < count(chip).
    std::size_t event(ChipId chip, std::size_t seq) const { return m_events[chip.value][seq]; }
    // The sequence number of the chip's last bundle issued at or before `cycle`, or -1.
    std::int64_t lastAtOrBefore(const events::BundleSnapshot& bundles, ChipId chip,
                                events::Cycle cycle) const;

private:
    std::vector<std::vector<std::uint32_t>> m_events;
};

} // namespace xps::analysis

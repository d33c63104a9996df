#pragma once
// Which chip of the system: the index of a chip in the trace (Trace::chips), the machine's chip number in
// its topology, and the `chip` of every record a replay writes. 16 bits, as the records and the bundle
// columns stored it before it had a type: the machine allows at most 4,096 chips (machine_config.cpp), and
// 0xFFFF is "no chip".

#include "util/strong_id.h"

namespace xps {

using ChipId = StrongId<struct ChipTag, std::uint16_t>;

// The id of chip number `index`, which the caller has checked against the machine's chips (at most 4,096).
constexpr ChipId chipIdAt(std::size_t index)
{
    return ChipId(static_cast<ChipId::rep_type>(index));
}

} // namespace xps

#pragma once
// The generic half of a replay's store (issue #23, step 3; Perfetto's track and slice tables): the rows a
// replay draws as slices, one track per chip and row, and their slices, beside the columnar tables of bundle
// issues and VMEM accesses that only a replay has. An imported profile has the same shape
// (profile::Track, profile::Slice); a replay's differ in their time, which is cycles at the machine's clock.
//
// Regions and sync waits are slices; DMAs are still records (docs/design/one-store.md, 3d).

#include "events/events.h"
#include "profile/track_id.h"

#include <cstdint>
#include <string>

namespace xps::events {

using profile::TrackId;

// What a track of the store holds. A chip has at most one track of each kind (one per engine for DMAs).
enum class RowKind : std::uint8_t { Regions, SyncWaits };

struct StoreTrack
{
    ChipId chip;
    RowKind kind = RowKind::Regions;
};
// The name the explorer and a replay's profile give the row ("regions").
std::string rowName(RowKind kind);

// One slice: the shape of profile::Slice (32 bytes), in cycles, with its depth kept whole.
struct StoreSlice
{
    Cycle start = 0;
    Cycle duration = 0;
    TrackId track;
    std::uint16_t depth = 0; // regions open around it on its chip when it began
    std::uint16_t reserved = 0;
    // What it is. A region's: its index in its chip's SymbolTable::regions (the trace names it). A sync
    // wait's: its instruction, by pc.
    std::uint32_t type = 0;
    std::uint32_t link = 0; // a sync wait's: the DMA whose chunk ended it, as id + 1; 0: none
    Cycle end() const { return start + duration; }
};
static_assert(sizeof(StoreSlice) == 32);

// The region symbol a region's slice is an instance of.
inline std::uint32_t regionOf(const StoreSlice& s)
{
    return s.type;
}
// A sync wait's columns the slice has no room for (the domain table beside its track, row for row).
struct WaitRow
{
    std::uint32_t flag = 0;
    std::uint32_t target = 0;
};
// The wait as a reader takes it: its slice and row put together.
inline SyncWaitRecord syncWaitOf(ChipId chip, const StoreSlice& s, const WaitRow& row)
{
    return {chip,
            s.type,
            row.flag,
            row.target,
            s.start,
            s.end(),
            s.link == 0 ? std::int64_t{-1} : static_cast<std::int64_t>(s.link) - 1};
}

// A region instance as a reader that holds regions of several chips keeps it: its chip and its slice.
struct RegionInstance
{
    ChipId chip;
    StoreSlice slice;
    std::uint32_t region() const { return regionOf(slice); }
};

} // namespace xps::events

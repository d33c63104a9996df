#pragma once
// The generic half of a replay's store (Perfetto's track and slice tables): the rows a
// replay draws as slices, one track per chip and row, and their slices, beside the columnar tables of bundle
// issues and VMEM accesses that only a replay has. An imported profile has the same shape
// (profile::Track, profile::Slice); a replay's differ in their time, which is cycles at the machine's clock.
//
// Regions, sync waits and DMAs are slices; a wait's and a DMA's other columns are a row beside the slice
// (docs/design/one-store.md, 3b-3d).

#include "events/events.h"
#include "profile/track_id.h"

#include <cstdint>
#include <string>

namespace xps::events {

using profile::TrackId;

// What a track of the store holds. A chip has at most one track of each kind (one per engine for DMAs).
enum class RowKind : std::uint8_t { Regions, SyncWaits, DmaEngine };

struct StoreTrack
{
    ChipId chip;
    RowKind kind = RowKind::Regions;
    std::uint8_t engine = 0; // a DmaEngine track's engine
};
// The name the explorer and a replay's profile give the row ("regions", "DMA engine 1").
std::string rowName(const StoreTrack& track);

// One slice: the shape of profile::Slice (32 bytes), in cycles, with its depth kept whole.
struct StoreSlice
{
    Cycle start = 0;
    Cycle duration = 0;
    TrackId track;
    std::uint16_t depth = 0; // regions open around it on its chip when it began
    std::uint16_t reserved = 0;
    // What it is. A region's: its index in its chip's SymbolTable::regions (the trace names it). A sync
    // wait's and a DMA's: its instruction (sync.wait, dma.start), by pc.
    std::uint32_t type = 0;
    // A sync wait's: the DMA whose chunk ended it, as id + 1; 0: none. A DMA's: its own id + 1.
    std::uint32_t link = 0;
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

// A DMA's columns the slice has no room for. The slice runs from its first byte to its last chunk; its
// chip and engine are its track's.
struct DmaRow
{
    ChipId dstChip;            // == the track's chip unless remote
    std::uint8_t srcSpace = 0; // isa::Space
    std::uint8_t dstSpace = 0;
    std::uint8_t longWay : 1 = 0; // as DmaRecord's
    std::uint8_t convert : 3 = 0;
    std::uint8_t spare[3] = {};
    std::uint64_t srcAddress = 0;
    std::uint64_t dstAddress = 0;
    std::uint64_t bytes = 0;
    std::uint32_t flag = 0;
    std::uint32_t chunks = 0;
    Cycle issue = 0; // whole: a DMA can wait in its queue for more than 2^32 cycles
};
static_assert(sizeof(DmaRow) == 48);

// A DMA as the replayer writes it, split into the slice on its engine's track and its row (each written
// where it lives: RecordLog::emplace).
void fillDmaSlice(StoreSlice& s, const DmaRecord& d, TrackId track);
void fillDmaRow(DmaRow& row, const DmaRecord& d);
// And put together again, as readers take it.
DmaRecord dmaOf(const StoreTrack& track, const StoreSlice& s, const DmaRow& row);

// A region instance as a reader that holds regions of several chips keeps it: its chip and its slice.
struct RegionInstance
{
    ChipId chip;
    StoreSlice slice;
    std::uint32_t region() const { return regionOf(slice); }
};

} // namespace xps::events

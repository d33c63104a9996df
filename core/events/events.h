#pragma once
// What a replay records. Bundle issues are the bulk (one per executed bundle) and are stored column by
// column in EventStore at 11 bytes each, 19 for a stalled one (bundle_chunk.h); DMAs are far fewer and kept
// as records; regions and sync waits are slices (store_tracks.h).

#include "isa/chip_id.h"

#include <cstdint>
#include <string_view>

namespace xps::events {

using Cycle = std::uint64_t;

// Why a bundle could not issue earlier. docs/isa.md ("The core") defines each.
enum class StallReason : std::uint8_t {
    None,
    OperandDependency, // a source register's producer had not finished
    SyncWait,          // sync.wait condition false
    MxuBusy,           // MXU weight path or LHS stream occupied
    ResultFifoEmpty,   // mxu.pop with no finished result
    ResultFifoFull,    // mxu.mm with the result FIFO full
    DmaQueueFull,      // dma.start with its engine's queue full
    UnitBusy,          // transcendental or cross-lane unit occupied
    BranchBubble,      // cycles lost after a taken branch
    Count_
};
inline constexpr int kStallReasonCount = static_cast<int>(StallReason::Count_);
std::string_view stallReasonName(StallReason reason);

enum class CauseKind : std::uint8_t { None, Instruction, Dma };

// One issued bundle. `cause` identifies what the stall waited for: for Instruction the index of the
// producing bundle's event in the same chip's sequence; for Dma the DMA id. The store keeps a reason and a
// cause only with stall cycles (the replayer sets them only then).
struct BundleIssue
{
    Cycle cycle = 0;
    std::uint32_t pc = 0;
    std::uint32_t stallCycles = 0;
    std::uint32_t cause = 0;
    ChipId chip = ChipId(0);
    StallReason reason = StallReason::None;
    CauseKind causeKind = CauseKind::None;
};

// One access to VMEM: a vector load or store (the rows' address range) or one DMA chunk.
struct VmemAccess
{
    Cycle cycle = 0;
    std::uint32_t address = 0; // VMEM is at most 4 GiB (machine config)
    std::uint32_t bytes = 0;   // the address range touched
    std::uint32_t source = 0;  // bundle sequence number on the chip, or the DMA id
    ChipId chip = ChipId(0);
    std::uint8_t kind = 0; // bit 0: write; bit 1: by a DMA
    bool isWrite() const { return kind & 1; }
    bool byDma() const { return kind & 2; }
};

struct DmaRecord
{
    std::uint32_t id = 0;
    ChipId chip = ChipId(0);    // issuing chip
    ChipId dstChip = ChipId(0); // == chip unless remote
    std::uint32_t pc = 0;       // issuing pc
    std::uint8_t engine = 0;
    std::uint8_t srcSpace = 0; // isa::Space
    std::uint8_t dstSpace = 0;
    std::uint8_t longWay : 1 = 0; // remote copy sent the long way round (dma.start route=1)
    std::uint8_t convert : 3 =
        0; // dma.start cvt=: each element converted (bytes then counts the 2-byte side)
    std::uint64_t srcAddress = 0;
    std::uint64_t dstAddress = 0;
    std::uint64_t bytes = 0; // total (rows x bytes per row)
    std::uint32_t flag = 0;
    std::uint32_t chunks = 0;
    Cycle issue = 0; // dma.start issued
    Cycle start = 0; // first byte moved
    Cycle end = 0;   // last chunk landed
    bool operator==(const DmaRecord&) const = default;
};

// The bytes a DMA read at its source and wrote at its destination: `bytes` for a plain copy; a converting
// copy (cvt=) counts its 2-byte side's bytes, and its 4-byte side spans twice as many.
inline std::uint64_t dmaSourceBytes(const DmaRecord& d)
{
    return d.convert >= 3 ? d.bytes * 2 : d.bytes;
}
inline std::uint64_t dmaDestinationBytes(const DmaRecord& d)
{
    return d.convert == 1 || d.convert == 2 ? d.bytes * 2 : d.bytes;
}

// Every sync.wait executed, stalled or not (start == end). Kept as a slice on the chip's sync-wait track
// and a WaitRow (store_tracks.h); this is the form the replayer writes and readers take.
struct SyncWaitRecord
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint32_t flag = 0;
    std::uint32_t target = 0;
    Cycle start = 0;
    Cycle end = 0;
    std::int64_t satisfiedBy = -1; // DMA id whose chunk made the condition true; -1 if not a DMA
};

} // namespace xps::events

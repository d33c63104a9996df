#pragma once
// How the store keeps bundle issues, the bulk of a replay: column by column in chunks of kChunkEvents, in
// 11 bytes an event, plus 8 for a bundle that stalled.
//
// Why not one 24-byte record: a 10 M-bundle replay wrote 240 MB of them, and on a
// virtual machine the kernel's first touch of each page cost as much system time as the replay's own work.
// Two columns were mostly wasted:
// - the cycle's high 32 bits are the same for every event of a chunk, except in the one chunk in
//   4.3 G cycles where a 2^32 boundary falls (cycle_column.h);
// - a bundle that issued without a stall has no stall cycles and no cause: only a stalled one's
//   StallDetail is kept, in blocks beside the chunks, and found by counting the stalled events before it.

#include "events/cycle_column.h"
#include "events/events.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace xps::events {

// The part of a stalled bundle's issue that an unstalled one does not have.
struct StallDetail
{
    std::uint32_t stallCycles = 0;
    std::uint32_t cause = 0;
};
// The store writes details into blocks of this many, one after another. As large as a chunk, so the
// details of one chunk lie in at most two blocks.
inline constexpr std::size_t kStallDetailsPerBlock = kChunkEvents;

struct BundleChunk
{
    using Record = BundleIssue;
    static constexpr std::size_t kWords = kChunkEvents / 64;

    CycleColumn cycles;
    std::array<std::uint32_t, kChunkEvents> pc;
    std::array<ChipId, kChunkEvents> chip;
    // The stall's reason | its cause's kind << 4; 0 for a bundle that did not stall.
    std::array<std::uint8_t, kChunkEvents> stall;
    // Bit k % 64 of word k / 64 is set when event k stalled (has a StallDetail); detailsBefore[w] counts the
    // stalled events before word w's first: O(1) from an event to its detail.
    std::array<std::uint64_t, kWords> stalledBits;
    std::array<std::uint16_t, kWords> detailsBefore;
    std::uint32_t detailCount = 0;
    // Where the chunk's details are: the first `detailsInFirst` from `details` on, the rest from
    // `detailsContinued` (the next block, when the first ran out inside this chunk).
    std::uint32_t detailsInFirst = UINT32_MAX;
    const StallDetail* details = nullptr;
    const StallDetail* detailsContinued = nullptr;
    std::size_t size = 0;

    Cycle cycleAt(std::size_t k) const { return cycles.at(k); }
    bool stalled(std::size_t k) const { return stalledBits[k / 64] >> (k % 64) & 1; }
    StallReason reasonAt(std::size_t k) const { return static_cast<StallReason>(stall[k] & 15); }
    // Event k's detail; only a stalled event has one.
    const StallDetail& detailAt(std::size_t k) const
    {
        const std::uint64_t before = stalledBits[k / 64] & ((std::uint64_t{1} << (k % 64)) - 1);
        return detail(detailsBefore[k / 64] + static_cast<std::uint32_t>(std::popcount(before)));
    }
    // The chunk's `n`-th detail.
    const StallDetail& detail(std::uint32_t n) const
    {
        return n < detailsInFirst ? details[n] : detailsContinued[n - detailsInFirst];
    }
    std::uint32_t stallCyclesAt(std::size_t k) const { return stalled(k) ? detailAt(k).stallCycles : 0; }

    BundleIssue at(std::size_t k) const
    {
        BundleIssue e;
        e.cycle = cycleAt(k);
        e.pc = pc[k];
        e.chip = chip[k];
        if (stalled(k)) {
            const StallDetail& d = detailAt(k);
            e.stallCycles = d.stallCycles;
            e.cause = d.cause;
            e.reason = reasonAt(k);
            e.causeKind = static_cast<CauseKind>(stall[k] >> 4);
        }
        return e;
    }
    // Every event of [from, to) in order, as f(k, const BundleIssue&): the stalled ones' details are read
    // one after another instead of counted for each.
    template <typename F> void forEach(std::size_t from, std::size_t to, F&& f) const
    {
        std::uint32_t n = from < size ? detailsBefore[from / 64] : 0;
        for (std::size_t k = from / 64 * 64; k < from; ++k)
            n += stalled(k);
        for (std::size_t k = from; k < to; ++k) {
            BundleIssue e;
            e.cycle = cycleAt(k);
            e.pc = pc[k];
            e.chip = chip[k];
            if (stalled(k)) {
                const StallDetail& d = detail(n++);
                e.stallCycles = d.stallCycles;
                e.cause = d.cause;
                e.reason = reasonAt(k);
                e.causeKind = static_cast<CauseKind>(stall[k] >> 4);
            }
            f(k, e);
        }
    }

    // Each column's slots past `size`: f(first slot, bytes). (The details are the store's.)
    template <typename F> void forEachUnusedTail(F&& f) const
    {
        cycles.forEachUnusedTail(size, f);
        (unusedTail(pc, size, f), unusedTail(chip, size, f), unusedTail(stall, size, f));
    }
    // Bytes the chunk holds outside itself (the whole cycles, if it has them).
    std::size_t outOfLineBytes() const { return cycles.outOfLineBytes(); }

    // Writer side. `e`'s cycle is in the chunk's window (or its cycles are whole), and if `e` stalled,
    // `nextDetail` points at a free slot of the block the chunk's details continue in.
    void append(const BundleIssue& e, StallDetail*& nextDetail)
    {
        const std::size_t k = size++;
        cycles.set(k, e.cycle);
        pc[k] = e.pc;
        chip[k] = e.chip;
        const std::size_t w = k / 64;
        if (k % 64 == 0) {
            stalledBits[w] = 0;
            detailsBefore[w] = static_cast<std::uint16_t>(detailCount);
        }
        if (e.stallCycles > 0) {
            stall[k] = static_cast<std::uint8_t>(static_cast<unsigned>(e.reason) |
                                                 static_cast<unsigned>(e.causeKind) << 4);
            stalledBits[w] |= std::uint64_t{1} << (k % 64);
            *nextDetail++ = {e.stallCycles, e.cause};
            ++detailCount;
        } else {
            stall[k] = 0;
        }
    }
};
static_assert(kStallReasonCount <= 16, "a reason takes 4 bits of BundleChunk::stall");

} // namespace xps::events

#pragma once
// An append-only sequence of fixed-size records (a track's slices, its waits' or DMAs' rows) in blocks
// from the store's arena, written by one thread and read by others. Records never move once appended;
// appending costs no allocation except once per block (a std::deque allocated every 7 DMA records, and
// malloc was a tenth of a timing-only replay).
//
// Blocks start small and double up to 64 KiB (4, 8, 16, 32, then 64 KiB each): a store has a log per
// track and two per sync-wait or DMA track, and a short replay's logs would otherwise each end in a mostly
// empty 64 KiB block (up to 2 MiB for 4 chips, more than a 1 M-bundle replay's budget of bytes per event
// allows).
//
// Readers see the records up to the published count only. The writer fills slots past it without a lock
// (no reader looks there) and takes the owner's lock only to add a block or to publish, so a replay pays
// for a lock once per kPublishEvery records instead of twice per record.

#include "events/chunk_arena.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace xps::events {

template <typename Record> class RecordLog
{
    static_assert(std::is_trivially_copyable_v<Record> && std::is_trivially_destructible_v<Record>,
                  "records are copied into raw arena memory and never destroyed");

public:
    // Records in the first block; block b < kGrowingBlocks holds kFirstBlock << b, every later one
    // kPerBlock.
    static constexpr std::size_t kFirstBlock = std::size_t{4096} / sizeof(Record);
    static constexpr std::size_t kGrowingBlocks = 4;
    static constexpr std::size_t kPerBlock = kFirstBlock << kGrowingBlocks; // 64 KiB or just under
    static_assert(kFirstBlock > 0, "a record larger than 4 KiB");
    // Often enough that a view following a live replay is at most a few records behind.
    static constexpr std::size_t kPublishEvery = 64;

    // Writer side. `lock` is the owner's mutex, the one readers hold while they read.
    void append(const Record& r, ChunkArena& arena, std::mutex& lock)
    {
        emplace([&r](Record& slot) { slot = r; }, arena, lock);
    }
    // Appends the record that fill(Record&) writes into its slot, member by member. A record built aside
    // (on the stack, with narrow stores: a 2-byte track, a bit-field) and then copied in is read back with
    // 16-byte loads that cannot be forwarded from those stores, a stall of some 15 cycles per record: this
    // line was 6% of a timing-only replay's time (two slices and two rows per DMA and wait).
    template <typename Fill> void emplace(Fill&& fill, ChunkArena& arena, std::mutex& lock)
    {
        if (m_usedInLast == m_lastCapacity) {
            m_lastCapacity = capacityOf(m_blocks.size());
            auto* block = static_cast<Record*>(arena.allocate(m_lastCapacity * sizeof(Record)));
            std::lock_guard guard(lock);
            m_blocks.push_back(block);
            m_usedInLast = 0;
        }
        fill(*new (m_blocks.back() + m_usedInLast++) Record);
        if (++m_written - m_published >= kPublishEvery) {
            std::lock_guard guard(lock);
            m_published = m_written;
        }
    }
    // Makes every record written visible; the caller holds the owner's lock.
    void publishLocked() { m_published = m_written; }

    // Reader side: the caller holds the owner's lock.
    std::size_t size() const { return m_published; }
    const Record& operator[](std::size_t i) const
    {
        if (i < kGrowingRecords) {
            // Block b starts at kFirstBlock * (2^b - 1).
            const auto b = static_cast<std::size_t>(std::bit_width(i / kFirstBlock + 1)) - 1;
            return m_blocks[b][i - kFirstBlock * ((std::size_t{1} << b) - 1)];
        }
        const std::size_t j = i - kGrowingRecords;
        return m_blocks[kGrowingBlocks + j / kPerBlock][j % kPerBlock];
    }
    // Copies of the published records from `first` on, block by block.
    std::vector<Record> copyFrom(std::size_t first) const
    {
        std::vector<Record> out;
        if (first < m_published)
            out.reserve(m_published - first);
        forEachFrom(first, [&](const Record& r) { out.push_back(r); });
        return out;
    }
    // Bytes of the blocks in use.
    std::size_t residentBytes() const
    {
        std::size_t records = 0;
        for (std::size_t b = 0; b < m_blocks.size(); ++b)
            records += capacityOf(b);
        return records * sizeof(Record);
    }

private:
    static constexpr std::size_t kGrowingRecords = kFirstBlock * ((std::size_t{1} << kGrowingBlocks) - 1);
    static constexpr std::size_t capacityOf(std::size_t block)
    {
        return block < kGrowingBlocks ? kFirstBlock << block : kPerBlock;
    }
    template <typename F> void forEachFrom(std::size_t first, F&& f) const
    {
        std::size_t blockStart = 0;
        for (std::size_t b = 0; b < m_blocks.size() && blockStart < m_published; ++b) {
            const std::size_t blockEnd = std::min(blockStart + capacityOf(b), m_published);
            for (std::size_t i = std::max(first, blockStart); i < blockEnd; ++i)
                f(m_blocks[b][i - blockStart]);
            blockStart += capacityOf(b);
        }
    }

    std::vector<Record*> m_blocks;  // changed by the writer under the lock only
    std::size_t m_usedInLast = 0;   // the writer's: records in the last block
    std::size_t m_lastCapacity = 0; // the writer's: the last block's capacity in records
    std::size_t m_written = 0;      // the writer's
    std::size_t m_published = 0;    // changed under the lock only
};

} // namespace xps::events

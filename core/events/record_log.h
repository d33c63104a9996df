#pragma once
// An append-only sequence of fixed-size records (DMAs, sync waits, regions) in blocks from the store's
// arena, written by one thread and read by others. Records never move once appended, so a pointer to one
// stays valid as long as the arena; appending costs no allocation except once per block (a std::deque
// allocated every 7 DMA records, and malloc was a tenth of a timing-only replay).
//
// Readers see the records up to the published count only. The writer fills slots past it without a lock
// (no reader looks there) and takes the owner's lock only to add a block or to publish, so a replay pays
// for a lock once per kPublishEvery records instead of twice per record.

#include "events/chunk_arena.h"

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
    static constexpr std::size_t kPerBlock = (std::size_t{64} << 10) / sizeof(Record);
    // Often enough that a view following a live replay is at most a few records behind.
    static constexpr std::size_t kPublishEvery = 64;

    // Writer side. `lock` is the owner's mutex, the one readers hold while they read.
    void append(const Record& r, ChunkArena& arena, std::mutex& lock)
    {
        if (m_written % kPerBlock == 0) {
            auto* block = static_cast<Record*>(arena.allocate(kPerBlock * sizeof(Record)));
            std::lock_guard guard(lock);
            m_blocks.push_back(block);
        }
        new (m_blocks.back() + m_written % kPerBlock) Record(r);
        if (++m_written - m_published >= kPublishEvery) {
            std::lock_guard guard(lock);
            m_published = m_written;
        }
    }
    // Makes every record written visible; the caller holds the owner's lock.
    void publishLocked() { m_published = m_written; }

    // Reader side: the caller holds the owner's lock.
    std::size_t size() const { return m_published; }
    const Record& operator[](std::size_t i) const { return m_blocks[i / kPerBlock][i % kPerBlock]; }
    template <typename F> void forEach(F&& f) const
    {
        for (std::size_t i = 0; i < m_published; ++i)
            f((*this)[i]);
    }
    // Copies of the published records from `first` on.
    std::vector<Record> copyFrom(std::size_t first) const
    {
        std::vector<Record> out;
        if (first < m_published)
            out.reserve(m_published - first);
        for (std::size_t i = first; i < m_published; ++i)
            out.push_back((*this)[i]);
        return out;
    }
    // Bytes of the blocks in use.
    std::size_t residentBytes() const { return m_blocks.size() * kPerBlock * sizeof(Record); }

private:
    std::vector<Record*> m_blocks; // changed by the writer under the lock only
    std::size_t m_written = 0;     // the writer's
    std::size_t m_published = 0;   // changed under the lock only
};

} // namespace xps::events

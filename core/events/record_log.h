#pragma once
// An append-only sequence of fixed-size records (DMAs, sync waits, regions) in blocks from the store's
// arena. Records never move once appended, so a pointer to one stays valid as long as the arena; appending
// costs no allocation except once per block (a std::deque allocated every 7 DMA records, and malloc was a
// tenth of a timing-only replay).

#include "events/chunk_arena.h"

#include <cstddef>
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

    void push_back(const Record& r, ChunkArena& arena)
    {
        if (m_size % kPerBlock == 0)
            m_blocks.push_back(static_cast<Record*>(arena.allocate(kPerBlock * sizeof(Record))));
        new (m_blocks.back() + m_size % kPerBlock) Record(r);
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    const Record& operator[](std::size_t i) const { return m_blocks[i / kPerBlock][i % kPerBlock]; }
    template <typename F> void forEach(F&& f) const
    {
        for (std::size_t i = 0; i < m_size; ++i)
            f((*this)[i]);
    }
    // Copies of the records from `first` on.
    std::vector<Record> copyFrom(std::size_t first) const
    {
        std::vector<Record> out;
        if (first < m_size)
            out.reserve(m_size - first);
        for (std::size_t i = first; i < m_size; ++i)
            out.push_back((*this)[i]);
        return out;
    }
    // Bytes of the blocks in use.
    std::size_t residentBytes() const { return m_blocks.size() * kPerBlock * sizeof(Record); }

private:
    std::vector<Record*> m_blocks;
    std::size_t m_size = 0;
};

} // namespace xps::events

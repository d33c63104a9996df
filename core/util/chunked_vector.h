#pragma once
// An append-only sequence kept in fixed chunks of their own pages (util/page_allocator.h): growing it never
// copies, so it holds what it keeps plus at most one chunk, and moveInto() hands it over to one exactly sized
// vector, giving each chunk back to the system as soon as it is copied. For what a builder collects by the
// million before it knows how many: a vector grown by doubling holds up to twice what it keeps, and its final
// shrink copies it while the old one is alive. A writer that knows how many it will add reserves them
// (reserveExactly): they go into one vector that moveInto() hands over without a copy, as a copy would touch
// every page a second time.

#include "util/page_allocator.h"
#include "util/release_memory.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace xps {

template <typename T, unsigned ChunkBytesLog2 = 21> class ChunkedVector
{
    static constexpr std::size_t kPerChunk = (std::size_t{1} << ChunkBytesLog2) / sizeof(T) > 0
                                                 ? (std::size_t{1} << ChunkBytesLog2) / sizeof(T)
                                                 : 1;

public:
    // Room for `n` in one block, if nothing was added yet; more than `n` go on in chunks.
    void reserveExactly(std::size_t n)
    {
        if (m_size == 0)
            m_flat.reserve(n);
    }

    template <typename... Args> T& emplace_back(Args&&... args)
    {
        ++m_size;
        if (m_chunks.empty() && m_flat.size() < m_flat.capacity()) [[likely]]
            return m_flat.emplace_back(std::forward<Args>(args)...);
        if (m_chunks.empty() || m_chunks.back().size() == kPerChunk) [[unlikely]]
            addChunk();
        return m_chunks.back().emplace_back(std::forward<Args>(args)...);
    }
    void push_back(const T& value) { emplace_back(value); }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& operator[](std::size_t i) const
    {
        if (i < m_flat.size())
            return m_flat[i];
        i -= m_flat.size();
        return m_chunks[i / kPerChunk][i % kPerChunk];
    }
    T& operator[](std::size_t i) { return const_cast<T&>(std::as_const(*this)[i]); }

    template <typename Visit> void forEach(Visit&& visit) const
    {
        for (const T& value : m_flat)
            visit(value);
        for (const auto& chunk : m_chunks)
            for (const T& value : chunk)
                visit(value);
    }

    // Appends everything to `out` (grown once, exactly) and leaves this empty, its memory freed chunk by
    // chunk.
    void moveInto(std::vector<T>& out)
    {
        if (out.empty() && m_chunks.empty()) {
            out = std::move(m_flat);
            clear();
            return;
        }
        out.reserve(out.size() + m_size);
        out.insert(out.end(), m_flat.begin(), m_flat.end());
        releaseMemory(m_flat);
        for (auto& chunk : m_chunks) {
            out.insert(out.end(), chunk.begin(), chunk.end());
            releaseMemory(chunk);
        }
        clear();
    }
    void clear()
    {
        releaseMemory(m_flat);
        releaseMemory(m_chunks);
        m_size = 0;
    }

private:
    [[gnu::noinline]] void addChunk()
    {
        m_chunks.emplace_back();
        m_chunks.back().reserve(kPerChunk);
    }

    std::vector<T> m_flat; // what reserveExactly made room for: the first elements
    std::vector<std::vector<T, PageAllocator<T>>> m_chunks;
    std::size_t m_size = 0;
};

} // namespace xps

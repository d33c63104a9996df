#pragma once
// Where a replay's event chunks and records live. A replay writes hundreds of megabytes it keeps until the
// store dies, so the memory comes from large blocks carved in order instead of one allocation per chunk:
// on Linux the blocks are mapped on huge-page boundaries and each allocation is populated in one call,
// because a page fault per 4 KiB page cost half the replay's time on the CI's virtual machine (about
// 120,000 faults for 10 M bundles). Huge pages are not requested (see newBlock). Elsewhere the blocks come
// from operator new.
//
// Not thread-safe: only the store's writer allocates. Memory is handed out uninitialised and is released
// all at once when the arena is destroyed; readers keep the arena alive through the chunks they hold.

#include <cstddef>
#include <vector>

namespace xps::events {

class ChunkArena
{
public:
    ChunkArena() = default;
    ~ChunkArena();
    ChunkArena(const ChunkArena&) = delete;
    ChunkArena& operator=(const ChunkArena&) = delete;

    // `bytes` of uninitialised memory aligned to 64 bytes, valid until the arena is destroyed.
    void* allocate(std::size_t bytes);
    // Bytes handed out so far (what callers asked for, rounded up to the alignment).
    std::size_t allocatedBytes() const { return m_allocated; }
    // Gives the whole pages inside [p, p + bytes) back to the system: memory from allocate() that will
    // never be read or written again (the unused end of a replay's last, partly filled chunk, which was
    // made resident in one call with the rest). Reading it afterwards would give zeros.
    static void giveBack(void* p, std::size_t bytes);
    // The bytes giveBack(p, bytes) gives back (none where the platform keeps them).
    static std::size_t givenBack(const void* p, std::size_t bytes);

private:
    struct Block
    {
        std::byte* mapping = nullptr; // what to release
        std::size_t mappingBytes = 0;
        std::byte* begin = nullptr; // aligned start of the usable part
        std::size_t bytes = 0;
    };
    Block newBlock(std::size_t atLeast);
    static void release(const Block& b);
    static void populate(std::byte* p, std::size_t bytes);

    std::vector<Block> m_blocks;
    std::size_t m_used = 0; // in the last block
    std::size_t m_allocated = 0;
};

} // namespace xps::events

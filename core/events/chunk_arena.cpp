#include "events/chunk_arena.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace xps::events {

namespace {
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Big enough that a long replay maps a few hundred blocks at most; only pages written become resident.
constexpr std::size_t kBlockBytes = std::size_t{64} << 20;

std::size_t roundUp(std::size_t n, std::size_t to)
{
    return (n + to - 1) / to * to;
}
} // namespace

ChunkArena::~ChunkArena()
{
    for (const Block& b : m_blocks)
        release(b);
}

void* ChunkArena::allocate(std::size_t bytes)
{
    bytes = roundUp(bytes == 0 ? 1 : bytes, kAlignment);
    if (m_blocks.empty() || m_used + bytes > m_blocks.back().bytes) {
        m_blocks.push_back(newBlock(bytes));
        m_used = 0;
    }
    std::byte* p = m_blocks.back().begin + m_used;
    m_used += bytes;
    m_allocated += bytes;
    populate(p, bytes);
    return p;
}

#if defined(__linux__)

ChunkArena::Block ChunkArena::newBlock(std::size_t atLeast)
{
    Block b;
    b.bytes = roundUp(atLeast > kBlockBytes ? atLeast : kBlockBytes, kHugePage);
    // One huge page more than needed, so the usable part can start on a huge-page boundary.
    b.mappingBytes = b.bytes + kHugePage;
    void* m = mmap(nullptr, b.mappingBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        throw std::bad_alloc();
    b.mapping = static_cast<std::byte*>(m);
    const auto address = reinterpret_cast<std::uintptr_t>(m);
    b.begin = b.mapping + (roundUp(address, kHugePage) - address);
    // No MADV_HUGEPAGE: with the kernel's default THP defrag policy ("madvise"), a huge-page fault in a
    // region that asked for them compacts memory synchronously. On the CI's VM that made the system time
    // of a 10 M-bundle replay 0.3-2.0 s instead of 0.25-0.36 s, and the replay 1.2-2.9 s wall instead of
    // 0.7-1.3 s; the TLB saving did not show in user time. Where THP is "always", the kernel still uses
    // huge pages here, as the block is aligned for them.
    return b;
}

void ChunkArena::release(const Block& b)
{
    munmap(b.mapping, b.mappingBytes);
}

void ChunkArena::populate(std::byte* p, std::size_t bytes)
{
#if defined(MADV_POPULATE_WRITE)
    // Fault the pages in with one call instead of one trap per page; kernels before 5.14 refuse it, and
    // then the pages fault in on first write as usual.
    constexpr std::size_t page = 4096;
    const auto first = reinterpret_cast<std::uintptr_t>(p) / page * page;
    const auto last = roundUp(reinterpret_cast<std::uintptr_t>(p) + bytes, page);
    madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)bytes;
#endif
}

namespace {
constexpr std::size_t kPage = 4096;
// The whole pages inside [p, p + bytes): {first, end}, first == end if none.
std::pair<std::uintptr_t, std::uintptr_t> pagesInside(const void* p, std::size_t bytes)
{
    const auto from = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = roundUp(from, kPage), end = (from + bytes) / kPage * kPage;
    return {first, std::max(first, end)};
}
} // namespace

void ChunkArena::giveBack(void* p, std::size_t bytes)
{
    const auto [first, end] = pagesInside(p, bytes);
    if (end > first)
        madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
}

std::size_t ChunkArena::givenBack(const void* p, std::size_t bytes)
{
    const auto [first, end] = pagesInside(p, bytes);
    return end - first;
}

#else

ChunkArena::Block ChunkArena::newBlock(std::size_t atLeast)
{
    Block b;
    b.bytes = roundUp(atLeast > kBlockBytes ? atLeast : kBlockBytes, kAlignment);
    b.mappingBytes = b.bytes;
    b.mapping = static_cast<std::byte*>(::operator new (b.bytes, std::align_val_t{kAlignment}));
    b.begin = b.mapping;
    return b;
}

void ChunkArena::release(const Block& b)
{
    ::operator delete (b.mapping, std::align_val_t{kAlignment});
}

void ChunkArena::populate(std::byte*, std::size_t) {}

void ChunkArena::giveBack(void*, std::size_t) {}

std::size_t ChunkArena::givenBack(const void*, std::size_t)
{
    return 0;
}

#endif

} // namespace xps::events

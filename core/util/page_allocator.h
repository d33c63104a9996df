#pragma once
// A standard allocator whose memory goes back to the system the moment it is freed: on Linux each allocation
// is its own anonymous mapping, unmapped on deallocate. For large buffers that live for a phase of work (a
// profile builder's slice chunks, freed one by one as they are copied out): from malloc, a freed 2 MiB block
// often stays in the process (glibc raises its mapping threshold after the first large free and serves the
// next ones from the heap), so the peak counted them twice. Elsewhere: operator new.

#include <cstddef>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace xps {

template <typename T> struct PageAllocator
{
    using value_type = T;
    PageAllocator() = default;
    template <typename U> PageAllocator(const PageAllocator<U>&) noexcept {}

    T* allocate(std::size_t n)
    {
        if (n > static_cast<std::size_t>(-1) / sizeof(T))
            throw std::bad_array_new_length();
#if defined(__linux__)
        void* p = ::mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw std::bad_alloc();
        return static_cast<T*>(p);
#else
        return static_cast<T*>(::operator new(n * sizeof(T)));
#endif
    }
    void deallocate(T* p, std::size_t n) noexcept
    {
#if defined(__linux__)
        ::munmap(p, n * sizeof(T));
#else
        (void)n;
        ::operator delete(p);
#endif
    }
    template <typename U> bool operator==(const PageAllocator<U>&) const noexcept
    {
        return true;
    }
};

} // namespace xps

#pragma once
// The machine's physical memory, for budgets that must scale with it (what the explorer may keep around
// for later beside what it shows). 0 where the platform does not say.

#include <cstdint>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace xps {

inline std::uint64_t physicalMemoryBytes()
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageBytes = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageBytes > 0)
        return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageBytes);
#endif
    return 0;
}

} // namespace xps

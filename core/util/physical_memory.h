#pragma once
// The machine's physical memory, for budgets that must scale with it (what the explorer may keep around
// for later beside what it shows, how many what-ifs replay side by side). 0 where the platform does not
// say.

#include <charconv>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

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

// What the system could give this process now without swapping (Linux's MemAvailable).
inline std::uint64_t availableMemoryBytes()
{
    // Lines of "Key:   value kB" (some have no unit): read one line at a time.
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        constexpr std::string_view key = "MemAvailable:";
        if (!line.starts_with(key))
            continue;
        const char* first = line.data() + key.size();
        const char* const last = line.data() + line.size();
        while (first < last && *first == ' ')
            ++first;
        std::uint64_t kib = 0;
        const auto parsed = std::from_chars(first, last, kib);
        return parsed.ec == std::errc() && kib <= UINT64_MAX / 1024 ? kib * 1024 : 0;
    }
    return 0;
}

} // namespace xps

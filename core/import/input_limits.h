#pragma once
// What an import may cost, bounded before it is spent (docs/import.md, "Limits"). A gzip stream can expand
// a thousandfold (14 KB of it once became 5 M Chakra nodes and 1.6 GB; 195 KB of XSpace, 100 M events and
// 13.8 GB), so decompressed bytes are bounded relative to the file, and the events an import keeps by a
// count. Both are options a caller (the CLI's --max-expansion and --max-events) can raise.

#include <cstdint>
#include <limits>
#include <string>

namespace xps::importing {

struct InputLimits
{
    // A compressed file may decompress to at most this many times its size, plus kExpansionSlack. Real
    // profiles compress 5-30x; gzip's ceiling is about 1,000x. 0: no limit.
    std::uint64_t maxExpansion = 100;
    // Slices, counter samples and nodes an import keeps (32 bytes each at least): 2^27 is ~4 GiB. 0: no limit.
    std::uint64_t maxEvents = std::uint64_t{1} << 27;

    static constexpr std::uint64_t kExpansionSlack = 16u << 20;

    // Decompressed bytes allowed for a compressed file of `fileBytes`.
    std::uint64_t decompressedAllowance(std::uint64_t fileBytes) const
    {
        if (maxExpansion == 0 || fileBytes > (std::numeric_limits<std::uint64_t>::max() - kExpansionSlack) / maxExpansion)
            return std::numeric_limits<std::uint64_t>::max();
        return fileBytes * maxExpansion + kExpansionSlack;
    }
    std::string expansionMessage(std::uint64_t fileBytes) const
    {
        return "the compressed file expands to more than " + std::to_string(maxExpansion) + "x its " +
               std::to_string(fileBytes) +
               " bytes: a corrupt or hostile gzip stream (--max-expansion raises the limit)";
    }
    std::string eventsMessage() const
    {
        return "more than " + std::to_string(maxEvents) +
               " events: larger than this import allows (--max-events raises the limit)";
    }
};

} // namespace xps::importing

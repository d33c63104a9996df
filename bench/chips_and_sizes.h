#pragma once
// The command line of the benchmarks that run the stress loop at several sizes:
// `bench_x [CHIPS=4] [MILLIONS ...]` (no Qt: bench_args.h is for the Qt benchmarks).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

namespace bench {

struct ChipsAndSizes
{
    int chips = 4;
    std::vector<std::uint64_t> millions; // of bundles, each > 0
};

// None (after printing `usage`) when CHIPS is outside 1..64 or a size is 0.
inline std::optional<ChipsAndSizes> chipsAndSizes(int argc, char** argv, std::vector<std::uint64_t> defaults,
                                                  const char* usage)
{
    ChipsAndSizes out;
    out.chips = argc > 1 ? std::atoi(argv[1]) : 4;
    for (int i = 2; i < argc; ++i)
        out.millions.push_back(std::strtoull(argv[i], nullptr, 10));
    if (out.millions.empty())
        out.millions = std::move(defaults);
    bool valid = out.chips >= 1 && out.chips <= 64;
    for (const std::uint64_t m : out.millions)
        valid = valid && m > 0;
    if (!valid) {
        std::fprintf(stderr, "usage: %s\n", usage);
        return std::nullopt;
    }
    return out;
}

} // namespace bench

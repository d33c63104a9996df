#pragma once
// One number of two runs (a baseline and another), as every comparison shows it: both values, the
// difference and the relative change (replays in analysis/run_diff.h, imported profiles in
// profile/profile_diff.h).

#include <cstdint>
#include <optional>

namespace xps {

struct Compared
{
    std::uint64_t baseline = 0;
    std::uint64_t other = 0;
    std::int64_t delta() const
    {
        return static_cast<std::int64_t>(other) - static_cast<std::int64_t>(baseline);
    }
    // Relative change in percent of the baseline; none when the baseline is 0.
    std::optional<double> percent() const
    {
        if (baseline == 0)
            return std::nullopt;
        return 100.0 * static_cast<double>(delta()) / static_cast<double>(baseline);
    }
};

} // namespace xps

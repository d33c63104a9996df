#pragma once
// How a report writes one change: signed, with thousands separators, and its percentage of the baseline.
// Shared by the comparison of two replays and that of two profiles (report/comparison.h).

#include "profile/profile.h"
#include "util/compared.h"
#include "util/text.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace xps::report::delta {

// The two columns of every comparison table.
inline constexpr const char* kBaselineColumn = "baseline";
inline constexpr const char* kOtherColumn = "this run";

// "+1,234", "-56", "0".
inline std::string signedCount(std::int64_t v)
{
    const std::string digits = text::withThousands(static_cast<std::uint64_t>(std::llabs(v)));
    return (v < 0 ? "-" : v > 0 ? "+" : "") + digits;
}

// "+1.5 KiB", "-32 MiB", "0 B".
inline std::string signedBytes(std::int64_t v)
{
    return (v < 0 ? "-" : v > 0 ? "+" : "") + text::formatBytes(static_cast<std::uint64_t>(std::llabs(v)));
}

// Nanoseconds as microseconds: "+120.0 us".
inline std::string signedUs(std::int64_t ns)
{
    if (ns == 0)
        return "0";
    return (ns < 0 ? "-" : "+") + profile::formatUs(std::llabs(ns));
}

// "+5.2%", "-0.3%"; "new" when only the other run has it, "" when neither.
inline std::string percentText(const Compared& c)
{
    const std::optional<double> p = c.percent();
    if (!p)
        return c.other ? "new" : "";
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f%%", *p);
    return b;
}

// "12,000 -> 15,000 cycles (+25.0%; sync wait +3,000)": a number of both runs in a sentence, with what
// explains it (`why`) in the same parentheses.
inline std::string fromTo(const Compared& c, const std::string& unit, const std::string& why = {})
{
    std::string s = text::withThousands(c.baseline) + " -> " + text::withThousands(c.other);
    if (!unit.empty())
        s += " " + unit;
    std::string inside = c.delta() != 0 ? percentText(c) : std::string();
    if (!why.empty())
        inside += (inside.empty() ? "" : "; ") + why;
    return inside.empty() ? s : s + " (" + inside + ")";
}

// A table's "%" cell: empty when nothing changed.
inline std::string percentCell(const Compared& c)
{
    return c.delta() != 0 ? percentText(c) : std::string();
}

} // namespace xps::report::delta

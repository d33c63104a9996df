#pragma once
// A point in the DMA system's continuous time: a whole cycle (64-bit, exact) plus the fraction of the next
// one (a double in [0, 1)). Transfers move bytes at fractional rates, so their events fall between cycles;
// a plain double for the whole time loses a bit of sub-cycle resolution every time the clock doubles (at
// 2^25 cycles one step is 2^-27 of a cycle, which once stalled the replay for good). Here the fraction's
// resolution is the same at cycle 10 and at cycle 2^60.

#include <cmath>
#include <cstdint>
#include <limits>

namespace xps::sim {

struct DmaTime
{
    std::uint64_t cycle = 0;
    double fraction = 0.0; // in [0, 1)

    static DmaTime at(std::uint64_t cycle) { return {cycle, 0.0}; }
    static DmaTime never() { return {std::numeric_limits<std::uint64_t>::max(), 0.0}; }
    bool isNever() const { return cycle == std::numeric_limits<std::uint64_t>::max(); }

    // This time plus `cycles` (>= 0, finite or +inf). Saturates at never() instead of wrapping.
    DmaTime plus(double cycles) const
    {
        if (isNever() || !(cycles < 1.8e19)) // NaN too
            return never();
        const double sum = fraction + (cycles > 0.0 ? cycles : 0.0); // in [0, 1.8e19 + 1)
        // Truncation is floor for a sum >= 0, and exact (every double >= 2^53 is whole): no libm call on
        // a path every DMA event takes.
        const auto step = static_cast<std::uint64_t>(sum);
        if (step >= never().cycle - cycle)
            return never();
        DmaTime t{cycle + step, sum - static_cast<double>(step)};
        if (t.fraction >= 1.0) { // sum - floor(sum) rounds to 1.0 for a sum a hair below an integer
            t.fraction = 0.0;
            ++t.cycle;
        }
        return t;
    }
    // Cycles from `earlier` to this time (>= 0 when earlier <= *this).
    double since(const DmaTime& earlier) const
    {
        const double whole = cycle >= earlier.cycle ? static_cast<double>(cycle - earlier.cycle)
                                                    : -static_cast<double>(earlier.cycle - cycle);
        return whole + (fraction - earlier.fraction);
    }
    // The first whole cycle at or after this time: when a chunk that lands mid-cycle becomes visible.
    std::uint64_t ceilCycle() const { return fraction > 0.0 ? cycle + 1 : cycle; }

    friend bool operator<(const DmaTime& a, const DmaTime& b)
    {
        return a.cycle != b.cycle ? a.cycle < b.cycle : a.fraction < b.fraction;
    }
    friend bool operator<=(const DmaTime& a, const DmaTime& b) { return !(b < a); }
    friend bool operator==(const DmaTime& a, const DmaTime& b) = default;
};

inline DmaTime later(const DmaTime& a, const DmaTime& b)
{
    return a < b ? b : a;
}
inline DmaTime earlier(const DmaTime& a, const DmaTime& b)
{
    return b < a ? b : a;
}

} // namespace xps::sim

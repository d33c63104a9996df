#pragma once
// What one tick of a profile's clock is: a profile keeps its slices, counters and windows in
// ticks of its source's own clock, so that a replay's profile can keep the cycles the GRM counted (a cycle at
// 1.05 GHz is 20/21 ns: converted on the way in, two cycles could round to one nanosecond and a sum of
// rounded durations drifts from the rounded sum). Every number that leaves the analyses for a person or
// another tool (text, JSON, reports, the explorer's axis, a Chrome export) goes through the profile's
// timebase once, at that edge. An import's timebase is nanoseconds (1/1): its numbers never change.

#include <cstdint>
#include <string>

namespace xps::profile {

using Ticks = std::int64_t; // a time or duration in a profile's own ticks
using Nanos = std::int64_t; // a time or duration in nanoseconds

struct Timebase
{
    // One tick is nsNumerator / nsDenominator nanoseconds, the fraction in lowest terms, both > 0.
    std::int64_t nsNumerator = 1;
    std::int64_t nsDenominator = 1;

    static Timebase nanoseconds() { return {}; }
    // A replay's cycles at a clock of `clockMhz` (kHz precision: 1050 MHz -> 20/21 ns a cycle). A clock that
    // is not positive, or not below 2^40 kHz, is taken as 1 GHz: the caller's machine check reports it.
    static Timebase cyclesAt(double clockMhz);

    bool isNanoseconds() const { return nsNumerator == nsDenominator; }
    // Rounded to the nearest nanosecond (half away from zero); exact for nanoseconds. Saturates at the
    // int64 range, which a finished profile never reaches (kTimeLimit).
    Nanos toNanos(Ticks ticks) const;
    double toNanosExact(Ticks ticks) const;
    // The ticks nearest `ns` (a threshold given in time, a window typed by a person).
    Ticks fromNanos(Nanos ns) const;
    // To and from picoseconds, rounded to the nearest: a Chrome export of a profile whose tick is not a
    // nanosecond writes its times so, and the importer, told the timebase, gets every tick back exactly
    // (a tick of 2 ps or more survives the round trip).
    std::int64_t toPicos(Ticks ticks) const;
    Ticks fromPicos(std::int64_t ps) const;

    // "1.250 ms", "12.5 us": formatMs / formatUs of the time `ticks` is.
    std::string ms(Ticks ticks) const;
    std::string us(Ticks ticks) const;
    // "1 tick = 20/21 ns" for a profile's info; "" for nanoseconds.
    std::string describe() const;

    friend bool operator==(const Timebase&, const Timebase&) = default;
};

// "1.250 ms", "12.5 us", "20.0%": how the profile's analyses and reports write times and shares.
std::string formatMs(Nanos ns);
std::string formatUs(Nanos ns);
std::string formatPercent(Ticks part, Ticks whole);

} // namespace xps::profile

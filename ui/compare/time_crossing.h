#pragma once
// How a time of a comparison's baseline is a time of the other side, and back. The two sides
// may count different ticks: a replay counts cycles at its machine's clock, an import nanoseconds. Where both
// count the same ticks (two replays at one clock, two imports) a time crosses exactly, moved by the offset in
// those ticks; else it crosses through nanoseconds, moved by the offset in nanoseconds. (Through nanoseconds
// two replays at 1050 MHz would land a cycle apart now and then: a cycle is 20/21 ns.)

#include "profile/timebase.h"

#include <cstdint>

namespace xps::ui {

struct TimeCrossing
{
    profile::Timebase baseline;
    profile::Timebase other;
    // The other side's view starts this far after the baseline's: in the common ticks when both count the
    // same ones, else in nanoseconds.
    std::int64_t offset = 0;

    bool sameTicks() const { return baseline == other; }
    profile::Ticks toOther(profile::Ticks baselineTime) const
    {
        return sameTicks() ? baselineTime + offset : other.fromNanos(baseline.toNanos(baselineTime) + offset);
    }
    profile::Ticks toBaseline(profile::Ticks otherTime) const
    {
        return sameTicks() ? otherTime - offset : baseline.fromNanos(other.toNanos(otherTime) - offset);
    }
    // The offset that shows `baselineTime` and `otherTime` at one place.
    std::int64_t apart(profile::Ticks baselineTime, profile::Ticks otherTime) const
    {
        return sameTicks() ? otherTime - baselineTime
                           : other.toNanos(otherTime) - baseline.toNanos(baselineTime);
    }
};

} // namespace xps::ui

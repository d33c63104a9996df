#pragma once
// The one Chrome Trace Event writer's output side, shared by the profile's tables (chrome_trace.cpp) and the
// rows only a replay has (chrome_replay_rows.cpp): events appended to a stream as they are made, and times
// written from integer ticks without going through a double where the tick is a nanosecond.

#include "profile/profile.h"

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace xps::exporting {

// Microseconds with exactly three decimals: a profile's nanoseconds survive the round trip.
inline std::string microsFromNanos(profile::Nanos ns)
{
    char b[40];
    const bool negative = ns < 0;
    const std::uint64_t v = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::snprintf(b, sizeof b, "%s%" PRIu64 ".%03" PRIu64, negative ? "-" : "", v / 1000, v % 1000);
    return b;
}

// A cycle count at `clockMhz` in picoseconds: a replay's bundle rows are written in them, because at clocks
// above 1 GHz two consecutive cycles can round to the same nanosecond, and one-cycle slices on one row must
// not overlap. A slice's duration is the difference of its two ends' picoseconds, so that one slice ends
// exactly where the next begins.
inline std::int64_t picosFromCycles(std::uint64_t cycles, double clockMhz)
{
    return static_cast<std::int64_t>(std::llround(static_cast<double>(cycles) * 1e6 / clockMhz));
}

// Microseconds with exactly six decimals.
inline std::string microsFromPicos(std::int64_t ps)
{
    char b[40];
    const bool negative = ps < 0;
    const std::uint64_t v = negative ? 0 - static_cast<std::uint64_t>(ps) : static_cast<std::uint64_t>(ps);
    std::snprintf(b, sizeof b, "%s%" PRIu64 ".%06" PRIu64, negative ? "-" : "", v / 1000000, v % 1000000);
    return b;
}

// Appends the events of `"traceEvents":[ ... ]`, one per line, to a stream the caller opened.
class ChromeEventWriter
{
public:
    explicit ChromeEventWriter(std::FILE* f) : m_f(f) {}

    void event(const std::string& body)
    {
        std::fputs(m_first ? "\n" : ",\n", m_f);
        m_first = false;
        std::fputs(body.c_str(), m_f);
    }

private:
    std::FILE* m_f;
    bool m_first = true;
};

} // namespace xps::exporting

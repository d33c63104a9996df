#pragma once
// The one Chrome Trace Event writer's output side, shared by the profile's tables (chrome_trace.cpp) and the
// rows only a replay has (chrome_replay_rows.cpp): events appended to a stream as they are made, and times
// written from integer ticks without going through a double where the tick is a nanosecond.

#include "profile/profile.h"
#include "util/cancel.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stop_token>
#include <string>

namespace xps::exporting {

// `units` of 10^-decimals microseconds, written exactly with `decimals` (3 or 6) decimals: no double on the
// way, so a time survives the round trip to the unit.
inline std::string fixedPointMicros(std::int64_t units, int decimals)
{
    const std::uint64_t scale = decimals == 6 ? 1000000 : 1000;
    char b[40];
    const bool negative = units < 0;
    const std::uint64_t v =
        negative ? 0 - static_cast<std::uint64_t>(units) : static_cast<std::uint64_t>(units);
    std::snprintf(b, sizeof b, "%s%" PRIu64 ".%0*" PRIu64, negative ? "-" : "", v / scale, decimals,
                  v % scale);
    return b;
}

// A profile's nanoseconds.
inline std::string microsFromNanos(profile::Nanos ns)
{
    return fixedPointMicros(ns, 3);
}

inline std::string microsFromPicos(std::int64_t ps)
{
    return fixedPointMicros(ps, 6);
}

// A profile's ticks (profile/timebase.h) as Chrome's microseconds: an import's nanoseconds exactly; ticks of
// any other timebase (a replay's cycles) to the picosecond, each time on its own, which the export's
// semantics name (profile_semantics.h) so that our importer reads every tick back exactly: the re-import is
// the replay's profile, in its cycles, to the cycle. A reader that rounds to the nanosecond (Perfetto, or a
// file stripped of the semantics) gets each time within half a nanosecond, and times in order stay in order;
// a one-cycle slice at 1.05 GHz can then share a nanosecond with its neighbour.
inline std::string microsFromTicks(const profile::Timebase& tb, profile::Ticks t)
{
    return tb.isNanoseconds() ? microsFromNanos(t) : microsFromPicos(tb.toPicos(t));
}

// A slice's duration from `start`: its written end less its written start, so that it ends where the next
// one written from that end begins.
inline std::string microsBetweenTicks(const profile::Timebase& tb, profile::Ticks start,
                                      profile::Ticks duration)
{
    return tb.isNanoseconds() ? microsFromNanos(duration)
                              : microsFromPicos(tb.toPicos(start + duration) - tb.toPicos(start));
}

// Appends the events of `"traceEvents":[ ... ]`, one per line, to a stream the caller opened. Every
// kPollEvents events it looks at the stop token (throwing Cancelled) and reports how far it is through
// `expectedEvents`.
class ChromeEventWriter
{
public:
    ChromeEventWriter(std::FILE* f, std::stop_token stop, std::function<void(double)> progress,
                      std::uint64_t expectedEvents)
        : m_f(f), m_stop(std::move(stop)), m_progress(std::move(progress)),
          m_expected(std::max<std::uint64_t>(expectedEvents, 1))
    {
    }

    void event(const std::string& body)
    {
        std::fputs(m_first ? "\n" : ",\n", m_f);
        m_first = false;
        std::fputs(body.c_str(), m_f);
        if ((++m_written & (kPollEvents - 1)) == 0)
            poll();
    }

private:
    static constexpr std::uint64_t kPollEvents = 4096; // well under a millisecond of writing
    void poll()
    {
        throwIfStopped(m_stop);
        if (m_progress)
            m_progress(std::min(1.0, static_cast<double>(m_written) / static_cast<double>(m_expected)));
    }

    std::FILE* m_f;
    bool m_first = true;
    std::stop_token m_stop;
    std::function<void(double)> m_progress;
    std::uint64_t m_expected;
    std::uint64_t m_written = 0;
};

} // namespace xps::exporting

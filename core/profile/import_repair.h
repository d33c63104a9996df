#pragma once
// What an import skipped or changed to make a file usable, by kind, with how often and where first: the
// typed form of what Profile shows as warnings. The CLI's `info`, the report and the explorer's panel print
// `text()`; a reader can also group by kind or go to the first location.

#include <cstdint>
#include <string>
#include <string_view>

namespace xps::profile {

enum class RepairKind : std::uint8_t {
    Skipped,   // events or data that could not be read or placed were left out
    Clamped,   // a value was held to what the model can store (a time past 2^62 ns)
    Assumed,   // a missing or inconsistent fact was assumed (no duration: none; a collective some rank
               // never reaches: run unsynchronized)
    Closed,    // a slice that began and never ended was closed at the end of the trace
    Replaced,  // invalid UTF-8 replaced by U+FFFD
    Truncated, // the file ends early or holds unreadable data: the rest was dropped
    Unbound,   // a flow found no slice to bind to and was dropped
    Nesting,   // slices that overlap without nesting, drawn one row deeper
    Reported,  // the profiler's own error or warning, quoted
    Count_
};
std::string_view repairKindName(RepairKind kind); // "skipped", "clamped", ...

struct ImportRepair
{
    RepairKind kind = RepairKind::Skipped;
    std::uint64_t count = 0; // how many events it concerns; 0 when it is one statement (a cut-off file)
    std::string what;        // "events without \"ts\" were skipped"
    std::string firstAt;     // the first case: a JSON path, "byte 1,024", or "" when there is none

    // "3 events without "ts" were skipped; the first at $.traceEvents[7]"
    std::string text() const;
};

} // namespace xps::profile

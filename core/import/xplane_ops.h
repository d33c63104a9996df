#pragma once
// What XProf itself says an event on a device plane is and when it ran, so that an imported XSpace gives the
// numbers XProf's own op statistics give (xprof's op_stats: GetDeviceEventTimespan, hlo_category):
//
// - Time: a device event's `device_offset_ps` / `device_duration_ps` stats are the device clock; the event's
//   own offset/duration are the host's view of it. Device planes use the device clock, placed on the
//   profile's (host) time axis by one offset per plane, taken at its first event that has both.
// - Kind: an XLA op is classified by its `hlo_category` (and `hlo_op`), not its display name: an async copy
//   whose display name is "async-copy" is a copy, not compute.
// - Async pairs: `*-start` and `*-done` of one asynchronous op (a copy, a collective) are linked by their
//   `flow` stat (or, without one, by the op's name stem) so that its bytes count once, on the start, and
//   its transfer spans start -> done.

#include "profile/profile.h"
#include "profile/profile_builder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xps::importing {

// What an event's stats (its own and its metadata's) say beyond its arguments. The strings are views into
// the plane being read.
struct XlaOpFacts
{
    std::string_view hloCategory; // "convolution fusion", "copy-start", "all-reduce"; "" if none
    std::string_view hloOp;       // "copy-start.2"; "" if none
    std::optional<std::int64_t> deviceOffsetPs, deviceDurationPs;
    std::optional<std::uint64_t> flow; // XFlow stat value: direction in bits 0-1, id in bits 2-57
};

// What an event on `line` of `plane` is. The HLO category and op, when the profile has them, decide an XLA
// op's class; the display name is the fallback.
profile::SliceClass classifyXProfEvent(std::string_view plane, std::string_view line, std::string_view name,
                                       std::string_view hloCategory = {}, std::string_view hloOp = {});

// Rounded to the nearest nanosecond, half away from zero, for every int64.
profile::Nanos picosToNanos(std::int64_t ps);

// The device clock of one plane, on the profile's time axis.
class DeviceClock
{
public:
    // The event's [start, start + duration) in ns: the device timespan when its stats have one (anchored
    // at the plane's first such event's host time), else the host timespan given.
    std::pair<profile::Nanos, profile::Nanos> timespan(const XlaOpFacts& facts, profile::Nanos hostStart,
                                                       profile::Nanos hostDuration);
    std::uint64_t eventsOnDeviceClock() const { return m_onDeviceClock; }

private:
    // Where the plane's first event with a device timespan began, in host ns and device ps: later events
    // are placed by their device offset from it (in ns: host times since the epoch overflow int64 in ps).
    struct Anchor
    {
        profile::Nanos hostNs;
        std::int64_t devicePs;
    };
    std::optional<Anchor> m_anchor;
    std::uint64_t m_onDeviceClock = 0;
};

// Start and done events of asynchronous ops, paired once every plane is read.
class AsyncPairs
{
public:
    // Remembers a device event (slice index before finish()) that may be one end of an async op.
    void note(std::uint32_t slice, std::uint32_t plane, const XlaOpFacts& facts, std::string_view name);
    // Adds a flow start -> done (profile::kAsyncPairFlow) for every pair found, through the builder that
    // made the slices (before it finishes). Returns the number of pairs.
    std::uint64_t link(profile::ProfileBuilder& builder) const;

private:
    struct End
    {
        std::uint32_t slice;
        std::uint32_t plane;
        bool start;
        std::uint64_t flowId; // 0: pair by stem
        std::string stem;     // "copy.2" for "copy-start.2" / "copy-done.2"
    };
    std::vector<End> m_ends;
};

} // namespace xps::importing

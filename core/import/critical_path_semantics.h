#pragma once
// A profile's exact critical path (Profile::exactCriticalPath: a replay's, found by its dependency graph)
// written into its Chrome export and read back, so that a replay exported and opened again says the same
// critical path as the replay did, not HTA's model of it over the file's slices (one run, one path:
// analysis/replay_critical_path.h). A top-level member after "traceEvents" (a long path is megabytes, and
// what comes before the events is what tells a Chrome trace from other JSON in its first 64 KiB), in the
// nanoseconds of the file's events:
//
//   "xpushark_critical_path": {"kinds": ["host", "kernel", ...],   pathSegmentName of each kind index used
//                              "segments": [kind, start, end, track, slice_start, slice_duration, ...],
//                              "tracks": [[pid, tid], ...]}        the thread rows its slices are on
//
// six integers a segment, flat (a 10 M-bundle replay's path has 1.56 M segments); `track` is -1 (and the
// slice's two fields 0) for a stretch on no slice. A slice is found again by its row, start and duration,
// as the exporter rounded them.

#include "profile/profile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace xps::importing {

inline constexpr std::string_view kCriticalPathKey = "xpushark_critical_path";

// Writes `,"xpushark_critical_path":{...}` to `f` when `profile` carries an exact path: streamed (1.56 M
// segments at 10 M stress bundles would be some 200 MB as a JSON value), looking at `stop` every 4,096
// segments (throws Cancelled, util/cancel.h).
void writeCriticalPathMember(const profile::Profile& profile, std::FILE* f, std::stop_token stop);

// After the profile read back is finished (its slices in place): sets exactCriticalPath from `member`, the
// value of kCriticalPathKey. Returns what was wrong, if anything (then no path is set and the profile keeps
// HTA's model): its JSON path and what was expected. Slices not found again leave their segments on no
// slice and are counted in `unplaced`.
std::optional<std::string> applyCriticalPathMember(profile::Profile& profile, const nlohmann::json& member,
                                                   std::size_t& unplaced);

} // namespace xps::importing

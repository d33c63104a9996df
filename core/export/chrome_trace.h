#pragma once
// The one Chrome Trace Event JSON exporter (what Perfetto and chrome://tracing open), for imported profiles
// and replays alike: a profile's tables are written as they are (process and thread names and
// sort order as metadata, slices as complete events, instants, async tracks as b/e pairs, counters, flows
// as s/f pairs bound to their slices), and a replay is written as its profile (analysis/replay_profile.h:
// regions, unit runs, DMA engines, sync waits and the dependencies between them) plus the rows only a replay
// has (chrome_replay_rows.h: issued bundles and stalls). What Chrome JSON cannot say (slice classes, device
// tracks, a replay's own critical path) goes in a top-level member the importer reads back, so an export
// re-imports as the same profile.
// Timestamps are microseconds: a profile's nanoseconds exactly, a replay's cycles (any tick that is not a
// nanosecond) to the picosecond, with the timebase in the semantics so that they read back to the tick.
// Streamed, and written atomically (a temporary file renamed when complete).

#include "analysis/replay_view.h"
#include "profile/profile.h"
#include "util/result.h"

#include <functional>
#include <stop_token>
#include <string>

namespace xps::analysis {
struct CriticalPath; // analysis/dependencies.h
}

namespace xps::exporting {

class ReplayRows;

// Stopping an export and hearing how far it got, for the explorer (an export of ten million bundles writes
// gigabytes). Stopped, the export returns the error kCancelledMessage and leaves no file behind (the
// target, if it existed, is untouched).
struct ExportControl
{
    std::stop_token stop;
    std::function<void(double fraction)> progress; // 0..1, every few thousand events, on the exporting thread
};
inline constexpr const char* kCancelledMessage = "export cancelled";

// `replayRows`: the rows of the replay `profile` was made from, or null.
Status writeChromeTrace(const profile::Profile& profile, const std::string& path,
                        const ReplayRows* replayRows = nullptr, const ExportControl& control = {});

// A replay: its profile and its own rows. `source` names the trace in the file's metadata. `criticalPath`:
// the replay's as its analyses found it, written with the profile so the file opens with it; null: the
// dependency graph is walked here.
Status writeReplayChromeTrace(const analysis::ReplayView& replay, const std::string& source,
                              const std::string& path, const ExportControl& control = {},
                              const analysis::CriticalPath* criticalPath = nullptr);

} // namespace xps::exporting

#pragma once
// A trace file replayed on the GRM and seen as a profile (analysis/replay_profile.h): what a comparison of a
// replay with an imported profile reads, the GRM's run of a program beside a measured one (`xpushark-cli
// diff TRACE PROFILE`, the explorer's Compare with… across the two kinds). Only a whole run is a profile to
// compare: a replay that faults or reaches a limit is an error naming where it stopped.

#include "profile/profile.h"
#include "replayer.h"
#include "util/result.h"

#include <stop_token>
#include <string>

namespace xps::sim {

// Loads `path` (any trace the explorer opens: .xtrace.json, .xps, .xasm, .mlir), replays it in full mode
// within `limits` and converts the replay. Throws Cancelled (util/cancel.h) once `stop` is requested.
Result<profile::Profile> replayedProfileOf(const std::string& path, const ReplayOptions& limits = {},
                                           std::stop_token stop = {});

} // namespace xps::sim

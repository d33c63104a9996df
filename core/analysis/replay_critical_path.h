#pragma once
// A replay has one critical path: the one its dependency graph walks (analysis/dependencies.h), which the
// replay's views, `analyze` and the report show. Its profile (analysis/replay_profile.h) carries the same
// path in its own terms, so that the profile page, `analyze --as-profile`, a comparison and a profile diff
// say the same length and the same stretches, instead of HTA's model of the path over the profile's unit
// runs and flows (a second, approximate answer for the same run: 49,091 against 53,151 cycles on
// decode_naive before this).
//
// Each segment keeps its cycles and becomes, in the profile's kinds:
//   compute, latency, structural, branch  kernel: the unit run (MXU, vector ALU, cross-lane, load/store) busy
//                                         at the segment's start, else the first that starts within it, else
//                                         none (a stretch of scalar-only bundles: the profile has no row of
//                                         the scalar unit)
//   DMA                                   memcpy, or communication for a DMA over ICI: the DMA's slice
//   sync                                  sync wait: the wait slice the segment ends in, if the core stalled
// The replay's finer kinds (latency, structural, branch) stay on the replay's own pages.

#include "analysis/dependencies.h"
#include "profile/critical_path.h"
#include "profile/profile.h"

#include <memory>
#include <stop_token>

namespace xps::analysis {

// `profile`: a finished profile made by replayAsProfile of the replay `path` was found on. Throws Cancelled
// (util/cancel.h) once `stop` is requested.
std::shared_ptr<const profile::CriticalPath>
criticalPathInProfile(const profile::Profile& profile, const CriticalPath& path, std::stop_token stop = {});

// The replay's critical path when its analyses have not found it: its DMAs collected and the dependency
// graph walked, as analyzeReplay does. Throws Cancelled once replay.stop is requested.
CriticalPath findReplayCriticalPath(const ReplayView& replay);

} // namespace xps::analysis

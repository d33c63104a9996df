#pragma once
// A replay in the format-neutral model of imported profiles (profile::Profile), so that what applies to any
// trace applies to replays too: the profile explorer's timeline of tracks, its per-operation table and
// dependency graph, the device breakdown (compute, communication and copies, overlapped and exposed), the
// critical path through dependencies and the Chrome JSON export; the same code paths an XProf or PyTorch
// profile goes through. The replay views keep what only a replay has (bundles, stall reasons, VMEM).
//
// Per chip, a device process "chip N" with these threads:
//   regions      the program's regions (region.begin / region.end), nested: device annotations
//   MXU, vector ALU, cross-lane, load/store   runs of back-to-back busy cycles of the unit group:
//                kernels (compute), with a dependency on the run the core finished last before each
//                began (program order)
//   DMA engine E each DMA from its first byte to its last chunk: a memcpy, or communication over ICI;
//                it depends on the compute run finished last before its dma.start issued
//   sync waits   each sync.wait that stalled, with a flow from the DMA whose chunk ended it, and from that
//                DMA to the compute run after the wait (what the critical path follows)
// Times are the replay's cycles from its cycle 0 (the profile's timebase is a cycle at the machine's clock):
// the analyses and every view say them in time through it.

#include "analysis/dependencies.h"
#include "analysis/replay_view.h"
#include "profile/profile.h"

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::analysis {

// The profile's critical path is the replay's (analysis/replay_critical_path.h): `path`, as the replay's
// analyses found it (Analyses::criticalPath). Throws Cancelled (util/cancel.h) once `stop` is requested
// (the explorer converts on a worker it can cancel; `replay.stop` is the replay's own token, which a
// finished replay no longer uses).
profile::Profile replayAsProfile(const ReplayView& replay, const std::string& source,
                                 const CriticalPath& path, std::stop_token stop = {});
// For a caller that has not analysed the replay: the path is found here, the dependency graph walked as the
// analyses would (findReplayCriticalPath), polling `stop` too.
profile::Profile replayAsProfileFindingItsPath(const ReplayView& replay, const std::string& source,
                                               std::stop_token stop = {});

// What a slice of that profile stands for in the replay: its chip, and the DMA (by id) or the pc it began at
// (a unit run's first pc, a wait's or a DMA's issuing pc), so that selecting it in the profile views selects
// the same thing in the replay's views. Regions stand for neither.
struct ReplayRef
{
    ChipId chip; // invalid: none
    std::optional<std::uint32_t> dma;
    std::optional<std::uint32_t> pc;
};
ReplayRef replayRefOf(const profile::Profile& profile, profile::SliceRow slice);
// The other way: the slice of each DMA (by id; profile::kNone for an id it has no slice of), so that a DMA
// selected in the replay's views is selected in the profile views too. Empty for a profile not made by
// replayAsProfile. One pass over the slices.
std::vector<profile::SliceRow> dmaSlicesOf(const profile::Profile& profile);

// The thread ids of a chip's rows in that profile, in the order a kernel author reads a chip, and of the two
// rows its Chrome export adds (export/chrome_replay_rows.h): what only a replay has, bundles and stalls,
// beside the units they keep busy. DMA engine E is kFirstEngine + E; the sync waits come after the last
// engine.
namespace replay_tid {
inline constexpr std::int64_t kRegions = 0, kFirstUnit = 1, kBundles = 5, kStalls = 6, kFirstEngine = 10;
} // namespace replay_tid

} // namespace xps::analysis

#pragma once
// The critical path of an imported profile, in Holistic Trace Analysis's model
// (hta/analyzers/critical_path_analysis.py): a graph whose nodes are the start and the end of every CPU
// operator, runtime call and piece of device work, and whose edges are
//
// - a span: an operator's or a kernel's time between two of its nodes (its own, or its children's gaps on a
//   CPU thread, attributed to the innermost operator they are spent in), weighted by that time; a blocking
//   call's own wait (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaEventQuery,
//   cudaMemcpy, cudaMemcpyAsync) weighs 0, so the path goes through what it waited for;
// - a launch delay: a runtime call's start to its kernel's start, when the stream was empty at the launch,
//   weighted by the delay; else a kernel-kernel delay: the previous work on the stream to this one, when
//   the gap is under 1.5 ms (HTA's threshold: a longer one is a dependency the profile does not show);
// - zero-weight dependencies: consecutive top-level operators on a thread, the device work a blocking call
//   waited for to its end (what its cuda_sync event names, profile/cuda_sync.h; without one, the last work
//   on each stream that ended while it waited, and for a synchronize by its end), the work a stream waited
//   for (cudaStreamWaitEvent) to the work it held back, and data dependencies (Chakra);
//
// and the critical path is the heaviest path through it. Its length is the sum of its weights (time spent
// in operators, kernels and delays: waits on a dependency count 0, as in HTA). As in HTA, the backward
// pass's thread is walked as part of the forward pass's (profile/pass_threads.h), and device work nothing
// launched is left out of a profile with launches. It can be restricted to a window, e.g. one
// ProfilerStep#N instance.

#include "profile/profile.h"

#include <array>
#include <optional>
#include <stop_token>
#include <string_view>
#include <vector>

namespace xps::profile {

enum class PathSegmentKind : std::uint8_t {
    Host,
    Kernel,
    Communication,
    Memcpy,
    LaunchDelay,
    Sync,
    Idle, // the gap between two pieces of work on a stream (HTA's kernel-kernel delay)
    Count_
};
inline constexpr int kPathSegmentKindCount = static_cast<int>(PathSegmentKind::Count_);
std::string_view pathSegmentName(PathSegmentKind k);

struct PathSegment
{
    PathSegmentKind kind = PathSegmentKind::Idle;
    Ticks start = 0, end = 0;
    SliceRow slice; // the call, operator or kernel the time is attributed to
};

struct CriticalPath
{
    std::vector<PathSegment> segments; // in time order
    std::array<Ticks, kPathSegmentKindCount> byKind{};
    Ticks length = 0;                     // sum of the segments
    Ticks windowStart = 0, windowEnd = 0; // what it was computed over
    bool approximate = false; // so many blocking calls x streams that later calls' waits were not linked
};

struct CriticalPathWindow
{
    // Host work that starts inside, and device work whose launch starts inside (HTA's step window).
    Ticks from = INT64_MIN, to = INT64_MAX;
};

// The profile's critical path: for a replay's profile the one its dependency graph found
// (Profile::exactCriticalPath: every cycle of the run on one path, the replay's own views' path), cut to the
// window; for any other profile HTA's model of it (htaCriticalPath). Throws Cancelled (util/cancel.h) once
// `stop` is requested.
CriticalPath computeCriticalPath(const Profile& profile, const CriticalPathWindow& window = {},
                                 std::stop_token stop = {});
// HTA's model, whatever the profile carries: what a profile read back from a file gets, so a round trip
// through an export is checked against it.
CriticalPath htaCriticalPath(const Profile& profile, const CriticalPathWindow& window = {},
                             std::stop_token stop = {});
// The part of `path` inside [window.from, window.to]: segments cut at the window's edges, the totals summed
// again over what is left.
CriticalPath clipCriticalPath(const CriticalPath& path, const CriticalPathWindow& window);

// The window of the first slice named `name` (e.g. "ProfilerStep#3"), or nullopt.
std::optional<CriticalPathWindow> windowOfSlice(const Profile& profile, std::string_view name);

} // namespace xps::profile

#pragma once
// What an imported profile says about where time went, in the terms of Holistic Trace Analysis and the
// Nsight Systems expert rules: per device, time in compute, communication and memory copies and how much of
// the communication and copies overlapped compute (the rest was exposed); per stream, idle time split into
// waiting for the host to launch (launch-bound) and the rest; kernel launch delay; per-operation tables;
// the critical path through host calls, launches, kernels and synchronizations; and findings where the
// evidence supports a change. Findings from an import are estimates (there is no program to re-simulate).

#include "profile/critical_path.h"
#include "profile/gpu_metrics.h"
#include "profile/kernel_launchers.h"
#include "profile/profile.h"
#include "profile/profiler_steps.h"
#include "profile/transfers.h"

#include <array>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::profile {

// Time in nanoseconds as the union of intervals (overlaps counted once). Two spans, named apart: the whole
// profile's (`span`, `idle()`), and the device's own from its first to its last device work (`activeSpan()`,
// `activeIdle()`), which is what TraceLens and HTA call a device's total and idle time.
struct DeviceBreakdown
{
    TrackId process; // the device's process track
    std::string name;
    Ticks span = 0;                       // the profile's extent
    Ticks activeStart = 0, activeEnd = 0; // first device work's start, last one's end (0, 0: none)
    Ticks busy = 0;                       // any device work on any stream
    Ticks compute = 0;                    // kernels
    Ticks communication = 0;              // collective / send / receive kernels
    Ticks memcpy = 0;
    Ticks memset = 0;
    Ticks communicationOverlapped = 0; // communication while a compute kernel ran
    Ticks memcpyOverlapped = 0;        // copies while a compute kernel ran
    Ticks memcpyOverlappedAny = 0;     // copies while compute or communication ran (TraceLens's overlap)
    std::uint64_t transfers = 0;       // copies, memsets and byte-counted communication (transfers.h)
    std::uint64_t transferBytes = 0;   // what they say they moved
    DeviceUtilization kernels;         // GPU utilization, SM efficiency, occupancy (gpu_metrics.h)
    Ticks idle() const { return span - busy; }
    Ticks activeSpan() const { return activeEnd - activeStart; }
    Ticks activeIdle() const { return activeSpan() - busy; }
    Ticks communicationExposed() const { return communication - communicationOverlapped; }
    // HTA's exposed memcpy: not hidden under compute. TraceLens's: hidden under neither compute nor
    // communication. Memsets are neither: they are their own line, in `busy` but not in memcpy.
    Ticks memcpyExposed() const { return memcpy - memcpyOverlapped; }
    Ticks memcpyExposedTraceLens() const { return memcpy - memcpyOverlappedAny; }
};

struct StreamUse
{
    TrackId track;
    std::string name; // "GPU 0 / stream 7"
    std::uint64_t items = 0;
    Ticks busy = 0;
    Ticks idle = 0;       // between its first and last item
    Ticks launchIdle = 0; // of which the next item's launch call had not yet started
    std::uint64_t launchBoundGaps = 0;
    // Most of its busy time is communication (an NCCL stream): its gaps are waits for the next collective's
    // data, not for the host, so it is never launch-bound (launchIdle and launchBoundGaps stay 0).
    bool communication = false;
};

struct LaunchStats
{
    std::uint64_t launches = 0; // runtime call -> device work pairs found
    Ticks meanDelay = 0;        // call start -> work start
    Ticks p50Delay = 0, p95Delay = 0, maxDelay = 0;
    SliceRow maxDelaySlice;
    std::uint64_t shortKernels = 0; // device work shorter than the call that launched it
};

// One row per operation name (EventType); device work is split by device, so the same XLA op on eight
// TPU cores is eight rows that say which core.
struct OpStats
{
    std::uint32_t type = 0; // EventType
    SliceClass cls = SliceClass::Other;
    bool device = false;
    TrackId process; // what ran on a device's tracks: the device (process track); else none (the host)
    std::uint64_t count = 0;
    Ticks total = 0, self = 0, min = 0, max = 0;
    // Device work: its own time on the device. CPU ops: the device work they launched themselves, not
    // through an operator nested in them (the TensorBoard plugin's device self duration).
    Ticks deviceTime = 0;
    // CPU ops: the device work launched inside them or any operator nested in them (the plugin's device
    // total duration). Device work: its own time, as deviceTime.
    Ticks deviceTotal = 0;
    SliceRow longest;
    SliceRow first; // the earliest instance (the first in slice order of those that start together)
};

struct ProfileFinding
{
    std::string kind; // "exposed-memcpy", "launch-bound", "host-sync", "exposed-communication", "idle-device"
    std::string title;            // one line
    std::string detail;           // the numbers, in words
    Ticks estimatedSavings = 0;   // an upper bound from the evidence, not a measurement
    Ticks from = 0, to = 0;       // where to look
    std::vector<SliceRow> slices; // evidence (at most a few)
};

struct ProfileAnalysis
{
    Timebase timebase; // the analysed profile's: what every time below is in
    Ticks span = 0;
    std::vector<DeviceBreakdown> devices;
    std::vector<StreamUse> streams;
    LaunchStats launch;
    std::vector<OpStats> ops; // by total time, largest first
    CriticalPath criticalPath;
    std::vector<ProfileFinding> findings; // by estimated savings, largest first
    std::vector<Transfer> transfers;      // by slice
    StepBreakdown stepTimes;              // the TensorBoard plugin's overview (profiler_steps.h)
    // Kernel launchers' direct kernel time by TraceLens's op category (kernel_launchers.h); empty in a
    // profile that does not link launches.
    std::vector<DeviceTimeShare> opCategories;
};

// Throws Cancelled (util/cancel.h) once `stop` is requested: every pass polls it.
ProfileAnalysis analyzeProfile(const Profile& profile, std::stop_token stop = {});

// The operations of one window, e.g. one ProfilerStep#N (windowOfSlice), as HTA's TraceDiff takes an
// iteration's: host work that lies inside it, and device work launched from inside it, wherever it ran.
// Device work without a launch is no step's in a profile that links launches (as HTA: Kineto), and goes by
// its own time in one that does not (XSpace, Chakra, a replay). Self and device times are as in the whole
// profile's table. Throws Cancelled as analyzeProfile does.
std::vector<OpStats> operationsIn(const Profile& profile, const CriticalPathWindow& window,
                                  std::stop_token stop = {});

// "GPU 0 / stream 7": a track's name with its process's.
std::string trackLabel(const Profile& profile, TrackId track);

} // namespace xps::profile

#pragma once
// Device utilization over time and kernel efficiency, as PyTorch's TensorBoard profiler plugin defines them
// (torch_tb_profiler/profiler/gpu_metrics_parser.py), for any imported profile with device work:
//
// - GPU utilization: the fraction of time at least one kernel runs (kernels and collective kernels; copies
//   and memsets are not kernels), overall within the steps (profiler_steps.h: the ProfilerStep#N
//   annotations stretched to their device work; else the host operators' extent, else the whole profile),
//   and over time in buckets of a power of ten microseconds, the smallest that makes at most
//   100 buckets over the profile (the last bucket takes the rest).
// - Approximated SM efficiency: each kernel's "blocks per SM", capped at 1 where kernels overlap (their
//   values added), averaged over the steps' time (idle counts as 0).
// - Achieved occupancy: "est. achieved occupancy %" averaged over the kernels' time within the steps.
//
// The explorer's timeline shows the utilization as a counter track per device ("kernel utilization (%)"),
// added to the profile it opens (not by the importers: `info` and `convert` keep the file's own events).

#include "profile/profile.h"
#include "profile/profiler_steps.h"

#include <optional>
#include <stop_token>
#include <vector>

namespace xps::profile {

struct DeviceUtilization
{
    TrackId process; // the device's process track
    Ticks stepsStart = 0, stepsEnd = 0;
    bool annotatedSteps = false;        // the steps are ProfilerStep#N annotations (else the host operators)
    double utilization = 0;             // kernel-busy fraction of [stepsStart, stepsEnd)
    std::optional<double> smEfficiency; // fraction, when kernels carry "blocks per SM"
    std::optional<double> occupancyPct; // percent, when kernels carry "est. achieved occupancy %"
    Ticks bucket = 0;                   // bucket width of the timeline
    Ticks timelineStart = 0;            // the profile's start: bucket k covers [start + k bucket, ...)
    std::vector<double> busyFraction;   // per bucket
};

// Throws Cancelled (util/cancel.h) once `stop` is requested (as addUtilizationCounters does).
std::vector<DeviceUtilization> deviceUtilization(const Profile& profile, std::stop_token stop = {});
// The same within steps already found (profilerSteps(profile)).
std::vector<DeviceUtilization> deviceUtilization(const Profile& profile, const ProfilerSteps& steps,
                                                 std::stop_token stop = {});

// Adds a "kernel utilization (%)" counter track under every device process that has kernels (a sample at each
// bucket's start and a 0 at the end, as the plugin draws it), unless the process already has one (an
// export imported again). Call after Profile::finish().
void addUtilizationCounters(Profile& profile, std::stop_token stop = {});

// Named for what it counts, on GPUs and TPUs alike.
inline constexpr std::string_view kUtilizationCounter = "kernel utilization (%)";

} // namespace xps::profile

#pragma once
// Kineto's CUPTI range-profiler mode (`torch.profiler` with CUPTI counters, `cuda_profiler_range` events):
// each kernel ran alone, replayed once per counter pass, and is written as one range whose arguments are its
// counters (`smsp__sass_thread_inst_executed_op_ffma_pred_on.sum`, ...). Their times are the profiler's
// passes, not the kernels' own, and they carry no correlation id: the ranges follow the kernel launches in
// order, which is how Holistic Trace Analysis pairs them (`CuptiCounterAnalysis`: the i-th range is the i-th
// `cudaLaunchKernel`).
//
// linkCuptiRanges adds, to a finished Kineto profile that has such ranges: a flow from each launch to its
// range (so a range leads to the operators that launched its kernel, and a launch to its counters), and a
// counter track per counter under the ranges' process, sampled at each range's start. When the numbers of
// ranges and launches differ, nothing is linked and an import warning says so.

#include "profile/profile.h"

namespace xps::importing {

inline constexpr std::string_view kCuptiRangeCategory = "cuda_profiler_range";

void linkCuptiRanges(profile::Profile& profile);

} // namespace xps::importing

#pragma once
// Device time by operator, as TraceLens's perf report counts it (its ops_summary and ops_summary_by_category
// sheets): each piece of device work is charged to its *kernel launcher*, the innermost framework operator
// around the runtime call that launched it (Python functions and an `execute` pass-through skipped; the
// runtime call itself when no operator encloses it), and a launcher's direct kernel time is the time its
// kernels, copies and sets keep the device busy (the union of their intervals). Collectives are left out,
// as TraceLens leaves them to its collective sheets. Each launcher has TraceLens's op category: its name in
// TraceLens's registry of op names (tracelens_op_categories.cpp), `triton*` and `record_param_comms*`, else
// its first kernel's name when that is one of PyTorch's native elementwise, reduce or multi-tensor-apply
// kernels, else "other".

#include "profile/profile.h"
#include "util/cancel.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xps::profile {

struct KernelLauncher
{
    std::uint32_t slice = kNone;       // the operator, or the runtime call no operator encloses
    std::uint32_t firstKernel = kNone; // its earliest device work
    Ticks directKernelTime = 0;        // the union of that work's intervals
};

// Every launcher of device work, in order of start. `launcher`: each device slice's runtime call
// (profile::launchers). Polls `cancel` per slice.
std::vector<KernelLauncher> kernelLaunchers(const Profile& p, const std::vector<std::uint32_t>& launcher,
                                            CancelPoint& cancel);

// TraceLens's category of an operator named `op` whose first kernel is `firstKernel`.
std::string_view traceLensOpCategory(std::string_view op, std::string_view firstKernel);

// One category's launchers, their direct kernel time and its share of all of them (TraceLens's
// ops_summary_by_category row); sorted by time, largest first (by name where times are equal).
struct DeviceTimeShare
{
    std::string key; // the category
    std::uint64_t count = 0;
    Ticks time = 0;
    double percent = 0.0;
    double cumulativePercent = 0.0;
};
std::vector<DeviceTimeShare> deviceTimeByCategory(const Profile& p,
                                                  const std::vector<KernelLauncher>& launchers);

namespace detail {
// TraceLens's registry: (op name, category), sorted by name.
const std::vector<std::pair<std::string_view, std::string_view>>& traceLensOpRegistry();
} // namespace detail

} // namespace xps::profile

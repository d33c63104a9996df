#pragma once
// The steps of a profile and the time of each broken down by what ran, as PyTorch's TensorBoard profiler
// plugin shows them on its overview page (torch_tb_profiler/profiler/event_parser.py, StepParser, and
// overall_parser.py, OverallParser). Users compare these numbers with the plugin's, so they follow it:
//
// - A step is a host `ProfilerStep#N` annotation, stretched to the device work launched from inside it: it
//   starts where the previous step ended (the first one where device work launched before it ended, if
//   later than its host start) and ends at the later of its host end and its device work's end. Runtime
//   calls that straddle a step's edge launch nothing for it. Without annotations the one step "0" covers
//   the host operators. Trailing steps that launched no device work are dropped, and so is the last step
//   that did when it launched under 80% of what the step before it did: the profiler may have stopped
//   before its kernels were recorded.
// - A step's time goes to one role each instant, in this order of precedence: kernel, memcpy, memset,
//   communication, runtime, DataLoader, CPU exec, other (the rest).
//
// Where this differs from the plugin, by choice:
// - Only host annotations are steps (a `gpu_user_annotation` named ProfilerStep#N is not a second step).
// - Collective kernels (NCCL, RCCL) are communication by their names; the plugin only knows them by the
//   `nccl:all_reduce`-style operators of old PyTorch, and counts today's as kernels.

#include "profile/profile.h"

#include <array>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::profile {

struct ProfilerStep
{
    std::string name; // "5" for ProfilerStep#5; "0" for the whole profile without annotations
    Ticks hostStart = 0, hostEnd = 0;
    Ticks start = 0, end = 0;     // stretched to its device work
    std::uint64_t deviceWork = 0; // device work launched from inside the host step
};

struct ProfilerSteps
{
    std::vector<ProfilerStep> steps; // in time order
    bool annotated = false;          // from ProfilerStep#N annotations
    std::size_t droppedTail = 0;     // trailing steps left out
};

// Throws Cancelled (util/cancel.h) once `stop` is requested.
ProfilerSteps profilerSteps(const Profile& profile, std::stop_token stop = {});

enum class StepRole : std::uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other,
    Count_
};
inline constexpr std::size_t kStepRoleCount = static_cast<std::size_t>(StepRole::Count_);
std::string_view stepRoleName(StepRole r);    // "Kernel", "CPU Exec", ... as the plugin titles them
std::string_view stepRoleJsonKey(StepRole r); // "kernel", "cpu_exec", ...

struct StepCosts
{
    std::string name;
    Ticks start = 0, end = 0;
    std::array<Ticks, kStepRoleCount> role{};
    Ticks total() const { return end - start; }
};

struct StepBreakdown
{
    ProfilerSteps steps;
    std::vector<StepCosts> perStep;
    std::array<double, kStepRoleCount> averageRole{}; // ticks
    double averageTotal = 0;
    // Which roles occur anywhere in the profile (the plugin leaves the others out of its chart).
    std::array<bool, kStepRoleCount> present{};
};

StepBreakdown stepBreakdown(const Profile& profile, std::stop_token stop = {});
// The same for steps already found (profilerSteps(profile)).
StepBreakdown stepBreakdown(const Profile& profile, ProfilerSteps steps, std::stop_token stop = {});

// "ProfilerStep#5 to #10 (6 steps)", "ProfilerStep#1", with "; 1 after them left out (the profiler may have
// stopped before their kernels)" when trailing steps were dropped. Empty without annotated steps.
std::string stepsLabel(const StepBreakdown& breakdown);

} // namespace xps::profile

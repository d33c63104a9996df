#include "profile/profiler_steps.h"
#include "profile/intervals.h"
#include "profile/launches.h"
#include "util/cancel.h"

#include <algorithm>
#include <string_view>

namespace xps::profile {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

bool isRuntimeCall(const Profile& p, const Slice& s)
{
    const SliceClass c = p.classOf(s);
    // The plugin reads runtime categories only: driver calls (cuLaunchKernel) launch nothing for it.
    return (c == SliceClass::Runtime || c == SliceClass::RuntimeSync) && p.categoryOf(s) != "cuda_driver";
}

bool isHostStep(const Profile& p, const Slice& s)
{
    return !p.track(s.track()).device && p.classOf(s) == SliceClass::CpuOp &&
           std::string_view(p.nameOf(s)).starts_with(kStepPrefix);
}

// The host operators whose extent is the one step of a profile without annotations (the plugin's
// Operator and Python events: not Python functions, not user annotations).
bool isHostOperator(const Profile& p, const Slice& s)
{
    if (p.track(s.track()).device || p.classOf(s) != SliceClass::CpuOp)
        return false;
    const std::string& c = p.categoryOf(s);
    return c != "python_function" && c != "user_annotation";
}

} // namespace

ProfilerSteps profilerSteps(const Profile& p, std::stop_token stop)
{
    CancelPoint cancel(std::move(stop));
    ProfilerSteps out;
    std::vector<std::uint32_t> runtimes;
    Ticks hostMin = INT64_MAX, hostMax = INT64_MIN;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        cancel();
        const Slice& s = p.slices[i];
        if (isHostStep(p, s)) {
            out.steps.push_back(
                {p.nameOf(s).substr(kStepPrefix.size()), s.start, s.end(), s.start, s.end(), 0});
        } else if (isRuntimeCall(p, s) && !p.track(s.track()).device) {
            runtimes.push_back(i);
        }
        if (isHostStep(p, s) || isHostOperator(p, s)) {
            hostMin = std::min(hostMin, s.start);
            hostMax = std::max(hostMax, s.end());
        }
    }
    out.annotated = !out.steps.empty();
    if (!out.annotated) {
        if (hostMin > hostMax) {
            hostMin = p.startTime();
            hostMax = p.endTime();
        }
        out.steps.push_back({"0", hostMin, hostMax, hostMin, hostMax, 0});
    }
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const ProfilerStep& a, const ProfilerStep& b) { return a.hostStart < b.hostStart; });
    std::stable_sort(runtimes.begin(), runtimes.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return p.slices[a].start < p.slices[b].start; });

    // What each runtime call launched (the flows from a call to device work).
    // Lists threaded through the device work; a piece of device work has one launch (the first flow to
    // it: a file may repeat a flow).
    std::vector<std::uint32_t> firstLaunch(p.slices.size(), kNone), nextLaunch(p.slices.size(), kNone);
    const std::vector<std::uint32_t> launcher = launchers(p, cancel);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        cancel();
        if (launcher[i] == kNone || !isRuntimeCall(p, p.slices[launcher[i]]))
            continue;
        nextLaunch[i] = firstLaunch[launcher[i]];
        firstLaunch[launcher[i]] = i;
    }

    // The plugin's two-way merge of host steps and runtime calls, both in time order.
    const std::size_t n = out.steps.size();
    std::vector<std::pair<Ticks, Ticks>> device(n, {INT64_MAX, INT64_MIN});
    std::vector<bool> matched(p.slices.size(), false);
    bool anyMatched = false;
    std::pair<Ticks, Ticks> current{INT64_MAX, INT64_MIN};
    std::size_t step = 0;
    for (std::size_t r = 0; step < n && r < runtimes.size();) {
        cancel();
        const Slice& call = p.slices[runtimes[r]];
        ProfilerStep& st = out.steps[step];
        if (call.start < st.hostStart || (call.end() > st.hostEnd && call.start < st.hostEnd)) {
            ++r; // before the step, or across its end: launches nothing for it
        } else if (call.end() <= st.hostEnd) {
            for (std::uint32_t d = firstLaunch[runtimes[r]]; d != kNone; d = nextLaunch[d]) {
                current.first = std::min(current.first, p.slices[d].start);
                current.second = std::max(current.second, p.slices[d].end());
                matched[d] = true;
                anyMatched = true;
                ++st.deviceWork;
            }
            ++r;
        } else {
            device[step++] = current;
            current = {INT64_MAX, INT64_MIN};
        }
    }
    for (; step < n; ++step) {
        device[step] = current;
        current = {INT64_MAX, INT64_MIN};
    }
    if (!anyMatched)
        return out; // no device work from inside a step: the host steps stand

    // The first step starts after device work launched before it, if that ended before the step's own.
    Ticks previousEnd = out.steps[0].hostStart;
    if (device[0].first != INT64_MAX)
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            cancel();
            const Slice& s = p.slices[i];
            if (isDeviceWork(p.classOf(s)) && !matched[i] && s.end() < device[0].first)
                previousEnd = std::max(previousEnd, s.end());
        }
    for (std::size_t i = 0; i < n; ++i) {
        ProfilerStep& st = out.steps[i];
        st.start = std::max(previousEnd, st.hostStart);
        st.end = device[i].first == INT64_MAX ? std::max(st.hostEnd, st.start)
                                              : std::max(st.hostEnd, device[i].second);
        st.end = std::max(st.end, st.start);
        previousEnd = st.end;
    }
    if (n > 1) {
        std::size_t last = n;
        while (last > 0 && out.steps[last - 1].deviceWork == 0)
            --last;
        if (last > 0) {
            std::size_t keep = last;
            if (last > 1 && static_cast<double>(out.steps[last - 2].deviceWork) * 0.8 >
                                static_cast<double>(out.steps[last - 1].deviceWork))
                keep = last - 1;
            out.droppedTail = n - keep;
            out.steps.resize(keep);
        }
    }
    return out;
}

std::string_view stepRoleName(StepRole r)
{
    switch (r) {
    case StepRole::Kernel: return "Kernel";
    case StepRole::Memcpy: return "Memcpy";
    case StepRole::Memset: return "Memset";
    case StepRole::Communication: return "Communication";
    case StepRole::Runtime: return "Runtime";
    case StepRole::DataLoader: return "DataLoader";
    case StepRole::CpuExec: return "CPU Exec";
    case StepRole::Other: return "Other";
    case StepRole::Count_: break;
    }
    return "?";
}

std::string_view stepRoleJsonKey(StepRole r)
{
    switch (r) {
    case StepRole::Kernel: return "kernel";
    case StepRole::Memcpy: return "memcpy";
    case StepRole::Memset: return "memset";
    case StepRole::Communication: return "communication";
    case StepRole::Runtime: return "runtime";
    case StepRole::DataLoader: return "data_loader";
    case StepRole::CpuExec: return "cpu_exec";
    case StepRole::Other: return "other";
    case StepRole::Count_: break;
    }
    return "?";
}

} // namespace xps::profile

// The overview's step time breakdown (profiler_steps.h): role intervals over the whole profile, each role
// taking what the roles before it left of the steps, then cut step by step (the plugin's OverallParser).
#include "profile/intervals.h"
#include "profile/profiler_steps.h"
#include "util/cancel.h"

#include <string_view>
#include <utility>

namespace xps::profile {
namespace {

constexpr std::size_t kNoRole = kStepRoleCount;

bool isDataLoader(std::string_view name)
{
    return (name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
           name.starts_with("enumerate(DataPipe)#");
}

// Old PyTorch's collective operators (the plugin's NcclOpNameSet and GlooOpNameSet).
bool isCollectiveOperator(std::string_view name)
{
    for (std::string_view library : {"nccl:", "gloo:"})
        if (name.starts_with(library)) {
            const std::string_view op = name.substr(library.size());
            return op == "broadcast" || op == "reduce" || op == "all_reduce" || op == "all_gather" ||
                   op == "reduce_scatter";
        }
    return false;
}

std::size_t roleOf(const Profile& p, const EventType& t)
{
    const std::string& name = p.string(t.name);
    const std::string& category = p.string(t.category);
    switch (t.cls) {
    case SliceClass::Kernel: return static_cast<std::size_t>(StepRole::Kernel);
    case SliceClass::Memcpy: return static_cast<std::size_t>(StepRole::Memcpy);
    case SliceClass::Memset: return static_cast<std::size_t>(StepRole::Memset);
    case SliceClass::Communication: return static_cast<std::size_t>(StepRole::Communication);
    case SliceClass::Runtime:
    case SliceClass::RuntimeSync:
        return category == "cuda_driver" ? kNoRole : static_cast<std::size_t>(StepRole::Runtime);
    case SliceClass::CpuOp:
    case SliceClass::DeviceAnnotation: // the plugin counts GPU annotations as host operators too
        if (category == "python_function" || std::string_view(name).starts_with("ProfilerStep#"))
            return kNoRole;
        if (isDataLoader(name))
            return static_cast<std::size_t>(StepRole::DataLoader);
        if (isCollectiveOperator(name))
            return static_cast<std::size_t>(StepRole::Communication);
        return static_cast<std::size_t>(StepRole::CpuExec);
    default: return kNoRole;
    }
}

} // namespace

StepBreakdown stepBreakdown(const Profile& p, std::stop_token stop)
{
    return stepBreakdown(p, profilerSteps(p, stop), stop);
}

StepBreakdown stepBreakdown(const Profile& p, ProfilerSteps steps, std::stop_token stop)
{
    CancelPoint cancel(stop);
    StepBreakdown out;
    out.steps = std::move(steps);
    std::vector<std::size_t> roleOfType(p.types.size());
    for (std::size_t t = 0; t < p.types.size(); ++t)
        roleOfType[t] = roleOf(p, p.types[t]);
    std::array<Intervals, kStepRoleCount> roles;
    for (const Slice& s : p.slices) {
        cancel();
        const std::size_t r = roleOfType[s.type];
        if (r == kNoRole || s.duration <= 0)
            continue;
        roles[r].emplace_back(s.start, s.end());
        out.present[r] = true;
    }
    Intervals spans;
    for (const ProfilerStep& st : out.steps.steps)
        spans.emplace_back(st.start, st.end);
    Intervals left = merged(std::move(spans), &cancel);
    std::array<Intervals, kStepRoleCount> taken;
    const std::size_t other = static_cast<std::size_t>(StepRole::Other);
    for (std::size_t r = 0; r < other; ++r) {
        taken[r] = intersected(left, merged(std::move(roles[r]), &cancel));
        left = subtracted(left, taken[r]);
    }
    taken[other] = std::move(left);
    out.present[other] = true;
    for (const ProfilerStep& st : out.steps.steps) {
        cancel();
        StepCosts c{st.name, st.start, st.end, {}};
        for (std::size_t r = 0; r < kStepRoleCount; ++r)
            c.role[r] = overlapWith(taken[r], st.start, st.end);
        out.perStep.push_back(std::move(c));
    }
    if (!out.perStep.empty()) {
        for (const StepCosts& c : out.perStep) {
            out.averageTotal += static_cast<double>(c.total());
            for (std::size_t r = 0; r < kStepRoleCount; ++r)
                out.averageRole[r] += static_cast<double>(c.role[r]);
        }
        const double n = static_cast<double>(out.perStep.size());
        out.averageTotal /= n;
        for (double& r : out.averageRole)
            r /= n;
    }
    return out;
}

std::string stepsLabel(const StepBreakdown& b)
{
    if (!b.steps.annotated || b.perStep.empty())
        return {};
    std::string label = "ProfilerStep#" + b.perStep.front().name;
    if (b.perStep.size() > 1)
        label += " to #" + b.perStep.back().name + " (" + std::to_string(b.perStep.size()) + " steps)";
    if (const std::size_t dropped = b.steps.droppedTail; dropped > 0)
        label += "; " + std::to_string(dropped) + (b.perStep.size() > 1 ? " after them" : " after it") +
                 " left out (the profiler may have stopped before " + (dropped > 1 ? "their" : "its") +
                 " kernels)";
    return label;
}

} // namespace xps::profile

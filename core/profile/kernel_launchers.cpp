#include "profile/kernel_launchers.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace xps::profile {

namespace {

// What TraceLens's host call tree is made of (cpu_op, cuda_runtime, cuda_driver; python_function when it
// adds them, which the walk up skips anyway): other host slices (user annotations) are not in it.
enum class HostNode { Operator, PythonFunction, Runtime, NotInTree };

HostNode hostNode(const Profile& p, const Slice& s)
{
    const std::string& category = p.categoryOf(s);
    if (category == "cpu_op")
        return HostNode::Operator;
    if (category == "python_function")
        return HostNode::PythonFunction;
    if (category == "cuda_runtime" || category == "cuda_driver")
        return HostNode::Runtime;
    return HostNode::NotInTree;
}

// The launcher of device work launched by runtime call `call`: the innermost operator around it, walking
// up past Python functions and `execute` (a pass-through TraceLens skips: conv_bn_fused -> execute ->
// launch), stopping at another runtime call; `call` itself when none.
std::uint32_t launcherOf(const Profile& p, std::uint32_t call)
{
    const Slice& c = p.slices[call];
    for (int depth = static_cast<int>(c.depth()) - 1; depth >= 0; --depth) {
        const SliceRow around = p.sliceAt(c.track(), c.start, depth);
        if (!around.valid())
            break;
        const Slice& s = p.slice(around);
        switch (hostNode(p, s)) {
        case HostNode::NotInTree:
        case HostNode::PythonFunction: continue;
        case HostNode::Runtime: return call;
        case HostNode::Operator:
            if (p.nameOf(s) == "execute")
                continue;
            return around.value;
        }
    }
    return call;
}

// The time intervals [start, end) of `work` cover, together.
Ticks unionLength(std::vector<std::pair<Ticks, Ticks>>& work)
{
    std::sort(work.begin(), work.end());
    Ticks total = 0, coveredTo = 0;
    bool any = false;
    for (const auto& [start, end] : work) {
        if (!any || start > coveredTo) {
            total += end - start;
            coveredTo = end;
            any = true;
        } else if (end > coveredTo) {
            total += end - coveredTo;
            coveredTo = end;
        }
    }
    return total;
}

} // namespace

std::vector<KernelLauncher> kernelLaunchers(const Profile& p, const std::vector<std::uint32_t>& launcher,
                                            CancelPoint& cancel)
{
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> work; // launcher -> its device slices
    for (std::uint32_t i = 0; i < p.slices.size() && i < launcher.size(); ++i) {
        cancel();
        const SliceClass cls = p.classOf(p.slices[i]);
        if (launcher[i] == kNone || !isDeviceWork(cls) || cls == SliceClass::Communication)
            continue;
        work[launcherOf(p, launcher[i])].push_back(i);
    }
    std::vector<KernelLauncher> out;
    out.reserve(work.size());
    std::vector<std::pair<Ticks, Ticks>> intervals;
    for (auto& [slice, kernels] : work) {
        intervals.clear();
        KernelLauncher l;
        l.slice = slice;
        for (const std::uint32_t k : kernels) {
            const Slice& s = p.slices[k];
            intervals.emplace_back(s.start, s.end());
            if (l.firstKernel == kNone || s.start < p.slices[l.firstKernel].start)
                l.firstKernel = k;
        }
        l.directKernelTime = unionLength(intervals);
        out.push_back(l);
    }
    std::sort(out.begin(), out.end(), [&](const KernelLauncher& a, const KernelLauncher& b) {
        const Ticks sa = p.slices[a.slice].start, sb = p.slices[b.slice].start;
        return sa != sb ? sa < sb : a.slice < b.slice;
    });
    return out;
}

std::string_view traceLensOpCategory(std::string_view op, std::string_view firstKernel)
{
    static const std::unordered_map<std::string_view, std::string_view> registry(
        detail::traceLensOpRegistry().begin(), detail::traceLensOpRegistry().end());
    if (const auto it = registry.find(op); it != registry.end())
        return it->second;
    if (op.starts_with("triton"))
        return "triton";
    if (op.starts_with("record_param_comms"))
        return "record_param_comms";
    if (firstKernel.starts_with("void at::native"))
        for (const std::string_view kind : {"elementwise", "reduce", "multi_tensor_apply"})
            if (firstKernel.find(kind) != std::string_view::npos)
                return kind;
    return "other";
}

std::vector<DeviceTimeShare> deviceTimeByCategory(const Profile& p,
                                                  const std::vector<KernelLauncher>& launchers)
{
    std::map<std::string_view, DeviceTimeShare> byCategory;
    Ticks all = 0;
    for (const KernelLauncher& l : launchers) {
        DeviceTimeShare& row =
            byCategory[traceLensOpCategory(p.nameOf(p.slices[l.slice]), p.nameOf(p.slices[l.firstKernel]))];
        ++row.count;
        row.time += l.directKernelTime;
        all += l.directKernelTime;
    }
    std::vector<DeviceTimeShare> rows;
    for (auto& [category, row] : byCategory) {
        row.key = std::string(category);
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const DeviceTimeShare& a, const DeviceTimeShare& b) { return a.time > b.time; });
    double cumulative = 0.0;
    for (DeviceTimeShare& r : rows) {
        r.percent = all > 0 ? 100.0 * static_cast<double>(r.time) / static_cast<double>(all) : 0.0;
        cumulative += r.percent;
        r.cumulativePercent = cumulative;
    }
    return rows;
}

} // namespace xps::profile

#include "import/xplane_ops.h"

#include "util/checked_number.h"
#include "util/text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace xps::importing {

using profile::Nanos;
using profile::SliceClass;

namespace {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

bool isCollective(std::string_view lowered)
{
    for (const std::string_view collective :
         {"all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all", "send", "recv",
          "allreduce", "nccl", "collective"})
        if (contains(lowered, collective))
            return true;
    return false;
}

// Names without a category: what the op's name says (the XLA op name or the display name).
SliceClass classifyByName(std::string_view name)
{
    const std::string n = text::lower(name);
    if (isCollective(n))
        return SliceClass::Communication;
    if (n.starts_with("copy") || contains(n, "memcpy") || contains(n, "async-copy") ||
        n.starts_with("dynamic-update-slice-start"))
        return SliceClass::Memcpy;
    return SliceClass::Kernel;
}

// XProf's hlo_category: "copy-start", "copy-done" and "async-copy" are copies; a synchronous `copy` is
// "data formatting" there (a layout change the core computes), so it stays compute.
SliceClass classifyByCategory(std::string_view category)
{
    const std::string c = text::lower(category);
    if (isCollective(c))
        return SliceClass::Communication;
    if (c.starts_with("copy-start") || c.starts_with("copy-done") || contains(c, "async-copy") ||
        c == "host-to-device" || c == "device-to-host")
        return SliceClass::Memcpy;
    return SliceClass::Kernel;
}

// "copy-start.2" -> ("copy.2", true); "all-reduce-done" -> ("all-reduce", false); else nullopt.
std::optional<std::pair<std::string, bool>> asyncEnd(std::string_view op)
{
    for (const auto& [marker, start] :
         {std::pair<std::string_view, bool>{"-start", true}, {"-done", false}}) {
        const std::size_t at = op.rfind(marker);
        if (at == std::string_view::npos || at == 0)
            continue;
        const std::string_view rest = op.substr(at + marker.size());
        if (!rest.empty() && rest.front() != '.')
            continue; // "-started", "-doneness": not the suffix
        return std::pair{std::string(op.substr(0, at)) + std::string(rest), start};
    }
    return std::nullopt;
}

} // namespace

Nanos picosToNanos(std::int64_t ps)
{
    // No negation or sum that could overflow (INT64_MIN once did).
    Nanos ns = ps / 1000;
    const std::int64_t rest = ps % 1000;
    if (rest >= 500)
        ++ns;
    else if (rest <= -500)
        --ns;
    return ns;
}

SliceClass classifyXProfEvent(std::string_view plane, std::string_view line, std::string_view name,
                              std::string_view hloCategory, std::string_view hloOp)
{
    if (!plane.starts_with("/device:"))
        return SliceClass::CpuOp;
    if (line == "XLA Ops" || line == "Async XLA Ops" || line.starts_with("Stream")) {
        if (!hloCategory.empty())
            return classifyByCategory(hloCategory);
        return classifyByName(!hloOp.empty() ? hloOp : name);
    }
    return SliceClass::DeviceAnnotation; // XLA Modules, Steps, name scopes, TraceMe on the device
}

std::pair<Nanos, Nanos> DeviceClock::timespan(const XlaOpFacts& facts, Nanos hostStart, Nanos hostDuration)
{
    if (!facts.deviceDurationPs)
        return {hostStart, hostDuration};
    const Nanos duration = picosToNanos(*facts.deviceDurationPs);
    if (!facts.deviceOffsetPs)
        return {hostStart, profile::boundedDuration(hostStart, duration)};
    if (!m_anchor) // the first device timespan of the plane sits where the host saw it
        m_anchor = Anchor{hostStart, *facts.deviceOffsetPs};
    ++m_onDeviceClock;
    const Nanos start = checked::saturatingAdd(
        m_anchor->hostNs, picosToNanos(checked::saturatingSub(*facts.deviceOffsetPs, m_anchor->devicePs)));
    return {start, profile::boundedDuration(start, duration)};
}

void AsyncPairs::note(std::uint32_t slice, std::uint32_t plane, const XlaOpFacts& facts,
                      std::string_view name)
{
    const std::string_view op = !facts.hloOp.empty() ? facts.hloOp : name;
    auto end = asyncEnd(op);
    if (!end && !facts.hloCategory.empty()) {
        // "async-copy" events named by category alone: the category says which end, the name is the stem.
        if (const auto byCategory = asyncEnd(facts.hloCategory))
            end = std::pair{std::string(op), byCategory->second};
    }
    if (!end)
        return;
    // XFlow: direction in bits 0-1, the id in the 56 bits above (xprof's xplane_schema.h).
    const std::uint64_t flowId = facts.flow ? (*facts.flow >> 2) & ((std::uint64_t{1} << 56) - 1) : 0;
    m_ends.push_back({slice, plane, end->second, flowId, std::move(end->first)});
}

std::uint64_t AsyncPairs::link(profile::ProfileBuilder& builder) const
{
    profile::Profile& p = builder.profile();
    // Ends by (plane, flow id or stem), in time order; each done takes the oldest start still open (one HLO
    // instruction is never in flight twice, so first-in first-out is its execution order).
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::string_view>, std::vector<const End*>> groups;
    for (const End& e : m_ends)
        groups[{e.plane, e.flowId, e.flowId != 0 ? std::string_view() : std::string_view(e.stem)}].push_back(
            &e);
    const std::uint32_t type =
        p.typeOf(profile::kAsyncPairFlow, profile::kAsyncPairFlowCategory, SliceClass::Other);
    std::uint64_t pairs = 0;
    std::vector<profile::SliceId> open;
    for (auto& [key, ends] : groups) {
        std::stable_sort(ends.begin(), ends.end(), [&](const End* a, const End* b) {
            const profile::Slice &x = builder.slice(profile::SliceId(a->slice)),
                                 &y = builder.slice(profile::SliceId(b->slice));
            return x.start != y.start ? x.start < y.start : a->start && !b->start;
        });
        open.clear();
        std::size_t oldest = 0;
        for (const End* e : ends) {
            if (e->start) {
                open.push_back(profile::SliceId(e->slice));
            } else if (oldest < open.size()) {
                builder.addFlow(open[oldest++], profile::SliceId(e->slice), type);
                ++pairs;
            }
        }
    }
    return pairs;
}

} // namespace xps::importing

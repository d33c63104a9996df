#include "profile/gpu_metrics.h"
#include "profile/intervals.h"
#include "profile/profiler_steps.h"
#include "util/cancel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace xps::profile {
namespace {

// The plugin's bucket: 10^k us, the smallest with at most 100 buckets over `range` (both in nanoseconds).
Nanos bucketFor(Nanos range)
{
    Nanos bucket = 1000;
    while (bucket < INT64_MAX / 10 && range / bucket > 100)
        bucket *= 10;
    return bucket;
}

// "blocks per SM" and "est. achieved occupancy %" of a kernel, read once per argument set.
struct KernelEfficiency
{
    std::optional<double> blocksPerSm, occupancyPct;
};

KernelEfficiency efficiencyIn(const std::string& json)
{
    KernelEfficiency k;
    if (json.find("blocks per SM") == std::string::npos && json.find("occupancy") == std::string::npos)
        return k;
    const nlohmann::json args = nlohmann::json::parse(json, nullptr, false);
    if (!args.is_object())
        return k;
    if (const auto it = args.find("blocks per SM"); it != args.end() && it->is_number())
        k.blocksPerSm = it->get<double>();
    if (const auto it = args.find("est. achieved occupancy %"); it != args.end() && it->is_number())
        k.occupancyPct = it->get<double>();
    return k;
}

} // namespace

std::vector<DeviceUtilization> deviceUtilization(const Profile& p, std::stop_token stop)
{
    return deviceUtilization(p, profilerSteps(p, stop), stop);
}

std::vector<DeviceUtilization> deviceUtilization(const Profile& p, const ProfilerSteps& steps,
                                                 std::stop_token stop)
{
    CancelPoint cancel(stop);
    // The steps as the plugin takes them (profiler_steps.h): their first start to their last end.
    const Ticks stepsStart = steps.steps.front().start, stepsEnd = steps.steps.back().end;
    std::unordered_map<std::uint32_t, std::size_t> indexOf; // process -> position in `out`
    std::vector<DeviceUtilization> out;
    std::vector<Intervals> kernels;
    std::vector<std::vector<std::pair<Ticks, double>>> smEvents; // (time, +/- blocks per SM)
    std::vector<std::pair<double, Ticks>> occupancy;             // (weighted sum, time)
    std::unordered_map<std::uint32_t, KernelEfficiency> byArgs;
    for (const Slice& s : p.slices) {
        cancel();
        const SliceClass c = p.classOf(s);
        const Track& track = p.track(s.track());
        if ((c != SliceClass::Kernel && c != SliceClass::Communication) || !track.device || s.duration <= 0)
            continue;
        const std::uint32_t process = p.processOf(s.track()).value;
        auto [it, added] = indexOf.try_emplace(process, out.size());
        if (added) {
            out.push_back({});
            out.back().process = TrackId(process);
            kernels.emplace_back();
            smEvents.emplace_back();
            occupancy.emplace_back(0.0, 0);
        }
        const std::size_t d = it->second;
        kernels[d].emplace_back(s.start, s.end());
        if (s.args == 0)
            continue;
        auto [cached, fresh] = byArgs.try_emplace(s.args);
        if (fresh)
            cached->second = efficiencyIn(p.args(s.args));
        const KernelEfficiency& k = cached->second;
        if (k.blocksPerSm && *k.blocksPerSm > 0) {
            smEvents[d].emplace_back(s.start, *k.blocksPerSm);
            smEvents[d].emplace_back(s.end(), -*k.blocksPerSm);
        }
        if (k.occupancyPct && *k.occupancyPct >= 0) {
            const Ticks within = std::min(s.end(), stepsEnd) - std::max(s.start, stepsStart);
            if (within > 0) {
                occupancy[d].first += *k.occupancyPct * static_cast<double>(within);
                occupancy[d].second += within;
            }
        }
    }
    const Ticks range = p.span();
    for (std::size_t d = 0; d < out.size(); ++d) {
        DeviceUtilization& u = out[d];
        u.stepsStart = stepsStart;
        u.stepsEnd = stepsEnd;
        u.annotatedSteps = steps.annotated;
        const Intervals busy = merged(std::move(kernels[d]), &cancel);
        u.utilization = static_cast<double>(overlapWith(busy, stepsStart, stepsEnd)) /
                        static_cast<double>(std::max<Ticks>(stepsEnd - stepsStart, 1));
        u.bucket = std::max<Ticks>(p.timebase.fromNanos(bucketFor(p.timebase.toNanos(range))), 1);
        u.timelineStart = p.startTime();
        const auto buckets = static_cast<std::size_t>(std::max<Ticks>(range / u.bucket, 1));
        // One sweep over the busy ranges, each split across the buckets it covers (the last bucket takes
        // the rest of the profile).
        u.busyFraction.assign(buckets, 0.0);
        const auto bucketStart = [&](std::size_t b) {
            return u.timelineStart + static_cast<Ticks>(b) * u.bucket;
        };
        const auto bucketEnd = [&](std::size_t b) {
            return b + 1 < buckets ? bucketStart(b + 1) : p.endTime();
        };
        for (const auto& [a, e] : busy) {
            cancel();
            for (auto b = std::min(static_cast<std::size_t>((a - u.timelineStart) / u.bucket), buckets - 1);
                 b < buckets && bucketStart(b) < e; ++b)
                u.busyFraction[b] +=
                    static_cast<double>(std::min(e, bucketEnd(b)) - std::max(a, bucketStart(b)));
        }
        for (std::size_t b = 0; b < buckets; ++b)
            u.busyFraction[b] = bucketEnd(b) > bucketStart(b)
                                    ? u.busyFraction[b] / static_cast<double>(bucketEnd(b) - bucketStart(b))
                                    : 0;
        if (!smEvents[d].empty()) {
            // Overlapping kernels add their blocks per SM; the sum is capped at 1 (the plugin's merge).
            auto& ev = smEvents[d];
            std::sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) {
                return a.first != b.first ? a.first < b.first : a.second > b.second; // starts before ends
            });
            double value = 0, weighted = 0;
            for (std::size_t i = 0; i + 1 < ev.size(); ++i) {
                value += ev[i].second;
                const Ticks from = std::max(ev[i].first, stepsStart),
                            to = std::min(ev[i + 1].first, stepsEnd);
                if (to > from && value > 1e-12)
                    weighted += std::min(value, 1.0) * static_cast<double>(to - from);
            }
            u.smEfficiency = weighted / static_cast<double>(std::max<Ticks>(stepsEnd - stepsStart, 1));
        }
        if (occupancy[d].second > 0)
            u.occupancyPct = occupancy[d].first / static_cast<double>(occupancy[d].second);
    }
    return out;
}

void addUtilizationCounters(Profile& p, std::stop_token stop)
{
    const std::vector<DeviceUtilization> all = deviceUtilization(p, std::move(stop));
    for (const DeviceUtilization& u : all) {
        bool has = false;
        for (const Track& t : p.tracks)
            has = has ||
                  (t.kind == TrackKind::Counter && t.parent == u.process && t.name == kUtilizationCounter);
        if (has)
            continue;
        Track counter;
        counter.kind = TrackKind::Counter;
        counter.parent = u.process;
        counter.pid = p.track(u.process).pid;
        counter.device = true;
        counter.name = std::string(kUtilizationCounter);
        counter.sortIndex = -1; // above the streams
        const TrackId track(static_cast<std::uint32_t>(p.tracks.size()));
        p.tracks.push_back(counter);
        for (std::size_t b = 0; b < u.busyFraction.size(); ++b)
            p.counters.push_back(
                {u.timelineStart + static_cast<Ticks>(b) * u.bucket, 100.0 * u.busyFraction[b], track});
        p.counters.push_back({p.endTime(), 0.0, track});
    }
}

} // namespace xps::profile

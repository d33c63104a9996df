#include "profile/profile_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace xps::profile {
namespace {

// In nanoseconds: the two profiles may count in different ticks (a replay's cycles against an import).
std::uint64_t ns(const Timebase& tb, Ticks t)
{
    return t > 0 ? static_cast<std::uint64_t>(tb.toNanos(t)) : 0;
}

void set(Compared& c, bool baseline, std::uint64_t v)
{
    (baseline ? c.baseline : c.other) += v;
}

// Each path's length and kinds as its analysis reports them, and its segments summed per (slice name, kind).
void addCriticalPaths(ProfileDiff& d, const Profile& baseline, const CriticalPath& baselinePath,
                      const Profile& other, const CriticalPath& otherPath)
{
    using Key = std::pair<std::string, PathSegmentKind>;
    std::map<Key, std::size_t> row;
    for (const auto& [p, path, isBaseline] :
         {std::tuple{&baseline, &baselinePath, true}, std::tuple{&other, &otherPath, false}}) {
        set(d.criticalPathLength, isBaseline, ns(p->timebase, path->length));
        for (int k = 0; k < kPathSegmentKindCount; ++k)
            set(d.criticalPathByKind[k], isBaseline,
                ns(p->timebase, path->byKind[static_cast<std::size_t>(k)]));
        for (const PathSegment& s : path->segments) {
            // A replay's path runs through stretches of scalar-only bundles, which the profile has no row
            // for (analysis/replay_critical_path.h): they sum under one name of their own.
            static const std::string kNoSlice = "scalar bundles";
            const std::string& name =
                s.slice.valid() ? p->string(p->types[p->slice(s.slice).type].name) : kNoSlice;
            const auto [it, added] = row.try_emplace(Key{name, s.kind}, d.criticalPathOps.size());
            if (added)
                d.criticalPathOps.push_back({name, s.kind, {}, {}, {}});
            PathOpDelta& op = d.criticalPathOps[it->second];
            set(op.onPath, isBaseline, ns(p->timebase, s.end - s.start));
            // Segments run in time order along the path: the first one met is the earliest.
            if (SliceRow& first = isBaseline ? op.baselineFirst : op.otherFirst; !first.valid())
                first = s.slice; // stays invalid for scalar bundles: nothing to select
        }
    }
    std::stable_sort(d.criticalPathOps.begin(), d.criticalPathOps.end(),
                     [](const PathOpDelta& x, const PathOpDelta& y) {
                         return std::llabs(x.onPath.delta()) > std::llabs(y.onPath.delta());
                     });
}

} // namespace

ProfileDiff diffProfiles(const Profile& baseline, const ProfileAnalysis& baselineAnalysis,
                         const Profile& other, const ProfileAnalysis& otherAnalysis)
{
    ProfileDiff d;
    d.baselineName = baseline.source;
    d.otherName = other.source;
    d.span.baseline = ns(baseline.timebase, baselineAnalysis.span);
    d.span.other = ns(other.timebase, otherAnalysis.span);

    std::map<std::string, std::size_t> deviceRow;
    using OpKey = std::tuple<std::string, std::string, std::string>; // name, category, where
    std::map<OpKey, std::size_t> opRow;
    for (const auto& [p, a, isBaseline] :
         {std::tuple{&baseline, &baselineAnalysis, true}, std::tuple{&other, &otherAnalysis, false}}) {
        for (const DeviceBreakdown& dev : a->devices) {
            auto [it, added] = deviceRow.try_emplace(dev.name, d.devices.size());
            if (added) {
                DeviceDelta row;
                row.name = dev.name;
                d.devices.push_back(std::move(row));
            }
            DeviceDelta& row = d.devices[it->second];
            (isBaseline ? row.inBaseline : row.inOther) = true;
            set(row.busy, isBaseline, ns(p->timebase, dev.busy));
            set(row.compute, isBaseline, ns(p->timebase, dev.compute));
            set(row.communication, isBaseline, ns(p->timebase, dev.communication));
            set(row.communicationExposed, isBaseline, ns(p->timebase, dev.communicationExposed()));
            set(row.memcpy, isBaseline, ns(p->timebase, dev.memcpy));
            set(row.memcpyExposed, isBaseline, ns(p->timebase, dev.memcpyExposed()));
            set(row.memset, isBaseline, ns(p->timebase, dev.memset));
            set(row.idle, isBaseline, ns(p->timebase, dev.idle()));
        }
        // An operation's rows of one run (per device for device work) summed by name: one run may split
        // what the other keeps in one type (two categories of one name stay apart).
        for (const OpStats& op : a->ops) {
            const EventType& type = p->types[op.type];
            const std::string where = op.device && op.process.valid() ? p->track(op.process).name : "host";
            const OpKey key{p->string(type.name), p->string(type.category), where};
            auto [it, added] = opRow.try_emplace(key, d.ops.size());
            if (added) {
                OpDelta row;
                std::tie(row.name, row.category, row.where) = key;
                d.ops.push_back(std::move(row));
            }
            OpDelta& row = d.ops[it->second];
            (isBaseline ? row.inBaseline : row.inOther) = true;
            set(row.count, isBaseline, op.count);
            set(row.total, isBaseline, ns(p->timebase, op.total));
            set(row.self, isBaseline, ns(p->timebase, op.self));
            set(row.deviceTime, isBaseline, ns(p->timebase, op.deviceTime));
            if (SliceRow& first = isBaseline ? row.baselineFirst : row.otherFirst;
                op.first.valid() && (!first.valid() || p->slice(op.first).start < p->slice(first).start))
                first = op.first;
        }
    }
    std::stable_sort(d.ops.begin(), d.ops.end(), [](const OpDelta& x, const OpDelta& y) {
        return std::llabs(x.total.delta()) > std::llabs(y.total.delta());
    });
    addCriticalPaths(d, baseline, baselineAnalysis.criticalPath, other, otherAnalysis.criticalPath);
    return d;
}

} // namespace xps::profile

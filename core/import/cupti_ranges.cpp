#include "import/cupti_ranges.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace xps::importing {

using profile::Profile;
using profile::SliceRow;
using profile::Ticks;
using profile::TrackId;

namespace {

bool hasCounter(const Profile& p, TrackId process, const std::string& name)
{
    for (const profile::Track& t : p.tracks)
        if (t.kind == profile::TrackKind::Counter && t.parent == process && t.name == name)
            return true;
    return false;
}

} // namespace

void linkCuptiRanges(Profile& p)
{
    const std::uint32_t rangeCategory = p.findString(kCuptiRangeCategory);
    if (rangeCategory == profile::kNone)
        return;
    std::vector<std::uint32_t> ranges, launches;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice& s = p.slices[i];
        const profile::EventType& t = p.types[s.type];
        if (t.category == rangeCategory)
            ranges.push_back(i);
        else if (p.string(t.category) == "cuda_runtime" && p.string(t.name).starts_with("cudaLaunchKernel"))
            launches.push_back(i);
    }
    if (ranges.empty())
        return;
    // An export of such a profile, imported again, has its flows and counters already.
    const std::uint32_t cupti = p.findString("cupti");
    for (const profile::Flow& f : p.flows)
        if (cupti != profile::kNone && p.types[f.type].category == cupti)
            return;
    const auto byStart = [&](std::uint32_t a, std::uint32_t b) {
        return p.slices[a].start != p.slices[b].start ? p.slices[a].start < p.slices[b].start : a < b;
    };
    std::stable_sort(ranges.begin(), ranges.end(), byStart);
    std::stable_sort(launches.begin(), launches.end(), byStart);
    if (ranges.size() == launches.size()) {
        const std::uint32_t type = p.typeOf("cupti range", "cupti", profile::SliceClass::Other);
        for (std::size_t i = 0; i < ranges.size(); ++i)
            p.flows.push_back({SliceRow(launches[i]), SliceRow(ranges[i]), type});
    } else {
        p.addRepair(profile::RepairKind::Skipped, ranges.size(),
                    "CUPTI profiler ranges were not linked to kernel launches: " +
                        std::to_string(ranges.size()) + " ranges, " + std::to_string(launches.size()) +
                        " cudaLaunchKernel calls (each range is a launch's kernel, in order)");
    }
    // Counter tracks: one per (process, counter), in the order the counters first appear.
    std::map<std::pair<std::uint32_t, std::string>, TrackId> tracks;
    std::vector<std::pair<TrackId, std::vector<profile::CounterSample>>> samples;
    Ticks lastEnd = INT64_MIN;
    for (const std::uint32_t i : ranges) {
        const profile::Slice& s = p.slices[i];
        lastEnd = std::max(lastEnd, s.end());
        const nlohmann::json args = nlohmann::json::parse(p.argsOf(SliceRow(i)), nullptr, false);
        if (!args.is_object())
            continue;
        const TrackId process = p.processOf(s.track());
        for (const auto& [key, value] : args.items()) {
            if (!value.is_number())
                continue;
            auto [it, added] = tracks.try_emplace({process.value, key}, TrackId());
            if (added && hasCounter(p, process, key))
                it->second = TrackId(); // exported and imported again: keep the file's
            else if (added) {
                profile::Track counter;
                counter.kind = profile::TrackKind::Counter;
                counter.parent = process;
                counter.pid = p.track(process).pid;
                counter.name = key;
                counter.sortIndex = static_cast<std::int64_t>(tracks.size());
                it->second = TrackId(static_cast<std::uint32_t>(p.tracks.size()));
                p.tracks.push_back(std::move(counter));
                samples.emplace_back(it->second, std::vector<profile::CounterSample>{});
            }
            for (auto& [track, list] : samples)
                if (it->second.valid() && track == it->second)
                    list.push_back({s.start, value.get<double>(), track});
        }
    }
    // Each track's samples in time order, the tracks after every existing one (finish()'s grouping kept).
    for (auto& [track, list] : samples) {
        list.push_back({lastEnd, 0.0, track});
        p.counters.insert(p.counters.end(), list.begin(), list.end());
    }
}

} // namespace xps::importing

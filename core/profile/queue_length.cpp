#include "profile/queue_length.h"
#include "profile/launches.h"
#include "util/cancel.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace xps::profile {

void addQueueLengthCounters(Profile& p, std::stop_token stop)
{
    CancelPoint cancel(std::move(stop));
    // Per stream: (time, +1) at a launch call's start, (time, -1) at its work's start.
    std::map<std::uint32_t, std::vector<std::pair<Ticks, int>>> changes;
    const std::vector<std::uint32_t> launcher = launchers(p, cancel);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        cancel();
        const Slice& work = p.slices[i];
        if (launcher[i] == kNone || !p.track(work.track()).device)
            continue;
        auto& list = changes[work.track().value];
        list.emplace_back(p.slices[launcher[i]].start, +1);
        list.emplace_back(work.start, -1);
    }
    for (auto& [stream, list] : changes) {
        const Track& streamTrack = p.track(TrackId(stream));
        std::string name = streamTrack.name;
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        name += kQueueLengthSuffix;
        const TrackId process = p.processOf(TrackId(stream));
        bool has = false;
        for (const Track& t : p.tracks)
            has = has || (t.kind == TrackKind::Counter && t.parent == process && t.name == name);
        if (has)
            continue;
        // A launch and a start at the same instant: the launch first (the queue never reads negative).
        std::sort(list.begin(), list.end(), cancel.polling([](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        }));
        Track counter;
        counter.kind = TrackKind::Counter;
        counter.parent = process;
        counter.pid = p.track(process).pid;
        counter.device = true;
        counter.name = name;
        counter.sortIndex = streamTrack.sortIndex;
        counter.describes = TrackId(stream);
        const TrackId track(static_cast<std::uint32_t>(p.tracks.size()));
        p.tracks.push_back(std::move(counter));
        int length = 0;
        for (std::size_t i = 0; i < list.size(); ++i) {
            cancel();
            length += list[i].second;
            // One sample per instant: its value after every change at that instant.
            if (i + 1 == list.size() || list[i + 1].first != list[i].first)
                p.counters.push_back({list[i].first, static_cast<double>(length), track});
        }
    }
}

} // namespace xps::profile

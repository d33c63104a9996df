#include "imported/profile_rows.h"

#include <algorithm>
#include <numeric>

namespace xps::ui {

using profile::Profile;
using profile::TrackKind;

std::vector<ProfileRow> buildProfileRows(const Profile& p,
                                         const std::function<bool(std::uint32_t slice)>& keep)
{
    std::vector<ProfileRow> rows;
    std::vector<std::uint32_t> processes;
    std::vector<std::vector<std::uint32_t>> children(p.tracks.size());
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
        if (p.tracks[t].kind == TrackKind::Process)
            processes.push_back(t);
        else if (p.tracks[t].parent.valid())
            children[p.tracks[t].parent.value].push_back(t);
    }
    const auto order = [&](std::uint32_t a, std::uint32_t b) {
        const profile::Track &x = p.tracks[a], &y = p.tracks[b];
        if (x.device != y.device)
            return x.device; // devices first (what the profile is about), then the host threads driving them
        if (x.sortIndex != y.sortIndex)
            return x.sortIndex < y.sortIndex;
        return a < b;
    };
    std::sort(processes.begin(), processes.end(), order);
    // Counter samples are grouped by track after Profile::finish().
    std::vector<std::pair<std::uint32_t, std::uint32_t>> counterRange(p.tracks.size(), {0, 0});
    for (std::uint32_t i = 0; i < p.counters.size();) {
        std::uint32_t j = i;
        while (j < p.counters.size() && p.counters[j].track == p.counters[i].track)
            ++j;
        counterRange[p.counters[i].track.value] = {i, j - i};
        i = j;
    }
    // Counters about one track (a stream's queue length), drawn under it, in track order.
    std::vector<std::vector<std::uint32_t>> describedBy(p.tracks.size());
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
        if (p.tracks[t].kind == TrackKind::Counter && p.tracks[t].describes.valid() &&
            p.tracks[t].describes.value < p.tracks.size())
            describedBy[p.tracks[t].describes.value].push_back(t);
    for (const std::uint32_t process : processes) {
        const std::size_t headerRow = rows.size();
        ProfileRow header;
        header.kind = ProfileRow::Kind::Process;
        header.track = profile::TrackId(process);
        header.label = p.tracks[process].name;
        rows.push_back(std::move(header));
        std::vector<std::uint32_t>& tracks = children[process];
        std::sort(tracks.begin(), tracks.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (p.tracks[a].kind != p.tracks[b].kind) // counters, then threads, then async tracks
                return static_cast<int>(p.tracks[a].kind == TrackKind::Counter  ? 0
                                        : p.tracks[a].kind == TrackKind::Thread ? 1
                                                                                : 2) <
                       static_cast<int>(p.tracks[b].kind == TrackKind::Counter  ? 0
                                        : p.tracks[b].kind == TrackKind::Thread ? 1
                                                                                : 2);
            return order(a, b);
        });
        const auto addCounter = [&](std::uint32_t t) {
            ProfileRow row;
            row.kind = ProfileRow::Kind::Counter;
            row.track = profile::TrackId(t);
            row.label = p.tracks[t].name;
            row.firstCounter = counterRange[t].first;
            row.counterCount = counterRange[t].second;
            rows.push_back(std::move(row));
        };
        for (const std::uint32_t t : tracks) {
            const profile::Track& track = p.tracks[t];
            if (track.kind == TrackKind::Counter) {
                if (!keep && !track.describes.valid()) // one about a track goes under it (below)
                    addCounter(t);
                continue;
            }
            if (track.sliceCount == 0)
                continue;
            const std::size_t first = rows.size();
            for (std::uint32_t d = 0; d <= track.maxDepth; ++d) {
                ProfileRow row;
                row.track = profile::TrackId(t);
                row.depth = d;
                if (d == 0)
                    row.label = track.name;
                rows.push_back(std::move(row));
            }
            for (std::uint32_t i = track.firstSlice; i < track.firstSlice + track.sliceCount; ++i)
                if (!keep || keep(i))
                    rows[first + p.slices[i].depth()].slices.push_back(i);
            if (keep) {
                // Only the depths that kept something; the track's name on its first row.
                const auto end = std::remove_if(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end(),
                                                [](const ProfileRow& r) { return r.slices.empty(); });
                rows.erase(end, rows.end());
                if (rows.size() > first)
                    rows[first].label = track.name;
            }
            if (!keep)
                for (const std::uint32_t c : describedBy[t])
                    addCounter(c);
        }
        if (rows.size() == headerRow + 1)
            rows.pop_back(); // a process with nothing to show (only metadata, or nothing kept): no header
    }
    return rows;
}

std::pair<std::size_t, std::size_t> visibleSlices(const Profile& p, const ProfileRow& row,
                                                  profile::Ticks from, profile::Ticks to)
{
    const auto& v = row.slices;
    // Ends are sorted like starts within a row (no overlaps at one depth): the first that ends after `from`.
    const auto first = std::partition_point(v.begin(), v.end(), [&](std::uint32_t i) {
        const profile::Slice& s = p.slices[i];
        return s.end() < from || (s.end() == from && s.duration > 0);
    });
    const auto last =
        std::partition_point(first, v.end(), [&](std::uint32_t i) { return p.slices[i].start < to; });
    return {static_cast<std::size_t>(first - v.begin()), static_cast<std::size_t>(last - v.begin())};
}

} // namespace xps::ui

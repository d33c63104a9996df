#include "session/slice_anchor.h"

#include "profile/profile.h"
#include "session/session.h"

#include <algorithm>

namespace xps::session {

std::optional<SliceAnchor> sliceAnchorOf(const profile::Profile& profile, profile::SliceRow row)
{
    if (!row.valid() || row.value >= profile.slices.size())
        return std::nullopt;
    const profile::Slice& s = profile.slice(row);
    const profile::Track& track = profile.track(s.track());
    return SliceAnchor{
        static_cast<int>(track.kind), track.pid, track.tid, track.name, profile.nameOf(s), s.start};
}

namespace {

// The slice of `anchor`'s name starting at its time on `track`, or none: the track's slices are sorted by
// start (Profile::finish), so this is one binary search and a scan over the slices starting together.
profile::SliceRow findOnTrack(const profile::Profile& profile, const profile::Track& track,
                              const SliceAnchor& anchor)
{
    const auto first = profile.slices.begin() + track.firstSlice;
    const auto last = first + track.sliceCount;
    auto it = std::lower_bound(first, last, anchor.start,
                               [](const profile::Slice& s, profile::Ticks t) { return s.start < t; });
    for (; it != last && it->start == anchor.start; ++it)
        if (profile.nameOf(*it) == anchor.name)
            return profile::SliceRow(static_cast<std::uint32_t>(it - profile.slices.begin()));
    return {};
}

} // namespace

profile::SliceRow locateSlice(const profile::Profile& profile, const SliceAnchor& anchor)
{
    profile::SliceRow fallback;
    for (const profile::Track& track : profile.tracks) {
        if (static_cast<int>(track.kind) != anchor.trackKind || track.pid != anchor.pid ||
            track.tid != anchor.tid)
            continue;
        const profile::SliceRow found = findOnTrack(profile, track, anchor);
        if (!found.valid())
            continue;
        if (track.name == anchor.track)
            return found;
        if (!fallback.valid())
            fallback = found;
    }
    return fallback;
}

std::size_t relocate(std::vector<Annotation>& annotations, const profile::Profile& profile)
{
    std::size_t missing = 0;
    for (Annotation& a : annotations) {
        if (!a.slice)
            continue;
        const profile::SliceRow found = locateSlice(profile, *a.slice);
        if (!found.valid()) {
            ++missing;
            continue;
        }
        const profile::Slice& s = profile.slice(found);
        a.fromCycle = static_cast<std::uint64_t>(s.start);
        a.toCycle = static_cast<std::uint64_t>(s.end());
    }
    return missing;
}

} // namespace xps::session

#include "session/slice_anchor.h"

#include "profile/profile.h"
#include "session/session.h"

#include <algorithm>

namespace xps::session {

std::optional<SliceAnchor> sliceAnchorOf(const profile::Profile& profile, std::uint32_t index)
{
    if (index >= profile.slices.size())
        return std::nullopt;
    const profile::Slice& s = profile.slices[index];
    const profile::Track& track = profile.track(s.track());
    return SliceAnchor{
        static_cast<int>(track.kind), track.pid, track.tid, track.name, profile.nameOf(s), s.start};
}

namespace {

// The slice of `anchor`'s name starting at its time on `track`, or kNone: the track's slices are sorted by
// start (Profile::finish), so this is one binary search and a scan over the slices starting together.
std::uint32_t findOnTrack(const profile::Profile& profile, const profile::Track& track,
                          const SliceAnchor& anchor)
{
    const auto first = profile.slices.begin() + track.firstSlice;
    const auto last = first + track.sliceCount;
    auto it = std::lower_bound(first, last, anchor.start,
                               [](const profile::Slice& s, profile::Nanos t) { return s.start < t; });
    for (; it != last && it->start == anchor.start; ++it)
        if (profile.nameOf(*it) == anchor.name)
            return static_cast<std::uint32_t>(it - profile.slices.begin());
    return profile::kNone;
}

} // namespace

std::optional<std::uint32_t> locateSlice(const profile::Profile& profile, const SliceAnchor& anchor)
{
    std::uint32_t fallback = profile::kNone;
    for (const profile::Track& track : profile.tracks) {
        if (static_cast<int>(track.kind) != anchor.trackKind || track.pid != anchor.pid ||
            track.tid != anchor.tid)
            continue;
        const std::uint32_t found = findOnTrack(profile, track, anchor);
        if (found == profile::kNone)
            continue;
        if (track.name == anchor.track)
            return found;
        if (fallback == profile::kNone)
            fallback = found;
    }
    if (fallback == profile::kNone)
        return std::nullopt;
    return fallback;
}

std::size_t relocate(std::vector<Annotation>& annotations, const profile::Profile& profile)
{
    std::size_t missing = 0;
    for (Annotation& a : annotations) {
        if (!a.slice)
            continue;
        const std::optional<std::uint32_t> found = locateSlice(profile, *a.slice);
        if (!found) {
            ++missing;
            continue;
        }
        const profile::Slice& s = profile.slices[*found];
        a.fromCycle = static_cast<std::uint64_t>(s.start);
        a.toCycle = static_cast<std::uint64_t>(s.end());
    }
    return missing;
}

} // namespace xps::session

#pragma once
// A note or bookmark pinned to a slice of an imported profile. A slice's index changes whenever an importer
// orders its slices differently, so the anchor names the slice by what the file says about it: its track
// (kind, pid, tid as the file gives them, and the track's name) and its own name and start time. The same
// file re-imported finds the same slice; a profile the slice is not in leaves the note on its time range.

#include "profile/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xps::session {

struct Annotation;

struct SliceAnchor
{
    int trackKind = 0; // profile::TrackKind
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::string track;      // the track's name
    std::string name;       // the slice's
    std::int64_t start = 0; // ns, the profile's time
    bool operator==(const SliceAnchor&) const = default;
};

// The anchor of slice `row` of `profile` (finished), or nullopt if there is no such slice.
std::optional<SliceAnchor> sliceAnchorOf(const profile::Profile& profile, profile::SliceRow row);
// The slice `anchor` names in `profile`, or none (not valid()). Among tracks of the same kind, pid and tid,
// one of the same name is preferred; among slices starting at the same time, the first of the anchor's name.
profile::SliceRow locateSlice(const profile::Profile& profile, const SliceAnchor& anchor);
// Moves every slice-pinned note onto its slice's time range in `profile`; returns how many were not found
// (they keep the times they had).
std::size_t relocate(std::vector<Annotation>& annotations, const profile::Profile& profile);

} // namespace xps::session

#pragma once
// The rows the profile timeline draws: a header per process, then per track one row per nesting depth
// (counters get one taller row), ordered the way Perfetto orders them (sort index, then pid / tid, host
// before device). For each row the indexes of its slices sorted by start, so a frame finds the visible ones
// by binary search and walks only those (slices of one depth on a track do not overlap, so their ends are
// sorted too).

#include "profile/profile.h"

#include <functional>
#include <string>
#include <vector>

namespace xps::ui {

struct ProfileRow
{
    enum class Kind { Process, Slices, Counter };
    Kind kind = Kind::Slices;
    profile::TrackId track;
    std::uint32_t depth = 0;
    std::string label;                 // shown in the gutter (the track's name on its first row)
    std::vector<std::uint32_t> slices; // Slices: slice indexes at this depth, by start
    std::uint32_t firstCounter = 0, counterCount = 0; // Counter: range of Profile::counters
};

// With `keep`, only the slices it accepts: no counters, and no row, track or process left empty.
std::vector<ProfileRow> buildProfileRows(const profile::Profile& profile,
                                         const std::function<bool(std::uint32_t slice)>& keep = {});

// The slices of `row` that overlap [from, to), as a range of positions in row.slices.
std::pair<std::size_t, std::size_t> visibleSlices(const profile::Profile& profile, const ProfileRow& row,
                                                  profile::Ticks from, profile::Ticks to);

} // namespace xps::ui

#pragma once
// A track's row in a profile's or a replay store's track table (Perfetto's TrackId): its own header, so that
// the replay's event store names tracks with the same type as the profile without taking the profile in.

#include "util/strong_id.h"

namespace xps::profile {

// The same from the builder's addTrack to the finished profile (tracks are never reordered, unlike slices).
using TrackId = StrongId<struct TrackTag>;

} // namespace xps::profile

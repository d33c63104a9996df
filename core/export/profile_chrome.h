#pragma once
// Writes an imported profile as Chrome Trace Event JSON (what Perfetto and chrome://tracing open): process
// and thread names and sort order as metadata, slices as complete events, instants, async tracks as b/e
// pairs, counters, and flows as s/f pairs bound to their slices. Timestamps are microseconds with the
// nanoseconds kept exactly. Written atomically (a temporary file renamed when complete), streamed.

#include "profile/profile.h"
#include "util/result.h"

#include <string>

namespace xps::exporting {

Status writeProfileChromeTrace(const profile::Profile& profile, const std::string& path);

} // namespace xps::exporting

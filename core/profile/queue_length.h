#pragma once
// How many pieces of work the host has queued on each device stream that have not started yet: Holistic
// Trace Analysis's queue length (hta/analyzers/trace_counters.py), a counter that rises at each launch
// call's start and falls as each piece of work it launched starts on the stream. A stream whose queue stays
// near 0 starves (the host launches just in time or too late); one that stays high has the host far ahead.
// Only work with a launch is counted, as HTA counts it.

#include "profile/profile.h"

#include <stop_token>

namespace xps::profile {

// "queue length": one counter track per device stream with launched work, under the stream's process, named
// after the stream ("stream 7 queue length"); a sample at each change. Skips a stream that has one already
// (an export imported again). Call after Profile::finish(). Throws Cancelled (util/cancel.h) once `stop` is
// requested.
void addQueueLengthCounters(Profile& profile, std::stop_token stop = {});

inline constexpr std::string_view kQueueLengthSuffix = " queue length";

} // namespace xps::profile

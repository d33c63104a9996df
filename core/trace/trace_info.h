#pragma once
// A human-readable overview of a trace (`xpushark-cli info`): chips, program sizes, buffers, regions,
// snapshot bytes and the machine parameters that differ from the defaults.

#include "trace/trace.h"

#include <string>

namespace xps::trace {

std::string describeTrace(const Trace& trace);

} // namespace xps::trace

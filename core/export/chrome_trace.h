#pragma once
// Writes a replay as Chrome Trace Event JSON, which Perfetto and chrome://tracing open. One process per
// chip; threads for issued bundles, stalls (named by reason), sync waits, regions and each DMA engine;
// a flow arrow from each DMA to the sync.wait it satisfied. Timestamps are microseconds at the machine's
// clock. Streamed to disk (no document in memory), written to a temporary file and renamed when complete.

#include "events/event_store.h"
#include "trace/trace.h"
#include "util/result.h"

#include <string>

namespace xps::exporting {

Status writeChromeTrace(const trace::Trace& trace, const events::EventStore& store, const std::string& path);

} // namespace xps::exporting

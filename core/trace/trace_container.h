#pragma once
// The single-file container (.xps): an SQLite database holding the same documents as the JSON format,
// with literal bytes (memory snapshots) in chunked blobs so a 1 GiB snapshot loads at disk speed.
// Schema and versioning: docs/trace-format.md. Later sessions add their tables beside these.

#include "trace/trace.h"
#include "util/result.h"

#include <functional>
#include <string>

namespace xps::sql {
class Database;
}

namespace xps::trace {

// PRAGMA user_version. 1: a trace. 2: a trace, and optionally a session's tables beside it
// (core/session). A version 1 file reads as a version 2 file without a session (the migration adds nothing).
inline constexpr int kContainerSchemaVersion = 2;
inline constexpr std::int32_t kContainerAppId = 0x58505348; // PRAGMA application_id: "XPSH"
inline constexpr std::size_t kBlobChunkBytes = 4u << 20;

// Writes to a temporary file beside `path` and renames it over `path` only when complete, so an
// interrupted save never leaves a partial file and never destroys the previous one.
// `extend` (optional) writes more tables in the same transaction (a session's); it returns an error text,
// empty on success.
using ContainerExtension = std::function<std::string(sql::Database&)>;
Status writeTraceContainer(const Trace& trace, const std::string& path, const ContainerExtension& extend = {});
// A container holding only what `extend` writes (a session on an imported profile), written the same way.
Status writeContainer(const std::string& path, const ContainerExtension& extend);
Result<Trace> readTraceContainer(const std::string& path);

// True if the file starts with the SQLite header.
bool looksLikeContainer(const std::string& path);

} // namespace xps::trace

#pragma once
// The JSON trace format (.xtrace.json), the readable interchange form; see docs/trace-format.md.
// The SQLite container (.xps) stores the same documents and moves literal bytes into blobs, so both share
// the code below and a container converts to JSON and back without loss.

#include "trace/json_cursor.h"
#include "trace/trace.h"
#include "trace/trace_validate.h"
#include "util/result.h"

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace xps::trace {

inline constexpr std::string_view kFormatName = "xpushark-trace";
// A JSON trace larger than this is refused: big snapshots belong in the .xps container.
inline constexpr std::uint64_t kMaxJsonTraceBytes = 1ull << 30;

// How literal bytes are stored: inline base64 in JSON, or a reference to a blob in the container.
class PayloadWriter
{
public:
    virtual ~PayloadWriter() = default;
    // Adds the members describing `bytes` to `object` ("base64": ... or "blob": id).
    virtual void write(nlohmann::ordered_json& object, std::span<const std::uint8_t> bytes) = 0;
};
class PayloadReader
{
public:
    virtual ~PayloadReader() = default;
    // Fills `out` with exactly `size` bytes described by `object`; throws JsonError on a mismatch.
    virtual void read(const JsonCursor& object, std::uint64_t size, std::vector<std::uint8_t>& out) = 0;
};

class Base64PayloadWriter final : public PayloadWriter
{
public:
    void write(nlohmann::ordered_json& object, std::span<const std::uint8_t> bytes) override;
};
class Base64PayloadReader final : public PayloadReader
{
public:
    void read(const JsonCursor& object, std::uint64_t size, std::vector<std::uint8_t>& out) override;
};

// Whole documents.
std::string writeTraceJson(const Trace& trace);
Result<Trace> readTraceJson(std::string_view text, std::string_view fileName);

// Pieces, for the container. Readers throw JsonError.
nlohmann::ordered_json chipToJson(const ChipTrace& chip, PayloadWriter& payloads);
ChipTrace chipFromJson(const JsonCursor& cursor, const isa::MachineConfig& machine, PayloadReader& payloads);
nlohmann::ordered_json recordedToJson(const RecordedTiming& recorded);
nlohmann::ordered_json generatedByToJson(const GeneratedBy& generated);
GeneratedBy generatedByFromJson(const JsonCursor& cursor);
RecordedTiming recordedFromJson(const JsonCursor& cursor);
// Checks "format" and "version"; throws JsonError with the "newer xpushark" message when needed.
void checkFormatVersion(const JsonCursor& root);

} // namespace xps::trace

#pragma once
// A session: a trace and what a person made of it — suggestion states (open, applied, dismissed) with their
// measured results, notes anchored to events or time ranges, named views (bookmarks), the window layout and
// the replay's summary. Stored in the .xps container beside the trace's tables (schema version 2,
// docs/trace-format.md), saved atomically: a crash or a full disk leaves the previous file.

#include "events/event_store.h"
#include "session/slice_anchor.h"
#include "trace/trace.h"
#include "util/result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace xps::session {

// An event a note is pinned to: the occurrence-th execution (0-based) of `pc` on `chip`. It names the same
// event after a re-replay that moved it in time (another mode, a changed machine model).
struct EventAnchor
{
    ChipId chip = ChipId(0);
    std::uint32_t pc = 0;
    std::uint64_t occurrence = 0;
    bool operator==(const EventAnchor&) const = default;
};

// Times of notes and bookmarks are in the document's timebase: cycles for a replay, the profile's
// nanoseconds (stored as their two's-complement bits) for an imported profile.
struct Annotation
{
    std::int64_t id = 0; // stable within the session
    std::string text;
    std::uint64_t fromCycle = 0; // for an event anchor: where the event was at the last replay
    std::uint64_t toCycle = 0;
    std::optional<EventAnchor> anchor; // a replay's event; none: a plain time range (or a slice)
    std::optional<SliceAnchor> slice;  // an imported profile's slice
};

// A named view: the time range, which lanes were hidden and what was selected.
struct Bookmark
{
    std::string name;
    std::uint64_t fromCycle = 0;
    std::uint64_t toCycle = 0;
    std::vector<std::string> hiddenLanes;
    std::vector<std::pair<ChipId, std::uint32_t>> selectedPcs;
    std::optional<SliceAnchor> selectedSlice; // an imported profile's
};

enum class SuggestionState { Open, Applied, Dismissed };
std::string_view suggestionStateName(SuggestionState state);
std::optional<SuggestionState> suggestionStateFromName(std::string_view name);

struct SuggestionRecord
{
    std::string id; // as the analysis numbers them ("S1")
    std::string kind;
    std::string title;
    SuggestionState state = SuggestionState::Open;
    nlohmann::json measurement; // suggestionToJson's form; null when not measured
};

struct Session
{
    trace::Trace trace;
    std::string source;          // the trace file the session was started from
    nlohmann::json replaySummary; // analysisToJson's "summary", null before a replay
    std::vector<SuggestionRecord> suggestions;
    std::vector<Annotation> annotations;
    std::vector<Bookmark> bookmarks;
    std::string windowLayout; // the explorer's saved dock state, base64; opaque here
    // A session on an imported profile holds no trace: it names the profile it was made on (the path as
    // saved, absolute), which opens with it. Empty for a session on a trace.
    std::string profileSource;
};

inline constexpr int kSessionFormatVersion = 1; // of the session tables, in table session_meta

Status writeSession(const Session& session, const std::string& path);
// The same with the trace given apart (`session.trace` is ignored): a front end holds its trace elsewhere.
Status writeSession(const trace::Trace& trace, const Session& session, const std::string& path);
// A session on an imported profile (`profileSource` set, no trace): a container with the session tables only.
Status writeProfileSession(const Session& session, const std::string& path);
// True if `path` is a container holding a session on an imported profile (reads its session_meta only).
bool isProfileSession(const std::string& path);
// Where a profile session's profile is now: `source` as saved if it is there, else a file of the same name
// beside the session (the two were moved or sent together), else `source` (whose opening then says it is
// missing).
std::string resolveProfileSource(const std::string& sessionPath, const std::string& source);

// A container without session tables (a bare trace, or a version 1 file) reads as a session with nothing in
// it but the trace.
Result<Session> readSession(const std::string& path);
// Everything but the trace (left empty), for a front end that loads the trace on its own, on a worker: the
// session tables are small. Anchors are checked against the trace's chips later (`relocate` skips those
// that name no event).
Result<Session> readSessionTables(const std::string& path);

// Where an event anchor is in `store`'s replay: the issue cycle of that execution, or nullopt if the replay
// never got that far.
std::optional<std::uint64_t> locate(const EventAnchor& anchor, const events::EventStore& store);
// The anchor of bundle event `index` in `store`.
std::optional<EventAnchor> anchorOf(std::size_t index, const events::EventStore& store);
// Moves every event-anchored note to where its event is in this replay; returns how many were not found.
std::size_t relocate(std::vector<Annotation>& annotations, const events::EventStore& store);

} // namespace xps::session

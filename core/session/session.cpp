#include "session/session.h"
#include "util/checked_number.h"
#include "util/json_text.h"

#include "trace/trace_container.h"
#include "util/sqlite.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace xps::session {
namespace {

constexpr const char* kSessionSchema = R"sql(
CREATE TABLE session_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE suggestion_states(id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL,
  state TEXT NOT NULL CHECK(state IN ('open', 'applied', 'dismissed')), measurement TEXT);
CREATE TABLE annotations(id INTEGER PRIMARY KEY, text TEXT NOT NULL, from_cycle INTEGER NOT NULL,
  to_cycle INTEGER NOT NULL, anchor_chip INTEGER, anchor_pc INTEGER, anchor_occurrence INTEGER);
CREATE TABLE bookmarks(position INTEGER PRIMARY KEY, name TEXT NOT NULL, from_cycle INTEGER NOT NULL,
  to_cycle INTEGER NOT NULL, view TEXT NOT NULL);
CREATE TABLE annotation_slices(id INTEGER PRIMARY KEY, track_kind INTEGER NOT NULL, pid INTEGER NOT NULL,
  tid INTEGER NOT NULL, track TEXT NOT NULL, name TEXT NOT NULL, start INTEGER NOT NULL);
)sql";

nlohmann::json sliceAnchorToJson(const SliceAnchor& a)
{
    return {{"track_kind", a.trackKind}, {"pid", a.pid},   {"tid", a.tid},
            {"track", a.track},          {"name", a.name}, {"start", a.start}};
}

SliceAnchor sliceAnchorFromJson(const nlohmann::json& j) // throws nlohmann::json::exception
{
    SliceAnchor a;
    a.trackKind = j.at("track_kind").get<int>();
    a.pid = j.at("pid").get<std::int64_t>();
    a.tid = j.at("tid").get<std::int64_t>();
    a.track = j.at("track").get<std::string>();
    a.name = j.at("name").get<std::string>();
    a.start = j.at("start").get<std::int64_t>();
    return a;
}

std::string writeTables(sql::Database& db, const Session& s)
{
    if (std::string e = db.exec(kSessionSchema); !e.empty())
        return e;
    const auto check = [&](sql::Statement& st) {
        const bool ok = st.step() == SQLITE_DONE;
        st.reset();
        return ok;
    };
    sql::Statement meta(db, "INSERT INTO session_meta(key, value) VALUES(?, ?)");
    for (const auto& [key, value] : std::map<std::string, std::string>{
             {"format_version", std::to_string(kSessionFormatVersion)},
             {"source", s.source},
             {"replay_summary", text::jsonText(s.replaySummary)},
             {"window_layout", s.windowLayout}}) {
        if (key == "source" && !s.profileSource.empty())
            continue; // profile_source says it
        meta.bind(1, key);
        meta.bind(2, value);
        if (!check(meta))
            return db.lastError();
    }
    if (!s.profileSource.empty()) {
        meta.bind(1, std::string_view("profile_source"));
        meta.bind(2, s.profileSource);
        if (!check(meta))
            return db.lastError();
    }
    sql::Statement suggestion(db, "INSERT INTO suggestion_states(id, kind, title, state, measurement) VALUES(?, ?, ?, ?, ?)");
    for (const SuggestionRecord& r : s.suggestions) {
        suggestion.bind(1, r.id);
        suggestion.bind(2, r.kind);
        suggestion.bind(3, r.title);
        suggestion.bind(4, suggestionStateName(r.state));
        suggestion.bind(5, text::jsonText(r.measurement));
        if (!check(suggestion))
            return db.lastError();
    }
    sql::Statement note(db, "INSERT INTO annotations(id, text, from_cycle, to_cycle, anchor_chip, anchor_pc, anchor_occurrence) "
                            "VALUES(?, ?, ?, ?, ?, ?, ?)");
    for (const Annotation& a : s.annotations) {
        note.bind(1, a.id);
        note.bind(2, a.text);
        note.bind(3, static_cast<std::int64_t>(a.fromCycle));
        note.bind(4, static_cast<std::int64_t>(a.toCycle));
        // An unbound parameter is NULL: a plain time range.
        if (a.anchor) {
            note.bind(5, static_cast<std::int64_t>(a.anchor->chip.value));
            note.bind(6, static_cast<std::int64_t>(a.anchor->pc));
            note.bind(7, static_cast<std::int64_t>(a.anchor->occurrence));
        }
        if (!check(note)) // reset() also clears the bindings, so the next row's anchor starts NULL
            return db.lastError();
    }
    sql::Statement pinned(db, "INSERT INTO annotation_slices(id, track_kind, pid, tid, track, name, start) "
                              "VALUES(?, ?, ?, ?, ?, ?, ?)");
    for (const Annotation& a : s.annotations) {
        if (!a.slice)
            continue;
        pinned.bind(1, a.id);
        pinned.bind(2, static_cast<std::int64_t>(a.slice->trackKind));
        pinned.bind(3, a.slice->pid);
        pinned.bind(4, a.slice->tid);
        pinned.bind(5, a.slice->track);
        pinned.bind(6, a.slice->name);
        pinned.bind(7, a.slice->start);
        if (!check(pinned))
            return db.lastError();
    }
    sql::Statement mark(db, "INSERT INTO bookmarks(position, name, from_cycle, to_cycle, view) VALUES(?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < s.bookmarks.size(); ++i) {
        const Bookmark& b = s.bookmarks[i];
        nlohmann::json view = {{"hidden_lanes", b.hiddenLanes}, {"selected_pcs", nlohmann::json::array()}};
        for (const auto& [chip, pc] : b.selectedPcs)
            view["selected_pcs"].push_back({chip.value, pc});
        if (b.selectedSlice)
            view["selected_slice"] = sliceAnchorToJson(*b.selectedSlice);
        mark.bind(1, static_cast<std::int64_t>(i));
        mark.bind(2, b.name);
        mark.bind(3, static_cast<std::int64_t>(b.fromCycle));
        mark.bind(4, static_cast<std::int64_t>(b.toCycle));
        mark.bind(5, text::jsonText(view));
        if (!check(mark))
            return db.lastError();
    }
    return {};
}

bool hasTable(sql::Database& db, const char* name)
{
    sql::Statement s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    s.bind(1, std::string_view(name));
    return s.step() == SQLITE_ROW;
}

// Parses a JSON column; on failure, says which row of which table.
Result<nlohmann::json> jsonColumn(const std::string& text, const std::string& where)
{
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded())
        return Error(where, "is not valid JSON");
    return j;
}

} // namespace

std::string_view suggestionStateName(SuggestionState state)
{
    switch (state) {
    case SuggestionState::Open: return "open";
    case SuggestionState::Applied: return "applied";
    case SuggestionState::Dismissed: return "dismissed";
    }
    return "open";
}

std::optional<SuggestionState> suggestionStateFromName(std::string_view name)
{
    for (SuggestionState s : {SuggestionState::Open, SuggestionState::Applied, SuggestionState::Dismissed})
        if (suggestionStateName(s) == name)
            return s;
    return std::nullopt;
}

Status writeSession(const trace::Trace& trace, const Session& session, const std::string& path)
{
    return trace::writeTraceContainer(trace, path, [&](sql::Database& db) { return writeTables(db, session); });
}

Status writeProfileSession(const Session& session, const std::string& path)
{
    return trace::writeContainer(path, [&](sql::Database& db) { return writeTables(db, session); });
}

bool isProfileSession(const std::string& path)
{
    if (!trace::looksLikeContainer(path))
        return false;
    sql::Database db;
    if (!db.open(path, true).empty())
        return false;
    sql::Statement s(db, "SELECT 1 FROM session_meta WHERE key = 'profile_source'");
    return s.valid() && s.step() == SQLITE_ROW;
}

std::string resolveProfileSource(const std::string& sessionPath, const std::string& source)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(source, ec))
        return source;
    const fs::path beside = fs::path(sessionPath).parent_path() / fs::path(source).filename();
    if (fs::is_regular_file(beside, ec))
        return beside.string();
    return source;
}

Status writeSession(const Session& session, const std::string& path)
{
    return writeSession(session.trace, session, path);
}

namespace {

Result<Session> readTables(const std::string& path, Session s, std::size_t chips)
{
    sql::Database db;
    if (std::string e = db.open(path, true); !e.empty())
        return Error(path, "cannot open the session: " + e);
    if (!hasTable(db, "session_meta"))
        return s; // a trace without a session: version 1, or never saved as a session
    const std::string at = path + ": ";

    sql::Statement meta(db, "SELECT key, value FROM session_meta");
    std::map<std::string, std::string> values;
    while (meta.step() == SQLITE_ROW)
        values[meta.text(0)] = meta.text(1);
    const auto version = values.find("format_version");
    if (version == values.end())
        return Error(at + "table session_meta", "missing row 'format_version'");
    if (version->second != std::to_string(kSessionFormatVersion))
        return Error(at + "table session_meta", "session format version " + version->second + " is not one this build reads (" +
                                                   std::to_string(kSessionFormatVersion) + "): please update xpushark");
    s.source = values["source"];
    s.profileSource = values["profile_source"];
    if (!s.profileSource.empty())
        s.source = s.profileSource;
    s.windowLayout = values["window_layout"];
    if (const auto summary = values.find("replay_summary"); summary != values.end()) {
        auto j = jsonColumn(summary->second, at + "table session_meta, row replay_summary");
        if (!j)
            return j.error();
        s.replaySummary = std::move(j).value();
    }

    sql::Statement suggestion(db, "SELECT id, kind, title, state, measurement FROM suggestion_states ORDER BY rowid");
    while (suggestion.step() == SQLITE_ROW) {
        SuggestionRecord r{suggestion.text(0), suggestion.text(1), suggestion.text(2), SuggestionState::Open, nullptr};
        const std::string where = at + "table suggestion_states, row id=" + r.id;
        const auto state = suggestionStateFromName(suggestion.text(3));
        if (!state)
            return Error(where, "state '" + suggestion.text(3) + "' is not open, applied or dismissed");
        r.state = *state;
        if (!suggestion.isNull(4)) {
            auto j = jsonColumn(suggestion.text(4), where + ", column measurement");
            if (!j)
                return j.error();
            r.measurement = std::move(j).value();
        }
        s.suggestions.push_back(std::move(r));
    }

    sql::Statement note(db, "SELECT id, text, from_cycle, to_cycle, anchor_chip, anchor_pc, anchor_occurrence FROM annotations ORDER BY id");
    while (note.step() == SQLITE_ROW) {
        Annotation a;
        a.id = note.int64(0);
        a.text = note.text(1);
        a.fromCycle = static_cast<std::uint64_t>(note.int64(2));
        a.toCycle = static_cast<std::uint64_t>(note.int64(3));
        if (!note.isNull(4)) {
            const std::int64_t chip = note.int64(4), pc = note.int64(5), occurrence = note.int64(6);
            if (chip < 0 || chip >= static_cast<std::int64_t>(chips) || pc < 0 ||
                pc > std::numeric_limits<std::uint32_t>::max() || occurrence < 0)
                return Error(at + "table annotations, row id=" + std::to_string(a.id),
                             "anchor (chip " + std::to_string(chip) + ", pc " + std::to_string(pc) + ") is not in the trace");
            a.anchor = EventAnchor{chipIdAt(static_cast<std::size_t>(chip)), static_cast<std::uint32_t>(pc),
                                   static_cast<std::uint64_t>(occurrence)};
        }
        s.annotations.push_back(std::move(a));
    }
    if (hasTable(db, "annotation_slices")) { // a session written before slice-pinned notes has none
        sql::Statement pinned(db,
                              "SELECT id, track_kind, pid, tid, track, name, start FROM annotation_slices");
        while (pinned.step() == SQLITE_ROW) {
            const std::int64_t id = pinned.int64(0);
            const auto pinnedNote = std::find_if(s.annotations.begin(), s.annotations.end(),
                                                 [&](const Annotation& a) { return a.id == id; });
            const std::int64_t kind = pinned.int64(1);
            const std::string where = at + "table annotation_slices, row id=" + std::to_string(id);
            if (pinnedNote == s.annotations.end())
                return Error(where, "pins a note the table annotations does not have");
            if (kind < 0 || kind > 3)
                return Error(where, "track_kind " + std::to_string(kind) +
                                        " is not 0 to 3 (process, thread, async, counter)");
            pinnedNote->slice = SliceAnchor{static_cast<int>(kind), pinned.int64(2), pinned.int64(3),
                                            pinned.text(4),         pinned.text(5),  pinned.int64(6)};
        }
    }

    sql::Statement mark(db, "SELECT position, name, from_cycle, to_cycle, view FROM bookmarks ORDER BY position");
    while (mark.step() == SQLITE_ROW) {
        Bookmark b;
        b.name = mark.text(1);
        b.fromCycle = static_cast<std::uint64_t>(mark.int64(2));
        b.toCycle = static_cast<std::uint64_t>(mark.int64(3));
        const std::string where = at + "table bookmarks, row position=" + std::to_string(mark.int64(0));
        auto view = jsonColumn(mark.text(4), where + ", column view");
        if (!view)
            return view.error();
        try {
            for (const auto& lane : view.value().at("hidden_lanes"))
                b.hiddenLanes.push_back(lane.get<std::string>());
            for (const auto& pc : view.value().at("selected_pcs")) {
                const auto chip = checked::integerIn(pc.at(0), 0, static_cast<std::int64_t>(chips) - 1);
                const auto bundle = checked::integerIn(pc.at(1), 0, std::numeric_limits<std::uint32_t>::max());
                if (!chip || !bundle)
                    return Error(where + ", column view",
                                 "selected_pcs holds " + text::jsonText(pc) +
                                     ": expected [chip, pc] with a chip of the trace and a pc from 0 to 2^32-1");
                b.selectedPcs.emplace_back(chipIdAt(static_cast<std::size_t>(*chip)),
                                           static_cast<std::uint32_t>(*bundle));
            }
            if (const auto slice = view.value().find("selected_slice"); slice != view.value().end())
                b.selectedSlice = sliceAnchorFromJson(*slice);
        } catch (const nlohmann::json::exception& e) {
            return Error(where + ", column view", std::string("unexpected content: ") + e.what());
        }
        s.bookmarks.push_back(std::move(b));
    }
    return s;
}

} // namespace

Result<Session> readSession(const std::string& path)
{
    Result<trace::Trace> trace = trace::readTraceContainer(path); // checks the header, version and the trace
    if (!trace)
        return trace.error();
    Session s;
    s.trace = std::move(trace).value();
    const std::size_t chips = s.trace.chips.size();
    return readTables(path, std::move(s), chips);
}

Result<Session> readSessionTables(const std::string& path)
{
    if (!trace::looksLikeContainer(path))
        return Session{}; // a JSON or assembly trace has no session
    constexpr std::size_t kMostChips = 4096; // the machine configuration's limit
    return readTables(path, Session{}, kMostChips);
}

std::optional<std::uint64_t> locate(const EventAnchor& anchor, const events::EventStore& store)
{
    const events::BundleSnapshot bundles = store.bundles();
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bundles.size(); ++i) {
        const events::BundleIssue e = bundles[i];
        if (e.chip == anchor.chip && e.pc == anchor.pc && seen++ == anchor.occurrence)
            return e.cycle;
    }
    return std::nullopt;
}

std::optional<EventAnchor> anchorOf(std::size_t index, const events::EventStore& store)
{
    const events::BundleSnapshot bundles = store.bundles();
    if (index >= bundles.size())
        return std::nullopt;
    const events::BundleIssue target = bundles[index];
    std::uint64_t occurrence = 0;
    for (std::size_t i = 0; i < index; ++i) {
        const events::BundleIssue e = bundles[i];
        occurrence += e.chip == target.chip && e.pc == target.pc;
    }
    return EventAnchor{target.chip, target.pc, occurrence};
}

std::size_t relocate(std::vector<Annotation>& annotations, const events::EventStore& store)
{
    // One pass over the replay for all anchors: count executions of the anchored (chip, pc) pairs only.
    std::map<std::pair<ChipId, std::uint32_t>, std::vector<Annotation*>> wanted;
    for (Annotation& a : annotations)
        if (a.anchor)
            wanted[{a.anchor->chip, a.anchor->pc}].push_back(&a);
    std::size_t missing = 0;
    for (const auto& [key, notes] : wanted)
        missing += notes.size();
    if (wanted.empty())
        return 0;
    std::map<std::pair<ChipId, std::uint32_t>, std::uint64_t> seen;
    const events::BundleSnapshot bundles = store.bundles();
    for (std::size_t i = 0; i < bundles.size() && missing > 0; ++i) {
        const events::BundleIssue e = bundles[i];
        const auto it = wanted.find({e.chip, e.pc});
        if (it == wanted.end())
            continue;
        const std::uint64_t occurrence = seen[it->first]++;
        for (Annotation* a : it->second)
            if (a->anchor->occurrence == occurrence) {
                const std::uint64_t length = a->toCycle - a->fromCycle;
                a->fromCycle = e.cycle;
                a->toCycle = e.cycle + length;
                --missing;
            }
    }
    return missing;
}

} // namespace xps::session

#pragma once
// Internal to the Chrome JSON importer (chrome_json.cpp reads the text, chrome_json_events.cpp places the
// events on tracks, binds flows and finishes the profile): the importer's state and its pieces.

#include "import/chrome_json.h"
#include "import/json_reader.h"
#include "profile/profile_builder.h"

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace xps::importing::detail {

using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using profile::SliceId;
using profile::TrackId;
using profile::TrackKind;

struct RawEvent
{
    char ph = 0;
    std::string name, cat, pid, tid, id, bp, bindId, args;
    char scope = 't';
    bool hasTs = false, hasDur = false, flowIn = false, flowOut = false;
    Nanos ts = 0, dur = 0;
    std::int64_t correlation = 0, externalId = 0;
    std::vector<std::pair<std::uint32_t, std::int64_t>> perEvent; // (key, value): see profile::SliceArg
    std::string badField; // the first field of the wrong type ("ts: expected a number, found a string")

    void clear()
    {
        ph = 0;
        name.clear();
        cat.clear();
        pid.clear();
        tid.clear();
        id.clear();
        bp.clear();
        bindId.clear();
        args.clear();
        scope = 't';
        hasTs = hasDur = flowIn = flowOut = false;
        ts = dur = 0;
        correlation = externalId = 0;
        perEvent.clear();
        badField.clear();
    }
};

// Open B events of one thread, and open async slices.
struct OpenSlice
{
    Nanos start;
    std::uint32_t type;
    std::uint32_t args;
    std::uint32_t link;
    profile::TrackId track;
};

class Importer
{
public:
    Importer(JsonReader& reader, Profile& profile, const ImportOptions& options)
        : r(reader), p(profile), m_options(options),
          b(profile, options.limits.maxEvents, [this](profile::ProfileBuilder::Limit limit) {
              throw JsonSyntaxError{r.offset(), limit == profile::ProfileBuilder::Limit::Events
                                                    ? m_options.limits.eventsMessage()
                                                    : std::string("more than 16,777,216 tracks")};
          })
    {
    }

    void run();

private:
    void readTopLevelObject();
    void adoptDeclaredTimebase(); // from m_semantics, read ahead of the events
    void readEvents(const std::string& arrayPath);
    void readEvent();
    void readArgs(RawEvent& e);
    void place(const RawEvent& e, std::uint64_t index, const std::string& arrayPath);
    void finish();

    TrackId processTrack(const std::string& pid);
    TrackId threadTrack(const std::string& pid, const std::string& tid);
    TrackId asyncTrack(const std::string& pid, const std::string& name);
    TrackId counterTrack(const std::string& pid, const std::string& name);
    // A Kineto "[memory]" instant as samples of the allocator's totals; false if it carries none.
    bool addMemoryCounters(const RawEvent& e);
    TrackId childTrack(TrackKind kind, const std::string& pid, const std::string& key,
                       const std::string& name, std::int64_t sortIndex, std::int64_t tid = 0);
    // The event's type; `cls` is classifySlice of its name and category (worked out once per event).
    std::uint32_t typeFor(const RawEvent& e, profile::SliceClass cls);
    // The event's arguments with its per-event integers put back (slices other than X keep them in the set).
    std::uint32_t argsWithPerEvent(const RawEvent& e);
    std::uint64_t idKey(const std::string& id);
    void warn(const std::string& what, const std::string& firstPath,
              profile::RepairKind kind = profile::RepairKind::Skipped)
    {
        b.repair(kind, what, firstPath);
    }
    static std::int64_t numberOf(const std::string& idText, std::int64_t fallback);

    JsonReader& r;
    Profile& p;
    const ImportOptions& m_options;
    profile::ProfileBuilder b;
    RawEvent m_event;
    std::string m_key, m_text;
    std::uint64_t m_events = 0;
    std::uint64_t m_nextProgress = 16u << 20;
    bool m_sawEventList = false;
    bool m_kineto = false;
    nlohmann::json m_semantics; // "xpushark_semantics" of our own export (profile_semantics.h), if any
    nlohmann::json m_criticalPath; // "xpushark_critical_path" of a replay's export (critical_path_semantics.h)
    // Times read as picoseconds and held in these ticks: an export whose semantics, ahead of its events,
    // declare a timebase (a replay's cycles). Else nanoseconds.
    bool m_picos = false;
    profile::Timebase m_timebase;

    std::unordered_map<TrackId, std::vector<OpenSlice>> m_openB;         // by thread track
    // process_labels by process track, added to its name at the end: Kineto repeats its metadata (an MTIA
    // trace names "MTIA 9" and labels it "MTIA 9" twice), and a label that only repeats the name says
    // nothing.
    std::unordered_map<TrackId, std::string> m_processLabels;
    std::unordered_map<std::string, std::vector<OpenSlice>> m_openAsync; // by pid/cat/id
};

} // namespace xps::importing::detail

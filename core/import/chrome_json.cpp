#include "import/chrome_json.h"

#include "import/json_reader.h"
#include "util/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace xps::importing {

using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using profile::TrackKind;

namespace {

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

// One event as read, before it is placed on a track.
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
    std::uint32_t track;
};

// A flow's identity: its EventType (name and category scope the id) and its id, numeric or interned.
struct FlowKey
{
    std::uint32_t type = 0;
    std::uint64_t id = 0;
    auto operator<=>(const FlowKey&) const = default;
};

struct PendingFlow
{
    FlowKey key;
    char ph;        // s, t, f
    bool enclosing; // bind to the slice enclosing ts (else the next one to start)
    std::uint32_t track;
    Nanos ts;
    std::uint64_t order; // for steps at the same time
};

struct PendingFlowV2
{
    std::uint64_t id;
    std::uint32_t slice;
    bool out;
};

class Importer
{
public:
    Importer(JsonReader& reader, Profile& profile, const ImportOptions& options)
        : r(reader), p(profile), m_options(options)
    {
    }

    void run();

private:
    void readTopLevelObject();
    void readEvents(const std::string& arrayPath);
    void readEvent();
    void readArgs(RawEvent& e);
    void place(const RawEvent& e, std::uint64_t index, const std::string& arrayPath);
    void finish();
    void bindFlows();
    void linkByCorrelation();

    std::uint32_t processTrack(const std::string& pid);
    std::uint32_t threadTrack(const std::string& pid, const std::string& tid);
    std::uint32_t asyncTrack(const std::string& pid, const std::string& name);
    std::uint32_t counterTrack(const std::string& pid, const std::string& name);
    std::uint32_t addSlice(std::uint32_t track, Nanos start, Nanos dur, std::uint32_t type,
                           std::uint32_t args, std::uint32_t link);
    std::uint32_t typeFor(const RawEvent& e);
    // The event's arguments with its per-event integers put back (slices other than X keep them in the set).
    std::uint32_t argsWithPerEvent(const RawEvent& e);
    std::uint64_t idKey(const std::string& id);
    void warn(const std::string& what, const std::string& firstPath);
    static std::int64_t numberOf(const std::string& idText, std::int64_t fallback);

    JsonReader& r;
    Profile& p;
    const ImportOptions& m_options;
    RawEvent m_event;
    std::string m_key, m_text;
    std::uint64_t m_events = 0;
    std::uint64_t m_nextProgress = 16u << 20;
    bool m_sawEventList = false;
    bool m_kineto = false;

    std::unordered_map<std::string, std::uint32_t> m_processes, m_threads, m_async, m_counterTracks;
    std::unordered_map<std::uint32_t, std::vector<OpenSlice>> m_openB;   // by thread track
    std::unordered_map<std::string, std::vector<OpenSlice>> m_openAsync; // by pid/cat/id
    std::vector<PendingFlow> m_flows;
    std::vector<PendingFlowV2> m_flowsV2;
    std::map<std::string, std::pair<std::uint64_t, std::string>> m_warnings; // what -> (count, first path)
};

void Importer::warn(const std::string& what, const std::string& firstPath)
{
    auto& [count, path] = m_warnings[what];
    if (count++ == 0)
        path = firstPath;
}

std::int64_t Importer::numberOf(const std::string& idText, std::int64_t fallback)
{
    std::int64_t v = 0;
    return parseScaled(idText, 1, v) ? v : fallback;
}

void Importer::run()
{
    try {
        switch (r.peek()) {
        case JsonKind::Array:
            m_sawEventList = true;
            readEvents("$");
            break;
        case JsonKind::Object: readTopLevelObject(); break;
        case JsonKind::End: throw JsonSyntaxError{r.offset(), "the file is empty: expected a JSON trace"};
        default:
            throw JsonSyntaxError{r.offset(), "expected a trace: a JSON array of events or an object with "
                                              "\"traceEvents\""};
        }
        if (!m_sawEventList)
            throw JsonSyntaxError{r.offset(),
                                  "no \"traceEvents\" array: this JSON object is not a Chrome trace"};
        if (!r.atEnd())
            warn("data after the end of the trace was ignored", "$");
    } catch (const JsonSyntaxError& e) {
        // A file cut off after some events (a crashed or still-running profiler): keep what was read.
        if (!(r.reachedEnd() && m_events > 0))
            throw;
        p.warnings.push_back("the file ends early (" + e.message + " at byte " +
                             text::withThousands(e.offset) + "): kept the " + text::withThousands(m_events) +
                             " events before it; the last, incomplete one was dropped");
    }
    finish();
}

void Importer::readTopLevelObject()
{
    r.expect('{');
    bool first = true;
    std::string key;
    while (r.nextMember(key, first)) {
        if (key == "traceEvents") {
            if (r.peek() != JsonKind::Array)
                throw JsonSyntaxError{r.offset(), "$.traceEvents: expected an array of events"};
            m_sawEventList = true;
            readEvents("$.traceEvents");
        } else {
            if (key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo")
                m_kineto = true;
            std::string value;
            r.skipValue(&value);
            if (value.size() > 4096)
                value = value.substr(0, 4096) + "...";
            p.metadata.emplace_back(key, std::move(value));
        }
    }
}

void Importer::readEvents(const std::string& arrayPath)
{
    r.expect('[');
    bool first = true;
    while (r.nextElement(first)) {
        if (r.peek() != JsonKind::Object) {
            warn("array elements that are not event objects were skipped",
                 arrayPath + "[" + std::to_string(m_events) + "]");
            r.skipValue();
            ++m_events;
            continue;
        }
        readEvent();
        place(m_event, m_events, arrayPath);
        ++m_events;
        // Every 16 MiB of text: the decompressed offset costs nothing, the file's offset is a system call.
        if (m_options.progress && r.offset() >= m_nextProgress) {
            m_nextProgress = r.offset() + (16u << 20);
            if (!m_options.progress(r.fileOffset()))
                throw JsonSyntaxError{r.offset(), "cancelled"};
        }
    }
}

void Importer::readEvent()
{
    RawEvent& e = m_event;
    e.clear();
    r.expect('{');
    bool first = true;
    const auto text = [&](std::string& out, const char* field) {
        switch (r.peek()) {
        case JsonKind::String: r.readString(out); return;
        case JsonKind::Number: out = r.readNumberText(); return;
        default:
            if (e.badField.empty())
                e.badField = std::string(field) + ": expected a string or a number";
            r.skipValue();
        }
    };
    const auto micros = [&](Nanos& out, bool& has, const char* field) {
        if (r.peek() == JsonKind::Number || r.peek() == JsonKind::String) {
            if (r.peek() == JsonKind::String)
                r.readString(m_text); // some writers quote their timestamps
            else
                m_text = r.readNumberText();
            if (parseScaled(m_text, 1000, out)) {
                has = true;
                return;
            }
        } else {
            r.skipValue();
        }
        if (e.badField.empty())
            e.badField = std::string(field) + ": expected a number of microseconds";
    };
    while (r.nextMember(m_key, first)) {
        const std::string& k = m_key;
        if (k == "ph") {
            text(m_text, "ph");
            e.ph = m_text.size() == 1 ? m_text[0] : '?';
        } else if (k == "name") {
            text(e.name, "name");
        } else if (k == "cat") {
            text(e.cat, "cat");
        } else if (k == "ts") {
            micros(e.ts, e.hasTs, "ts");
        } else if (k == "dur") {
            micros(e.dur, e.hasDur, "dur");
        } else if (k == "pid") {
            text(e.pid, "pid");
        } else if (k == "tid") {
            text(e.tid, "tid");
        } else if (k == "id" || k == "id2") {
            if (r.peek() == JsonKind::Object) {
                // id2: {"local": "0x1"} or {"global": "0x1"}
                m_text.clear();
                r.skipValue(&m_text);
                e.id = m_text;
            } else {
                text(e.id, "id");
            }
        } else if (k == "bp") {
            text(e.bp, "bp");
        } else if (k == "s") {
            text(m_text, "s");
            e.scope = m_text.empty() ? 't' : m_text[0];
        } else if (k == "args") {
            readArgs(e);
        } else if (k == "bind_id") {
            text(e.bindId, "bind_id");
        } else if (k == "flow_in" || k == "flow_out") {
            const bool v = r.peek() == JsonKind::True || r.peek() == JsonKind::False ? r.readBool()
                                                                                     : (r.skipValue(), false);
            (k == "flow_in" ? e.flowIn : e.flowOut) = v;
        } else {
            r.skipValue(); // tts, tdur, sf, stack, ...
        }
    }
}

void Importer::readArgs(RawEvent& e)
{
    if (r.peek() != JsonKind::Object) {
        r.skipValue();
        return;
    }
    r.expect('{');
    e.args = "{";
    bool first = true;
    std::string key;
    while (r.nextMember(key, first)) {
        // Kineto's per-event counters become the slice's link (see profile.h) instead of an argument set of
        // their own per event; "Ev Idx" and "Record function id" are Kineto's internal indexes.
        if (key == "correlation" || key == "External id") {
            if (r.peek() == JsonKind::Number) {
                std::int64_t v = 0;
                if (parseScaled(r.readNumberText(), 1, v)) {
                    (key == "correlation" ? e.correlation : e.externalId) = v;
                    continue;
                }
                e.args += e.args.size() > 1 ? "," : "";
                appendJsonString(e.args, key);
                e.args += ':';
                e.args += "null";
                continue;
            }
        } else if (key == "Ev Idx" || key == "Record function id") {
            r.skipValue();
            continue;
        } else if ((key == "Sequence number" || key == "Python id" || key == "Python parent id") &&
                   r.peek() == JsonKind::Number) {
            std::int64_t v = 0;
            const std::string_view number = r.readNumberText();
            if (parseScaled(number, 1, v) && number.find_first_of(".eE") == std::string_view::npos) {
                e.perEvent.emplace_back(p.intern(key), v);
            } else {
                e.args += e.args.size() > 1 ? "," : "";
                appendJsonString(e.args, key);
                e.args += ':';
                e.args += number;
            }
            continue;
        }
        if (e.args.size() > 1)
            e.args += ',';
        appendJsonString(e.args, key);
        e.args += ':';
        r.skipValue(&e.args);
    }
    e.args += '}';
}

std::uint32_t Importer::processTrack(const std::string& pid)
{
    if (const auto it = m_processes.find(pid); it != m_processes.end())
        return it->second;
    profile::Track t;
    t.kind = TrackKind::Process;
    t.pid = numberOf(pid, -static_cast<std::int64_t>(m_processes.size()) - 1);
    t.sortIndex = t.pid;
    t.name = pid.empty() ? "(no pid)" : "Process " + pid;
    const auto id = static_cast<std::uint32_t>(p.tracks.size());
    p.tracks.push_back(std::move(t));
    m_processes.emplace(pid, id);
    return id;
}

std::uint32_t Importer::threadTrack(const std::string& pid, const std::string& tid)
{
    const std::string key = pid + '\x1f' + tid;
    if (const auto it = m_threads.find(key); it != m_threads.end())
        return it->second;
    const std::uint32_t process = processTrack(pid);
    profile::Track t;
    t.kind = TrackKind::Thread;
    t.parent = process;
    t.pid = p.tracks[process].pid;
    t.tid = numberOf(tid, -static_cast<std::int64_t>(m_threads.size()) - 1);
    t.sortIndex = t.tid;
    t.name = tid.empty() ? "(no tid)" : "Thread " + tid;
    const auto id = static_cast<std::uint32_t>(p.tracks.size());
    p.tracks.push_back(std::move(t));
    m_threads.emplace(key, id);
    return id;
}

std::uint32_t Importer::asyncTrack(const std::string& pid, const std::string& name)
{
    const std::string key = pid + '\x1f' + name;
    if (const auto it = m_async.find(key); it != m_async.end())
        return it->second;
    const std::uint32_t process = processTrack(pid);
    profile::Track t;
    t.kind = TrackKind::Async;
    t.parent = process;
    t.pid = p.tracks[process].pid;
    t.sortIndex = INT64_MAX / 2 + static_cast<std::int64_t>(m_async.size());
    t.name = name.empty() ? "async" : name;
    const auto id = static_cast<std::uint32_t>(p.tracks.size());
    p.tracks.push_back(std::move(t));
    m_async.emplace(key, id);
    return id;
}

std::uint32_t Importer::counterTrack(const std::string& pid, const std::string& name)
{
    const std::string key = pid + '\x1f' + name;
    if (const auto it = m_counterTracks.find(key); it != m_counterTracks.end())
        return it->second;
    const std::uint32_t process = processTrack(pid);
    profile::Track t;
    t.kind = TrackKind::Counter;
    t.parent = process;
    t.pid = p.tracks[process].pid;
    t.sortIndex = INT64_MIN / 2 + static_cast<std::int64_t>(m_counterTracks.size());
    t.name = name;
    const auto id = static_cast<std::uint32_t>(p.tracks.size());
    p.tracks.push_back(std::move(t));
    m_counterTracks.emplace(key, id);
    return id;
}

std::uint32_t Importer::addSlice(std::uint32_t track, Nanos start, Nanos dur, std::uint32_t type,
                                 std::uint32_t args, std::uint32_t link)
{
    if (track >= (1u << 24))
        throw JsonSyntaxError{r.offset(), "more than 16,777,216 tracks"};
    profile::Slice s;
    s.start = start;
    s.duration = std::max<Nanos>(dur, 0);
    s.trackAndDepth = track << 8;
    s.type = type;
    s.args = args;
    s.link = link;
    p.slices.push_back(s);
    return static_cast<std::uint32_t>(p.slices.size() - 1);
}

std::uint32_t Importer::argsWithPerEvent(const RawEvent& e)
{
    if (e.perEvent.empty())
        return p.internArgs(e.args);
    std::string args = e.args.empty() ? std::string("{}") : e.args;
    for (const auto& [key, value] : e.perEvent) {
        std::string member = args.size() > 2 ? "," : "";
        appendJsonString(member, p.string(key));
        member += ':' + std::to_string(value);
        args.insert(args.size() - 1, member);
    }
    return p.internArgs(args);
}

std::uint64_t Importer::idKey(const std::string& id)
{
    std::int64_t v = 0;
    if (parseScaled(id, 1, v) && v >= 0)
        return static_cast<std::uint64_t>(v);
    return (1ull << 63) | p.intern(id);
}

std::uint32_t Importer::typeFor(const RawEvent& e)
{
    return p.typeOf(e.name, e.cat, classifySlice(e.name, e.cat));
}

void Importer::place(const RawEvent& e, std::uint64_t index, const std::string& arrayPath)
{
    const auto path = [&](const char* field) {
        return arrayPath + "[" + std::to_string(index) + "]" + (field[0] ? "." : "") + field;
    };
    if (!e.badField.empty()) {
        const std::string field = e.badField.substr(0, e.badField.find(':'));
        warn("events with a field of the wrong type were skipped (" + e.badField.substr(field.size() + 2) +
                 " for " + field + ")",
             path(field.c_str()));
        return;
    }
    if (e.ph == 0) {
        warn("events without \"ph\" were skipped", path(""));
        return;
    }
    if (e.ph != 'M' && !e.hasTs) {
        warn("events without \"ts\" were skipped", path(""));
        return;
    }
    const SliceClass cls = classifySlice(e.name, e.cat);
    if (cls == SliceClass::Kernel || cls == SliceClass::CpuOp || cls == SliceClass::Memcpy)
        m_kineto = m_kineto || e.correlation != 0 || e.externalId != 0;
    const std::uint32_t link = static_cast<std::uint32_t>(
        profile::isDeviceWork(cls) || cls == SliceClass::Runtime || cls == SliceClass::RuntimeSync
            ? (e.correlation ? e.correlation : e.externalId)
            : (e.externalId ? e.externalId : e.correlation));
    switch (e.ph) {
    case 'X': {
        if (!e.hasDur) {
            warn("complete events (\"X\") without \"dur\" were read as instants", path("dur"));
        } else if (e.dur < 0) {
            warn("complete events with a negative \"dur\" were skipped", path("dur"));
            return;
        }
        const std::uint32_t s =
            addSlice(threadTrack(e.pid, e.tid), e.ts, e.dur, typeFor(e), p.internArgs(e.args), link);
        for (const auto& [key, value] : e.perEvent)
            p.sliceArgs.push_back({s, key, value});
        if (!e.bindId.empty() && (e.flowIn || e.flowOut)) {
            if (e.flowIn)
                m_flowsV2.push_back({idKey(e.bindId), s, false});
            if (e.flowOut)
                m_flowsV2.push_back({idKey(e.bindId), s, true});
        }
        return;
    }
    case 'B': {
        const std::uint32_t track = threadTrack(e.pid, e.tid);
        m_openB[track].push_back({e.ts, typeFor(e), argsWithPerEvent(e), link, track});
        return;
    }
    case 'E': {
        const std::uint32_t track = threadTrack(e.pid, e.tid);
        auto& stack = m_openB[track];
        if (stack.empty()) {
            warn("end events (\"E\") without a begin event on their thread were skipped", path(""));
            return;
        }
        const OpenSlice o = stack.back();
        stack.pop_back();
        if (e.ts < o.start) {
            warn("end events before their begin event were skipped", path("ts"));
            return;
        }
        // Arguments given at the end (Chrome merges them into the slice's): kept when the begin had none.
        const std::uint32_t args = o.args ? o.args : argsWithPerEvent(e);
        addSlice(track, o.start, e.ts - o.start, o.type, args, o.link ? o.link : link);
        return;
    }
    case 'i':
    case 'I':
    case 'R': {
        // Global and process-scoped instants go to a process-level track of their own.
        const std::string pid = e.scope == 'g' ? std::string("(global)") : e.pid;
        const std::uint32_t track = e.scope == 't' && e.ph != 'R'
                                        ? threadTrack(e.pid, e.tid)
                                        : asyncTrack(pid, e.ph == 'R' ? "marks" : "instants");
        addSlice(track, e.ts, 0, typeFor(e), argsWithPerEvent(e), link);
        return;
    }
    case 'C': {
        if (e.args.size() <= 2)
            return;
        nlohmann::json args = nlohmann::json::parse(e.args, nullptr, false);
        if (!args.is_object())
            return;
        const std::string base = e.name + (e.id.empty() ? "" : " " + e.id);
        for (auto it = args.begin(); it != args.end(); ++it) {
            double value = 0;
            if (it.value().is_number())
                value = it.value().get<double>();
            else if (it.value().is_string())
                value = std::strtod(it.value().get<std::string>().c_str(), nullptr);
            else
                continue;
            const std::string name = args.size() == 1 && (it.key() == "value" || it.key() == e.name)
                                         ? base
                                         : base + " " + it.key();
            p.counters.push_back({e.ts, value, counterTrack(e.pid, name)});
        }
        return;
    }
    case 'M': {
        nlohmann::json args =
            nlohmann::json::parse(e.args.empty() ? std::string("{}") : e.args, nullptr, false);
        if (!args.is_object())
            return;
        const auto name = args.find("name");
        const auto sort = args.find("sort_index");
        if (e.name == "process_name" && name != args.end() && name->is_string()) {
            p.tracks[processTrack(e.pid)].name = name->get<std::string>();
        } else if (e.name == "thread_name" && name != args.end() && name->is_string()) {
            p.tracks[threadTrack(e.pid, e.tid)].name = name->get<std::string>();
        } else if (e.name == "process_sort_index" && sort != args.end() && sort->is_number_integer()) {
            p.tracks[processTrack(e.pid)].sortIndex = sort->get<std::int64_t>();
        } else if (e.name == "thread_sort_index" && sort != args.end() && sort->is_number_integer()) {
            p.tracks[threadTrack(e.pid, e.tid)].sortIndex = sort->get<std::int64_t>();
        } else if (e.name == "process_labels") {
            const auto labels = args.find("labels");
            if (labels != args.end() && labels->is_string()) {
                std::string& n = p.tracks[processTrack(e.pid)].name;
                n += " (" + labels->get<std::string>() + ")";
            }
        }
        return;
    }
    case 'b':
    case 'S':
    case 'e':
    case 'F':
    case 'n': {
        const std::string key = e.pid + '\x1f' + e.cat + '\x1f' + e.id;
        auto& stack = m_openAsync[key];
        if (e.ph == 'b' || e.ph == 'S') {
            // A nested begin joins its parent's track; an outermost one opens a track named by the event.
            const std::uint32_t track = stack.empty() ? asyncTrack(e.pid, e.name) : stack.back().track;
            stack.push_back({e.ts, typeFor(e), argsWithPerEvent(e), link, track});
        } else if (e.ph == 'n') {
            const std::uint32_t track = stack.empty() ? asyncTrack(e.pid, e.name) : stack.back().track;
            addSlice(track, e.ts, 0, typeFor(e), argsWithPerEvent(e), link);
        } else {
            if (stack.empty()) {
                warn("async end events without a begin of the same id were skipped", path(""));
                return;
            }
            const OpenSlice o = stack.back();
            stack.pop_back();
            addSlice(o.track, o.start, std::max<Nanos>(e.ts - o.start, 0), o.type,
                     o.args ? o.args : argsWithPerEvent(e), o.link);
            if (stack.empty())
                m_openAsync.erase(key);
        }
        return;
    }
    case 's':
    case 't':
    case 'f':
        m_flows.push_back({{p.typeOf(e.name, e.cat, SliceClass::Other), idKey(e.id)},
                           e.ph,
                           e.ph != 'f' || e.bp == "e",
                           threadTrack(e.pid, e.tid),
                           e.ts,
                           index});
        return;
    case 'T':
    case 'p': warn("async step events (\"T\", \"p\") were skipped", path("ph")); return;
    default:
        warn(std::string("events of phase \"") + e.ph + "\" (samples, objects, memory dumps) were skipped",
             path("ph"));
        return;
    }
}

void Importer::bindFlows()
{
    // v1: s -> t ... -> f with the same category, id and name, in time order.
    std::stable_sort(m_flows.begin(), m_flows.end(), [](const PendingFlow& a, const PendingFlow& b) {
        return a.key != b.key ? a.key < b.key : a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    std::size_t unbound = 0;
    const auto bind = [&](const PendingFlow& f) -> std::uint32_t {
        if (f.enclosing)
            return p.sliceAt(f.track, f.ts);
        const profile::Track& t = p.tracks[f.track];
        const auto first = p.slices.begin() + t.firstSlice, last = first + t.sliceCount;
        const auto it =
            std::lower_bound(first, last, f.ts, [](const profile::Slice& s, Nanos v) { return s.start < v; });
        return it == last ? profile::kNone : static_cast<std::uint32_t>(it - p.slices.begin());
    };
    for (std::size_t i = 0; i < m_flows.size();) {
        std::size_t j = i;
        while (j < m_flows.size() && m_flows[j].key == m_flows[i].key)
            ++j;
        std::uint32_t from = profile::kNone;
        for (std::size_t k = i; k < j; ++k) {
            const PendingFlow& f = m_flows[k];
            const std::uint32_t at = bind(f);
            if (f.ph == 's') {
                from = at;
            } else if (from != profile::kNone && at != profile::kNone) {
                p.flows.push_back({from, at, f.key.type});
                from = f.ph == 't' ? at : profile::kNone;
            } else {
                ++unbound;
            }
        }
        i = j;
    }
    // v2: a slice with flow_out and bind_id to the next slice with flow_in and the same bind_id.
    std::stable_sort(m_flowsV2.begin(), m_flowsV2.end(), [&](const PendingFlowV2& a, const PendingFlowV2& b) {
        return a.id != b.id ? a.id < b.id : p.slices[a.slice].start < p.slices[b.slice].start;
    });
    const std::uint32_t v2Type = p.typeOf("flow", "", SliceClass::Other);
    for (std::size_t i = 0; i < m_flowsV2.size();) {
        std::size_t j = i;
        std::uint32_t from = profile::kNone;
        for (; j < m_flowsV2.size() && m_flowsV2[j].id == m_flowsV2[i].id; ++j) {
            if (!m_flowsV2[j].out && from != profile::kNone)
                p.flows.push_back({from, m_flowsV2[j].slice, v2Type});
            if (m_flowsV2[j].out)
                from = m_flowsV2[j].slice;
        }
        i = j;
    }
    if (unbound > 0)
        p.warnings.push_back(
            std::to_string(unbound) +
            " flow steps found no slice to bind to (or no start before them) and were dropped");
}

void Importer::linkByCorrelation()
{
    // Old Kineto files and ROCm traces carry no ac2g flow events: their launches are found by the
    // correlation id the runtime call and the device work share.
    const std::uint32_t ac2g = p.intern("ac2g");
    for (const profile::Flow& f : p.flows)
        if (p.types[f.type].category == ac2g)
            return;
    std::unordered_map<std::uint32_t, std::uint32_t> runtimeByCorrelation;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice& s = p.slices[i];
        if (s.link != 0 && p.classOf(s) == SliceClass::Runtime)
            runtimeByCorrelation.emplace(s.link, i);
    }
    if (runtimeByCorrelation.empty())
        return;
    const std::uint32_t type = p.typeOf("launch", "ac2g", SliceClass::Other);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice& s = p.slices[i];
        if (s.link == 0 || !profile::isDeviceWork(p.classOf(s)))
            continue;
        if (const auto it = runtimeByCorrelation.find(s.link); it != runtimeByCorrelation.end())
            p.flows.push_back({it->second, i, type});
    }
}

void Importer::finish()
{
    // Close what is still open at the end of the trace.
    Nanos end = INT64_MIN;
    for (const profile::Slice& s : p.slices)
        end = std::max(end, s.end());
    std::size_t unclosed = 0;
    for (auto& [track, stack] : m_openB)
        for (const OpenSlice& o : stack) {
            addSlice(track, o.start, std::max<Nanos>(end - o.start, 0), o.type, o.args, o.link);
            ++unclosed;
        }
    for (auto& [key, stack] : m_openAsync)
        for (const OpenSlice& o : stack) {
            addSlice(o.track, o.start, std::max<Nanos>(end - o.start, 0), o.type, o.args, o.link);
            ++unclosed;
        }
    if (unclosed > 0)
        p.warnings.push_back(std::to_string(unclosed) +
                             " slices had a begin but no end; each was closed at the "
                             "end of the trace");
    for (const auto& [what, entry] : m_warnings)
        p.warnings.push_back(text::withThousands(entry.first) + " " + what + "; the first at " +
                             entry.second);

    // Device tracks: those that run device work, and their processes.
    for (const profile::Slice& s : p.slices)
        if (profile::isDeviceWork(p.classOf(s))) {
            profile::Track& t = p.tracks[s.track()];
            t.device = true;
            if (t.parent != profile::kNone)
                p.tracks[t.parent].device = true;
        }
    for (profile::Track& t : p.tracks)
        if (t.parent != profile::kNone && p.tracks[t.parent].device && t.kind == TrackKind::Thread)
            t.device = true;

    // Flows of v2 refer to slice indexes: rebind them through the permutation finish() applies.
    const std::vector<std::uint32_t> moved = p.finish();
    for (PendingFlowV2& f : m_flowsV2)
        f.slice = moved[f.slice];
    bindFlows();
    linkByCorrelation();
    p.format = m_kineto ? "PyTorch profiler (Kineto) JSON" : "Chrome trace JSON";
}

} // namespace

SliceClass classifySlice(std::string_view name, std::string_view category)
{
    if (category.empty())
        return SliceClass::Other;
    const std::string cat = text::lower(category);
    if (cat == "kernel") {
        const std::string n = text::lower(name);
        if (contains(n, "nccl") || contains(n, "rccl") || contains(n, "allreduce") ||
            contains(n, "all_reduce") || contains(n, "allgather") || contains(n, "all_gather") ||
            contains(n, "reducescatter") || contains(n, "reduce_scatter") || contains(n, "alltoall") ||
            contains(n, "sendrecv"))
            return SliceClass::Communication;
        return SliceClass::Kernel;
    }
    if (cat == "gpu_memcpy" || cat == "memcpy")
        return SliceClass::Memcpy;
    if (cat == "gpu_memset" || cat == "memset")
        return SliceClass::Memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime" || cat == "hip_runtime") {
        if (contains(name, "Synchronize"))
            return SliceClass::RuntimeSync;
        return SliceClass::Runtime;
    }
    if (cat == "cpu_op" || cat == "operator" || cat == "user_annotation" || cat == "python_function" ||
        cat == "python_function_call")
        return SliceClass::CpuOp;
    if (cat == "gpu_user_annotation")
        return SliceClass::DeviceAnnotation;
    return SliceClass::Other;
}

Result<Profile> importChromeJson(const std::string& path, const ImportOptions& options)
{
    auto reader = JsonReader::open(path);
    if (!reader)
        return reader.error();
    Profile profile;
    profile.source = path;
    try {
        Importer(**reader, profile, options).run();
    } catch (const JsonSyntaxError& e) {
        return (*reader)->errorAt(e.offset, e.message);
    }
    return profile;
}

} // namespace xps::importing

// The Chrome JSON importer's second half: events placed on process, thread, async and counter tracks, flows
// bound to slices, Kineto launches linked by correlation, and the profile finished.
#include "import/chrome_json_importer.h"
#include "import/cupti_ranges.h"
#include "import/critical_path_semantics.h"
#include "import/profile_semantics.h"
#include "util/checked_number.h"

#include "util/text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace xps::importing::detail {

TrackId Importer::processTrack(const std::string& pid)
{
    return b.trackFor(TrackKind::Process, pid, [&] {
        profile::Track t;
        t.kind = TrackKind::Process;
        t.pid = numberOf(pid, -static_cast<std::int64_t>(b.keyedTracks(TrackKind::Process)) - 1);
        t.sortIndex = t.pid;
        t.name = pid.empty() ? "(no pid)" : "Process " + pid;
        return t;
    });
}

// A track under process `pid`: thread, async or counter.
TrackId Importer::childTrack(TrackKind kind, const std::string& pid, const std::string& key,
                             const std::string& name, std::int64_t sortIndex, std::int64_t tid)
{
    return b.trackFor(kind, pid + '\x1f' + key, [&] {
        const TrackId process = processTrack(pid);
        profile::Track t;
        t.kind = kind;
        t.parent = process;
        t.pid = b.track(process).pid;
        t.tid = tid;
        t.sortIndex = sortIndex;
        t.name = name;
        return t;
    });
}

TrackId Importer::threadTrack(const std::string& pid, const std::string& tid)
{
    const std::int64_t number =
        numberOf(tid, -static_cast<std::int64_t>(b.keyedTracks(TrackKind::Thread)) - 1);
    return childTrack(TrackKind::Thread, pid, tid, tid.empty() ? "(no tid)" : "Thread " + tid, number,
                      number);
}

TrackId Importer::asyncTrack(const std::string& pid, const std::string& name)
{
    return childTrack(TrackKind::Async, pid, name, name.empty() ? "async" : name,
                      INT64_MAX / 2 + static_cast<std::int64_t>(b.keyedTracks(TrackKind::Async)));
}

// Kineto's allocator events: an instant "[memory]" per allocation or free, carrying the allocator's totals
// after it. The totals are what a reader wants over time, so they become two counter series per device
// (allocated, reserved) instead of thousands of instants.
bool Importer::addMemoryCounters(const RawEvent& e)
{
    const nlohmann::json args =
        nlohmann::json::parse(e.args.empty() ? std::string("{}") : e.args, nullptr, false);
    if (!args.is_object())
        return false;
    const auto number = [&](const char* key) -> std::optional<double> {
        const auto it = args.find(key);
        if (it == args.end() || !it->is_number())
            return std::nullopt;
        return it->get<double>();
    };
    const auto allocated = number("Total Allocated"), reserved = number("Total Reserved");
    if (!allocated && !reserved)
        return false;
    // c10::DeviceType: 0 CPU, 1 CUDA (ROCm builds report HIP devices as CUDA too).
    const auto type = number("Device Type").value_or(0), id = number("Device Id").value_or(-1);
    const std::string device = type == 0   ? std::string("CPU")
                               : type == 1 ? "GPU " + std::to_string(static_cast<long long>(id))
                                           : "device type " + std::to_string(static_cast<long long>(type)) +
                                                 " id " + std::to_string(static_cast<long long>(id));
    if (allocated)
        b.addCounter(counterTrack(e.pid, "memory allocated (" + device + ")"), e.ts, *allocated);
    if (reserved)
        b.addCounter(counterTrack(e.pid, "memory reserved (" + device + ")"), e.ts, *reserved);
    return true;
}

TrackId Importer::counterTrack(const std::string& pid, const std::string& name)
{
    return childTrack(TrackKind::Counter, pid, name, name,
                      INT64_MIN / 2 + static_cast<std::int64_t>(b.keyedTracks(TrackKind::Counter)));
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

std::uint32_t Importer::typeFor(const RawEvent& e, SliceClass cls)
{
    return p.typeOf(e.name, e.cat, cls);
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
    // A cuda_sync event (Kineto's record of what a synchronizing call waited for) is found by its call's
    // correlation, as its device work is (profile/cuda_sync.h).
    const std::uint32_t link =
        static_cast<std::uint32_t>(profile::isDeviceWork(cls) || cls == SliceClass::Runtime ||
                                           cls == SliceClass::RuntimeSync || e.cat == "cuda_sync"
                                       ? (e.correlation ? e.correlation : e.externalId)
                                       : (e.externalId ? e.externalId : e.correlation));
    switch (e.ph) {
    case 'X': {
        if (!e.hasDur) {
            warn("complete events (\"X\") without \"dur\" were read as instants", path("dur"),
                 profile::RepairKind::Assumed);
        } else if (e.dur < 0) {
            warn("complete events with a negative \"dur\" were skipped", path("dur"));
            return;
        }
        const SliceId s =
            b.addSlice(threadTrack(e.pid, e.tid), e.ts, e.dur, typeFor(e, cls), p.internArgs(e.args), link);
        for (const auto& [key, value] : e.perEvent)
            b.addSliceArg(s, key, value);
        if (!e.bindId.empty() && (e.flowIn || e.flowOut)) {
            if (e.flowIn)
                b.addFlowEnd(idKey(e.bindId), s, false);
            if (e.flowOut)
                b.addFlowEnd(idKey(e.bindId), s, true);
        }
        return;
    }
    case 'B': {
        const TrackId track = threadTrack(e.pid, e.tid);
        m_openB[track].push_back({e.ts, typeFor(e, cls), argsWithPerEvent(e), link, track});
        return;
    }
    case 'E': {
        const TrackId track = threadTrack(e.pid, e.tid);
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
        b.addSlice(track, o.start, checked::saturatingSub(e.ts, o.start), o.type, args,
                   o.link ? o.link : link);
        return;
    }
    case 'i':
    case 'I':
        if (e.name == "[memory]" && addMemoryCounters(e))
            return;
        [[fallthrough]];
    case 'R': {
        // Global and process-scoped instants go to a process-level track of their own.
        const std::string pid = e.scope == 'g' ? std::string("(global)") : e.pid;
        const TrackId track = e.scope == 't' && e.ph != 'R'
                                  ? threadTrack(e.pid, e.tid)
                                  : asyncTrack(pid, e.ph == 'R' ? "marks" : "instants");
        b.addSlice(track, e.ts, 0, typeFor(e, cls), argsWithPerEvent(e), link);
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
            b.addCounter(counterTrack(e.pid, name), e.ts, value);
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
            b.track(processTrack(e.pid)).name = name->get<std::string>();
        } else if (e.name == "thread_name" && name != args.end() && name->is_string()) {
            b.track(threadTrack(e.pid, e.tid)).name = name->get<std::string>();
        } else if (e.name == "process_sort_index" && sort != args.end() && sort->is_number_integer()) {
            b.track(processTrack(e.pid)).sortIndex = sort->get<std::int64_t>();
        } else if (e.name == "thread_sort_index" && sort != args.end() && sort->is_number_integer()) {
            b.track(threadTrack(e.pid, e.tid)).sortIndex = sort->get<std::int64_t>();
        } else if (e.name == "process_labels") {
            const auto labels = args.find("labels");
            if (labels != args.end() && labels->is_string())
                m_processLabels[processTrack(e.pid)] = labels->get<std::string>();
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
            const TrackId track = stack.empty() ? asyncTrack(e.pid, e.name) : stack.back().track;
            stack.push_back({e.ts, typeFor(e, cls), argsWithPerEvent(e), link, track});
        } else if (e.ph == 'n') {
            const TrackId track = stack.empty() ? asyncTrack(e.pid, e.name) : stack.back().track;
            b.addSlice(track, e.ts, 0, typeFor(e, cls), argsWithPerEvent(e), link);
        } else {
            if (stack.empty()) {
                warn("async end events without a begin of the same id were skipped", path(""));
                return;
            }
            const OpenSlice o = stack.back();
            stack.pop_back();
            b.addSlice(o.track, o.start, std::max<Nanos>(e.ts - o.start, 0), o.type,
                       o.args ? o.args : argsWithPerEvent(e), o.link);
            if (stack.empty())
                m_openAsync.erase(key);
        }
        return;
    }
    case 's':
    case 't':
    case 'f':
        b.addFlowStep(p.typeOf(e.name, e.cat, SliceClass::Other), idKey(e.id),
                      e.ph == 's'   ? profile::FlowPhase::Start
                      : e.ph == 't' ? profile::FlowPhase::Step
                                    : profile::FlowPhase::Finish,
                      e.ph != 'f' || e.bp == "e", threadTrack(e.pid, e.tid), e.ts);
        return;
    case 'T':
    case 'p': warn("async step events (\"T\", \"p\") were skipped", path("ph")); return;
    default:
        warn(std::string("events of phase \"") + e.ph + "\" (samples, objects, memory dumps) were skipped",
             path("ph"));
        return;
    }
}

namespace {

// Old Kineto files and ROCm traces carry no ac2g flow events: their launches are found by the correlation id
// the runtime call and the device work share.
void linkByCorrelation(const Profile& p, std::vector<profile::Flow>& out, std::uint32_t type)
{
    std::unordered_map<std::uint32_t, std::uint32_t> runtimeByCorrelation;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice& s = p.slices[i];
        if (s.link != 0 && p.classOf(s) == SliceClass::Runtime)
            runtimeByCorrelation.emplace(s.link, i);
    }
    if (runtimeByCorrelation.empty())
        return;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const profile::Slice& s = p.slices[i];
        if (s.link == 0 || !profile::isDeviceWork(p.classOf(s)))
            continue;
        if (const auto it = runtimeByCorrelation.find(s.link); it != runtimeByCorrelation.end())
            out.push_back({profile::SliceRow(it->second), profile::SliceRow(i), type});
    }
}

} // namespace

void Importer::finish()
{
    // Close what is still open at the end of the trace.
    // The end is the latest end or begin seen (a trace of only unclosed begins has no slice to end at).
    Nanos end = INT64_MIN;
    b.forEachSlice([&](const profile::Slice& s) { end = std::max(end, s.end()); });
    for (const auto& [track, stack] : m_openB)
        for (const OpenSlice& o : stack)
            end = std::max(end, o.start);
    for (const auto& [key, stack] : m_openAsync)
        for (const OpenSlice& o : stack)
            end = std::max(end, o.start);
    std::uint64_t unclosed = 0;
    for (auto& [track, stack] : m_openB)
        for (const OpenSlice& o : stack) {
            b.addSlice(track, o.start, checked::saturatingSub(end, o.start), o.type, o.args, o.link);
            ++unclosed;
        }
    for (auto& [key, stack] : m_openAsync)
        for (const OpenSlice& o : stack) {
            b.addSlice(o.track, o.start, checked::saturatingSub(end, o.start), o.type, o.args, o.link);
            ++unclosed;
        }
    if (unclosed > 0)
        b.addRepair(profile::RepairKind::Closed, unclosed,
                    "slices had a begin but no end; each was closed at the end of the trace");
    if (r.repairedStrings() > 0)
        b.addRepair(profile::RepairKind::Replaced, r.repairedStrings(),
                    "strings held invalid UTF-8 (each invalid sequence replaced by U+FFFD)",
                    r.errorAt(r.firstRepairOffset(), "").location());

    for (const auto& [track, labels] : m_processLabels) {
        std::string& name = p.track(track).name;
        if (name.empty())
            name = labels;
        else if (!labels.empty() && labels != name)
            name += " (" + labels + ")";
    }
    // Device tracks: those that run device work, and their processes.
    b.forEachSlice([&](const profile::Slice& s) {
        if (profile::isDeviceWork(p.classOf(s))) {
            profile::Track& t = p.track(s.track());
            t.device = true;
            if (t.parent.valid())
                p.track(t.parent).device = true;
        }
    });
    for (profile::Track& t : p.tracks)
        if (t.parent.valid() && p.track(t.parent).device && t.kind == TrackKind::Thread)
            t.device = true;
    // A Kineto trace without its metadata events (TraceLens's B200 sample has none) names a device by its
    // pid and a stream by its tid, as Kineto's metadata would have: "GPU 0 / stream 7", not "Process 0 /
    // Thread 7".
    if (m_kineto)
        for (profile::Track& t : p.tracks) {
            if (!t.device)
                continue;
            if (t.kind == TrackKind::Process && t.name == "Process " + std::to_string(t.pid))
                t.name = "GPU " + std::to_string(t.pid);
            else if (t.kind == TrackKind::Thread && t.name == "Thread " + std::to_string(t.tid))
                t.name = "stream " + std::to_string(t.tid);
        }
    // Our own export says what its slices and tracks are: trusted over the guesses above.
    if (!m_semantics.is_discarded() && !m_semantics.is_null())
        if (const std::size_t malformed = applyProfileSemantics(p, m_semantics); malformed > 0)
            b.addRepair(profile::RepairKind::Skipped, malformed,
                        "malformed entries of $." + std::string(kSemanticsKey) + " were ignored");

    const std::uint32_t launch = p.typeOf("launch", "ac2g", SliceClass::Other);
    b.setFallbackLinker(p.intern("ac2g"), [launch](const Profile& finished, std::vector<profile::Flow>& out) {
        linkByCorrelation(finished, out, launch);
    });
    b.finish();
    p.format = m_kineto ? "PyTorch profiler (Kineto) JSON" : "Chrome trace JSON";
    if (m_kineto)
        linkCuptiRanges(p);
    // A replay's own critical path, once the slices it names are in place.
    if (!m_criticalPath.is_discarded() && !m_criticalPath.is_null()) {
        std::size_t unplaced = 0;
        if (const auto wrong = applyCriticalPathMember(p, m_criticalPath, unplaced))
            p.addRepair(profile::RepairKind::Skipped, 0,
                        "the exported critical path was ignored (HTA's model of it is shown instead)",
                        *wrong);
        else if (unplaced > 0)
            p.addRepair(profile::RepairKind::Skipped, unplaced,
                        "segments of the exported critical path whose slice is not in the file were kept on "
                        "no slice");
    }
}

} // namespace xps::importing::detail

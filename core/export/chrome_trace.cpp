#include "export/chrome_trace.h"

#include "analysis/replay_profile.h"
#include "export/chrome_replay_rows.h"
#include "export/chrome_writer.h"
#include "import/critical_path_semantics.h"
#include "import/json_reader.h"
#include "import/profile_semantics.h"
#include "util/atomic_file.h"
#include "util/cancel.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace xps::exporting {
namespace {

using profile::Profile;
using profile::Slice;
using profile::TrackKind;

// How a profile's tables read as Chrome events.
class ProfileEvents
{
public:
    ProfileEvents(const Profile& profile, const ReplayRows* rows) : p(profile), m_rows(rows) {}

    std::string where(profile::TrackId track) const
    {
        const profile::Track& t = p.track(track);
        return "\"pid\":" + std::to_string(t.pid) +
               ",\"tid\":" + std::to_string(t.kind == TrackKind::Thread ? t.tid : 0);
    }
    std::string nameAndCategory(std::uint32_t type) const
    {
        std::string s = "\"name\":";
        importing::appendJsonString(s, p.string(p.types[type].name));
        if (p.types[type].category != 0) {
            s += ",\"cat\":";
            importing::appendJsonString(s, p.string(p.types[type].category));
        }
        return s;
    }
    // The argument set with the slice's link put back as what it stands for.
    std::string args(profile::SliceRow row) const
    {
        const Slice& s = p.slice(row);
        std::string a = p.argsOf(row);
        if (s.link == 0)
            return a;
        const std::string field = linkField(s);
        if (!field.empty())
            a.insert(a.size() - 1, a.size() > 2 ? "," + field : field);
        return a;
    }

private:
    std::string linkField(const Slice& s) const
    {
        if (p.format == profile::kReplayFormat) {
            // A replay links a DMA's slice to its DMA by id + 1 (analysis/replay_profile.h); its rows know
            // the rest of the DMA.
            if (p.categoryOf(s) != "dma")
                return {};
            std::string fields = m_rows ? m_rows->dmaArgs(s.link - 1) : std::string();
            return fields.empty() ? "\"dma\":" + std::to_string(s.link - 1) : fields;
        }
        // Under the names Kineto writes and the importer reads back.
        const profile::SliceClass c = p.classOf(s);
        const bool correlation = profile::isDeviceWork(c) || c == profile::SliceClass::Runtime ||
                                 c == profile::SliceClass::RuntimeSync;
        return std::string(correlation ? "\"correlation\":" : "\"External id\":") + std::to_string(s.link);
    }

    const Profile& p;
    const ReplayRows* m_rows;
};

void writeTracks(const Profile& p, const ProfileEvents& e, ChromeEventWriter& w)
{
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
        const profile::Track& track = p.tracks[t];
        if (track.kind != TrackKind::Process && track.kind != TrackKind::Thread)
            continue;
        const bool process = track.kind == TrackKind::Process;
        std::string name;
        importing::appendJsonString(name, track.name);
        w.event("{\"ph\":\"M\"," + e.where(profile::TrackId(t)) + ",\"name\":\"" +
                (process ? "process_name" : "thread_name") + "\",\"args\":{\"name\":" + name + "}}");
        w.event("{\"ph\":\"M\"," + e.where(profile::TrackId(t)) + ",\"name\":\"" +
                (process ? "process_sort_index" : "thread_sort_index") +
                "\",\"args\":{\"sort_index\":" + std::to_string(track.sortIndex) + "}}");
    }
}

void writeSlices(const Profile& p, const ProfileEvents& e, ChromeEventWriter& w)
{
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const Slice& s = p.slices[i];
        const profile::Track& track = p.track(s.track());
        const std::string common = e.where(s.track()) + "," + e.nameAndCategory(s.type) +
                                   ",\"args\":" + e.args(profile::SliceRow(i));
        if (track.kind == TrackKind::Async && s.duration == 0 &&
            (track.name == "instants" || track.name == "marks")) {
            // The importer's own rows for process-scoped (and global) instants and for marks: written as
            // such, they come back to the same row. As async instants they would each open a row named by
            // the event.
            w.event(std::string(track.name == "marks" ? "{\"ph\":\"R\"" : "{\"ph\":\"i\",\"s\":\"p\"") +
                    ",\"ts\":" + microsFromTicks(p.timebase, s.start) + "," + common + "}");
        } else if (track.kind == TrackKind::Async) {
            const std::string id = ",\"id\":" + std::to_string(i);
            w.event("{\"ph\":\"" + std::string(s.duration == 0 ? "n" : "b") +
                    "\",\"ts\":" + microsFromTicks(p.timebase, s.start) + id + "," + common + "}");
            if (s.duration > 0)
                w.event("{\"ph\":\"e\",\"ts\":" + microsFromTicks(p.timebase, s.end()) + id + "," +
                        e.where(s.track()) + "," + e.nameAndCategory(s.type) + "}");
        } else if (s.duration == 0) {
            w.event("{\"ph\":\"i\",\"s\":\"t\",\"ts\":" + microsFromTicks(p.timebase, s.start) + "," +
                    common + "}");
        } else {
            w.event("{\"ph\":\"X\",\"ts\":" + microsFromTicks(p.timebase, s.start) +
                    ",\"dur\":" + microsBetweenTicks(p.timebase, s.start, s.duration) + "," + common + "}");
        }
    }
}

void writeCountersAndFlows(const Profile& p, const ProfileEvents& e, ChromeEventWriter& w)
{
    for (const profile::CounterSample& c : p.counters) {
        std::string name;
        importing::appendJsonString(name, p.track(c.track).name);
        char value[40];
        std::snprintf(value, sizeof value, "%.17g", c.value);
        w.event("{\"ph\":\"C\",\"ts\":" + microsFromTicks(p.timebase, c.time) + "," + e.where(c.track) +
                ",\"name\":" + name + ",\"args\":{\"value\":" + value + "}}");
    }
    for (std::size_t k = 0; k < p.flows.size(); ++k) {
        const profile::Flow& fl = p.flows[k];
        if (!fl.from.valid() || !fl.to.valid())
            continue;
        const std::string id = ",\"id\":" + std::to_string(k + 1) + "," + e.nameAndCategory(fl.type);
        w.event("{\"ph\":\"s\",\"ts\":" + microsFromTicks(p.timebase, p.slice(fl.from).start) + "," +
                e.where(p.slice(fl.from).track()) + id + "}");
        w.event("{\"ph\":\"f\",\"bp\":\"e\",\"ts\":" + microsFromTicks(p.timebase, p.slice(fl.to).start) +
                "," + e.where(p.slice(fl.to).track()) + id + "}");
    }
}

// Events the file will hold: what progress is measured against.
std::uint64_t expectedEvents(const Profile& p, const ReplayRows* rows)
{
    std::uint64_t n = 2 * p.tracks.size() + p.slices.size() + p.counters.size() + 2 * p.flows.size();
    for (const profile::Track& t : p.tracks)
        if (t.kind == TrackKind::Async)
            n += t.sliceCount; // an end event each
    return n + (rows ? rows->eventCount() : 0);
}

void writeEvents(const Profile& p, const ReplayRows* rows, std::FILE* f, const ExportControl& control)
{
    // What Chrome JSON cannot say (classes, device tracks), first: the importer reads it back.
    nlohmann::json semantics = importing::profileSemantics(p);
    if (rows)
        rows->addDeviceTracks(p, semantics);
    std::fputs(("{\"displayTimeUnit\":\"ns\",\"" + std::string(importing::kSemanticsKey) +
                "\":" + semantics.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                ",\"traceEvents\":[")
                   .c_str(),
               f);
    ChromeEventWriter w(f, control.stop, control.progress, expectedEvents(p, rows));
    const ProfileEvents events(p, rows);
    writeTracks(p, events, w);
    if (rows)
        rows->write(w, p);
    writeSlices(p, events, w);
    writeCountersAndFlows(p, events, w);
    std::fputs("\n]", f);
    importing::writeCriticalPathMember(p, f, control.stop);
    std::fputs("}\n", f);
}

} // namespace

Status writeChromeTrace(const Profile& profile, const std::string& path, const ReplayRows* replayRows,
                        const ExportControl& control)
{
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        if (control.stop.stop_requested())
            return Error(path, kCancelledMessage);
        std::FILE* f = std::fopen(temp.c_str(), "wb");
        if (!f)
            return Error(path, std::string("cannot write: ") + std::strerror(errno));
        try {
            writeEvents(profile, replayRows, f, control);
        } catch (const Cancelled&) {
            std::fclose(f);
            return Error(path, kCancelledMessage); // the temporary file is removed
        }
        const bool failed = std::fflush(f) != 0 || std::ferror(f) != 0;
        if (std::fclose(f) != 0 || failed)
            return Error(path, std::string("cannot write (disk full?): ") + std::strerror(errno));
        return Ok{};
    });
}

Status writeReplayChromeTrace(const analysis::ReplayView& replay, const std::string& source,
                              const std::string& path, const ExportControl& control,
                              const analysis::CriticalPath* criticalPath)
{
    try {
        const Profile profile = criticalPath
                                    ? analysis::replayAsProfile(replay, source, *criticalPath, control.stop)
                                    : analysis::replayAsProfileFindingItsPath(replay, source, control.stop);
        const ReplayRows rows(replay.trace, replay.store);
        return writeChromeTrace(profile, path, &rows, control);
    } catch (const Cancelled&) {
        return Error(path, kCancelledMessage);
    }
}

} // namespace xps::exporting

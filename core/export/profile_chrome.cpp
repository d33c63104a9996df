#include "export/profile_chrome.h"

#include "import/json_reader.h"
#include "import/profile_semantics.h"
#include "util/atomic_file.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace xps::exporting {
namespace {

using profile::Profile;
using profile::Slice;
using profile::TrackKind;

// Microseconds with exactly three decimals: the nanoseconds survive a round trip.
std::string micros(profile::Nanos ns)
{
    char b[40];
    const bool negative = ns < 0;
    const std::uint64_t v = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::snprintf(b, sizeof b, "%s%" PRIu64 ".%03" PRIu64, negative ? "-" : "", v / 1000, v % 1000);
    return b;
}

class Writer
{
public:
    Writer(std::FILE* f, const Profile& profile) : m_f(f), p(profile) {}

    void event(const std::string& body)
    {
        std::fputs(m_first ? "\n" : ",\n", m_f);
        m_first = false;
        std::fputs(body.c_str(), m_f);
    }
    std::string where(std::uint32_t track) const
    {
        const profile::Track& t = p.tracks[track];
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
    // The argument set with the slice's link put back under the name Kineto uses for it.
    std::string args(std::uint32_t index) const
    {
        const Slice& s = p.slices[index];
        std::string a = p.argsOf(index);
        if (s.link == 0)
            return a;
        const profile::SliceClass c = p.classOf(s);
        const bool correlation = profile::isDeviceWork(c) || c == profile::SliceClass::Runtime ||
                                 c == profile::SliceClass::RuntimeSync;
        std::string field =
            std::string(correlation ? "\"correlation\":" : "\"External id\":") + std::to_string(s.link);
        a.insert(a.size() - 1, a.size() > 2 ? "," + field : field);
        return a;
    }

private:
    std::FILE* m_f;
    const Profile& p;
    bool m_first = true;
};

Status writeEvents(const Profile& p, std::FILE* f)
{
    Writer w(f, p);
    // What Chrome JSON cannot say (classes, device tracks), first: the importer reads it back.
    const std::string semantics =
        importing::profileSemantics(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fputs(("{\"displayTimeUnit\":\"ns\",\"" + std::string(importing::kSemanticsKey) + "\":" + semantics +
                ",\"traceEvents\":[")
                   .c_str(),
               f);
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
        const profile::Track& track = p.tracks[t];
        if (track.kind != TrackKind::Process && track.kind != TrackKind::Thread)
            continue;
        const bool process = track.kind == TrackKind::Process;
        std::string name;
        importing::appendJsonString(name, track.name);
        w.event("{\"ph\":\"M\"," + w.where(t) + ",\"name\":\"" + (process ? "process_name" : "thread_name") +
                "\",\"args\":{\"name\":" + name + "}}");
        w.event("{\"ph\":\"M\"," + w.where(t) + ",\"name\":\"" +
                (process ? "process_sort_index" : "thread_sort_index") +
                "\",\"args\":{\"sort_index\":" + std::to_string(track.sortIndex) + "}}");
    }
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const Slice& s = p.slices[i];
        const profile::Track& track = p.tracks[s.track()];
        const std::string common =
            w.where(s.track()) + "," + w.nameAndCategory(s.type) + ",\"args\":" + w.args(i);
        if (track.kind == TrackKind::Async) {
            const std::string id = ",\"id\":" + std::to_string(i);
            w.event("{\"ph\":\"" + std::string(s.duration == 0 ? "n" : "b") + "\",\"ts\":" + micros(s.start) +
                    id + "," + common + "}");
            if (s.duration > 0)
                w.event("{\"ph\":\"e\",\"ts\":" + micros(s.end()) + id + "," + w.where(s.track()) + "," +
                        w.nameAndCategory(s.type) + "}");
        } else if (s.duration == 0) {
            w.event("{\"ph\":\"i\",\"s\":\"t\",\"ts\":" + micros(s.start) + "," + common + "}");
        } else {
            w.event("{\"ph\":\"X\",\"ts\":" + micros(s.start) + ",\"dur\":" + micros(s.duration) + "," +
                    common + "}");
        }
    }
    for (const profile::CounterSample& c : p.counters) {
        std::string name;
        importing::appendJsonString(name, p.tracks[c.track].name);
        char value[40];
        std::snprintf(value, sizeof value, "%.17g", c.value);
        w.event("{\"ph\":\"C\",\"ts\":" + micros(c.time) + "," + w.where(c.track) + ",\"name\":" + name +
                ",\"args\":{\"value\":" + value + "}}");
    }
    for (std::size_t k = 0; k < p.flows.size(); ++k) {
        const profile::Flow& fl = p.flows[k];
        if (fl.from == profile::kNone || fl.to == profile::kNone)
            continue;
        const std::string id = ",\"id\":" + std::to_string(k + 1) + "," + w.nameAndCategory(fl.type);
        w.event("{\"ph\":\"s\",\"ts\":" + micros(p.slices[fl.from].start) + "," +
                w.where(p.slices[fl.from].track()) + id + "}");
        w.event("{\"ph\":\"f\",\"bp\":\"e\",\"ts\":" + micros(p.slices[fl.to].start) + "," +
                w.where(p.slices[fl.to].track()) + id + "}");
    }
    std::fputs("\n]}\n", f);
    return Ok{};
}

} // namespace

Status writeProfileChromeTrace(const Profile& profile, const std::string& path)
{
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        std::FILE* f = std::fopen(temp.c_str(), "wb");
        if (!f)
            return Error(path, std::string("cannot write: ") + std::strerror(errno));
        Status s = writeEvents(profile, f);
        const bool failed = std::ferror(f) != 0;
        if (std::fclose(f) != 0 || failed)
            return Error(path, std::string("cannot write: ") + std::strerror(errno));
        return s;
    });
}

} // namespace xps::exporting

#include "import/xplane.h"
#include "import/xplane_ops.h"
#include "util/checked_number.h"

#include "trace/trace_io.h"

#include "import/json_reader.h"
#include "util/text.h"

#include "import/proto/xplane.pb.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/wire_format_lite.h>

#include <zlib.h>

#include <climits>
#include <cstdlib>
#include <new>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace xps::importing {

using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using profile::TrackKind;

namespace {

// A file read through zlib (plain files pass through unchanged) as a protobuf input stream.
class GzipFileStream final : public google::protobuf::io::CopyingInputStream
{
public:
    // A compressed file that decompresses past `maxBytes` reads as an error saying `tooLarge`.
    GzipFileStream(gzFile gz, std::uint64_t maxBytes, std::string tooLarge)
        : m_gz(gz), m_maxBytes(gzdirect(gz) ? UINT64_MAX : maxBytes), m_tooLarge(std::move(tooLarge))
    {
    }
    ~GzipFileStream() override { gzclose(m_gz); }
    GzipFileStream(const GzipFileStream&) = delete;
    GzipFileStream& operator=(const GzipFileStream&) = delete;
    int Read(void* buffer, int size) override
    {
        const int n = gzread(m_gz, buffer, static_cast<unsigned>(size));
        if (n < 0) {
            int code = 0;
            m_error = gzerror(m_gz, &code);
            return n;
        }
        m_read += static_cast<std::uint64_t>(n);
        if (m_read > m_maxBytes) {
            m_error = m_tooLarge;
            return -1;
        }
        return n;
    }
    // Bytes of the file itself (compressed) consumed so far: what progress is measured in.
    std::uint64_t fileOffset() const
    {
        return static_cast<std::uint64_t>(std::max<z_off_t>(gzoffset(m_gz), 0));
    }
    const std::string& error() const { return m_error; }

private:
    gzFile m_gz;
    std::uint64_t m_read = 0;
    std::uint64_t m_maxBytes;
    std::string m_tooLarge;
    std::string m_error;
};

// One stat's value as JSON text; reference stats name their value through stat metadata.
std::string statJson(const tensorflow::profiler::XStat& stat, const tensorflow::profiler::XPlane& plane)
{
    std::string out;
    switch (stat.value_case()) {
    case tensorflow::profiler::XStat::kDoubleValue: {
        const double v = stat.double_value();
        if (!std::isfinite(v))
            return "null";
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", v);
        return b;
    }
    case tensorflow::profiler::XStat::kUint64Value: return std::to_string(stat.uint64_value());
    case tensorflow::profiler::XStat::kInt64Value: return std::to_string(stat.int64_value());
    case tensorflow::profiler::XStat::kStrValue: appendJsonString(out, stat.str_value()); return out;
    case tensorflow::profiler::XStat::kBytesValue:
        appendJsonString(out, "<" + std::to_string(stat.bytes_value().size()) + " bytes>");
        return out;
    case tensorflow::profiler::XStat::kRefValue: {
        const auto it = plane.stat_metadata().find(static_cast<std::int64_t>(stat.ref_value()));
        appendJsonString(out, it != plane.stat_metadata().end() ? it->second.name()
                                                                : "ref " + std::to_string(stat.ref_value()));
        return out;
    }
    case tensorflow::profiler::XStat::VALUE_NOT_SET: break;
    }
    return "null";
}

// A string stat's text, or the name a reference stat points to; nullopt for numbers and bytes.
std::optional<std::string_view> statText(const tensorflow::profiler::XStat& stat,
                                         const tensorflow::profiler::XPlane& plane)
{
    if (stat.value_case() == tensorflow::profiler::XStat::kStrValue)
        return std::string_view(stat.str_value());
    if (stat.value_case() == tensorflow::profiler::XStat::kRefValue) {
        const auto it = plane.stat_metadata().find(static_cast<std::int64_t>(stat.ref_value()));
        if (it != plane.stat_metadata().end())
            return std::string_view(it->second.name());
    }
    return std::nullopt;
}

std::optional<std::int64_t> statInteger(const tensorflow::profiler::XStat& stat)
{
    switch (stat.value_case()) {
    case tensorflow::profiler::XStat::kInt64Value: return stat.int64_value();
    case tensorflow::profiler::XStat::kUint64Value:
        return stat.uint64_value() <= static_cast<std::uint64_t>(INT64_MAX)
                   ? std::optional<std::int64_t>(static_cast<std::int64_t>(stat.uint64_value()))
                   : std::nullopt;
    default: return std::nullopt;
    }
}

struct FlowEnd
{
    std::int64_t type = 0;
    std::int64_t id = 0;
    std::uint32_t slice = 0;
    bool producer = false;
};

// The arena blocks of one plane, kept for the next instead of going back to the OS: each plane's events are
// allocated from an arena (a bump of a pointer instead of a malloc per event and a free at the end), and
// reusing its blocks spares the kernel handing out and zeroing the same pages for every plane.
class ArenaBlockPool
{
public:
    ArenaBlockPool() { t_pool = this; }
    ~ArenaBlockPool()
    {
        t_pool = nullptr;
        for (const auto& [block, bytes] : m_free)
            std::free(block);
    }
    ArenaBlockPool(const ArenaBlockPool&) = delete;
    ArenaBlockPool& operator=(const ArenaBlockPool&) = delete;

    google::protobuf::ArenaOptions options() const
    {
        google::protobuf::ArenaOptions o;
        o.start_block_size = 64 << 10;
        o.max_block_size = 4 << 20;
        o.block_alloc = &allocate;
        o.block_dealloc = &release;
        return o;
    }

private:
    static void* allocate(std::size_t bytes)
    {
        if (t_pool)
            for (auto it = t_pool->m_free.begin(); it != t_pool->m_free.end(); ++it)
                if (it->second == bytes) {
                    void* block = it->first;
                    *it = t_pool->m_free.back();
                    t_pool->m_free.pop_back();
                    return block;
                }
        void* block = std::malloc(bytes);
        if (!block)
            throw std::bad_alloc();
        return block;
    }
    static void release(void* block, std::size_t bytes)
    {
        if (t_pool)
            t_pool->m_free.emplace_back(block, bytes);
        else
            std::free(block);
    }
    static thread_local ArenaBlockPool* t_pool;
    std::vector<std::pair<void*, std::size_t>> m_free;
};
thread_local ArenaBlockPool* ArenaBlockPool::t_pool = nullptr;

// What converting the planes one by one accumulates.
struct Conversion
{
    explicit Conversion(Profile& profile)
        : p(profile), b(profile, 0, [](profile::ProfileBuilder::Limit) {
              throw std::length_error("more than 16,777,216 tracks"); // addPlane checks first
          })
    {
    }
    Profile& p;
    // Events are counted against maxEvents here, plane by plane, so that the error names the plane.
    profile::ProfileBuilder b;
    std::uint64_t maxEvents = 0; // 0: no limit
    bool overLimit = false;
    std::vector<FlowEnd> flowEnds;
    std::uint64_t aggregated = 0, unknownMetadata = 0, onDeviceClock = 0;
    std::string args;
    AsyncPairs asyncPairs;
    std::uint32_t planes = 0;
    // Process ids given so far: a plane whose id another plane already has (XProf writes id 0 for several)
    // gets the next free one, so that every plane is its own process here and in an export.
    std::unordered_set<std::int64_t> pids;
    std::optional<std::int64_t> spare; // the last pid handed to such a plane
};

// What an event's stats say besides its arguments: its link (correlation_id) and the producer / consumer
// ends of flows (_p / _c with their types _pt / _ct).
struct EventIds
{
    std::uint32_t link = 0;
    std::int64_t flowType[2] = {0, 0}, flowId[2] = {0, 0};
    bool hasFlow[2] = {false, false};
    XlaOpFacts facts; // device timespan, HLO category and op, async flow
};

// What every event of one metadata id shares, worked out once per plane: its name, the stats of the
// metadata as JSON members, their ids, and the interned argument set of an event with no stats of its own
// (most XLA op events). Formatting these per event made import 20x slower than reading the file.
struct MetadataInfo
{
    std::string name;
    std::string members; // `"flops":1e9,"hlo_category":"convolution"` (no braces)
    EventIds ids;
    std::uint32_t argsAlone = 0;
    bool known = true;
};

// One plane becomes a process and its lines threads. Returns false if the profile has too many tracks.
bool addPlane(const tensorflow::profiler::XPlane& plane, Conversion& c)
{
    Profile& p = c.p;
    profile::Track process;
    process.kind = TrackKind::Process;
    process.pid = plane.id();
    if (!c.pids.insert(process.pid).second) {
        // A counter that only moves forward: linear in the planes however many share an id.
        if (!c.spare)
            c.spare = *std::max_element(c.pids.begin(), c.pids.end());
        do
            process.pid = *c.spare = *c.spare == INT64_MAX ? INT64_MIN : *c.spare + 1;
        while (!c.pids.insert(process.pid).second);
    }
    process.device = std::string_view(plane.name()).starts_with("/device:");
    // Devices first, in the file's order, then the host planes: what XProf's trace viewer shows.
    process.sortIndex = (process.device ? 0 : std::int64_t{1} << 32) + c.planes;
    process.name = plane.name().empty() ? "plane " + std::to_string(plane.id()) : plane.name();
    const std::uint32_t planeIndex = c.planes++;
    DeviceClock clock;
    const profile::TrackId processId = c.b.addTrack(process);
    std::unordered_map<std::int64_t, std::string> statNames;
    const auto statName = [&](std::int64_t id) -> const std::string& {
        auto [it, added] = statNames.try_emplace(id);
        if (added) {
            const auto meta = plane.stat_metadata().find(id);
            it->second =
                meta != plane.stat_metadata().end() ? meta->second.name() : "stat " + std::to_string(id);
        }
        return it->second;
    };
    // Appends `stat` to `members` as a JSON member unless it is one of the ids; per-event ids that are
    // worth keeping (group_id, run_id, step_num) go beside the slice.
    const auto addStat = [&](const tensorflow::profiler::XStat& stat, std::string& members, EventIds& ids,
                             std::uint32_t perEventSlice) {
        const std::string& key = statName(stat.metadata_id());
        if (process.device) {
            // The device clock and the async pairing are the event's time and a flow, not arguments (each
            // event's own values would also make every argument set unique).
            if (key == "flow") { // an XFlow: 64 bits, its category in the top ones
                if (stat.value_case() == tensorflow::profiler::XStat::kUint64Value)
                    ids.facts.flow = stat.uint64_value();
                else if (stat.value_case() == tensorflow::profiler::XStat::kInt64Value)
                    ids.facts.flow = static_cast<std::uint64_t>(stat.int64_value());
                return;
            }
            if (key == "device_offset_ps" || key == "device_duration_ps")
                if (const auto integer = statInteger(stat)) {
                    (key == "device_offset_ps" ? ids.facts.deviceOffsetPs : ids.facts.deviceDurationPs) =
                        *integer;
                    return;
                }
            if (key == "hlo_category" || key == "hlo_op")
                if (const auto text = statText(stat, plane))
                    (key == "hlo_category" ? ids.facts.hloCategory : ids.facts.hloOp) = *text;
        }
        if (const auto integer = statInteger(stat)) {
            if (key == "correlation_id" && *integer > 0 && *integer <= UINT32_MAX) {
                ids.link = static_cast<std::uint32_t>(*integer);
                return;
            }
            if (key == "_p" || key == "_c") {
                ids.flowId[key == "_p" ? 0 : 1] = *integer;
                ids.hasFlow[key == "_p" ? 0 : 1] = true;
                return;
            }
            if (key == "_pt" || key == "_ct") {
                ids.flowType[key == "_pt" ? 0 : 1] = *integer;
                return;
            }
            if (perEventSlice != profile::kNone &&
                (key == "group_id" || key == "run_id" || key == "step_num")) {
                c.b.addSliceArg(profile::SliceId(perEventSlice), p.intern(key), *integer);
                return;
            }
        }
        if (!members.empty())
            members += ',';
        appendJsonString(members, key);
        members += ':';
        members += statJson(stat, plane);
    };
    std::unordered_map<std::int64_t, MetadataInfo> metadata;
    const auto metadataOf = [&](std::int64_t id) -> const MetadataInfo& {
        auto [it, added] = metadata.try_emplace(id);
        MetadataInfo& info = it->second;
        if (!added)
            return info;
        const auto meta = plane.event_metadata().find(id);
        if (meta == plane.event_metadata().end()) {
            info.known = false;
            info.name = "event " + std::to_string(id);
        } else {
            const auto& m = meta->second;
            info.name = !m.display_name().empty() ? m.display_name() : m.name();
            bool longName = false;
            for (const auto& stat : m.stats()) {
                addStat(stat, info.members, info.ids, profile::kNone);
                longName = longName || statName(stat.metadata_id()) == "long_name";
            }
            // The HLO text XLA stores as the name of an op shown by its short display name
            // ("%fusion.3 = f32[8,128] fusion(...), kind=kLoop"): shown in details, searched by the ops
            // table.
            if (!longName && !m.display_name().empty() && m.name() != m.display_name()) {
                if (!info.members.empty())
                    info.members += ',';
                appendJsonString(info.members, "long_name");
                info.members += ':';
                appendJsonString(info.members, m.name());
            }
        }
        info.argsAlone = p.internArgs(info.members.empty() ? std::string() : "{" + info.members + "}");
        return info;
    };
    std::unordered_map<std::int64_t, std::uint32_t> types; // metadata id -> EventType, for one line
    for (const tensorflow::profiler::XLine& line : plane.lines()) {
        profile::Track thread;
        thread.kind = TrackKind::Thread;
        thread.parent = processId;
        thread.pid = process.pid;
        thread.tid = line.id();
        thread.sortIndex = line.display_id() ? line.display_id() : line.id();
        thread.name = !line.display_name().empty() ? line.display_name()
                      : line.name().empty()        ? "line " + std::to_string(line.id())
                                                   : line.name();
        thread.device = process.device;
        if (p.tracks.size() >= (1u << 24))
            return false;
        const profile::TrackId trackId = c.b.addTrack(thread);
        types.clear();
        for (const tensorflow::profiler::XEvent& event : line.events()) {
            if (c.maxEvents != 0 && c.b.sliceCount() >= c.maxEvents) {
                c.overLimit = true;
                return true;
            }
            if (event.data_case() == tensorflow::profiler::XEvent::kNumOccurrences) {
                ++c.aggregated;
                continue;
            }
            const MetadataInfo& meta = metadataOf(event.metadata_id());
            if (!meta.known)
                ++c.unknownMetadata;
            // The id the builder gives the slice added below (addStat keeps per-event values beside it).
            const auto slice = static_cast<std::uint32_t>(c.b.sliceCount());
            std::uint32_t args = 0;
            EventIds ids = meta.ids;
            if (event.stats().empty()) {
                args = meta.argsAlone;
            } else {
                std::string& members = c.args;
                members = meta.members;
                for (const auto& stat : event.stats())
                    addStat(stat, members, ids, slice);
                args = members.empty() ? 0 : p.internArgs("{" + members + "}");
            }
            for (int k = 0; k < 2; ++k)
                if (ids.hasFlow[k])
                    c.flowEnds.push_back({ids.flowType[k], ids.flowId[k], slice, k == 0});
            auto [type, newType] = types.try_emplace(event.metadata_id());
            if (newType)
                type->second = p.typeOf(meta.name, line.name(),
                                        classifyXProfEvent(plane.name(), line.name(), meta.name,
                                                           ids.facts.hloCategory, ids.facts.hloOp));
            const Nanos hostStart =
                checked::saturatingAdd(line.timestamp_ns(), picosToNanos(event.offset_ps()));
            const auto [start, duration] = clock.timespan(
                ids.facts, hostStart, profile::boundedDuration(hostStart, picosToNanos(event.duration_ps())));
            if (const SliceClass cls = p.types[type->second].cls;
                process.device && (cls == SliceClass::Memcpy || cls == SliceClass::Communication))
                c.asyncPairs.note(slice, planeIndex, ids.facts, meta.name);
            c.b.addSlice(trackId, start, duration, type->second, args, ids.link);
        }
    }
    c.onDeviceClock += clock.eventsOnDeviceClock();
    return true;
}

} // namespace

Result<Profile> importXSpace(const std::string& path, const ImportOptions& options)
{
    namespace io = google::protobuf::io;
    using google::protobuf::internal::WireFormatLite;
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        return Error(path, "cannot open");
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);
    GzipFileStream file(gz, options.limits.decompressedAllowance(sizeError ? 0 : fileBytes),
                        options.limits.expansionMessage(sizeError ? 0 : fileBytes));
    io::CopyingInputStreamAdaptor in(&file, 1 << 20);
    // libprotobuf logs what it rejects (a name that is not UTF-8) to stderr; the error below says it.
    const google::protobuf::LogSilencer quiet;

    Profile p;
    p.source = path;
    p.format = "XProf XSpace (xplane.pb)";
    Conversion c{p};
    c.maxEvents = options.limits.maxEvents;
    const auto notAnXSpace = [&](const std::string& what) {
        return Error(path, "not a valid XProf XSpace (tensorflow.profiler.XSpace protobuf): " + what);
    };
    // An XSpace is its planes (field 1) one after another, then hostnames, errors and warnings. Each plane is
    // parsed alone and converted before the next is read: one plane in memory at a time, and no limit on the
    // whole file's size (libprotobuf parses a message of at most 2 GiB; that limit now holds per plane).
    std::vector<std::string> hostnames;
    int planes = 0;
    ArenaBlockPool pool; // before the arena: the arena hands its blocks back to it when it goes
    google::protobuf::Arena arena(pool.options());
    for (;;) {
        const auto at = static_cast<std::uint64_t>(in.ByteCount());
        // A fresh CodedInputStream per field: its byte limit counts from its creation, and it hands back
        // what it read ahead when it goes.
        io::CodedInputStream coded(&in);
        coded.SetTotalBytesLimit(INT_MAX);
        const std::uint32_t tag = coded.ReadTag();
        if (tag == 0) {
            if (!file.error().empty())
                return Error(path, "cannot read: " + file.error());
            if (coded.ConsumedEntireMessage())
                break; // the end of the file
            return notAnXSpace("a field with number 0 at byte " + text::withThousands(at));
        }
        const int field = WireFormatLite::GetTagFieldNumber(tag);
        const bool delimited =
            WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
        if (field == 1 && delimited) {
            std::uint32_t length = 0;
            arena.Reset();
            auto& plane = *google::protobuf::Arena::CreateMessage<tensorflow::profiler::XPlane>(&arena);
            bool parsed = coded.ReadVarint32(&length) && length <= INT_MAX;
            if (parsed) {
                const auto limit = coded.PushLimit(static_cast<int>(length));
                parsed = plane.ParseFromCodedStream(&coded) && coded.BytesUntilLimit() == 0;
                coded.PopLimit(limit);
            }
            if (!parsed) {
                if (!file.error().empty())
                    return Error(path, "cannot read: " + file.error());
                const std::string where = "plane " + std::to_string(planes) + " (at byte " +
                                          text::withThousands(at) + ", " + text::formatBytes(length) +
                                          ") is cut off or is not an XPlane (or a name in it is not UTF-8)";
                if (planes == 0)
                    return notAnXSpace(where + ": the file is cut off or is not an xplane.pb");
                // Best effort, as for a cut-off JSON trace: keep the planes read whole, say what is lost.
                c.b.addRepair(profile::RepairKind::Truncated, 0,
                              where + "; it and anything after it were dropped");
                break;
            }
            if (!addPlane(plane, c))
                return Error(path, "more than 16,777,216 lines");
            if (c.overLimit)
                return Error(path, "plane " + std::to_string(planes) + ": " + options.limits.eventsMessage());
            ++planes;
        } else if (field >= 2 && field <= 4 && delimited) {
            std::string value;
            std::uint32_t length = 0;
            if (!coded.ReadVarint32(&length) ||
                !coded.ReadString(&value, static_cast<int>(std::min<std::uint32_t>(length, INT_MAX)))) {
                if (planes == 0)
                    return notAnXSpace("cut off at byte " + text::withThousands(at));
                c.b.addRepair(profile::RepairKind::Truncated, 0,
                              "the file is cut off at byte " + text::withThousands(at) +
                                  " after its planes: hostnames, errors or warnings after it were dropped");
                break;
            }
            if (field == 2)
                c.b.addRepair(profile::RepairKind::Reported, 0, "the profiler reported: " + value);
            else if (field == 3)
                c.b.addRepair(profile::RepairKind::Reported, 0, "the profiler warned: " + value);
            else
                hostnames.push_back(std::move(value));
        } else if (!WireFormatLite::SkipField(&coded, tag)) {
            // A field a newer schema may add is skipped; one that cannot even be skipped means garbage.
            if (planes == 0)
                return notAnXSpace("unreadable field " + std::to_string(field) + " at byte " +
                                   text::withThousands(at));
            c.b.addRepair(profile::RepairKind::Truncated, 0,
                          "unreadable data at byte " + text::withThousands(at) + " after plane " +
                              std::to_string(planes - 1) + ": the rest was dropped");
            break;
        }
        if (options.progress && !options.progress(file.fileOffset()))
            return Error(path, "cancelled");
    }
    if (planes == 0)
        return notAnXSpace(in.ByteCount() == 0 ? "the file is empty" : "it has no planes");
    for (std::string& h : hostnames)
        p.metadata.emplace_back("hostname", std::move(h));
    if (c.onDeviceClock > 0)
        p.metadata.emplace_back("device clock", text::withThousands(c.onDeviceClock) +
                                                    " device events timed by their device_offset_ps and "
                                                    "device_duration_ps, as XProf's op statistics are");
    const std::uint64_t aggregated = c.aggregated, unknownMetadata = c.unknownMetadata;
    std::vector<FlowEnd>& flowEnds = c.flowEnds;
    if (aggregated > 0)
        c.b.addRepair(profile::RepairKind::Skipped, aggregated,
                      "aggregated events (num_occurrences, no time of their own) were skipped");
    if (unknownMetadata > 0)
        c.b.addRepair(profile::RepairKind::Assumed, unknownMetadata,
                      "events name metadata their plane does not have; each is named by its id");
    c.b.forEachSlice([&](const profile::Slice& s) {
        if (profile::isDeviceWork(p.classOf(s)))
            p.track(s.track()).device = true;
    });

    c.asyncPairs.link(c.b);
    // Producer -> consumer: same context type and id.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> producers;
    for (const FlowEnd& f : flowEnds)
        if (f.producer)
            producers[{f.type, f.id}].push_back(f.slice);
    const std::uint32_t flowType = p.typeOf("context", "xprof", SliceClass::Other);
    for (const FlowEnd& f : flowEnds) {
        if (f.producer)
            continue;
        const auto it = producers.find({f.type, f.id});
        if (it == producers.end())
            continue;
        for (const std::uint32_t from : it->second)
            if (from != f.slice)
                c.b.addFlow(profile::SliceId(from), profile::SliceId(f.slice), flowType);
    }
    c.b.finish();
    return p;
}

} // namespace xps::importing

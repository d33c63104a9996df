#include "import/xplane.h"

#include "trace/trace_io.h"

#include "import/json_reader.h"
#include "util/text.h"

#include "import/proto/xplane.pb.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

namespace xps::importing {

using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using profile::TrackKind;

namespace {

// libprotobuf parses a message of at most 2 GiB.
constexpr std::uint64_t kMaxXSpaceBytes = (2ull << 30) - 1;

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

Result<std::string> readAll(const std::string& path, const ImportOptions& options)
{
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    gzFile gz = gzopen(path.c_str(), "rb"); // plain files read through unchanged
    if (!gz)
        return Error(path, "cannot open");
    std::string data;
    std::string buffer(1u << 20, '\0');
    std::uint64_t nextProgress = 16u << 20;
    for (;;) {
        const int n = gzread(gz, buffer.data(), static_cast<unsigned>(buffer.size()));
        if (n < 0) {
            int code = 0;
            const std::string message = gzerror(gz, &code);
            gzclose(gz);
            return Error(path, "cannot read: " + message);
        }
        if (n == 0)
            break;
        data.append(buffer.data(), static_cast<std::size_t>(n));
        if (data.size() > kMaxXSpaceBytes) {
            gzclose(gz);
            return Error(path, "an XSpace larger than 2 GiB: libprotobuf cannot parse it as one message");
        }
        if (options.progress && data.size() >= nextProgress) {
            nextProgress += 16u << 20;
            if (!options.progress(static_cast<std::uint64_t>(gzoffset(gz)))) {
                gzclose(gz);
                return Error(path, "cancelled");
            }
        }
    }
    gzclose(gz);
    return data;
}

Nanos picosToNanos(std::int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

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

} // namespace

SliceClass classifyXProfEvent(std::string_view plane, std::string_view line, std::string_view name)
{
    const bool device = startsWith(plane, "/device:");
    if (!device)
        return SliceClass::CpuOp;
    if (line == "XLA Ops" || line == "Async XLA Ops" || startsWith(line, "Stream")) {
        const std::string n = text::lower(name);
        for (const char* collective : {"all-reduce", "all-gather", "reduce-scatter", "collective-permute",
                                       "all-to-all", "send", "recv", "allreduce", "nccl"})
            if (n.find(collective) != std::string::npos)
                return SliceClass::Communication;
        if (startsWith(n, "copy") || n.find("memcpy") != std::string::npos ||
            startsWith(n, "dynamic-update-slice-start"))
            return SliceClass::Memcpy;
        return SliceClass::Kernel;
    }
    return SliceClass::DeviceAnnotation; // XLA Modules, Steps, name scopes, TraceMe on the device
}

Result<Profile> importXSpace(const std::string& path, const ImportOptions& options)
{
    auto data = readAll(path, options);
    if (!data)
        return data.error();
    tensorflow::profiler::XSpace space;
    if (data->empty())
        return Error(path,
                     "the file is empty: expected an XProf XSpace (tensorflow.profiler.XSpace protobuf)");
    if (!space.ParseFromString(*data))
        return Error(path, "not a valid XProf XSpace (tensorflow.profiler.XSpace protobuf) of " +
                               text::formatBytes(data->size()) +
                               ": the file is cut off or is not an xplane.pb");
    data->clear();
    data->shrink_to_fit();
    // Progress while converting: the whole file has been read.
    std::error_code sizeError;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, sizeError);

    Profile p;
    p.source = path;
    p.format = "XProf XSpace (xplane.pb)";
    for (const std::string& h : space.hostnames())
        p.metadata.emplace_back("hostname", h);
    for (const std::string& e : space.errors())
        p.warnings.push_back("the profiler reported: " + e);
    for (const std::string& w : space.warnings())
        p.warnings.push_back("the profiler warned: " + w);

    std::vector<FlowEnd> flowEnds;
    std::uint64_t aggregated = 0, unknownMetadata = 0;
    std::string args;
    for (const tensorflow::profiler::XPlane& plane : space.planes()) {
        profile::Track process;
        process.kind = TrackKind::Process;
        process.pid = plane.id();
        process.sortIndex = plane.id();
        process.name = plane.name().empty() ? "plane " + std::to_string(plane.id()) : plane.name();
        process.device = startsWith(plane.name(), "/device:");
        const auto processIndex = static_cast<std::uint32_t>(p.tracks.size());
        p.tracks.push_back(process);
        const auto statName = [&](std::int64_t id) -> std::string {
            const auto it = plane.stat_metadata().find(id);
            return it != plane.stat_metadata().end() ? it->second.name() : "stat " + std::to_string(id);
        };
        for (const tensorflow::profiler::XLine& line : plane.lines()) {
            profile::Track thread;
            thread.kind = TrackKind::Thread;
            thread.parent = processIndex;
            thread.pid = plane.id();
            thread.tid = line.id();
            thread.sortIndex = line.display_id() ? line.display_id() : line.id();
            thread.name = !line.display_name().empty() ? line.display_name()
                          : line.name().empty()        ? "line " + std::to_string(line.id())
                                                       : line.name();
            thread.device = process.device;
            const auto trackIndex = static_cast<std::uint32_t>(p.tracks.size());
            if (trackIndex >= (1u << 24))
                return Error(path, "more than 16,777,216 lines");
            p.tracks.push_back(thread);
            const std::string category = line.name();
            for (const tensorflow::profiler::XEvent& event : line.events()) {
                if (event.data_case() == tensorflow::profiler::XEvent::kNumOccurrences) {
                    ++aggregated;
                    continue;
                }
                const auto meta = plane.event_metadata().find(event.metadata_id());
                if (meta == plane.event_metadata().end())
                    ++unknownMetadata;
                const std::string name = meta == plane.event_metadata().end()
                                             ? "event " + std::to_string(event.metadata_id())
                                         : !meta->second.display_name().empty() ? meta->second.display_name()
                                                                                : meta->second.name();
                args = "{";
                std::uint32_t link = 0;
                const auto slice = static_cast<std::uint32_t>(p.slices.size());
                std::int64_t flowType[2] = {0, 0}, flowId[2] = {0, 0};
                bool hasFlow[2] = {false, false};
                const auto addStat = [&](const tensorflow::profiler::XStat& stat, bool perEvent) {
                    const std::string key = statName(stat.metadata_id());
                    const auto integer = statInteger(stat);
                    if (integer) {
                        if (key == "correlation_id" && *integer > 0 && *integer <= UINT32_MAX) {
                            link = static_cast<std::uint32_t>(*integer);
                            return;
                        }
                        if (key == "_p" || key == "_c") {
                            flowId[key == "_p" ? 0 : 1] = *integer;
                            hasFlow[key == "_p" ? 0 : 1] = true;
                            return;
                        }
                        if (key == "_pt" || key == "_ct") {
                            flowType[key == "_pt" ? 0 : 1] = *integer;
                            return;
                        }
                        if (perEvent && (key == "group_id" || key == "run_id" || key == "step_num")) {
                            p.sliceArgs.push_back({slice, p.intern(key), *integer});
                            return;
                        }
                    }
                    if (args.size() > 1)
                        args += ',';
                    appendJsonString(args, key);
                    args += ':';
                    args += statJson(stat, plane);
                };
                if (meta != plane.event_metadata().end())
                    for (const auto& stat : meta->second.stats())
                        addStat(stat, false);
                for (const auto& stat : event.stats())
                    addStat(stat, true);
                args += '}';
                for (int k = 0; k < 2; ++k)
                    if (hasFlow[k])
                        flowEnds.push_back({flowType[k], flowId[k], slice, k == 0});
                profile::Slice s;
                s.start = line.timestamp_ns() + picosToNanos(event.offset_ps());
                s.duration = std::max<Nanos>(picosToNanos(event.duration_ps()), 0);
                s.trackAndDepth = trackIndex << 8;
                s.type = p.typeOf(name, category, classifyXProfEvent(plane.name(), line.name(), name));
                s.args = p.internArgs(args);
                s.link = link;
                p.slices.push_back(s);
            }
            if (options.progress && !options.progress(sizeError ? 0 : fileBytes))
                return Error(path, "cancelled");
        }
    }
    if (aggregated > 0)
        p.warnings.push_back(text::withThousands(aggregated) +
                             " aggregated events (num_occurrences, no time of their own) were skipped");
    if (unknownMetadata > 0)
        p.warnings.push_back(text::withThousands(unknownMetadata) +
                             " events name metadata their plane does not have; each is named by its id");
    for (const profile::Slice& s : p.slices)
        if (profile::isDeviceWork(p.classOf(s)))
            p.tracks[s.track()].device = true;

    const std::vector<std::uint32_t> moved = p.finish();
    // Producer -> consumer: same context type and id.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> producers;
    for (const FlowEnd& f : flowEnds)
        if (f.producer)
            producers[{f.type, f.id}].push_back(moved[f.slice]);
    const std::uint32_t flowType = p.typeOf("context", "xprof", SliceClass::Other);
    for (const FlowEnd& f : flowEnds) {
        if (f.producer)
            continue;
        const auto it = producers.find({f.type, f.id});
        if (it == producers.end())
            continue;
        for (const std::uint32_t from : it->second)
            if (from != moved[f.slice])
                p.flows.push_back({from, moved[f.slice], flowType});
    }
    return p;
}

} // namespace xps::importing

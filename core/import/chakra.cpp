#include "import/chakra.h"
#include "util/checked_number.h"

#include "import/chakra_feeder_json.h"
#include "import/chakra_json.h"
#include "import/chakra_ranks.h"
#include "import/json_reader.h"
#include "profile/profile_builder.h"
#include "util/text.h"

#include "import/proto/et_def.pb.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace xps::importing {

using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using profile::TrackKind;
namespace pb = ChakraProtoMsg;
using chakra_ranks::chakraSuffix;
using chakra_ranks::rankFiles;

namespace {

enum Stream { kCompute, kCpu, kComm, kMemory, kStreams, kNoStream = -1 };
const char* const kStreamNames[kStreams] = {"compute", "CPU", "communication", "memory"};

// Whether a JSON file is in the form Chakra's feeder reads (its first 64 KiB, decompressed).
bool isChakraFeederJson(const std::string& path)
{
    const std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzopen(path.c_str(), "rb"), gzclose);
    if (!gz)
        return false;
    std::string head(64 * 1024, '\0');
    const int n = gzread(gz.get(), head.data(), static_cast<unsigned>(head.size()));
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return looksLikeChakraFeederJson(head);
}

Result<std::vector<pb::Node>> readNodes(const std::string& path, std::string& version,
                                        const ImportOptions& options)
{
    if (chakraSuffix(std::filesystem::path(path).filename().string()) != ".et")
        return isChakraFeederJson(path) ? readChakraFeederJsonNodes(path, options)
                                        : readChakraJsonNodes(path, version, options);
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return Error(path, errno == ENOENT ? std::string("no such file")
                                           : std::string("cannot open: ") + std::strerror(errno));
    google::protobuf::io::FileInputStream in(fd);
    in.SetCloseOnDelete(true);
    // libprotobuf logs what it rejects (a string that is not UTF-8) to stderr; the error below says it.
    const google::protobuf::LogSilencer quiet;
    pb::GlobalMetadata meta;
    bool eof = false;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &in, &eof))
        return Error(
            path,
            eof ? "the file is empty: expected a Chakra execution trace (a GlobalMetadata, then nodes)"
                : "not a Chakra execution trace: the first message is not a length-delimited GlobalMetadata");
    version = meta.version();
    std::vector<pb::Node> nodes;
    NodeChecks checks(options.limits);
    for (;;) {
        const std::int64_t at = in.ByteCount();
        pb::Node node;
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &in, &eof)) {
            if (eof)
                break;
            return Error(path, "node " + std::to_string(nodes.size()) + " (at byte " +
                                   text::withThousands(static_cast<std::uint64_t>(at)) +
                                   "): cut off or not a Chakra node (or a string in it is not UTF-8)");
        }
        if (std::string why = checks.refuse(node, nodes.size()); !why.empty())
            return Error(path, "node " + std::to_string(nodes.size()) + " (at byte " +
                                   text::withThousands(static_cast<std::uint64_t>(at)) + "): " + why);
        nodes.push_back(std::move(node));
        if (options.progress && nodes.size() % 100'000 == 0 &&
            !options.progress(static_cast<std::uint64_t>(in.ByteCount())))
            return Error(path, "cancelled");
    }
    return nodes;
}

std::optional<std::int64_t> attrInteger(const pb::AttributeProto& a)
{
    switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val: return a.int32_val();
    case pb::AttributeProto::kInt64Val: return a.int64_val();
    case pb::AttributeProto::kUint32Val: return a.uint32_val();
    case pb::AttributeProto::kUint64Val:
        return a.uint64_val() <= static_cast<std::uint64_t>(INT64_MAX)
                   ? std::optional<std::int64_t>(static_cast<std::int64_t>(a.uint64_val()))
                   : std::nullopt;
    case pb::AttributeProto::kSint32Val: return a.sint32_val();
    case pb::AttributeProto::kSint64Val: return a.sint64_val();
    case pb::AttributeProto::kFixed32Val: return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val:
        return a.fixed64_val() <= static_cast<std::uint64_t>(INT64_MAX)
                   ? std::optional<std::int64_t>(static_cast<std::int64_t>(a.fixed64_val()))
                   : std::nullopt;
    case pb::AttributeProto::kSfixed32Val: return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val: return a.sfixed64_val();
    case pb::AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
    default: return std::nullopt;
    }
}

std::string number(double v)
{
    if (!std::isfinite(v))
        return "null";
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

template <typename List, typename F> std::string listJson(const List& list, F&& one)
{
    std::string out = "[";
    for (int i = 0; i < list.values_size(); ++i)
        out += (i ? "," : "") + one(list.values(i));
    return out + "]";
}

std::string attrJson(const pb::AttributeProto& a)
{
    const auto str = [](const std::string& s) {
        std::string out;
        appendJsonString(out, s);
        return out;
    };
    const auto num = [](auto v) { return std::to_string(v); };
    switch (a.value_case()) {
    case pb::AttributeProto::kDoubleVal: return number(a.double_val());
    case pb::AttributeProto::kFloatVal: return number(a.float_val());
    case pb::AttributeProto::kBoolVal: return a.bool_val() ? "true" : "false";
    case pb::AttributeProto::kStringVal: return str(a.string_val());
    case pb::AttributeProto::kBytesVal: return str("<" + std::to_string(a.bytes_val().size()) + " bytes>");
    case pb::AttributeProto::kDoubleList:
        return listJson(a.double_list(), [](double v) { return number(v); });
    case pb::AttributeProto::kFloatList: return listJson(a.float_list(), [](float v) { return number(v); });
    case pb::AttributeProto::kInt32List: return listJson(a.int32_list(), num);
    case pb::AttributeProto::kInt64List: return listJson(a.int64_list(), num);
    case pb::AttributeProto::kUint32List: return listJson(a.uint32_list(), num);
    case pb::AttributeProto::kUint64List: return listJson(a.uint64_list(), num);
    case pb::AttributeProto::kSint32List: return listJson(a.sint32_list(), num);
    case pb::AttributeProto::kSint64List: return listJson(a.sint64_list(), num);
    case pb::AttributeProto::kFixed32List: return listJson(a.fixed32_list(), num);
    case pb::AttributeProto::kFixed64List: return listJson(a.fixed64_list(), num);
    case pb::AttributeProto::kSfixed32List: return listJson(a.sfixed32_list(), num);
    case pb::AttributeProto::kSfixed64List: return listJson(a.sfixed64_list(), num);
    case pb::AttributeProto::kBoolList:
        return listJson(a.bool_list(), [](bool v) { return std::string(v ? "true" : "false"); });
    case pb::AttributeProto::kStringList: return listJson(a.string_list(), str);
    case pb::AttributeProto::kBytesList:
        return listJson(a.bytes_list(), [&](const std::string& b) {
            return str("<" + std::to_string(b.size()) + " bytes>");
        });
    default: break;
    }
    if (const auto v = attrInteger(a))
        return std::to_string(*v);
    return "null";
}

// One node placed on the schedule.
struct Work
{
    int rank = 0;
    std::size_t node = 0; // index into its rank's nodes
    int stream = kNoStream;
    int collective = -1; // k: the rank's k-th collective
    Nanos duration = 0;
    Nanos ready = 0;
    Nanos start = -1;
    int pending = 0;
    std::vector<std::size_t> next;
};

struct Dependency
{
    std::size_t from, to;
    bool data;
};

// A data dependency cycle among the nodes that were never placed, in words with its node ids ("a cycle on
// rank 0: node 12 -> node 15 -> node 12"), or "" if none (they wait on something else).
std::string describeCycle(const std::vector<Work>& work, const std::vector<std::vector<pb::Node>>& ranks,
                          const std::vector<std::pair<int, std::string>>& files)
{
    enum : std::uint8_t { kUnseen, kOnPath, kDone };
    std::vector<std::uint8_t> state(work.size(), kUnseen);
    std::vector<std::pair<std::size_t, std::size_t>> path; // (work item, next edge to follow)
    const auto name = [&](std::size_t i) {
        return "node " + std::to_string(ranks[static_cast<std::size_t>(work[i].rank)][work[i].node].id());
    };
    for (std::size_t root = 0; root < work.size(); ++root) {
        if (work[root].start >= 0 || state[root] != kUnseen)
            continue;
        state[root] = kOnPath;
        path.push_back({root, 0});
        while (!path.empty()) {
            const std::size_t v = path.back().first;
            if (path.back().second == work[v].next.size()) {
                state[v] = kDone;
                path.pop_back();
                continue;
            }
            const std::size_t u = work[v].next[path.back().second++];
            if (work[u].start >= 0 || state[u] == kDone)
                continue;
            if (state[u] == kOnPath) {
                std::size_t at = 0;
                while (path[at].first != u)
                    ++at;
                std::string cycle = "A cycle on rank " +
                                    std::to_string(files[static_cast<std::size_t>(work[u].rank)].first) +
                                    ": ";
                const std::size_t length = path.size() - at;
                for (std::size_t k = at; k < path.size() && k < at + 8; ++k)
                    cycle += name(path[k].first) + " -> ";
                return cycle + (length > 8 ? "... -> " : "") + name(u);
            }
            state[u] = kOnPath;
            path.push_back({u, 0});
        }
    }
    return "";
}

} // namespace

Nanos collectiveNanos(int commType, std::uint64_t bytes, int ranks, const ChakraLinkModel& model)
{
    const double n = std::max(ranks, 1);
    const double perByte = 1.0 / model.linkGBs; // ns per byte at GB/s
    double factor = 0, steps = 0;               // a ring algorithm
    switch (commType) {
    case pb::ALL_REDUCE:
        factor = 2 * (n - 1) / n;
        steps = 2 * (n - 1);
        break;
    case pb::ALL_GATHER:
    case pb::REDUCE_SCATTER:
    case pb::REDUCE_SCATTER_BLOCK:
    case pb::ALL_TO_ALL:
    case pb::GATHER:
    case pb::SCATTER:
        factor = (n - 1) / n;
        steps = n - 1;
        break;
    case pb::REDUCE:
    case pb::BROADCAST:
        factor = 1;
        steps = n - 1;
        break;
    case pb::BARRIER:
        factor = 0;
        steps = n - 1;
        break;
    default:
        factor = 1;
        steps = 1;
        break;
    }
    return checked::clampToSigned(std::round(factor * static_cast<double>(bytes) * perByte +
                                             steps * static_cast<double>(model.latencyNs)));
}

Result<Profile> importChakra(const std::string& path, const ImportOptions& options,
                             const ChakraLinkModel& model)
{
    std::error_code ec;
    std::string firstRank = path;
    if (const std::string rank0 = chakraRankOfPrefix(path); !rank0.empty())
        firstRank = rank0;
    if (std::filesystem::is_directory(path, ec)) {
        firstRank = firstChakraRankIn(path);
        if (firstRank.empty())
            return Error(path,
                         "is a directory with no Chakra rank files in it (PREFIX.N.et or PREFIX.N.json)");
    }
    const auto files = rankFiles(firstRank);
    std::vector<std::vector<pb::Node>> ranks;
    Profile p;
    p.source = path;
    for (const auto& [rank, file] : files) {
        std::string version;
        auto nodes = readNodes(file, version, options);
        if (!nodes)
            return nodes.error();
        ranks.push_back(std::move(nodes).value());
        if (!version.empty() && p.metadata.empty())
            p.metadata.emplace_back("schema", version);
    }
    const int rankCount = static_cast<int>(ranks.size());
    p.format =
        "Chakra execution trace (" + std::to_string(rankCount) + (rankCount == 1 ? " rank)" : " ranks)");

    // Work items, dependencies and the per-rank collective order.
    std::vector<Work> work;
    std::vector<Dependency> deps;
    std::vector<int> collectivesOfRank(ranks.size(), 0);
    std::uint64_t unknownDeps = 0, unknownCtrlDeps = 0, untimed = 0;
    std::vector<std::size_t> firstOfRank;
    for (int r = 0; r < rankCount; ++r) {
        firstOfRank.push_back(work.size());
        std::unordered_map<std::uint64_t, std::size_t> byId;
        for (std::size_t i = 0; i < ranks[r].size(); ++i)
            byId.emplace(ranks[r][i].id(), work.size() + i);
        for (std::size_t i = 0; i < ranks[r].size(); ++i) {
            const pb::Node& n = ranks[r][i];
            Work w;
            w.rank = r;
            w.node = i;
            bool cpu = false;
            std::int64_t commType = pb::ALL_REDUCE, bytes = 0;
            for (const pb::AttributeProto& a : n.attr()) {
                const auto v = attrInteger(a);
                if (a.name() == "is_cpu_op" && v)
                    cpu = *v != 0;
                else if (a.name() == "comm_type" && v)
                    commType = *v;
                else if ((a.name() == "comm_size" || a.name() == "tensor_size") && v)
                    bytes = std::max<std::int64_t>(*v, 0);
            }
            const bool comm = n.type() == pb::COMM_COLL_NODE || n.type() == pb::COMM_SEND_NODE ||
                              n.type() == pb::COMM_RECV_NODE;
            switch (n.type()) {
            case pb::COMP_NODE: w.stream = cpu ? kCpu : kCompute; break;
            case pb::COMM_COLL_NODE:
            case pb::COMM_SEND_NODE:
            case pb::COMM_RECV_NODE:
                // A communication node run by the CPU (PyTorch's record_param_comms: the host side of a
                // collective) is host work, not the device's collective, and not one of the k-th
                // collectives every rank meets at.
                w.stream = cpu ? kCpu : kComm;
                if (!cpu && n.type() == pb::COMM_COLL_NODE)
                    w.collective = collectivesOfRank[static_cast<std::size_t>(r)]++;
                break;
            case pb::MEM_LOAD_NODE:
            case pb::MEM_STORE_NODE: w.stream = kMemory; break;
            default: break;
            }
            if (n.duration_micros() > 0) {
                w.duration =
                    static_cast<Nanos>(std::min<std::uint64_t>(n.duration_micros(), 1ull << 40) * 1000);
            } else if (comm && cpu) {
                ++untimed;
            } else if (n.type() == pb::COMM_COLL_NODE) {
                w.duration = collectiveNanos(static_cast<int>(commType), static_cast<std::uint64_t>(bytes),
                                             rankCount, model);
            } else if (n.type() == pb::COMM_SEND_NODE || n.type() == pb::COMM_RECV_NODE) {
                w.duration = checked::saturatingAdd(
                    checked::clampToSigned(std::round(static_cast<double>(bytes) / model.linkGBs)),
                    model.latencyNs);
            } else if (n.type() == pb::MEM_LOAD_NODE || n.type() == pb::MEM_STORE_NODE) {
                w.duration = checked::clampToSigned(std::round(static_cast<double>(bytes) / model.memoryGBs));
            } else if (n.type() == pb::COMP_NODE) {
                ++untimed;
            }
            const std::size_t self = work.size();
            const auto depend = [&](std::uint64_t id, bool data) {
                const auto it = byId.find(id);
                if (it == byId.end() || it->second == self) {
                    ++(data ? unknownDeps : unknownCtrlDeps);
                    return;
                }
                deps.push_back({it->second, self, data});
            };
            for (const std::uint64_t d : n.data_deps())
                depend(d, true);
            for (const std::uint64_t d : n.ctrl_deps())
                depend(d, false);
            work.push_back(std::move(w));
        }
    }
    // As Chakra's own feeder (et_feeder.cpp) issues nodes: data dependencies decide when a node may start;
    // control dependencies never hold one back. In traces converted from PyTorch they name the parent
    // operator, often a node that ends after its child or is not in the file, and as ordering edges they
    // made cycles that left most nodes unplaced.
    for (const Dependency& d : deps)
        if (d.data) {
            work[d.from].next.push_back(d.to);
            ++work[d.to].pending;
        }
    std::vector<int> ranksWithCollective; // per k: how many ranks have a k-th collective
    for (const int c : collectivesOfRank) {
        if (static_cast<std::size_t>(c) > ranksWithCollective.size())
            ranksWithCollective.resize(static_cast<std::size_t>(c), 0);
        for (int k = 0; k < c; ++k)
            ++ranksWithCollective[static_cast<std::size_t>(k)];
    }

    // List scheduling by ready time.
    using Entry = std::pair<Nanos, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (std::size_t i = 0; i < work.size(); ++i)
        if (work[i].pending == 0)
            ready.push({0, i});
    std::vector<std::array<Nanos, kStreams>> streamFree(ranks.size(), std::array<Nanos, kStreams>{});
    std::map<int, std::vector<std::size_t>> arrived; // collective k -> its nodes that are ready
    const auto place = [&](std::size_t i, Nanos start) {
        Work& w = work[i];
        w.start = start;
        const Nanos end = checked::saturatingAdd(start, w.duration); // a hostile size can make it huge
        if (w.stream != kNoStream)
            streamFree[static_cast<std::size_t>(w.rank)][static_cast<std::size_t>(w.stream)] = end;
        for (const std::size_t n : w.next) {
            work[n].ready = std::max(work[n].ready, end);
            if (--work[n].pending == 0)
                ready.push({work[n].ready, n});
        }
    };
    const auto startOf = [&](const Work& w) {
        return w.stream == kNoStream
                   ? w.ready
                   : std::max(
                         w.ready,
                         streamFree[static_cast<std::size_t>(w.rank)][static_cast<std::size_t>(w.stream)]);
    };
    std::size_t waiting = 0;
    while (!ready.empty() || waiting > 0) {
        if (ready.empty()) {
            // Collectives some rank never reaches: each runs on its own once nothing else can.
            for (auto& [k, nodes] : arrived)
                for (const std::size_t i : nodes)
                    place(i, startOf(work[i]));
            p.addRepair(profile::RepairKind::Assumed, 0,
                        "collectives that not every rank reaches ran on the ranks that did, unsynchronized");
            arrived.clear();
            waiting = 0;
            continue;
        }
        const std::size_t i = ready.top().second;
        ready.pop();
        Work& w = work[i];
        if (w.collective < 0) {
            place(i, startOf(w));
            continue;
        }
        auto& group = arrived[w.collective];
        group.push_back(i);
        ++waiting;
        if (static_cast<int>(group.size()) < ranksWithCollective[static_cast<std::size_t>(w.collective)])
            continue;
        Nanos start = 0, duration = 0;
        for (const std::size_t g : group) {
            start = std::max(start, startOf(work[g]));
            duration = std::max(duration, work[g].duration);
        }
        const std::vector<std::size_t> members = std::move(group);
        arrived.erase(w.collective);
        waiting -= members.size();
        for (const std::size_t g : members) {
            work[g].duration = duration;
            place(g, start);
        }
    }

    // The profile: a process per rank, a thread per stream it used. The node count was bounded above, and
    // tracks are at most ranks x streams: the builder's limits cannot be reached.
    profile::ProfileBuilder b(
        p, 0, [](profile::ProfileBuilder::Limit) { throw std::length_error("more than 16,777,216 tracks"); });
    std::vector<std::array<profile::TrackId, kStreams + 1>> tracks(ranks.size());
    const std::uint32_t idKey = p.intern("node_id");
    std::vector<profile::SliceId> sliceOf(work.size());
    std::size_t unplaced = 0;
    for (int r = 0; r < rankCount; ++r) {
        profile::Track process;
        process.kind = TrackKind::Process;
        process.pid = files[static_cast<std::size_t>(r)].first;
        process.sortIndex = process.pid;
        process.name = "rank " + std::to_string(process.pid);
        process.device = true;
        const profile::TrackId processId = b.addTrack(process);
        for (std::size_t i = firstOfRank[static_cast<std::size_t>(r)]; i < work.size() && work[i].rank == r;
             ++i) {
            const Work& w = work[i];
            if (w.start < 0) {
                ++unplaced;
                continue;
            }
            const std::size_t s =
                w.stream == kNoStream ? std::size_t(kStreams) : static_cast<std::size_t>(w.stream);
            profile::TrackId& track = tracks[static_cast<std::size_t>(r)][s];
            if (!track.valid()) {
                profile::Track t;
                t.kind = TrackKind::Thread;
                t.parent = processId;
                t.pid = process.pid;
                t.tid = static_cast<std::int64_t>(s);
                t.sortIndex = static_cast<std::int64_t>(s);
                t.name = s == kStreams ? "other" : kStreamNames[s];
                t.device = s != kCpu;
                track = b.addTrack(std::move(t));
            }
            const pb::Node& n = ranks[static_cast<std::size_t>(r)][w.node];
            std::string args = "{";
            for (const pb::AttributeProto& a : n.attr()) {
                if (args.size() > 1)
                    args += ',';
                appendJsonString(args, a.name());
                args += ':' + attrJson(a);
            }
            args += '}';
            const SliceClass cls = w.stream == kCompute  ? SliceClass::Kernel
                                   : w.stream == kCpu    ? SliceClass::CpuOp
                                   : w.stream == kComm   ? SliceClass::Communication
                                   : w.stream == kMemory ? SliceClass::Memcpy
                                                         : SliceClass::Other;
            const std::uint32_t type =
                p.typeOf(n.name().empty() ? "node " + std::to_string(n.id()) : n.name(),
                         pb::NodeType_Name(n.type()), cls);
            sliceOf[i] = b.addSlice(track, w.start, w.duration, type, p.internArgs(args), 0);
            if (n.id() <= static_cast<std::uint64_t>(INT64_MAX))
                b.addSliceArg(sliceOf[i], idKey, static_cast<std::int64_t>(n.id()));
        }
    }
    const std::uint32_t dataFlow = p.typeOf("data", "dependency", SliceClass::Other);
    // Control dependencies are drawn, but are not "dependency" flows: the critical path does not follow them.
    const std::uint32_t ctrlFlow = p.typeOf("control", "control dependency", SliceClass::Other);
    for (const Dependency& d : deps)
        if (sliceOf[d.from].valid() && sliceOf[d.to].valid())
            b.addFlow(sliceOf[d.from], sliceOf[d.to], d.data ? dataFlow : ctrlFlow);
    if (unknownDeps > 0)
        b.addRepair(profile::RepairKind::Skipped, unknownDeps,
                    "data dependencies name a node the rank does not have (or the node itself); ignored");
    if (unknownCtrlDeps > 0)
        p.metadata.emplace_back("control dependencies",
                                text::withThousands(unknownCtrlDeps) +
                                    " name a node not in the rank or the node itself (a parent operator, in "
                                    "traces converted from PyTorch); like all control dependencies, they "
                                    "order nothing");
    if (untimed > 0)
        b.addRepair(profile::RepairKind::Assumed, untimed,
                    "compute nodes have no duration_micros; each took no time");
    p.metadata.emplace_back("nodes", text::withThousands(work.size()) + " read, " +
                                         text::withThousands(work.size() - unplaced) + " placed");
    if (unplaced > 0)
        b.addRepair(profile::RepairKind::Skipped, unplaced,
                    "nodes are in a data dependency cycle or wait on one; not placed. " +
                        describeCycle(work, ranks, files));
    b.finish();
    return p;
}

} // namespace xps::importing

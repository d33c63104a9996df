// Importing Chrome / Perfetto / PyTorch profiler (Kineto) JSON: every phase the importer reads, exact
// timestamps, gzip, truncated and malformed files (located messages, never a crash), the Chrome JSON
// export's round trip, and the analyses on a hand-written Kineto step whose answers were worked out by hand
// (tests/data/kineto_step.json: the comments below give the arithmetic).
#include "core/chakra_fixture.h"
#include "core/round_trip.h"
#include "test_support.h"

#include "export/profile_chrome.h"
#include "import/import.h"
#include "import/json_reader.h"
#include "profile/flow_graph.h"
#include "profile/profile_analysis.h"
#include "profile/transfers.h"

#include "import/proto/et_def.pb.h"
#include "import/proto/xplane.pb.h"

#include <fstream>
#include <google/protobuf/util/delimited_message_util.h>
#include <google/protobuf/util/json_util.h>

#include <QTemporaryDir>

#include <zlib.h>

#include <filesystem>
#include <random>

using namespace xps;
using profile::Nanos;
using profile::Profile;
using test::chakraJson;
using test::ChakraRank;
using test::writeChakraEt;

namespace {

constexpr Nanos us(Nanos v)
{
    return v * 1000;
}

// `text` gzip-compressed into `path`; false if zlib could not write it.
bool writeGzip(const std::string& path, const std::string& text)
{
    gzFile gz = gzopen(path.c_str(), "wb");
    if (!gz)
        return false;
    const bool written =
        gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
    return gzclose(gz) == Z_OK && written;
}

std::string fixture()
{
    return test::sourceDir() + "/tests/data/kineto_step.json";
}

Profile importText(const QTemporaryDir& dir, const std::string& name, const std::string& json)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    test::writeFile(path, json);
    auto p = importing::importChromeJson(path);
    if (!p)
        qFatal("import of %s failed: %s", name.c_str(), p.error().toString().c_str());
    return std::move(p).value();
}

// One rank of the two-rank step the Chakra tests open (see chakraRanksReplayTheirDependencies).
ChakraRank chakraStepRank(int rank)
{
    ChakraRank r;
    r.meta.set_version("0.0.4");
    const auto node = [&](std::uint64_t id, const char* name, ChakraProtoMsg::NodeType type,
                          std::uint64_t micros, std::vector<std::uint64_t> data,
                          std::vector<std::uint64_t> ctrl) {
        ChakraProtoMsg::Node& n = test::addNode(r, id, name, type, micros, data, ctrl);
        if (type == ChakraProtoMsg::COMM_COLL_NODE) {
            auto* t = n.add_attr();
            t->set_name("comm_type");
            t->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
            auto* size = n.add_attr();
            size->set_name("comm_size");
            size->set_int64_val(1 << 20);
        }
    };
    const bool withB = rank == 0;
    node(1, "a", ChakraProtoMsg::COMP_NODE, rank == 0 ? 100 : 200, {}, {});
    if (withB)
        node(2, "b", ChakraProtoMsg::COMP_NODE, 50, {1}, {});
    node(3, "all-reduce", ChakraProtoMsg::COMM_COLL_NODE, 0, {1}, {});
    node(4, "c", ChakraProtoMsg::COMP_NODE, 30,
         withB ? std::vector<std::uint64_t>{2, 3} : std::vector<std::uint64_t>{3}, {});
    return r;
}

// Slices named `name`, in track and time order.
std::vector<const profile::Slice*> named(const Profile& p, const std::string& name)
{
    std::vector<const profile::Slice*> out;
    for (const profile::Slice& s : p.slices)
        if (p.nameOf(s) == name)
            out.push_back(&s);
    return out;
}

std::uint32_t trackNamed(const Profile& p, const std::string& name)
{
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
        if (p.tracks[t].name == name)
            return t;
    return profile::kNone;
}

// A host thread whose train_step (producer 42) launches a TPU module (consumer 42) of three ops: a fusion
// (150 us), an all-reduce after it (100 us) and a copy (50 us); times in picoseconds. One aggregated event.
tensorflow::profiler::XSpace trainStepXSpace()
{
    tensorflow::profiler::XSpace space;
    space.add_hostnames("tpu-host-0");
    const auto stat = [](tensorflow::profiler::XPlane* plane, std::int64_t id, const char* name) {
        (*plane->mutable_stat_metadata())[id].set_id(id);
        (*plane->mutable_stat_metadata())[id].set_name(name);
    };
    const auto event = [](tensorflow::profiler::XLine* line, std::int64_t meta, std::int64_t offsetPs,
                          std::int64_t durationPs) {
        auto* e = line->add_events();
        e->set_metadata_id(meta);
        e->set_offset_ps(offsetPs);
        e->set_duration_ps(durationPs);
        return e;
    };
    const auto intStat = [](tensorflow::profiler::XEvent* e, std::int64_t id, std::int64_t v) {
        auto* st = e->add_stats();
        st->set_metadata_id(id);
        st->set_int64_value(v);
    };
    auto* host = space.add_planes();
    host->set_id(1);
    host->set_name("/host:CPU");
    stat(host, 1, "group_id");
    stat(host, 2, "_p");
    stat(host, 3, "_pt");
    (*host->mutable_event_metadata())[1].set_name("train_step");
    auto* python = host->add_lines();
    python->set_id(10);
    python->set_name("python3");
    python->set_timestamp_ns(1000);
    auto* step = event(python, 1, 0, 500'000'000);
    intStat(step, 1, 3);
    intStat(step, 2, 42);
    intStat(step, 3, 1);

    auto* tpu = space.add_planes();
    tpu->set_id(2);
    tpu->set_name("/device:TPU:0");
    stat(tpu, 4, "_c");
    stat(tpu, 5, "_ct");
    stat(tpu, 6, "flops");
    stat(tpu, 7, "hlo_category");
    stat(tpu, 8, "convolution");
    (*tpu->mutable_event_metadata())[1].set_name("jit_train_step");
    (*tpu->mutable_event_metadata())[2].set_name("%fusion.1 = f32[128,128] fusion(...)");
    (*tpu->mutable_event_metadata())[2].set_display_name("fusion.1");
    auto* flops = (*tpu->mutable_event_metadata())[2].add_stats();
    flops->set_metadata_id(6);
    flops->set_double_value(1e9);
    (*tpu->mutable_event_metadata())[3].set_name("all-reduce.7");
    (*tpu->mutable_event_metadata())[4].set_name("copy-start.2");
    auto* modules = tpu->add_lines();
    modules->set_id(1);
    modules->set_name("XLA Modules");
    modules->set_timestamp_ns(1000);
    auto* module = event(modules, 1, 100'000, 400'000'000);
    intStat(module, 4, 42);
    intStat(module, 5, 1);
    auto* ops = tpu->add_lines();
    ops->set_id(2);
    ops->set_name("XLA Ops");
    ops->set_timestamp_ns(1000);
    auto* fusion = event(ops, 2, 100'000, 150'000'000);
    auto* category = fusion->add_stats();
    category->set_metadata_id(7);
    category->set_ref_value(8);
    event(ops, 3, 150'100'000, 100'000'000);
    event(ops, 4, 300'001'500, 50'000'000); // 1.5 ns rounds to 2
    auto* aggregated = ops->add_events();
    aggregated->set_metadata_id(2);
    aggregated->set_num_occurrences(7);

    return space;
}

bool hasWarning(const Profile& p, const std::string& part)
{
    for (const std::string& w : p.warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private slots:
    void kinetoTracksAndFlows()
    {
        auto p = importing::importProfile(fixture());
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("PyTorch profiler (Kineto) JSON"));
        QCOMPARE(p->slices.size(), std::size_t(19));
        QCOMPARE(p->flows.size(), std::size_t(6)); // one ac2g flow per launch
        const std::uint32_t gpu = trackNamed(*p, "GPU 0"), stream7 = trackNamed(*p, "stream 7"),
                            host = trackNamed(*p, "main thread");
        QVERIFY(gpu != profile::kNone && stream7 != profile::kNone && host != profile::kNone);
        QVERIFY(p->tracks[gpu].device);
        QVERIFY(p->tracks[stream7].device);
        QVERIFY(!p->tracks[host].device);
        QCOMPARE(p->tracks[stream7].parent, gpu);
        // Every flow runs from a launch call on the host thread to device work on a stream.
        for (const profile::Flow& f : p->flows) {
            QCOMPARE(p->slices[f.from].track(), host);
            QVERIFY(profile::isDeviceWork(p->classOf(p->slices[f.to])));
            QCOMPARE(p->slices[f.from].link, p->slices[f.to].link); // the same correlation id
        }
        // Nesting: ProfilerStep > aten::mm > cudaLaunchKernel.
        QCOMPARE(named(*p, "ProfilerStep#1")[0]->depth(), 0u);
        QCOMPARE(named(*p, "aten::mm")[0]->depth(), 1u);
        QCOMPARE(named(*p, "cudaLaunchKernel")[0]->depth(), 2u);
        // The correlation id is the slice's link, not one argument set per kernel: both sgemm launches
        // (same grid and block) share one set.
        const auto sgemm = named(*p, "sgemm_128x64");
        QCOMPARE(sgemm.size(), std::size_t(2));
        QCOMPARE(sgemm[0]->link, 11u);
        QCOMPARE(sgemm[1]->link, 16u);
        QVERIFY(sgemm[0]->args != 0);
        QCOMPARE(p->args(sgemm[0]->args),
                 std::string(R"({"device":0,"stream":7,"grid":[16,4,1],"block":[256,1,1]})"));
        QCOMPARE(sgemm[0]->args, sgemm[1]->args);
        QCOMPARE(named(*p, "aten::mm")[0]->link, 1u); // External id for CPU ops
    }

    void perEventArgumentsStayShared()
    {
        // Kineto numbers every op ("Sequence number"): kept per slice, so the ops share one argument set.
        QTemporaryDir dir;
        const Profile p = importText(dir, "seq.json", R"([
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Sequence number":41,"Fwd thread id":0}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Fwd thread id":0,"Sequence number":42}},
{"ph":"B","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":5,"args":{"Sequence number":43}},
{"ph":"E","pid":1,"tid":1,"ts":6}])");
        const auto add = named(p, "aten::add");
        QCOMPARE(add.size(), std::size_t(2));
        QCOMPARE(add[0]->args, add[1]->args);
        QCOMPARE(p.argsOf(static_cast<std::uint32_t>(add[0] - p.slices.data())),
                 std::string(R"({"Fwd thread id":0,"Sequence number":41})"));
        QCOMPARE(p.argsOf(static_cast<std::uint32_t>(add[1] - p.slices.data())),
                 std::string(R"({"Fwd thread id":0,"Sequence number":42})"));
        const auto mul = named(p, "aten::mul");
        QCOMPARE(p.argsOf(static_cast<std::uint32_t>(mul[0] - p.slices.data())),
                 std::string(R"({"Sequence number":43})"));
    }

    void kinetoAnalysis()
    {
        auto p = importing::importProfile(fixture());
        QVERIFY(p.ok());
        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.span, us(1000));
        QCOMPARE(a.devices.size(), std::size_t(1));
        const profile::DeviceBreakdown& d = a.devices[0];
        // Device work: sgemm 40-240, memcpy 250-450, nccl 300-400, relu 520-530, sgemm 700-880, add 960-970.
        QCOMPARE(d.busy, us(200 + 200 + 10 + 180 + 10));
        QCOMPARE(d.compute, us(200 + 10 + 180 + 10));
        QCOMPARE(d.communication, us(100));
        QCOMPARE(d.communicationExposed(), us(100)); // no compute kernel runs 300-400
        QCOMPARE(d.memcpy, us(200));
        QCOMPARE(d.memcpyExposed(), us(200));
        // TraceLens's exposed memcpy also takes off what ran under communication: 300-400 under nccl.
        QCOMPARE(d.memcpyExposedTraceLens(), us(100));
        QCOMPARE(d.idle(), us(400));
        // HTA's and TraceLens's span: first device work (40) to last (970), and idle within it.
        QCOMPARE(d.activeStart, us(40));
        QCOMPARE(d.activeSpan(), us(930));
        QCOMPARE(d.activeIdle(), us(330));
        // Stream 7's gaps: 240-250 (launch issued at 80: not launch-bound), 450-520 (launched at 505),
        // 530-700 (launched at 540), 880-960 (launched at 935): 10 + 70 + 170 + 80, of which 320
        // launch-bound.
        const auto stream = std::find_if(a.streams.begin(), a.streams.end(),
                                         [](const auto& s) { return s.name == "GPU 0 / stream 7"; });
        QVERIFY(stream != a.streams.end());
        QCOMPARE(stream->items, std::uint64_t(5));
        QCOMPARE(stream->idle, us(330));
        QCOMPARE(stream->launchIdle, us(320));
        QCOMPARE(stream->launchBoundGaps, std::uint64_t(3));
        // Launch delays 20, 170, 205, 15, 160, 25 us.
        QCOMPARE(a.launch.launches, std::uint64_t(6));
        QCOMPARE(a.launch.meanDelay, Nanos(595000 / 6));
        QCOMPARE(a.launch.p50Delay, us(160));
        QCOMPARE(a.launch.maxDelay, us(205));
        QCOMPARE(p->nameOf(p->slices[a.launch.maxDelaySlice]),
                 std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
        // Critical path, HTA's model (heaviest path; top-level gaps on the thread, a blocking call's wait and
        // dependencies weigh 0; ProfilerStep#1 is an annotation, not an operator). Host operators in order:
        // aten::mm 10-60 (50 us), aten::copy_ 70-110 (30: 40 minus the blocking cudaMemcpyAsync's 10),
        // aten::relu 500-520 (20), then aten::mm 535 to its launch at 540 (5): 105 us. The launch delay to
        // sgemm 540-700 (160; stream 7 was empty), sgemm 700-880 (180), which cudaDeviceSynchronize waited
        // for (0), aten::add 930 to its launch at 935 (5), launch delay 935-960 (25), add_kernel 960-970
        // (10): 485 us. (The memcpy chain, sgemm 40-240 then the copy to 450, is lighter, and so is the NCCL
        // one.)
        const profile::CriticalPath& path = a.criticalPath;
        QCOMPARE(path.length, us(485));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Host)], us(105 + 5));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Kernel)], us(180 + 10));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::LaunchDelay)], us(160 + 25));
        QCOMPARE(path.byKind[std::size_t(profile::PathSegmentKind::Sync)], us(0));
        QCOMPARE(path.segments.front().start, us(10));
        QCOMPARE(path.segments.back().end, us(970));
        // Each call stays identifiable: the segment before the big launch delay is aten::mm's, the delay
        // is its cudaLaunchKernel's.
        const auto delay = std::find_if(path.segments.begin(), path.segments.end(), [](const auto& sg) {
            return sg.kind == profile::PathSegmentKind::LaunchDelay;
        });
        QVERIFY(delay != path.segments.end() && delay != path.segments.begin());
        QCOMPARE(p->nameOf(p->slices[delay->slice]), std::string("cudaLaunchKernel"));
        QCOMPARE(p->nameOf(p->slices[std::prev(delay)->slice]), std::string("aten::mm"));
        // Operations: aten::mm twice (50 + 25 us, minus its two 10 us launches), launching both sgemms.
        const auto op = [&](const std::string& name) {
            for (const profile::OpStats& o : a.ops)
                if (p->string(p->types[o.type].name) == name)
                    return o;
            return profile::OpStats{};
        };
        QCOMPARE(op("aten::mm").count, std::uint64_t(2));
        QCOMPARE(op("aten::mm").total, us(75));
        QCOMPARE(op("aten::mm").self, us(55));
        QCOMPARE(op("aten::mm").deviceTime, us(380));
        QCOMPARE(op("aten::copy_").deviceTime, us(300)); // the copy and the all-reduce it launched
        QCOMPARE(op("ProfilerStep#1").self, us(1000 - 50 - 40 - 20 - 25 - 300 - 20));
        QCOMPARE(a.ops.front().type, named(*p, "ProfilerStep#1")[0]->type); // the largest total first
        // Findings, by estimated savings: exposed copies 200, exposed all-reduce 100, the synchronize that
        // left the device idle 900-960 (60 us = 6% of the run).
        QCOMPARE(a.findings.size(), std::size_t(3));
        QCOMPARE(a.findings[0].kind, std::string("exposed-memcpy"));
        QCOMPARE(a.findings[0].estimatedSavings, us(200));
        QCOMPARE(a.findings[1].kind, std::string("exposed-communication"));
        QCOMPARE(a.findings[2].kind, std::string("host-sync"));
        QCOMPARE(a.findings[2].estimatedSavings, us(60));
    }

    void launchBoundStream()
    {
        // 40 kernels of 2 us, each launched (8 us call) only after the previous one finished: the stream
        // waits for the host; the same kernels launched ahead of time do not.
        QTemporaryDir dir;
        for (const bool ahead : {false, true}) {
            std::string json = R"({"traceEvents":[)";
            for (int k = 0; k < 40; ++k) {
                const int launch = ahead ? k * 3 : k * 12, start = ahead ? 200 + k * 3 : k * 12 + 9;
                json +=
                    (k ? "," : "") +
                    std::string(
                        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)") +
                    std::to_string(launch) + R"(,"dur":)" + (ahead ? "2" : "8") +
                    R"(,"args":{"correlation":)" + std::to_string(k + 1) +
                    R"(}},{"ph":"X","cat":"kernel","name":"tiny","pid":2,"tid":7,"ts":)" +
                    std::to_string(start) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(k + 1) +
                    "}}";
            }
            json += "]}";
            const Profile p = importText(dir, ahead ? "ahead.json" : "late.json", json);
            QCOMPARE(p.flows.size(), std::size_t(40)); // no ac2g events: launches found by correlation
            const profile::ProfileAnalysis a = profile::analyzeProfile(p);
            const bool found = std::any_of(a.findings.begin(), a.findings.end(),
                                           [](const auto& f) { return f.kind == "launch-bound"; });
            QCOMPARE(found, !ahead);
            if (!ahead) {
                QCOMPARE(a.streams.size(), std::size_t(1));
                QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(39));
                QCOMPARE(a.streams[0].launchIdle, us(39 * 10)); // each gap: 11 - 1 ... end 11, next start 21
            }
        }
    }

    void chromePhases()
    {
        QTemporaryDir dir;
        const Profile p = importText(dir, "phases.json", R"([
{"ph":"M","name":"process_name","pid":"Renderer","args":{"name":"renderer"}},
{"ph":"M","name":"thread_name","pid":"Renderer","tid":"main","args":{"name":"CrRendererMain"}},
{"ph":"B","name":"outer","cat":"c","pid":"Renderer","tid":"main","ts":10},
{"ph":"B","name":"inner","pid":"Renderer","tid":"main","ts":12.5,"args":{"k":"v"}},
{"ph":"E","pid":"Renderer","tid":"main","ts":14},
{"ph":"E","pid":"Renderer","tid":"main","ts":20,"args":{"end":1}},
{"ph":"E","pid":"Renderer","tid":"main","ts":21},
{"ph":"i","name":"thread-instant","pid":"Renderer","tid":"main","ts":13,"s":"t"},
{"ph":"I","name":"global-instant","pid":"Renderer","tid":"main","ts":15,"s":"g"},
{"ph":"C","name":"heap","pid":"Renderer","ts":10,"args":{"used":5,"free":"7"}},
{"ph":"C","name":"heap","pid":"Renderer","ts":18,"args":{"used":6,"free":6}},
{"ph":"b","name":"load","cat":"net","id":"0x1","pid":"Renderer","ts":11},
{"ph":"b","name":"dns","cat":"net","id":"0x1","pid":"Renderer","ts":11.5},
{"ph":"e","name":"dns","cat":"net","id":"0x1","pid":"Renderer","ts":13},
{"ph":"n","name":"redirect","cat":"net","id":"0x1","pid":"Renderer","ts":14},
{"ph":"e","name":"load","cat":"net","id":"0x1","pid":"Renderer","ts":19},
{"ph":"X","name":"task","pid":"Renderer","tid":"io","ts":30,"dur":5},
{"ph":"X","name":"reply","pid":"Renderer","tid":"main","ts":40,"dur":2,"bind_id":"q","flow_in":true},
{"ph":"X","name":"post","pid":"Renderer","tid":"io","ts":31,"dur":1,"bind_id":"q","flow_out":true},
{"ph":"s","name":"msg","cat":"ipc","id":7,"pid":"Renderer","tid":"io","ts":32},
{"ph":"f","name":"msg","cat":"ipc","id":7,"pid":"Renderer","tid":"main","ts":39},
{"ph":"X","name":"negative","pid":"Renderer","tid":"main","ts":50,"dur":-1},
{"ph":"X","name":"bad ts","pid":"Renderer","tid":"main","ts":"soon","dur":1},
{"ph":"B","name":"never ends","pid":"Renderer","tid":"io","ts":60},
{"ph":"O","name":"object","pid":"Renderer","ts":61,"id":"0x2"}
])");
        QCOMPARE(p.format, std::string("Chrome trace JSON"));
        const std::uint32_t main = trackNamed(p, "CrRendererMain");
        QVERIFY(main != profile::kNone);
        QCOMPARE(p.tracks[p.tracks[main].parent].name, std::string("renderer"));
        const auto outer = named(p, "outer"), inner = named(p, "inner");
        QCOMPARE(outer.size(), std::size_t(1));
        QCOMPARE(outer[0]->start, us(10));
        QCOMPARE(outer[0]->duration, us(10));
        QCOMPARE(inner[0]->start, Nanos(12500));
        QCOMPARE(inner[0]->duration, Nanos(1500));
        QCOMPARE(inner[0]->depth(), 1u);
        QCOMPARE(p.args(outer[0]->args), std::string(R"({"end":1})")); // given at its end
        QCOMPARE(named(p, "thread-instant")[0]->duration, Nanos(0));
        QCOMPARE(named(p, "thread-instant")[0]->depth(), 2u); // inside outer > inner
        QCOMPARE(p.tracks[named(p, "global-instant")[0]->track()].name, std::string("instants"));
        // Counters: one track per series; a numeric string counts.
        const std::uint32_t used = trackNamed(p, "heap used"), freeBytes = trackNamed(p, "heap free");
        QVERIFY(used != profile::kNone && freeBytes != profile::kNone);
        QCOMPARE(p.counters.size(), std::size_t(4));
        std::vector<double> freeValues;
        for (const profile::CounterSample& c : p.counters)
            if (c.track == freeBytes)
                freeValues.push_back(c.value);
        QCOMPARE(freeValues, (std::vector<double>{7, 6}));
        // Async: nested begin on the same track one row down; the async instant on it too.
        const auto load = named(p, "load"), dns = named(p, "dns");
        QCOMPARE(load[0]->track(), dns[0]->track());
        QCOMPARE(p.tracks[load[0]->track()].kind, profile::TrackKind::Async);
        QCOMPARE(dns[0]->depth(), 1u);
        QCOMPARE(load[0]->duration, us(8));
        QCOMPARE(named(p, "redirect")[0]->track(), load[0]->track());
        // Flows: v2 (post -> reply) and v1 (s inside task -> f binding to the next slice, reply).
        QCOMPARE(p.flows.size(), std::size_t(2));
        for (const profile::Flow& f : p.flows) {
            QCOMPARE(p.nameOf(p.slices[f.to]), std::string("reply"));
            const std::string from = p.nameOf(p.slices[f.from]);
            QVERIFY2(from == "post" || from == "task", from.c_str());
        }
        // Repairs, each said once with the first place it happened.
        QVERIFY(hasWarning(p, "end events (\"E\") without a begin event"));
        QVERIFY(hasWarning(p, "negative \"dur\" were skipped; the first at $[21].dur"));
        QVERIFY(hasWarning(
            p, "wrong type were skipped (expected a number of microseconds for ts); the first at $[22].ts"));
        QVERIFY(hasWarning(p, "1 slices had a begin but no end"));
        QVERIFY(hasWarning(p, "events of phase \"O\""));
        QCOMPARE(named(p, "never ends")[0]->end(), p.endTime());
    }

    void kinetoMemoryEventsBecomeCounters()
    {
        // The allocator's "[memory]" instants carry its totals after each allocation or free: two counter
        // series per device, not instants; an instant named so without totals stays an instant.
        QTemporaryDir dir;
        const Profile p = importText(dir, "memory.json", R"({"schemaVersion":1,"traceEvents":[
{"ph":"X","name":"aten::empty","cat":"cpu_op","pid":7,"tid":7,"ts":10,"dur":5},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":11,
 "args":{"Device Type":1,"Device Id":0,"Addr":140000,"Bytes":4096,"Total Allocated":4096,"Total Reserved":2097152}},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":12,
 "args":{"Device Type":0,"Device Id":-1,"Bytes":64,"Total Allocated":64,"Total Reserved":0}},
{"ph":"i","name":"[memory]","cat":"cpu_instant_event","s":"t","pid":7,"tid":7,"ts":20,
 "args":{"Device Type":1,"Device Id":0,"Addr":140000,"Bytes":-4096,"Total Allocated":0,"Total Reserved":2097152}},
{"ph":"i","name":"[memory]","pid":7,"tid":7,"ts":21,"s":"t"}
]})");
        const std::uint32_t gpuAllocated = trackNamed(p, "memory allocated (GPU 0)"),
                            gpuReserved = trackNamed(p, "memory reserved (GPU 0)"),
                            cpuAllocated = trackNamed(p, "memory allocated (CPU)");
        QVERIFY(gpuAllocated != profile::kNone && gpuReserved != profile::kNone &&
                cpuAllocated != profile::kNone);
        QCOMPARE(p.tracks[gpuAllocated].kind, profile::TrackKind::Counter);
        std::vector<std::pair<Nanos, double>> allocated;
        for (const profile::CounterSample& c : p.counters)
            if (c.track == gpuAllocated)
                allocated.emplace_back(c.time, c.value);
        QCOMPARE(allocated, (std::vector<std::pair<Nanos, double>>{{us(11), 4096.0}, {us(20), 0.0}}));
        QCOMPARE(p.counters.size(), std::size_t(6));
        QCOMPARE(named(p, "[memory]").size(), std::size_t(1)); // the one without totals
    }

    void exactTimestamps_data()
    {
        QTest::addColumn<QString>("ts");
        QTest::addColumn<qint64>("nanos");
        QTest::newRow("integer") << QStringLiteral("12") << qint64(12000);
        QTest::newRow("fraction") << QStringLiteral("1.5") << qint64(1500);
        QTest::newRow("nanoseconds") << QStringLiteral("1680000000000.123") << qint64(1680000000000123);
        QTest::newRow("rounded") << QStringLiteral("2.0006") << qint64(2001);
        QTest::newRow("exponent") << QStringLiteral("1.5e3") << qint64(1500000);
        QTest::newRow("negative exponent") << QStringLiteral("25e-3") << qint64(25);
        QTest::newRow("quoted") << QStringLiteral("\"7.25\"") << qint64(7250);
        QTest::newRow("negative") << QStringLiteral("-3") << qint64(-3000);
    }
    void exactTimestamps()
    {
        QFETCH(QString, ts);
        QFETCH(qint64, nanos);
        QTemporaryDir dir;
        const Profile p =
            importText(dir, "ts.json",
                       R"([{"ph":"X","name":"a","pid":1,"tid":1,"dur":1,"ts":)" + ts.toStdString() + "}]");
        QCOMPARE(p.slices.size(), std::size_t(1));
        QCOMPARE(p.slices[0].start, Nanos(nanos));
    }

    void aRealNodeJsTraceImports()
    {
        // Not written by hand: what Node.js 20.20.2 wrote for tests/data/node_trace_step.js (`node
        // --trace-event-categories v8,node,node.async_hooks,node.fs.sync --trace-events-enabled
        // node_trace_step.js`): a real tool's Chrome trace, with B/E pairs, complete, async (b/e), instant
        // and metadata events, string ids, tts/tdur thread times.
        const std::string path = test::sourceDir() + "/tests/data/node_trace.json";
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::ChromeJson);
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("Chrome trace JSON"));
        QVERIFY2(p->warnings.empty(), p->warnings.empty() ? "" : p->warnings[0].c_str());
        QCOMPARE(p->slices.size(), std::size_t(60));
        QCOMPARE(p->tracks[trackNamed(*p, "node")].kind, profile::TrackKind::Process);
        QCOMPARE(p->tracks[trackNamed(*p, "JavaScriptMainThread")].kind, profile::TrackKind::Thread);
        // Four sync writes of the blocks, five reads (the script, then the blocks); four gzips, as async
        // slices on their own track.
        QCOMPARE(named(*p, "fs.sync.write").size(), std::size_t(4));
        QCOMPARE(named(*p, "fs.sync.read").size(), std::size_t(5));
        const auto gzips = named(*p, "ZLIB");
        QCOMPARE(gzips.size(), std::size_t(4));
        QCOMPARE(p->tracks[gzips[0]->track()].kind, profile::TrackKind::Async);
        // The timer's callback runs inside RunTimers: nested one level deeper, within its time.
        const profile::Slice* timers = named(*p, "RunTimers")[0];
        const profile::Slice* callback = named(*p, "Timeout_CALLBACK")[0];
        QVERIFY(callback->start >= timers->start && callback->end() <= timers->end());
        QVERIFY(callback->depth() > timers->depth());
        QVERIFY(profile::analyzeProfile(*p).ops.size() > 10);
        // Through our Chrome export and back: the same slices.
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("again.json")).toStdString();
        QVERIFY(exporting::writeProfileChromeTrace(*p, out).ok());
        auto again = importing::importProfile(out);
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), p->slices.size());
    }

    void transfersAndTheirBandwidth()
    {
        // The step's one copy (4 MiB HtoD over 200 us on stream 7) is a transfer; the NCCL kernel, which does
        // not say what it moved, is not. Its 4,194,304 bytes over 200,000 ns are 20.97 GB/s while it runs.
        auto p = importing::importProfile(fixture());
        QVERIFY(p.ok());
        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.transfers.size(), std::size_t(1));
        const profile::Slice& copy = p->slices[a.transfers[0].slice];
        QCOMPARE(p->nameOf(copy), std::string("Memcpy HtoD (Pageable -> Device)"));
        QCOMPARE(a.transfers[0].bytes, std::uint64_t(4194304));
        QCOMPARE(profile::transferBytes(*p, a.transfers[0].slice), std::uint64_t(4194304));
        QCOMPARE(a.devices[0].transfers, std::uint64_t(1));
        QCOMPARE(a.devices[0].transferBytes, std::uint64_t(4194304));
        // Four bins over the copy alone: each at the copy's rate. Over the whole step in one bin: the bytes
        // over the step.
        auto bw = profile::transferBandwidth(*p, a.transfers, copy.start, copy.end(), 4);
        QCOMPARE(bw.size(), std::size_t(1));
        QCOMPARE(p->tracks[bw[0].process].name, std::string("GPU 0"));
        for (const double v : bw[0].gbPerSecond)
            QVERIFY(std::abs(v - 4194304.0 / 200000.0) < 1e-9);
        bw = profile::transferBandwidth(*p, a.transfers, p->startTime(), p->endTime(), 1);
        const double span = static_cast<double>(p->endTime() - p->startTime());
        QVERIFY(std::abs(bw[0].gbPerSecond[0] - 4194304.0 / span) < 1e-9);
        // A window that misses the copy has no series; half a copy in a bin gives half the rate there.
        QVERIFY(profile::transferBandwidth(*p, a.transfers, copy.end(), copy.end() + 1000, 2).empty());
        bw = profile::transferBandwidth(*p, a.transfers, copy.start - 100'000, copy.start + 100'000, 1);
        QVERIFY(std::abs(bw[0].gbPerSecond[0] - 4194304.0 / 200000.0 / 2) < 1e-9);
    }

    void gzipOpensDirectly()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("step.json.gz")).toStdString();
        const std::string text = test::readFile(fixture());
        QVERIFY(writeGzip(path, text));
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::ChromeJson);
        auto p = importing::importProfile(path);
        QVERIFY(p.ok());
        QCOMPARE(p->slices.size(), std::size_t(19));
        QCOMPARE(profile::analyzeProfile(*p).criticalPath.length, us(485));
    }

    void truncatedFileKeepsWhatItHas()
    {
        QTemporaryDir dir;
        const std::string text = test::readFile(fixture());
        // Cut inside the kernel events: the host side and the first kernels survive.
        const std::size_t cut = text.find("relu_kernel") + 4;
        const std::string path = dir.filePath(QStringLiteral("cut.json")).toStdString();
        test::writeFile(path, text.substr(0, cut));
        auto p = importing::importProfile(path);
        QVERIFY(p.ok());
        QVERIFY(hasWarning(*p, "the file ends early"));
        QVERIFY(hasWarning(*p, "the last, incomplete one was dropped"));
        QCOMPARE(named(*p, "relu_kernel").size(), std::size_t(0));
        QCOMPARE(named(*p, "sgemm_128x64").size(), std::size_t(1));
        // Cut before the first event: nothing to keep, so an error with the place.
        test::writeFile(path, text.substr(0, text.find("traceEvents") + 20));
        auto none = importing::importProfile(path);
        QVERIFY(!none.ok());
        QVERIFY2(none.error().location().find("/cut.json:5:") != std::string::npos,
                 none.error().location().c_str());
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QString() << QStringLiteral("1:1") << QStringLiteral("the file is empty");
        QTest::newRow("no events") << QStringLiteral("{\"traceEvents\": 5}") << QStringLiteral("1:17")
                                   << QStringLiteral("$.traceEvents: expected an array of events");
        QTest::newRow("object without traceEvents") << QStringLiteral("{\"a\": 1}") << QStringLiteral("1:9")
                                                    << QStringLiteral("no \"traceEvents\" array");
        QTest::newRow("missing comma")
            << QStringLiteral("[\n{\"ph\":\"X\" \"ts\":1}]") << QStringLiteral("2:11")
            << QStringLiteral("expected ',' or '}' after an object member, found '\"'");
        QTest::newRow("bad escape") << QStringLiteral("[{\"name\":\"a\\q\"}]") << QStringLiteral("1:14")
                                    << QStringLiteral("unknown escape \\q");
        QTest::newRow("lone surrogate")
            << QStringLiteral("[{\"name\":\"\\udc00\"}]") << QStringLiteral("1:17")
            << QStringLiteral("a low surrogate without a high surrogate");
        QTest::newRow("deep args") << (QStringLiteral("[{\"args\":") + QString(70, QLatin1Char('[')))
                                   << QStringLiteral("1:75") << QStringLiteral("nested more than 64 deep");
        QTest::newRow("not json") << QStringLiteral("[hello]") << QStringLiteral("1:2")
                                  << QStringLiteral("expected a JSON value, found 'h'");
    }
    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, location);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bad.json")).toStdString();
        test::writeFile(path, text.toStdString());
        auto p = importing::importChromeJson(path);
        QVERIFY(!p.ok());
        QCOMPARE(p.error().location(), path + ":" + location.toStdString());
        QVERIFY2(p.error().message().find(message.toStdString()) != std::string::npos,
                 p.error().message().c_str());
    }

    void convertRoundTrip()
    {
        auto original = importing::importProfile(fixture());
        QVERIFY(original.ok());
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("out.json")).toStdString();
        QVERIFY(exporting::writeProfileChromeTrace(*original, out).ok());
        auto again = importing::importProfile(out);
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), original->slices.size());
        QCOMPARE(again->flows.size(), original->flows.size());
        for (std::size_t i = 0; i < original->slices.size(); ++i) {
            const profile::Slice &a = original->slices[i], &b = again->slices[i];
            QCOMPARE(again->nameOf(b), original->nameOf(a));
            QCOMPARE(again->categoryOf(b), original->categoryOf(a));
            QCOMPARE(b.start, a.start);
            QCOMPARE(b.duration, a.duration);
            QCOMPARE(b.link, a.link);
            QCOMPARE(b.depth(), a.depth());
            QCOMPARE(again->argsOf(static_cast<std::uint32_t>(i)),
                     original->argsOf(static_cast<std::uint32_t>(i)));
            QCOMPARE(again->tracks[b.track()].name, original->tracks[a.track()].name);
        }
        QCOMPARE(profile::analyzeProfile(*again).criticalPath.length, us(485));
        const std::string difference = test::roundTripDifference(*original);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void everyImporterRoundTripsThroughChromeJson()
    {
        // XSpace (train step: a host plane driving a TPU) and Chakra (two ranks with a collective): their
        // devices, classes, flows and critical path come back from the Chrome JSON export.
        QTemporaryDir dir;
        const std::string xspace = dir.filePath(QStringLiteral("run.xplane.pb")).toStdString();
        test::writeFile(xspace, trainStepXSpace().SerializeAsString());
        for (int rank = 0; rank < 2; ++rank)
            writeChakraEt(dir.filePath(QStringLiteral("step.%1.et").arg(rank)).toStdString(),
                          chakraStepRank(rank));
        for (const std::string& path : {xspace, dir.filePath(QStringLiteral("step.0.et")).toStdString()}) {
            auto p = importing::importProfile(path);
            QVERIFY2(p.ok(), path.c_str());
            QVERIFY(profile::analyzeProfile(*p).criticalPath.length > 0);
            const std::string difference = test::roundTripDifference(*p);
            QVERIFY2(difference.empty(), (path + ": " + difference).c_str());
        }
    }

    void xprofXSpace()
    {
        const tensorflow::profiler::XSpace space = trainStepXSpace();
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("run.xplane.pb")).toStdString();
        test::writeFile(path, space.SerializeAsString());
        auto kind = importing::detectInput(path);
        QVERIFY(kind.ok() && *kind == importing::InputKind::XSpace);
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("XProf XSpace (xplane.pb)"));
        QVERIFY(!p->tracks[trackNamed(*p, "/host:CPU")].device);
        QVERIFY(p->tracks[trackNamed(*p, "/device:TPU:0")].device);
        const auto fusionSlice = named(*p, "fusion.1");
        QCOMPARE(fusionSlice.size(), std::size_t(1));
        QCOMPARE(fusionSlice[0]->start, Nanos(1100));
        QCOMPARE(fusionSlice[0]->duration, us(150));
        QCOMPARE(p->classOf(*fusionSlice[0]), profile::SliceClass::Kernel);
        QCOMPARE(p->categoryOf(*fusionSlice[0]), std::string("XLA Ops"));
        QCOMPARE(p->args(fusionSlice[0]->args),
                 std::string(R"j({"flops":1000000000,"long_name":"%fusion.1 = f32[128,128] fusion(...)",)j"
                             R"j("hlo_category":"convolution"})j"));
        QCOMPARE(p->classOf(*named(*p, "all-reduce.7")[0]), profile::SliceClass::Communication);
        QCOMPARE(p->classOf(*named(*p, "copy-start.2")[0]), profile::SliceClass::Memcpy);
        QCOMPARE(named(*p, "copy-start.2")[0]->start, Nanos(1000 + 300'002));
        QCOMPARE(p->classOf(*named(*p, "jit_train_step")[0]), profile::SliceClass::DeviceAnnotation);
        const auto train = named(*p, "train_step");
        QCOMPARE(p->argsOf(static_cast<std::uint32_t>(train[0] - p->slices.data())),
                 std::string(R"({"group_id":3})"));
        QCOMPARE(p->flows.size(), std::size_t(1));
        QCOMPARE(p->nameOf(p->slices[p->flows[0].from]), std::string("train_step"));
        QCOMPARE(p->nameOf(p->slices[p->flows[0].to]), std::string("jit_train_step"));
        QVERIFY(hasWarning(*p, "1 aggregated events"));

        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.devices.size(), std::size_t(1));
        QCOMPARE(a.devices[0].compute, us(150));
        QCOMPARE(a.devices[0].communicationExposed(), us(100));
        QCOMPARE(a.devices[0].memcpyExposed(), us(50));

        // Planes are read one at a time: a file cut off in its second plane keeps the first and says what
        // was dropped; cut off in its first plane, or not a protobuf at all, it is an error naming the file.
        const std::string bytes = space.SerializeAsString();
        const std::string hostPlane = space.planes(0).SerializeAsString();
        const std::size_t secondPlane = 1 + 1 + hostPlane.size(); // tag, one-byte length, the plane
        QVERIFY(hostPlane.size() < 128);
        test::writeFile(path, bytes.substr(0, secondPlane + 20));
        auto cut = importing::importProfile(path);
        QVERIFY2(cut.ok(), cut.ok() ? "" : cut.error().toString().c_str());
        QVERIFY(hasWarning(*cut, "plane 1 (at byte " + std::to_string(secondPlane)));
        QVERIFY(hasWarning(*cut, "anything after it were dropped"));
        QCOMPARE(named(*cut, "train_step").size(), std::size_t(1));
        QCOMPARE(named(*cut, "fusion.1").size(), std::size_t(0));
        for (const std::size_t length : {secondPlane - 5, std::size_t(3)}) {
            test::writeFile(path, bytes.substr(0, length));
            auto firstCut = importing::importProfile(path);
            QVERIFY(!firstCut.ok());
            QVERIFY2(firstCut.error().message().find("not a valid XProf XSpace") != std::string::npos &&
                         firstCut.error().message().find("plane 0 (at byte 0") != std::string::npos,
                     firstCut.error().toString().c_str());
        }
        test::writeFile(path, "this is not a protobuf at all\n");
        auto text = importing::importProfile(path);
        QVERIFY(!text.ok());
        QVERIFY2(text.error().message().find("not a valid XProf XSpace") != std::string::npos,
                 text.error().toString().c_str());
        test::writeFile(path, "");
        auto empty = importing::importProfile(path);
        QVERIFY(!empty.ok());
        QVERIFY2(empty.error().message().find("the file is empty") != std::string::npos,
                 empty.error().toString().c_str());
        // Gzip-compressed, as some tools store them: the same profile.
        const std::string gzPath = path + ".gz";
        QVERIFY(writeGzip(gzPath, bytes));
        auto compressed = importing::importProfile(gzPath);
        QVERIFY2(compressed.ok(), compressed.ok() ? "" : compressed.error().toString().c_str());
        QCOMPARE(compressed->slices.size(), p->slices.size());
        QCOMPARE(compressed->flows.size(), std::size_t(1));
    }

    void chakraRanksReplayTheirDependencies()
    {
        // Two ranks. Rank 0: a (100 us) -> b (50 us) and a -> all-reduce of 1 MiB -> c (30 us, also after b).
        // Rank 1: a (200 us) -> all-reduce -> c (30 us). The all-reduce has no duration: the link model gives
        // a 2-rank ring 1 MiB / 100 GB/s + 2 steps x 5 us = 20,486 ns; it starts when rank 1 reaches it (200
        // us).
        QTemporaryDir dir;
        for (int rank = 0; rank < 2; ++rank)
            writeChakraEt(dir.filePath(QStringLiteral("step.%1.et").arg(rank)).toStdString(),
                          chakraStepRank(rank));
        QCOMPARE(importing::collectiveNanos(ChakraProtoMsg::ALL_REDUCE, 1 << 20, 2, {}), Nanos(20486));
        const std::string first = dir.filePath(QStringLiteral("step.0.et")).toStdString();
        auto p = importing::importProfile(first);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->format, std::string("Chakra execution trace (2 ranks)"));
        QCOMPARE(p->slices.size(), std::size_t(7));
        QCOMPARE(p->flows.size(), std::size_t(6)); // rank 0: a->b, a->ar, b->c, ar->c; rank 1: a->ar, ar->c
        const auto reduce = named(*p, "all-reduce"), c = named(*p, "c"), b = named(*p, "b");
        QCOMPARE(reduce.size(), std::size_t(2));
        for (const profile::Slice* r : reduce) {
            QCOMPARE(r->start, us(200)); // together, when the later rank arrives
            QCOMPARE(r->duration, Nanos(20486));
            QCOMPARE(p->classOf(*r), profile::SliceClass::Communication);
        }
        QCOMPARE(b[0]->start, us(100));
        for (const profile::Slice* x : c)
            QCOMPARE(x->start, us(200) + 20486);
        QCOMPARE(p->argsOf(static_cast<std::uint32_t>(reduce[0] - p->slices.data())),
                 std::string(R"({"comm_type":0,"comm_size":1048576,"node_id":3})"));

        const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
        QCOMPARE(a.devices.size(), std::size_t(2));
        QCOMPARE(a.devices[0].name, std::string("rank 0"));
        QCOMPARE(a.devices[0].compute, us(180));
        QCOMPARE(a.devices[0].communicationExposed(), Nanos(20486));
        QCOMPARE(a.devices[0].idle(), us(50)); // 150 us .. 200 us, waiting for rank 1
        // Critical path through the dependencies: rank 1's a (200 us), the all-reduce, c.
        QCOMPARE(a.criticalPath.length, us(230) + 20486);
        QCOMPARE(a.criticalPath.byKind[std::size_t(profile::PathSegmentKind::Kernel)], us(230));
        QCOMPARE(a.criticalPath.byKind[std::size_t(profile::PathSegmentKind::Communication)], Nanos(20486));

        // The dependency graph's neighbourhood of rank 0's all-reduce: one flow away its data dependency a
        // and its dependant c; two away also b (a -> b -> c); capped, the nearest are kept.
        const profile::FlowIndex index(*p);
        const auto reduce0 = static_cast<std::uint32_t>(reduce[0] - p->slices.data());
        const auto names = [&](const profile::FlowGraph& g) {
            std::vector<std::string> out;
            for (const std::uint32_t s : g.slices)
                out.push_back(p->nameOf(p->slices[s]));
            return out;
        };
        const profile::FlowGraph near = profile::flowNeighbourhood(*p, index, reduce0, 1, 60);
        QCOMPARE(names(near), (std::vector<std::string>{"all-reduce", "a", "c"}));
        QCOMPARE(near.distance, (std::vector<int>{0, 1, 1}));
        QCOMPARE(near.edges.size(), std::size_t(2)); // a -> all-reduce, all-reduce -> c
        const profile::FlowGraph two = profile::flowNeighbourhood(*p, index, reduce0, 2, 60);
        QCOMPARE(two.slices.size(), std::size_t(4));
        QCOMPARE(two.edges.size(), std::size_t(4)); // and a -> b, b -> c
        for (const profile::FlowGraph::Edge& e : two.edges) {
            QCOMPARE(p->flows[e.flow].from, two.slices[e.from]);
            QCOMPARE(p->flows[e.flow].to, two.slices[e.to]);
        }
        QVERIFY(!two.truncated);
        const profile::FlowGraph capped = profile::flowNeighbourhood(*p, index, reduce0, 2, 2);
        QCOMPARE(names(capped), (std::vector<std::string>{"all-reduce", "a"}));
        QVERIFY(capped.truncated);

        // One file alone is one rank; a file cut inside a node says which node.
        const std::string solo = dir.filePath(QStringLiteral("solo.et")).toStdString();
        QVERIFY(std::filesystem::copy_file(first, solo));
        auto one = importing::importProfile(solo);
        QVERIFY(one.ok());
        QCOMPARE(one->format, std::string("Chakra execution trace (1 rank)"));
        const std::string bytes = test::readFile(solo);
        test::writeFile(solo, bytes.substr(0, bytes.size() - 3));
        auto cut = importing::importProfile(solo);
        QVERIFY(!cut.ok());
        QVERIFY2(cut.error().message().find("node 3 (at byte") == 0, cut.error().toString().c_str());
    }

    void chakraJsonFormOpensLikeTheProtobufForm()
    {
        // The same two ranks as .et and as JSON: rank 0 in the current jsonizer's array (gzip-compressed),
        // rank 1 as the older jsonizer's objects one after another. Both give the same profile.
        QTemporaryDir dir;
        const auto file = [&](const char* name) {
            return dir.filePath(QString::fromUtf8(name)).toStdString();
        };
        writeChakraEt(file("step.0.et"), chakraStepRank(0));
        writeChakraEt(file("step.1.et"), chakraStepRank(1));
        const std::string array = chakraJson(chakraStepRank(0), true);
        QVERIFY(writeGzip(file("json.0.json.gz"), array));
        const std::string objects = chakraJson(chakraStepRank(1), false);
        QVERIFY(writeGzip(file("json.1.json.gz"), objects));
        QVERIFY(array.find("\"dataDeps\"") != std::string::npos); // protobuf's JSON names, as the jsonizer's

        auto et = importing::importProfile(file("step.0.et"));
        auto json = importing::importProfile(file("json.0.json.gz"));
        QVERIFY2(et.ok(), et.ok() ? "" : et.error().toString().c_str());
        QVERIFY2(json.ok(), json.ok() ? "" : json.error().toString().c_str());
        QCOMPARE(json->format, std::string("Chakra execution trace (2 ranks)"));
        QCOMPARE(json->slices.size(), et->slices.size());
        QCOMPARE(json->flows.size(), et->flows.size());
        for (std::size_t i = 0; i < et->slices.size(); ++i) {
            QCOMPARE(json->nameOf(json->slices[i]), et->nameOf(et->slices[i]));
            QCOMPARE(json->slices[i].start, et->slices[i].start);
            QCOMPARE(json->slices[i].duration, et->slices[i].duration);
            QCOMPARE(json->argsOf(static_cast<std::uint32_t>(i)), et->argsOf(static_cast<std::uint32_t>(i)));
        }
        QCOMPARE(profile::analyzeProfile(*json).criticalPath.length, us(230) + 20486);

        // A plain .json of one rank is found by its content, not its name.
        const std::string solo = file("solo.json");
        test::writeFile(solo, objects);
        QVERIFY(importing::importProfile(solo).ok());
        QCOMPARE(importing::detectInput(solo).value(), importing::InputKind::Chakra);
        // A bare Chrome event array whose args happen to hold a node type is still a Chrome trace.
        const std::string chrome = file("events.json");
        test::writeFile(
            chrome,
            R"([{"ph":"X","name":"step","pid":1,"tid":1,"ts":1,"dur":2,"args":{"type":"COMP_NODE"}}])");
        QCOMPARE(importing::detectInput(chrome).value(), importing::InputKind::ChromeJson);
        auto chromeProfile = importing::importProfile(chrome);
        QVERIFY2(chromeProfile.ok(), chromeProfile.ok() ? "" : chromeProfile.error().toString().c_str());
        QCOMPARE(chromeProfile->slices.size(), std::size_t(1));

        // Errors say where: a node protobuf cannot read, text between objects, a cut-off file.
        const auto failure = [&](const std::string& text) {
            test::writeFile(solo, text);
            auto r = importing::importProfile(solo);
            return r.ok() ? std::string("imported") : r.error().toString();
        };
        std::string bad = objects;
        const std::size_t deps = bad.find("\"dataDeps\"");
        QVERIFY(deps != std::string::npos);
        bad.replace(bad.find('[', deps), 1, "[\"x\", ");
        std::string message = failure(bad);
        const std::size_t nodeStart = bad.rfind('{', deps);
        const auto line =
            1 + std::count(bad.begin(), bad.begin() + static_cast<std::ptrdiff_t>(nodeStart), '\n');
        QVERIFY2(message.find(solo + ":" + std::to_string(line) + ":1: node 1 is not a Chakra node") == 0,
                 message.c_str());
        message = failure(objects + "\n]");
        QVERIFY2(message.find("expected '{' (a node), found ']'") != std::string::npos, message.c_str());
        message = failure(array.substr(0, array.size() - 40));
        QVERIFY2(message.find("cut off inside this object") != std::string::npos, message.c_str());
        message = failure(array.substr(0, array.size() - 2));
        QVERIFY2(message.find("the array that holds the nodes is not closed") != std::string::npos,
                 message.c_str());
    }

    void hostileXSpaceMutations()
    {
        // Bit flips, cut-offs, deleted spans and 0xff bytes (varints that never end, lengths of gigabytes) in
        // a protobuf: each imports (what was read whole) or fails naming the file; never a crash or a hang.
        importMutations(trainStepXSpace().SerializeAsString(), "m.xplane.pb", 20261124,
                        [](std::string& s, auto& rng) {
                            for (int edit = 0; edit < 1 + static_cast<int>(rng() % 3) && !s.empty(); ++edit) {
                                const std::size_t at = rng() % s.size();
                                switch (rng() % 4) {
                                case 0: s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;
                                case 1: s.resize(at); break;
                                case 2: s.erase(at, std::min<std::size_t>(s.size() - at, rng() % 16)); break;
                                case 3: s.insert(at, std::string(1 + rng() % 5, '\xff')); break;
                                }
                            }
                        });
    }

    void hostileMutations()
    {
        // Hundreds of mutations of the fixture: each imports or fails with a located message.
        importMutations(test::readFile(fixture()), "m.json", 20261123, [](std::string& s, auto& rng) {
            const std::size_t at = rng() % s.size();
            switch (rng() % 4) {
            case 0: s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8))); break;
            case 1: s.resize(at); break;
            case 2: s.erase(at, std::min<std::size_t>(s.size() - at, rng() % 64)); break;
            case 3: s[at] = "{}[],:\"0123456789-eE.\\"[rng() % 22]; break;
            }
        });
    }

private:
    // 400 mutations of `original` written as `name`: each imports (and its analyses run) or fails with an
    // error located in that file; some of each.
    template <typename Mutate>
    void importMutations(const std::string& original, const char* name, std::uint64_t seed, Mutate mutate)
    {
        std::mt19937_64 rng(seed);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
        int ok = 0, failed = 0;
        for (int i = 0; i < 400; ++i) {
            std::string s = original;
            mutate(s, rng);
            test::writeFile(path, s);
            auto p = importing::importProfile(path);
            if (p.ok()) {
                ++ok;
                QVERIFY(profile::analyzeProfile(*p).span >= 0);
            } else {
                ++failed;
                QVERIFY2(p.error().location().find(name) != std::string::npos, p.error().toString().c_str());
            }
        }
        QVERIFY(ok > 0 && failed > 0);
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"

// Chakra traces converted from PyTorch: control dependencies name the parent operator (often the node
// itself, a node not in the file, or a parent that ends after its child). Scheduled as Chakra's own feeder
// (et_feeder.cpp) issues nodes, data dependencies drive issue and control dependencies never hold a node
// back, so no node is dropped; a real data dependency cycle is reported with its node ids; communication
// run by the CPU (is_cpu_op) is host work. The rank below has the shapes of chakra's pytorch converter
// output; no trace written by Chakra itself is in tests/data (see docs/import.md).
#include "core/chakra_fixture.h"
#include "core/import_test_support.h"
#include "core/round_trip.h"
#include "test_support.h"

#include "import/import.h"
#include "profile/flow_graph.h"
#include "profile/profile_analysis.h"

#include <QTemporaryDir>

using namespace xps;
using profile::Nanos;
using profile::Profile;
using profile::SliceClass;
using test::chakraJson;
using test::writeChakraEt;
using test::imported::chakraStepRank;
using test::imported::named;
using test::imported::writeGzip;

namespace {

constexpr Nanos us(Nanos v)
{
    return v * 1000;
}

ChakraProtoMsg::Node& addNode(test::ChakraRank& r, std::uint64_t id, const char* name,
                              ChakraProtoMsg::NodeType type, std::uint64_t micros,
                              std::vector<std::uint64_t> data, std::vector<std::uint64_t> ctrl, bool cpu)
{
    ChakraProtoMsg::Node& n = test::addNode(r, id, name, type, micros, data, ctrl);
    auto* onCpu = n.add_attr();
    onCpu->set_name("is_cpu_op");
    onCpu->set_bool_val(cpu);
    return n;
}

// A forward step as the PyTorch converter writes it:
//   10 "aten::linear" (CPU, 40 us): parent of 11; its data dependency is its child's result (11), so as an
//      ordering edge its child's control dependency on it made a cycle.
//   11 "sgemm" (GPU, 30 us): ctrl -> 10 (its parent).
//   12 "relu" (GPU, 10 us): data -> 11, ctrl -> 12 (itself).
//   13 "record_param_comms" (COMM_COLL, CPU, 5 us): data -> 12, ctrl -> 99 (not in the file).
//   14 "ncclAllReduce" (COMM_COLL, GPU, 20 us): data -> 13.
//   20, 21: a real cycle of data dependencies (each waits for the other), and 22 waits on 21.
test::ChakraRank convertedRank(bool withCycle)
{
    test::ChakraRank r;
    r.meta.set_version("0.0.4");
    addNode(r, 10, "aten::linear", ChakraProtoMsg::COMP_NODE, 40, {11}, {}, true);
    addNode(r, 11, "sgemm", ChakraProtoMsg::COMP_NODE, 30, {}, {10}, false);
    addNode(r, 12, "relu", ChakraProtoMsg::COMP_NODE, 10, {11}, {12}, false);
    addNode(r, 13, "record_param_comms", ChakraProtoMsg::COMM_COLL_NODE, 5, {12}, {99}, true);
    addNode(r, 14, "ncclAllReduce", ChakraProtoMsg::COMM_COLL_NODE, 20, {13}, {}, false);
    if (withCycle) {
        addNode(r, 20, "loop a", ChakraProtoMsg::COMP_NODE, 1, {21}, {}, false);
        addNode(r, 21, "loop b", ChakraProtoMsg::COMP_NODE, 1, {20}, {}, false);
        addNode(r, 22, "after loop", ChakraProtoMsg::COMP_NODE, 1, {21}, {}, false);
    }
    return r;
}

Profile importRank(const test::ChakraRank& r, QTemporaryDir& dir)
{
    const std::string path = dir.filePath(QStringLiteral("fwd.0.et")).toStdString();
    test::writeChakraEt(path, r);
    auto p = importing::importProfile(path);
    if (!p.ok())
        qFatal("%s", p.error().toString().c_str());
    return std::move(*p);
}

const profile::Slice* slice(const Profile& p, const std::string& name)
{
    for (const profile::Slice& s : p.slices)
        if (p.nameOf(s) == name)
            return &s;
    return nullptr;
}

std::string metadata(const Profile& p, const std::string& key)
{
    for (const auto& [k, v] : p.metadata)
        if (k == key)
            return v;
    return {};
}

} // namespace

class TestImportChakra : public QObject
{
    Q_OBJECT
private slots:
    void controlDependenciesNeverDropANode()
    {
        QTemporaryDir dir;
        const Profile p = importRank(convertedRank(false), dir);
        QCOMPARE(p.slices.size(), std::size_t(5)); // every node placed (the old scheduler placed 0 of 5)
        QCOMPARE(metadata(p, "nodes"), std::string("5 read, 5 placed"));
        QVERIFY(
            metadata(p, "control dependencies").find("2 name a node not in the rank or the node itself") ==
            0);
        // Data dependencies drive issue: sgemm 0-30, the parent 30-70 on the CPU (it needs its child's
        // result), relu 30-40 on the compute stream, record_param_comms after the parent on the CPU 70-75,
        // the all-reduce 75-95.
        QCOMPARE(slice(p, "sgemm")->start, us(0));
        QCOMPARE(slice(p, "aten::linear")->start, us(30));
        QCOMPARE(slice(p, "relu")->start, us(30));
        QCOMPARE(slice(p, "record_param_comms")->start, us(70));
        QCOMPARE(slice(p, "ncclAllReduce")->start, us(75));
        // Communication the CPU ran is host work; the device's collective is communication.
        QCOMPARE(p.classOf(*slice(p, "record_param_comms")), SliceClass::CpuOp);
        QCOMPARE(p.track(slice(p, "record_param_comms")->track()).name, std::string("CPU"));
        QCOMPARE(p.classOf(*slice(p, "ncclAllReduce")), SliceClass::Communication);
        QCOMPARE(p.track(slice(p, "ncclAllReduce")->track()).name, std::string("communication"));
        // The control dependency 11 -> 10 is drawn as a "control dependency" flow, not followed as a
        // dependency.
        std::size_t control = 0;
        for (const profile::Flow& f : p.flows)
            control += p.string(p.types[f.type].category) == "control dependency";
        QCOMPARE(control, std::size_t(1));
        const profile::ProfileAnalysis a = profile::analyzeProfile(p);
        // The path: sgemm (kernel 0-30) -> aten::linear, which waited for its data (host 30-70) ->
        // record_param_comms (host 70-75) -> the all-reduce (75-95).
        QCOMPARE(a.criticalPath.length, us(95));
        QCOMPARE(a.criticalPath.byKind[std::size_t(profile::PathSegmentKind::Kernel)], us(30));
        QCOMPARE(a.criticalPath.byKind[std::size_t(profile::PathSegmentKind::Host)], us(45));
        QCOMPARE(a.criticalPath.byKind[std::size_t(profile::PathSegmentKind::Communication)], us(20));
        QVERIFY(p.repairs.empty());
    }

    void anExportReimportsAsTheSameProfile()
    {
        QTemporaryDir dir;
        const Profile p = importRank(convertedRank(false), dir);
        const std::string difference = test::roundTripDifference(p);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    void aRealCycleIsReportedWithItsNodeIds()
    {
        QTemporaryDir dir;
        const Profile p = importRank(convertedRank(true), dir);
        QCOMPARE(p.slices.size(), std::size_t(5));
        QCOMPARE(metadata(p, "nodes"), std::string("8 read, 5 placed"));
        QCOMPARE(p.repairs.size(), std::size_t(1));
        QCOMPARE(p.repairs[0].kind, profile::RepairKind::Skipped);
        const std::string w = p.repairs[0].text();
        QVERIFY2(w.find("3 nodes are in a data dependency cycle or wait on one; not placed") == 0, w.c_str());
        QVERIFY2(w.find("A cycle on rank 0: node 20 -> node 21 -> node 20") != std::string::npos, w.c_str());
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
        QCOMPARE(p->argsOf(profile::SliceRow(static_cast<std::uint32_t>(reduce[0] - p->slices.data()))),
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
            QCOMPARE(p->flows[e.flow].from, profile::SliceRow(two.slices[e.from]));
            QCOMPARE(p->flows[e.flow].to, profile::SliceRow(two.slices[e.to]));
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
            QCOMPARE(json->argsOf(profile::SliceRow(static_cast<std::uint32_t>(i))),
                     et->argsOf(profile::SliceRow(static_cast<std::uint32_t>(i))));
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
};

QTEST_GUILESS_MAIN(TestImportChakra)
#include "tst_import_chakra.moc"

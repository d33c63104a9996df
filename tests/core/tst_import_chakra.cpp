// Chakra traces converted from PyTorch: control dependencies name the parent operator (often the node
// itself, a node not in the file, or a parent that ends after its child). Scheduled as Chakra's own feeder
// (et_feeder.cpp) issues nodes, data dependencies drive issue and control dependencies never hold a node
// back, so no node is dropped; a real data dependency cycle is reported with its node ids; communication
// run by the CPU (is_cpu_op) is host work. The rank below has the shapes of chakra's pytorch converter
// output; no trace written by Chakra itself is in tests/data (see docs/import.md).
#include "core/chakra_fixture.h"
#include "core/round_trip.h"
#include "test_support.h"

#include "import/import.h"
#include "profile/profile_analysis.h"

#include <QTemporaryDir>

using namespace xps;
using profile::Nanos;
using profile::Profile;
using profile::SliceClass;

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
        QCOMPARE(p.tracks[slice(p, "record_param_comms")->track()].name, std::string("CPU"));
        QCOMPARE(p.classOf(*slice(p, "ncclAllReduce")), SliceClass::Communication);
        QCOMPARE(p.tracks[slice(p, "ncclAllReduce")->track()].name, std::string("communication"));
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
        QVERIFY(p.warnings.empty());
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
        QCOMPARE(p.warnings.size(), std::size_t(1));
        const std::string& w = p.warnings[0];
        QVERIFY2(w.find("3 nodes are in a data dependency cycle or wait on one; not placed") == 0, w.c_str());
        QVERIFY2(w.find("A cycle on rank 0: node 20 -> node 21 -> node 20") != std::string::npos, w.c_str());
    }
};

QTEST_GUILESS_MAIN(TestImportChakra)
#include "tst_import_chakra.moc"

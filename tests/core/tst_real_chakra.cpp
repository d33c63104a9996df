// Chakra execution traces as MLCommons Chakra's own tests hold them (../shared/real-traces; README there),
// in the JSON form its feeder reads: the nodes in the feeder's order (tests/feeder/wrapper_tests.cpp).
#include "real_traces_support.h"

#include "profile/profile_analysis.h"

#include <QTemporaryDir>

#include <map>
#include <set>

using namespace xps;
using profile::Profile;

namespace {

const std::string kArchive = "mlcommons__chakra/tests/data/json_trace.tar.gz";

// Extracts `member` of the feeder's test archive into `dir`; the path written.
std::string extract(const QTemporaryDir& dir, const std::string& member)
{
    const std::string bytes = test::tarMember(test::realTrace(kArchive), member);
    if (bytes.empty())
        qFatal("%s has no %s", kArchive.c_str(), member.c_str());
    const std::string path = dir.path().toStdString() + "/" + member;
    test::writeFile(path, bytes);
    return path;
}

std::int64_t nodeIdOf(const Profile& p, profile::SliceRow row)
{
    const nlohmann::json args = nlohmann::json::parse(p.argsOf(row));
    return args.value("node_id", std::int64_t{-1});
}

// Node id -> ids of the nodes that wait for its data, from the import's dependency flows; and the nodes
// that wait for nothing.
struct DataGraph
{
    std::map<std::int64_t, std::set<std::int64_t>> children;
    std::set<std::int64_t> roots;
    std::map<std::int64_t, profile::SliceRow> slice;
};

DataGraph dataGraph(const Profile& p)
{
    DataGraph g;
    const std::uint32_t dependency = p.findString("dependency");
    std::vector<std::int64_t> node(p.slices.size());
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        node[i] = nodeIdOf(p, profile::SliceRow(i));
        g.slice[node[i]] = profile::SliceRow(i);
        g.roots.insert(node[i]);
    }
    for (const profile::Flow& f : p.flows)
        if (p.types[f.type].category == dependency) {
            g.children[node[f.from.value]].insert(node[f.to.value]);
            g.roots.erase(node[f.to.value]);
        }
    return g;
}

} // namespace

class TestRealChakra : public QObject
{
    Q_OBJECT

private slots:
    // The feeder's wrapper test on small_chakra.0.json: the first node it can issue is 216, a CPU compute
    // node, then 432, a CPU collective; 216's children are 217, 430 and 435. The feeder orders by data
    // dependencies alone: the file's control dependencies name nodes it does not hold (3, 429, 434).
    void feederJsonInTheFeedersOrder()
    {
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kArchive));
        QTemporaryDir dir;
        const Profile p = test::importRealTrace(extract(dir, "small_chakra.0.json"));
        QCOMPARE(p.slices.size(), std::size_t{7});
        const DataGraph g = dataGraph(p);
        QVERIFY(g.roots.size() >= 2);
        QCOMPARE(*g.roots.begin(), std::int64_t{216});
        QCOMPARE(*std::next(g.roots.begin()), std::int64_t{432});
        QCOMPARE(g.children.at(216), (std::set<std::int64_t>{217, 430, 435}));
        const profile::Slice& compute = p.slice(g.slice.at(216));
        const profile::Slice& collective = p.slice(g.slice.at(432));
        QCOMPARE(p.classOf(compute), profile::SliceClass::CpuOp); // is_cpu_op: a host operator
        QCOMPARE(p.classOf(collective),
                 profile::SliceClass::CpuOp); // is_cpu_op: the c10d call, not its kernel
        QCOMPARE(p.classOf(p.slice(g.slice.at(435))), profile::SliceClass::Communication);
        // Each node ran for its "runtime" in microseconds, after every node it depends on.
        QCOMPARE(compute.duration, profile::Ticks{318'000});
        for (const auto& [parent, kids] : g.children)
            for (const std::int64_t kid : kids)
                QVERIFY(p.slice(g.slice.at(kid)).start >= p.slice(g.slice.at(parent)).end());
    }

    // The whole trace beside it (3,664 nodes of a ResNet step on one of 8 GPUs): every node placed, every
    // data dependency between nodes of the file a flow.
    void feederJsonWholeTrace()
    {
        XPS_REQUIRE_REAL_TRACE(test::realTrace(kArchive));
        QTemporaryDir dir;
        const std::string path = extract(dir, "chakra.0.json");
        const nlohmann::json doc = nlohmann::json::parse(test::readFile(path));
        std::set<std::uint64_t> ids;
        for (const nlohmann::json& n : doc["workload_graph"])
            ids.insert(n["Id"].get<std::uint64_t>());
        std::size_t dependencies = 0;
        for (const nlohmann::json& n : doc["workload_graph"])
            for (const nlohmann::json& d : n["data_deps"])
                dependencies += ids.contains(d.get<std::uint64_t>());
        const Profile p = test::importRealTrace(path);
        QCOMPARE(p.slices.size(), ids.size());
        const std::uint32_t dependency = p.findString("dependency");
        std::size_t flows = 0;
        for (const profile::Flow& f : p.flows)
            flows += p.types[f.type].category == dependency;
        QCOMPARE(flows, dependencies);
        QVERIFY(profile::analyzeProfile(p).criticalPath.length > 0);
    }

    // A node the feeder could not read is refused with its JSON path.
    void aBrokenNodeIsNamedByItsPath()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/broken.0.json";
        test::writeFile(path, R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "runtime": 2},
                                                     {"Id": 2, "Name": "b", "NodeType": "COMP", "runtime": 2}]})");
        const auto p = importing::importProfile(path);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().message().find("$.workload_graph[1].NodeType: expected an unsigned integer") !=
                     std::string::npos,
                 p.error().message().c_str());
        test::writeFile(path, "{\"workload_graph\": [{\"Id\": 1,\n \"Name\": }]}");
        const auto cut = importing::importProfile(path);
        QVERIFY(!cut.ok());
        QVERIFY2(cut.error().location().ends_with(":2:10"), cut.error().location().c_str());
    }
};

QTEST_GUILESS_MAIN(TestRealChakra)
#include "tst_real_chakra.moc"

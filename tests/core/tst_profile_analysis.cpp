// Analyses of imported profiles that a real trace showed wrong: an NCCL stream idle between collectives is
// not launch-bound (the top finding of a real NCCL trace proposed CUDA graphs for it), while a compute stream
// with the same pattern is.
#include "test_support.h"

#include "import/import.h"
#include "profile/profile_analysis.h"

#include <QTemporaryDir>

using namespace xps;
using profile::Nanos;

namespace {

// A Kineto step: the host launches 12 kernels on `stream` of GPU 0, each 40 us, each launch only after the
// previous kernel ended (60 us gaps); `kernel` names them.
std::string launchPacedStep(const std::string& kernel)
{
    std::string events = R"({"ph":"M","pid":0,"name":"process_name","args":{"name":"GPU 0"}},)"
                         R"({"ph":"M","pid":100,"name":"process_name","args":{"name":"python"}})";
    for (int k = 0; k < 12; ++k) {
        const int launch = k * 100, start = launch + 10;
        events += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":)" +
                  std::to_string(launch) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(k + 1) +
                  "}}";
        events += R"(,{"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":20,"ts":)" +
                  std::to_string(start) + R"(,"dur":40,"args":{"correlation":)" + std::to_string(k + 1) +
                  "}}";
    }
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

profile::ProfileAnalysis analyze(const std::string& json)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("step.pt.trace.json")).toStdString();
    test::writeFile(path, json);
    auto p = importing::importProfile(path);
    if (!p.ok())
        qFatal("%s", p.error().toString().c_str());
    return profile::analyzeProfile(*p);
}

bool hasFinding(const profile::ProfileAnalysis& a, const std::string& kind)
{
    for (const profile::ProfileFinding& f : a.findings)
        if (f.kind == kind)
            return true;
    return false;
}

} // namespace

class TestProfileAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void aComputeStreamPacedByItsLaunchesIsLaunchBound()
    {
        const profile::ProfileAnalysis a = analyze(launchPacedStep("sgemm_128x64"));
        QCOMPARE(a.streams.size(), std::size_t(1));
        QVERIFY(!a.streams[0].communication);
        QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(11));
        QCOMPARE(a.streams[0].launchIdle, Nanos(11 * 60'000));
        QVERIFY(hasFinding(a, "launch-bound"));
    }

    void anNcclStreamIdleBetweenCollectivesIsNotLaunchBound()
    {
        const profile::ProfileAnalysis a = analyze(launchPacedStep("ncclKernel_AllReduce_RING_LL_Sum_float"));
        QCOMPARE(a.streams.size(), std::size_t(1));
        QVERIFY(a.streams[0].communication);
        QCOMPARE(a.streams[0].idle, Nanos(11 * 60'000));
        QCOMPARE(a.streams[0].launchBoundGaps, std::uint64_t(0));
        QCOMPARE(a.streams[0].launchIdle, Nanos(0));
        QVERIFY(!hasFinding(a, "launch-bound"));
    }
};

QTEST_GUILESS_MAIN(TestProfileAnalysis)
#include "tst_profile_analysis.moc"

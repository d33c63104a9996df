// What our Chrome export says beyond Chrome JSON, read back: a replay's critical path
// (import/critical_path_semantics.h) onto the file's slices, cut by a window as any path, and a malformed or
// hostile member located and ignored (the profile then has HTA's model), never a crash; a declared timebase
// (a replay's cycles, written in picoseconds) read to the tick, or said why not; an export whose leading
// semantics are long still opens as Chrome JSON. The round trip from a real replay is tst_chrome_export's.
#include "core/import_test_support.h"

#include "profile/critical_path.h"

#include <string>

using namespace xps;
using namespace xps::test::imported;
using profile::PathSegmentKind;
using profile::Profile;

namespace {

// A kernel on one row, a copy on another, then a stretch on no slice: what an export writes of a replay.
std::string withPath(const std::string& criticalPath)
{
    return R"({"traceEvents": [
        {"ph": "M", "pid": 0, "tid": 1, "name": "thread_name", "args": {"name": "MXU"}},
        {"ph": "M", "pid": 0, "tid": 2, "name": "thread_name", "args": {"name": "DMA engine 0"}},
        {"ph": "X", "pid": 0, "tid": 1, "ts": 0, "dur": 0.010, "name": "MXU", "cat": "kernel"},
        {"ph": "X", "pid": 0, "tid": 1, "ts": 0, "dur": 0.004, "name": "MXU", "cat": "kernel"},
        {"ph": "X", "pid": 0, "tid": 2, "ts": 0.010, "dur": 0.020, "name": "DMA HBM->VMEM", "cat": "dma"}],
        "xpushark_critical_path": )" +
           criticalPath + "}";
}

const char* const kPath = R"({"kinds": ["host", "kernel", "memcpy"], "tracks": [[0, 2], [0, 1]],
    "segments": [1, 0, 10, 1, 0, 10,   2, 10, 30, 0, 10, 20,   1, 30, 35, -1, 0, 0]})";

std::string repairsOf(const Profile& p)
{
    std::string text;
    for (const profile::ImportRepair& r : p.repairs)
        text += r.text() + "\n";
    return text;
}

} // namespace

class TestImportCriticalPath : public QObject
{
    Q_OBJECT

private slots:
    void theExportedPathIsTheProfiles()
    {
        QTemporaryDir dir;
        const Profile p = importText(dir, "path.json", withPath(kPath));
        QVERIFY2(p.repairs.empty(), repairsOf(p).c_str());
        QVERIFY(p.exactCriticalPath);
        const profile::CriticalPath path = profile::computeCriticalPath(p);
        QCOMPARE(path.length, profile::Ticks{35});
        QCOMPARE(path.segments.size(), std::size_t{3});
        QCOMPARE(path.byKind[static_cast<std::size_t>(PathSegmentKind::Kernel)], profile::Ticks{15});
        QCOMPARE(path.byKind[static_cast<std::size_t>(PathSegmentKind::Memcpy)], profile::Ticks{20});
        // Each on its slice, found by row, start and duration: the 10 ns kernel, not the 4 ns one that
        // starts with it.
        QVERIFY(path.segments[0].slice.valid() && path.segments[1].slice.valid());
        QCOMPARE(p.slice(path.segments[0].slice).duration, profile::Ticks{10});
        QCOMPARE(p.string(p.types[p.slice(path.segments[1].slice).type].name), std::string("DMA HBM->VMEM"));
        QVERIFY(!path.segments[2].slice.valid());
        // Not HTA's model of the file, which has no 5 ns past the copy.
        QVERIFY(profile::htaCriticalPath(p).length < path.length);

        // A window cuts it at its edges.
        const profile::CriticalPath cut = profile::computeCriticalPath(p, {5, 20});
        QCOMPARE(cut.length, profile::Ticks{15});
        QCOMPARE(cut.segments.size(), std::size_t{2});
        QCOMPARE(cut.segments.front().start, profile::Ticks{5});
        QCOMPARE(cut.segments.back().end, profile::Ticks{20});
        QCOMPARE(cut.windowStart, profile::Ticks{5});
    }

    void aSliceNotInTheFileLeavesItsSegmentOnNone()
    {
        // The copy's duration edited: the path is kept, that segment on no slice, and the profile says so.
        QTemporaryDir dir;
        std::string edited = kPath;
        edited.replace(edited.find("10, 20,"), 7, "10, 21,");
        const Profile p = importText(dir, "edited.json", withPath(edited));
        QVERIFY(p.exactCriticalPath);
        QVERIFY(!p.exactCriticalPath->segments[1].slice.valid());
        QCOMPARE(p.repairs.size(), std::size_t{1});
        QCOMPARE(p.repairs[0].count, std::uint64_t{1});
        QVERIFY2(repairsOf(p).find("kept on no slice") != std::string::npos, repairsOf(p).c_str());
    }

    void aMalformedPathIsLocatedAndHtasModelShown_data()
    {
        QTest::addColumn<QString>("member");
        QTest::addColumn<QString>("where");
        const auto row = [](const char* name, const char* member, const char* where) {
            QTest::newRow(name) << QString::fromUtf8(member) << QString::fromUtf8(where);
        };
        row("not an object", R"([1, 2])", "$.xpushark_critical_path: expected an object");
        row("unknown kind", R"({"kinds": ["kernal"], "tracks": [], "segments": []})",
            "$.xpushark_critical_path.kinds[0]: expected a segment kind name");
        row("no tracks", R"({"kinds": [], "segments": []})",
            "$.xpushark_critical_path.tracks: expected an array");
        row("a bad track", R"({"kinds": [], "tracks": [[0]], "segments": []})", "critical_path.tracks[0]");
        row("five fields", R"({"kinds": ["kernel"], "tracks": [], "segments": [0, 0, 1, -1, 0]})",
            "six a segment");
        row("a fraction", R"({"kinds": ["kernel"], "tracks": [], "segments": [0, 0, 1.5, -1, 0, 0]})",
            "critical_path.segments[2]: expected an integer");
        row("kind out of range", R"({"kinds": ["kernel"], "tracks": [], "segments": [1, 0, 1, -1, 0, 0]})",
            "segments[0]: expected an index into kinds");
        row("track out of range", R"({"kinds": ["kernel"], "tracks": [], "segments": [0, 0, 1, 0, 0, 0]})",
            "segments[0]: expected -1 or an index into tracks");
        row("backwards",
            R"({"kinds": ["kernel"], "tracks": [], "segments": [0, 5, 9, -1, 0, 0, 0, 4, 6, -1, 0, 0]})",
            "segments[6]: expected a segment that starts after the one before it");
        row("ends before it starts",
            R"({"kinds": ["kernel"], "tracks": [], "segments": [0, 9, 5, -1, 0, 0]})",
            "segments[0]: expected a segment that starts after");
        row("past the time limit",
            R"({"kinds": ["kernel"], "tracks": [], "segments": [0, -9223372036854775808, 9223372036854775807, -1, 0, 0]})",
            "segments[0]: expected times within +-2^62 ticks");
        row("huge index",
            R"({"kinds": ["kernel"], "tracks": [], "segments": [9223372036854775807, 0, 1, -1, 0, 0]})",
            "expected an index into kinds");
    }
    void aMalformedPathIsLocatedAndHtasModelShown()
    {
        QFETCH(QString, member);
        QFETCH(QString, where);
        QTemporaryDir dir;
        const Profile p = importText(dir, "bad.json", withPath(member.toStdString()));
        QVERIFY(!p.exactCriticalPath);
        QCOMPARE(p.repairs.size(), std::size_t{1});
        const std::string text = repairsOf(p);
        QVERIFY2(text.find("critical path was ignored") != std::string::npos, text.c_str());
        QVERIFY2(text.find(where.toStdString()) != std::string::npos, text.c_str());
        // The file's slices all there, and its path HTA's model.
        QCOMPARE(p.slices.size(), std::size_t{3});
        QCOMPARE(profile::computeCriticalPath(p).length, profile::htaCriticalPath(p).length);
    }

    void aDeclaredTimebaseIsReadToTheTick()
    {
        // A replay's export at 1.05 GHz: cycles 1 and 3 in picoseconds (952.381 and 2857.143 ps, written
        // to the picosecond); read back in cycles, exactly.
        QTemporaryDir dir;
        const Profile p = importText(dir, "cycles.json", R"({"xpushark_semantics": {"version": 1,
            "timebase": [20, 21]}, "traceEvents": [
            {"ph": "X", "pid": 0, "tid": 1, "ts": 0.000952, "dur": 0.001905, "name": "MXU"},
            {"ph": "X", "pid": 0, "tid": 1, "ts": 0.002857, "dur": 0.000953, "name": "MXU"}],
            "xpushark_critical_path": {"kinds": ["kernel"], "tracks": [[0, 1]],
                                       "segments": [0, 1, 3, 0, 1, 2,   0, 3, 4, 0, 3, 1]}})");
        QVERIFY2(p.repairs.empty(), repairsOf(p).c_str());
        QCOMPARE(p.timebase, (profile::Timebase{20, 21}));
        QCOMPARE(p.slices.size(), std::size_t{2});
        QCOMPARE(p.slices[0].start, profile::Ticks{1});
        QCOMPARE(p.slices[0].duration, profile::Ticks{2});
        QCOMPARE(p.slices[1].start, profile::Ticks{3});
        QCOMPARE(p.slices[1].duration, profile::Ticks{1});
        // The path in the same ticks, each segment on its slice.
        QVERIFY(p.exactCriticalPath);
        QCOMPARE(p.exactCriticalPath->length, profile::Ticks{3});
        QCOMPARE(p.exactCriticalPath->segments[1].slice, profile::SliceRow(1));
    }

    void aTimebaseThatCannotBeTakenIsSaid_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("said");
        QTest::newRow("zero") << QStringLiteral(R"({"xpushark_semantics": {"timebase": [0, 1]},
            "traceEvents": [{"ph": "X", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "name": "k"}]})")
                              << QStringLiteral(
                                     "a malformed timebase was ignored: times were read as nanoseconds; "
                                     "the first at $.xpushark_semantics.timebase: expected");
        QTest::newRow("a string") << QStringLiteral(R"({"xpushark_semantics": {"timebase": "20/21"},
            "traceEvents": [{"ph": "X", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "name": "k"}]})")
                                  << QStringLiteral("a malformed timebase was ignored");
        QTest::newRow("after the events")
            << QStringLiteral(R"({"traceEvents": [
            {"ph": "X", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "name": "k"}],
            "xpushark_semantics": {"timebase": [20, 21]}})")
            << QStringLiteral("a timebase declared after the events was ignored");
    }
    void aTimebaseThatCannotBeTakenIsSaid()
    {
        QFETCH(QString, json);
        QFETCH(QString, said);
        QTemporaryDir dir;
        const Profile p = importText(dir, "timebase.json", json.toStdString());
        QVERIFY(p.timebase.isNanoseconds());
        QCOMPARE(p.slices.size(), std::size_t{1});
        QCOMPARE(p.slices[0].start, profile::Ticks{1000}); // read as the microseconds they are
        QVERIFY2(repairsOf(p).find(said.toStdString()) != std::string::npos, repairsOf(p).c_str());
    }

    void anExportWhoseSemanticsFillTheFirst64KiBOpensAsChrome()
    {
        // The export writes its semantics before the events; a profile of many reclassified types (an
        // XSpace's thousands of XLA ops) pushes "traceEvents" past the 64 KiB the format is told by.
        std::string classes;
        for (int k = 0; k < 2000; ++k)
            classes +=
                std::string(k ? "," : "") + "[\"fusion." + std::to_string(k) + "\", \"XLA Ops\", \"kernel\"]";
        const std::string json =
            R"({"displayTimeUnit": "ns", "xpushark_semantics": {"version": 1, "classes": [)" + classes +
            R"(]}, "traceEvents": [
            {"ph": "X", "pid": 0, "tid": 1, "ts": 0, "dur": 1, "name": "fusion.7", "cat": "XLA Ops"}]})";
        QVERIFY(json.find("traceEvents") > 64 * 1024);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("many_types.json")).toStdString();
        test::writeFile(path, json);
        auto p = importing::importProfile(path);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().toString().c_str());
        QCOMPARE(p->slices.size(), std::size_t{1});
        QCOMPARE(p->classOf(p->slices[0]), profile::SliceClass::Kernel);
    }
};

QTEST_GUILESS_MAIN(TestImportCriticalPath)
#include "tst_import_critical_path.moc"

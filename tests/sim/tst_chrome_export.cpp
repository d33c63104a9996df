// The one Chrome/Perfetto exporter on replays: a replay is written as its profile plus the rows
// only a replay has, and the file re-imports as the profile the replay is: the same tracks and slices on
// them, the same flows, the same analyses; the bundle and stall rows hold every issue and every stall.
#include "sim/analysis_test_support.h"

#include "analysis/replay_profile.h"
#include "export/chrome_trace.h"
#include "import/import.h"
#include "profile/profile_analysis.h"
#include "trace/trace_io.h"
#include "util/text.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stop_token>

using namespace xps;

namespace {

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

test::Analyzed analyzedSample(const std::string& name)
{
    auto loaded = trace::loadTrace(test::sourceDir() + "/resources/samples/" + name + ".xtrace.json");
    if (!loaded.ok())
        qFatal("%s", loaded.error().toString().c_str());
    return test::analyze(std::move(loaded).value());
}

// (pid, tid, name, start, end) of every slice not on a bundles or stalls row, in the profile's ticks (a
// replay's profile counts cycles, and so does its re-import): what the profile part of an export holds,
// whatever order the importer put tracks in.
using SliceKey = std::tuple<std::int64_t, std::int64_t, std::string, profile::Ticks, profile::Ticks>;
std::vector<SliceKey> profileSlices(const profile::Profile& p)
{
    std::vector<SliceKey> out;
    for (const profile::Slice& s : p.slices) {
        const profile::Track& t = p.track(s.track());
        if (t.tid == analysis::replay_tid::kBundles || t.tid == analysis::replay_tid::kStalls)
            continue;
        out.emplace_back(t.pid, t.tid, p.nameOf(s), s.start, s.end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Where two such lists first differ (the export writes cycles to the picosecond, and the importer, told the
// timebase, reads them back to the cycle), or "".
std::string sliceDifference(const std::vector<SliceKey>& a, const std::vector<SliceKey>& b)
{
    if (a.size() != b.size())
        return std::to_string(a.size()) + " slices vs " + std::to_string(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto& [pid, tid, name, start, end] = a[i];
        const auto& [pid2, tid2, name2, start2, end2] = b[i];
        if (pid != pid2 || tid != tid2 || name != name2 || start != start2 || end != end2)
            return name + " " + std::to_string(start) + ".." + std::to_string(end) + " on " +
                   std::to_string(pid) + "/" + std::to_string(tid) + " vs " + name2 + " " +
                   std::to_string(start2) + ".." + std::to_string(end2) + " on " + std::to_string(pid2) +
                   "/" + std::to_string(tid2);
    }
    return "";
}

} // namespace

class TestChromeExport : public QObject
{
    Q_OBJECT

private slots:
    void aReplayReimportsAsItsProfile_data()
    {
        QTest::addColumn<QString>("sample");
        for (const char* s : {"matmul_naive", "allgather_tuned", "decode_naive"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }
    void aReplayReimportsAsItsProfile()
    {
        QFETCH(QString, sample);
        const test::Analyzed a = analyzedSample(sample.toStdString());
        // The profile the export writes, with the replay's critical path (which the file carries).
        const profile::Profile original =
            analysis::replayAsProfile(*a.view, sample.toStdString(), a.analyses.criticalPath);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("replay.json")).toStdString();
        const Status written = exporting::writeReplayChromeTrace(*a.view, sample.toStdString(), path, {},
                                                                 &a.analyses.criticalPath);
        QVERIFY2(written.ok(), written ? "" : written.error().toString().c_str());

        auto again = importing::importProfile(path);
        QVERIFY2(again.ok(), again ? "" : again.error().toString().c_str());
        const profile::Profile& p = *again;
        QVERIFY2(p.repairs.empty(), p.repairs.empty() ? "" : p.repairs.front().text().c_str());
        // The profile's slices, in the replay's cycles, at the same cycles on the same rows, and its flows.
        QVERIFY(!original.timebase.isNanoseconds());
        QCOMPARE(p.timebase, original.timebase);
        const std::string difference = sliceDifference(profileSlices(p), profileSlices(original));
        QVERIFY2(difference.empty(), difference.c_str());
        QCOMPARE(p.flows.size(), original.flows.size());
        // Every issue on the bundles row, every stall on the stalls row.
        std::size_t issues = 0, stalls = 0;
        const events::BundleSnapshot bundles = a.replayed->store.bundles();
        for (std::size_t i = 0; i < bundles.size(); ++i)
            stalls += bundles[i].stallCycles > 0;
        for (const profile::Slice& s : p.slices) {
            const profile::Track& t = p.track(s.track());
            issues += t.tid == analysis::replay_tid::kBundles;
            if (t.tid == analysis::replay_tid::kBundles || t.tid == analysis::replay_tid::kStalls) {
                QVERIFY(t.device); // the semantics say so: a device's rows, neither compute nor copies
                QCOMPARE(p.classOf(s), profile::SliceClass::Other);
            }
            // One-cycle bundles back to back, each in its own cycle: none nested under a neighbour (read
            // in nanoseconds, two cycles of 0.95 ns could share one and draw a second row).
            if (t.tid == analysis::replay_tid::kBundles)
                QCOMPARE(s.depth(), 0u);
        }
        QCOMPARE(issues, bundles.size());
        std::size_t stallSlices = 0;
        for (const profile::Slice& s : p.slices)
            stallSlices += p.track(s.track()).tid == analysis::replay_tid::kStalls;
        QCOMPARE(stallSlices, stalls);
        // The analyses of the re-import are the replay's, to the cycle: those rows add nothing to them.
        const profile::ProfileAnalysis x = profile::analyzeProfile(p), y = profile::analyzeProfile(original);
        QCOMPARE(x.devices.size(), y.devices.size());
        for (std::size_t d = 0; d < x.devices.size(); ++d) {
            QCOMPARE(x.devices[d].busy, y.devices[d].busy);
            QCOMPARE(x.devices[d].compute, y.devices[d].compute);
            QCOMPARE(x.devices[d].communication, y.devices[d].communication);
            QCOMPARE(x.devices[d].memcpy, y.devices[d].memcpy);
            QCOMPARE(x.devices[d].transferBytes, y.devices[d].transferBytes);
        }
        // Its operations are the replay's profile's: the bundle and stall rows are detail rows
        // (profile::Track::detail), not an operation per pc and stall reason.
        const auto callsByName = [](const profile::Profile& q, const profile::ProfileAnalysis& r) {
            std::map<std::string, std::uint64_t> calls;
            for (const profile::OpStats& o : r.ops)
                calls[q.string(q.types[o.type].name)] += o.count;
            return calls;
        };
        QCOMPARE(x.ops.size(), y.ops.size());
        QCOMPARE(callsByName(p, x), callsByName(original, y));
        for (const profile::Track& t : p.tracks)
            QCOMPARE(t.detail,
                     t.kind == profile::TrackKind::Thread &&
                         (t.tid == analysis::replay_tid::kBundles || t.tid == analysis::replay_tid::kStalls));
        // The replay's critical path, read back: segment by segment the same kind and cycles, on the same
        // slice (its row, name and start).
        QVERIFY(p.exactCriticalPath && original.exactCriticalPath);
        const profile::CriticalPath& back = x.criticalPath;
        const profile::CriticalPath& replayed = y.criticalPath;
        QCOMPARE(back.segments.size(), a.analyses.criticalPath.segments.size());
        QCOMPARE(back.segments.size(), replayed.segments.size());
        QCOMPARE(back.length, replayed.length);
        for (std::size_t k = 0; k < back.segments.size(); ++k) {
            const profile::PathSegment &b = back.segments[k], &r = replayed.segments[k];
            QCOMPARE(b.kind, r.kind);
            QCOMPARE(b.start, r.start);
            QCOMPARE(b.end, r.end);
            QCOMPARE(b.slice.valid(), r.slice.valid());
            // A core's wait on the path is on its chip's wait slice, a DMA stretch on a DMA (allgather: four
            // chips, each with its own rows). A wait that took no cycle has no slice to be on.
            if (r.kind == profile::PathSegmentKind::Sync && r.end > r.start) {
                QVERIFY(r.slice.valid());
                QCOMPARE(original.track(original.slice(r.slice).track()).name, std::string("sync waits"));
            } else if (r.kind == profile::PathSegmentKind::Memcpy ||
                       r.kind == profile::PathSegmentKind::Communication) {
                QVERIFY(r.slice.valid());
                QCOMPARE(original.categoryOf(original.slice(r.slice)), std::string("dma"));
            }
            if (!r.slice.valid())
                continue;
            const profile::Slice &bs = p.slice(b.slice), &rs = original.slice(r.slice);
            QCOMPARE(p.track(bs.track()).pid, original.track(rs.track()).pid);
            QCOMPARE(p.track(bs.track()).tid, original.track(rs.track()).tid);
            QCOMPARE(p.nameOf(bs), original.nameOf(rs));
            QCOMPARE(bs.start, rs.start);
        }
        // HTA's model of the file would say another length (on decode_naive 49,332 ns against the replay's
        // 50,620 when the file was read in nanoseconds): what the re-import showed before the export
        // carried the path.
        QVERIFY(profile::htaCriticalPath(p).length != back.length);
    }

    void bundleRowsAreExactInCyclesAndDmasKeepTheirFields()
    {
        // One chip at 1050 MHz: one-cycle bundles one cycle apart must not overlap on their row, which
        // nanoseconds rounded per cycle would make them do (two cycles in one nanosecond).
        const test::Analyzed a = analyzedSample("matmul_naive");
        const double mhz = a.replayed->trace.machine.clockMhz;
        QVERIFY(mhz > 1000);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("replay.json")).toStdString();
        QVERIFY(exporting::writeReplayChromeTrace(*a.view, "matmul_naive", path).ok());
        const nlohmann::json doc = readJson(path);
        std::map<std::int64_t, std::string> threads; // of chip 0
        std::vector<std::pair<double, double>> bundleRow;
        std::map<std::uint32_t, events::DmaRecord> dmas;
        for (const events::DmaRecord& d : a.replayed->store.dmas())
            dmas[d.id] = d;
        std::size_t dmaSlices = 0;
        for (const nlohmann::json& e : doc["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 0)
                threads[e["tid"].get<std::int64_t>()] = e["args"]["name"];
            if (e["ph"] != "X")
                continue;
            if (e["tid"] == analysis::replay_tid::kBundles)
                bundleRow.push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
            if (e.value("cat", "") == "dma") {
                ++dmaSlices;
                const events::DmaRecord& d = dmas.at(e["args"]["dma"].get<std::uint32_t>());
                QCOMPARE(e["args"]["src"].get<std::string>(), text::hex(d.srcAddress));
                QCOMPARE(e["args"]["dst"].get<std::string>(), text::hex(d.dstAddress));
                QCOMPARE(e["args"]["issued_at_cycle"].get<std::uint64_t>(), d.issue);
                QCOMPARE(e["args"]["bytes"].get<std::uint64_t>(), d.bytes);
                QCOMPARE(e["args"]["pc"].get<std::uint32_t>(), d.pc);
            }
        }
        QCOMPARE(dmaSlices, dmas.size());
        QCOMPARE(threads[analysis::replay_tid::kRegions], std::string("regions"));
        QCOMPARE(threads[analysis::replay_tid::kBundles], std::string("bundles"));
        QCOMPARE(threads[analysis::replay_tid::kStalls], std::string("stalls"));
        QCOMPARE(threads[analysis::replay_tid::kFirstEngine], std::string("DMA engine 0"));
        QCOMPARE(bundleRow.size(), a.replayed->store.bundles().size());
        const events::BundleSnapshot bundles = a.replayed->store.bundles();
        for (std::size_t i = 0; i < bundleRow.size(); ++i) {
            QVERIFY(std::abs(bundleRow[i].first - static_cast<double>(bundles[i].cycle) / mhz) < 1e-4);
            if (i > 0)
                QVERIFY2(bundleRow[i].first >= bundleRow[i - 1].second - 1e-9, std::to_string(i).c_str());
        }
    }

    void aChipThatRanOnlyScalarCodeStillHasItsProcess()
    {
        // No unit the profile draws, no DMA, no region: the chip's process comes from the bundle rows.
        auto r = test::replaySource("    smov s1, 1\n    sadd s1, s1, s1\n    halt\n");
        QVERIFY(!r->result.fault);
        const analysis::ReplayView view{r->trace, r->store, r->result.totalCycles, r->result.chips};
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("scalar.json")).toStdString();
        QVERIFY(exporting::writeReplayChromeTrace(view, "scalar", path).ok());
        const nlohmann::json doc = readJson(path);
        std::set<std::string> names;
        std::size_t issues = 0;
        for (const nlohmann::json& e : doc["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "process_name")
                names.insert(e["args"]["name"].get<std::string>());
            issues += e["ph"] == "X" && e.value("cat", "") == "bundle";
        }
        QCOMPARE(names, std::set<std::string>{"chip 0"});
        QCOMPARE(issues, r->store.bundles().size());
        auto again = importing::importProfile(path);
        QVERIFY(again.ok());
        QCOMPARE(again->slices.size(), issues);
    }

    void progressGrowsToTheEndAndAStopLeavesTheOldFile()
    {
        const test::Analyzed a = analyzedSample("matmul_naive");
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("replay.json")).toStdString();
        std::vector<double> seen;
        exporting::ExportControl control;
        control.progress = [&](double f) { seen.push_back(f); };
        QVERIFY(exporting::writeReplayChromeTrace(*a.view, "m", path, control).ok());
        QVERIFY(seen.size() >= 2); // tens of thousands of events, reported every 4,096
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(seen.back() > 0.9 && seen.back() <= 1.0);
        const std::string before = test::readFile(path);

        // A stop while the file is written: the export says so, the earlier file stays as it was and no
        // temporary file is left beside it.
        std::stop_source stop;
        control.stop = stop.get_token();
        control.progress = [&](double f) {
            if (f > 0.3)
                stop.request_stop();
        };
        const Status s = exporting::writeReplayChromeTrace(*a.view, "m", path, control);
        QVERIFY(!s.ok());
        QVERIFY(s.error().toString().find(exporting::kCancelledMessage) != std::string::npos);
        QCOMPARE(test::readFile(path), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
        // Stopped before it began (while the replay is made a profile): the same.
        const Status early = exporting::writeReplayChromeTrace(
            *a.view, "m", dir.filePath(QStringLiteral("b.json")).toStdString(), control);
        QVERIFY(!early.ok());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
    }

    void anUnwritableFileIsAnErrorNamingIt()
    {
        const test::Analyzed a = analyzedSample("matmul_naive");
        const Status s = exporting::writeReplayChromeTrace(*a.view, "m", "/nonexistent-dir/out.json");
        QVERIFY(!s.ok());
        QVERIFY(s.error().toString().find("/nonexistent-dir/out.json") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestChromeExport)
#include "tst_chrome_export.moc"

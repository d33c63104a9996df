// Analyses on traces with known answers: the timeline's level of detail against the events, the critical
// path's nodes and its composition against utilisation, a replay seen as a profile, a buffer's live range.
// The proposal rules and their measured changes are tst_suggestion_rules.
#include "sim/analysis_test_support.h"

#include "analysis/activity_lanes.h"
#include "analysis/analyze.h"
#include "analysis/replay_profile.h"
#include "analysis/unit_intervals.h"
#include "profile/profile_analysis.h"
#include "report/analysis_json.h"
#include "suggest/propose.h"
#include "suggest/transform.h"
#include "trace/trace_io.h"
#include "what_if.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

using namespace xps;
using test::analyze;
using test::Analyzed;
using test::findKind;
using test::issueCycleOf;
using test::latePrefetch;

class TestAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void timelineLevelOfDetailMatchesTheEvents()
    {
        // A loop long enough that the lanes' bins coarsen, with a DMA and a wait per iteration.
        const std::string source = test::readFile(test::sourceDir() + "/tests/data/dma_wait_loop.xasm");
        const auto r = test::replaySource(source);
        QVERIFY(!r->result.fault);
        analysis::ActivityLanes lanes(r->trace);
        lanes.ingest(r->store);
        const std::uint64_t end = lanes.endCycle();
        const std::uint64_t perBin = lanes.cyclesPerBin();
        QVERIFY2(end / perBin > 4096, "the bins must have coarsened for this test to mean anything");

        int checked = 0;
        for (std::size_t lane = 0; lane < lanes.lanes().size(); ++lane) {
            const analysis::LaneInfo& info = lanes.lanes()[lane];
            const bool wanted = (info.kind == analysis::LaneKind::Unit && info.index == 0) ||
                                info.kind == analysis::LaneKind::DmaEngine ||
                                info.kind == analysis::LaneKind::SyncWait;
            if (!wanted || !lanes.hasActivity(lane))
                continue;
            ++checked;
            // A window not aligned to bins or columns; 400 columns of it from the bins (level of detail)
            // against 4,000 exact columns (each under one bin wide) summed ten at a time.
            const std::uint64_t from = end / 3 + 7, to = from + end / 2;
            constexpr int kCoarse = 400, kFine = 4000;
            std::vector<double> lod, exact;
            lanes.columnTotals(lane, from, to, kCoarse, lod);
            lanes.columnTotals(lane, from, to, kFine, exact, std::size_t{1} << 40);
            QVERIFY(static_cast<double>(to - from) / kCoarse / static_cast<double>(perBin) >=
                    analysis::ActivityLanes::kBinsPerColumnForLevelOfDetail);
            QVERIFY(static_cast<double>(to - from) / kFine / static_cast<double>(perBin) <
                    analysis::ActivityLanes::kBinsPerColumnForLevelOfDetail);
            const int categories = info.categories;
            double lodTotal = 0, exactTotal = 0;
            for (int column = 0; column < kCoarse; ++column)
                for (int c = 0; c < categories; ++c) {
                    double fine = 0;
                    for (int k = 0; k < kFine / kCoarse; ++k)
                        fine += exact[static_cast<std::size_t>((column * (kFine / kCoarse) + k) * categories +
                                                               c)];
                    const double coarse = lod[static_cast<std::size_t>(column * categories + c)];
                    lodTotal += coarse;
                    exactTotal += fine;
                    // A column's edges cut at most one bin each, which holds at most one bin of busy cycles.
                    QVERIFY2(std::abs(coarse - fine) <= 2.0 * static_cast<double>(perBin) + 1e-6,
                             qPrintable(QStringLiteral("lane %1 column %2: bins %3, events %4")
                                            .arg(lane)
                                            .arg(column)
                                            .arg(coarse)
                                            .arg(fine)));
                }
            QVERIFY(exactTotal > 0);
            // Over the whole window the two agree up to the two partial bins at its ends.
            QVERIFY2(
                std::abs(lodTotal - exactTotal) <= 2.0 * static_cast<double>(perBin) + exactTotal * 1e-5,
                qPrintable(
                    QStringLiteral("lane %1: bins %2, events %3").arg(lane).arg(lodTotal).arg(exactTotal)));
        }
        QCOMPARE(checked, 3);
    }

    void criticalNodesAreWhatThePathSays()
    {
        // onCriticalPath answers from a merged per-chip index; here every bundle of a 4-chip replay is
        // checked against the definition read off the path itself: inside a compute run of its chip, or the
        // start or end node of a segment. Every segment's nodes are on the chip it names (the start-up
        // segment of a chip once began at bundle 0 of chip 0).
        auto trace = trace::loadTrace(test::sourceDir() + "/resources/samples/allgather_naive.xtrace.json");
        QVERIFY(trace.ok());
        Analyzed a = analyze(std::move(trace).value());
        analysis::DependencyGraph graph(*a.view, a.analyses.dma);
        const analysis::CriticalPath& path = a.analyses.criticalPath;
        QVERIFY(path.segments.size() > 10);
        std::set<std::uint64_t> endpoints;
        std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> compute(
            a.replayed->trace.chips.size());
        for (const analysis::PathSegment& s : path.segments) {
            for (const analysis::NodeRef n : {s.begin, s.end})
                if (n.kind == analysis::NodeRef::Kind::Bundle) {
                    endpoints.insert(n.index);
                    QCOMPARE(a.replayed->store.bundles()[n.index].chip, s.chip);
                }
            if (s.kind == analysis::PathKind::Compute)
                compute[s.chip.value].push_back({s.from, s.to});
        }
        const events::BundleSnapshot bundles = a.replayed->store.bundles();
        std::size_t critical = 0;
        for (std::size_t i = 0; i < bundles.size(); ++i) {
            const events::BundleIssue e = bundles[i];
            bool expected = endpoints.count(i) > 0;
            for (const auto& [from, to] : compute[e.chip.value])
                expected = expected || (from <= e.cycle && e.cycle <= to);
            QCOMPARE(graph.onCriticalPath({analysis::NodeRef::Kind::Bundle, i}), expected);
            critical += expected;
        }
        QVERIFY(critical > 0 && critical < bundles.size()); // the path visits some bundles, not all
    }

    void criticalPathCompositionAgreesWithUtilisation()
    {
        // matmul_tuned keeps the MXU busy 91% of the run: its critical path is compute (a wait on the MXU's
        // pipeline or result FIFO is compute), not "latency" (it once read compute 0.4%, latency 97.9%).
        // matmul_naive waits on its DMAs: DMA leads its path, and its MXU is busy 57%.
        auto tuned = trace::loadTrace(test::sourceDir() + "/resources/samples/matmul_tuned.xtrace.json");
        auto naive = trace::loadTrace(test::sourceDir() + "/resources/samples/matmul_naive.xtrace.json");
        QVERIFY(tuned.ok() && naive.ok());
        const Analyzed t = analyze(std::move(tuned).value()), n = analyze(std::move(naive).value());
        QVERIFY(t.analyses.summary.mxuUtilization > 0.9);
        const analysis::CriticalPath& tp = t.analyses.criticalPath;
        QVERIFY2(tp.share(analysis::PathKind::Compute) > 0.9,
                 std::to_string(tp.share(analysis::PathKind::Compute)).c_str());
        QVERIFY(tp.share(analysis::PathKind::Latency) < 0.05);
        const analysis::CriticalPath& np = n.analyses.criticalPath;
        QVERIFY(n.analyses.summary.mxuUtilization < 0.65);
        for (const analysis::PathKind k : {analysis::PathKind::Compute, analysis::PathKind::Latency,
                                           analysis::PathKind::Structural, analysis::PathKind::Sync})
            QVERIFY2(np.share(analysis::PathKind::Dma) > np.share(k),
                     std::string(analysis::pathKindName(k)).c_str());
    }

    void aWaitOnAnotherChipIsOnItsWaitSliceInTheProfile()
    {
        // Chip 1 waits for a flag chip 0 adds over ICI: the replay's path is that wait (sync), and its
        // profile puts the stretch on chip 1's stalled wait, as sync wait time.
        std::string source = ".machine chips=2\n.chip 0\n    smov s1, 1\n";
        for (int k = 0; k < 8; ++k)
            source += "    sadd s1, s1, s1\n";
        source += "    sync.add 1, 1, chip=1\n    halt\n.chip 1\n    sync.wait 1, 1\n    halt\n";
        Analyzed a = analyze(source);
        const analysis::CriticalPath& exact = a.analyses.criticalPath;
        const auto syncCycles =
            static_cast<profile::Ticks>(exact.cycles[static_cast<int>(analysis::PathKind::Sync)]);
        QVERIFY(syncCycles > 1000); // the ICI flag's latency
        const profile::Profile p = analysis::replayAsProfile(*a.view, "sync", exact);
        const profile::CriticalPath path = profile::analyzeProfile(p).criticalPath;
        QCOMPARE(path.byKind[static_cast<int>(profile::PathSegmentKind::Sync)], syncCycles);
        std::size_t onWaits = 0;
        for (const profile::PathSegment& s : path.segments) {
            if (s.kind != profile::PathSegmentKind::Sync || s.end == s.start)
                continue;
            QVERIFY(s.slice.valid());
            const profile::Track& t = p.track(p.slice(s.slice).track());
            QCOMPARE(t.name, std::string("sync waits"));
            QCOMPARE(t.pid, std::int64_t{1});
            QVERIFY(p.slice(s.slice).start <= s.start && s.end <= p.slice(s.slice).end());
            ++onWaits;
        }
        QCOMPARE(onWaits, std::size_t{1});
    }

    void aReplayIsAProfileToo()
    {
        // The naive matmul (one chip: an MXU loop over panels fed by DMAs it waits for) through the profile
        // model: every DMA, stalled wait and region is a slice at the replay's times, the unit runs are
        // exactly the merged busy intervals the replay's own unit-interval analysis finds, and the profile's
        // generic critical path puts on DMAs the share the replay's exact one does.
        auto loaded = trace::loadTrace(test::sourceDir() + "/resources/samples/matmul_naive.xtrace.json");
        QVERIFY(loaded.ok());
        Analyzed a = analyze(std::move(loaded).value());
        const profile::Profile p =
            analysis::replayAsProfile(*a.view, "matmul_naive", a.analyses.criticalPath);
        QCOMPARE(p.format, std::string(profile::kReplayFormat));
        QCOMPARE(p.timebase,
                 profile::Timebase::cyclesAt(a.replayed->trace.machine.clockMhz)); // ticks: cycles
        QVERIFY(p.repairs.empty());
        const auto named = [&](const std::string& name) {
            std::vector<std::uint32_t> out;
            for (std::uint32_t i = 0; i < p.slices.size(); ++i)
                if (p.nameOf(p.slices[i]) == name)
                    out.push_back(i);
            return out;
        };

        // DMAs: one slice each, ending when the last chunk landed, with the bytes the DMA moved.
        std::map<std::uint32_t, events::DmaRecord> dmas; // by id
        for (const events::DmaRecord& d : a.replayed->store.dmas())
            dmas[d.id] = d;
        const auto loads = named("DMA HBM->VMEM"), stores = named("DMA VMEM->HBM");
        QCOMPARE(loads.size() + stores.size(), dmas.size());
        for (const std::uint32_t i : loads) {
            const profile::Slice& s = p.slices[i];
            QCOMPARE(p.classOf(s), profile::SliceClass::Memcpy);
            const events::DmaRecord& d = dmas.at(s.link - 1);
            QCOMPARE(s.end(), static_cast<profile::Ticks>(d.end));
            QVERIFY(s.start <= static_cast<profile::Ticks>(d.start));
            QVERIFY(s.start >= static_cast<profile::Ticks>(d.issue));
            QVERIFY(p.argsOf(profile::SliceRow(i)).find("\"bytes\":" + std::to_string(d.bytes)) !=
                    std::string::npos);
        }
        // Stalled waits, each with a flow from the DMA that ended it.
        std::size_t stalled = 0;
        for (const events::SyncWaitRecord& w : a.replayed->store.syncWaits())
            stalled += w.end > w.start;
        const auto waits = named("sync.wait");
        QCOMPARE(waits.size(), stalled);
        std::size_t waitsEndedByDma = 0;
        for (const profile::Flow& f : p.flows)
            if (p.nameOf(p.slice(f.to)) == "sync.wait" &&
                p.classOf(p.slice(f.from)) == profile::SliceClass::Memcpy) {
                ++waitsEndedByDma;
                QCOMPARE(p.slice(f.from).end(), p.slice(f.to).end());
            }
        QVERIFY(waitsEndedByDma > 0 && waitsEndedByDma <= waits.size());
        // A DMA slice stands for its DMA and the pc that issued it; a region for neither.
        const analysis::ReplayRef dmaRef = analysis::replayRefOf(p, profile::SliceRow(loads[0]));
        QCOMPARE(dmaRef.chip, ChipId(0));
        QVERIFY(dmaRef.dma.has_value() && dmaRef.pc.has_value());
        QCOMPARE(*dmaRef.pc, dmas.at(*dmaRef.dma).pc);
        QCOMPARE(static_cast<profile::Ticks>(dmas.at(*dmaRef.dma).end), p.slices[loads[0]].end());
        const analysis::ReplayRef regionRef = analysis::replayRefOf(p, profile::SliceRow(named("matmul")[0]));
        QVERIFY(!regionRef.dma && !regionRef.pc);
        // Regions, nested as the program nests them.
        QCOMPARE(named("matmul").size(), std::size_t(1));
        QCOMPARE(named("panel").size(), std::size_t(8));
        QCOMPARE(p.slices[named("panel")[0]].depth(), 1u);

        // MXU runs: the MXU units' busy intervals from the bundle events, merged where they touch.
        std::vector<analysis::UnitInterval> busy;
        const events::BundleSnapshot bundles = a.replayed->store.bundles();
        for (const isa::Unit u : {isa::Unit::MxuWeights, isa::Unit::MxuMatmul, isa::Unit::MxuResult})
            for (const analysis::UnitInterval& x :
                 analysis::unitIntervals(a.replayed->trace, bundles, 0, bundles.size(), ChipId(0), u))
                busy.push_back(x);
        std::sort(busy.begin(), busy.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
        std::vector<std::pair<events::Cycle, events::Cycle>> merged;
        for (const analysis::UnitInterval& x : busy)
            if (!merged.empty() && x.start <= merged.back().second)
                merged.back().second = std::max(merged.back().second, x.end);
            else
                merged.emplace_back(x.start, x.end);
        const auto mxu = named("MXU");
        QCOMPARE(mxu.size(), merged.size());
        for (std::size_t k = 0; k < mxu.size(); ++k) {
            // In the replay's cycles, as they are: the profile's timebase says what a cycle is.
            QCOMPARE(p.slices[mxu[k]].start, static_cast<profile::Ticks>(merged[k].first));
            QCOMPARE(p.slices[mxu[k]].end(), static_cast<profile::Ticks>(merged[k].second));
            QCOMPARE(p.classOf(p.slices[mxu[k]]), profile::SliceClass::Kernel);
        }

        // The profile's analyses: the chip is a device, its copies are the DMAs. Its critical path is the
        // replay's own (analysis/replay_critical_path.h), in the profile's kinds: the same cycles in the same
        // segments, the DMA stretches on their DMAs' slices, the core's on the unit runs busy then.
        const profile::ProfileAnalysis pa = profile::analyzeProfile(p);
        QCOMPARE(pa.devices.size(), std::size_t(1));
        QVERIFY(pa.devices[0].memcpy > 0 && pa.devices[0].compute > 0);
        const analysis::CriticalPath& exact = a.analyses.criticalPath;
        QCOMPARE(pa.criticalPath.length, static_cast<profile::Ticks>(exact.total()));
        QCOMPARE(pa.criticalPath.segments.size(), exact.segments.size());
        const auto kind = [](const profile::CriticalPath& path, profile::PathSegmentKind k) {
            return path.byKind[static_cast<int>(k)];
        };
        const auto cycles = [&](analysis::PathKind k) {
            return static_cast<profile::Ticks>(exact.cycles[static_cast<int>(k)]);
        };
        QCOMPARE(kind(pa.criticalPath, profile::PathSegmentKind::Memcpy), cycles(analysis::PathKind::Dma));
        QCOMPARE(kind(pa.criticalPath, profile::PathSegmentKind::Kernel),
                 cycles(analysis::PathKind::Compute) + cycles(analysis::PathKind::Latency) +
                     cycles(analysis::PathKind::Structural) + cycles(analysis::PathKind::Branch));
        QVERIFY(cycles(analysis::PathKind::Dma) > 0 && cycles(analysis::PathKind::Compute) > 0);
        std::size_t onUnitRuns = 0, ofTheCore = 0;
        for (std::size_t k = 0; k < exact.segments.size(); ++k) {
            const analysis::PathSegment& e = exact.segments[k];
            const profile::PathSegment& s = pa.criticalPath.segments[k];
            QCOMPARE(s.start, static_cast<profile::Ticks>(e.from));
            QCOMPARE(s.end, static_cast<profile::Ticks>(e.to));
            if (e.kind == analysis::PathKind::Dma) {
                // The DMA the stretch leads to, by the id its slice links.
                QVERIFY(s.slice.valid());
                QCOMPARE(p.categoryOf(p.slice(s.slice)), std::string("dma"));
                QCOMPARE(std::uint64_t{p.slice(s.slice).link - 1}, e.end.index);
            } else if (++ofTheCore; s.slice.valid()) {
                const profile::Slice& run = p.slice(s.slice);
                QCOMPARE(p.classOf(run), profile::SliceClass::Kernel);
                QVERIFY((run.start <= s.start && s.start < run.end()) ||
                        (s.start <= run.start && run.start < s.end));
                ++onUnitRuns;
            }
        }
        // The rest are stretches of scalar bundles, which no unit run covers (97.9% here are on one).
        QVERIFY2(onUnitRuns * 20 >= ofTheCore * 19,
                 (std::to_string(onUnitRuns) + " of " + std::to_string(ofTheCore)).c_str());
        // A window (analyze --window on the profile) cuts the same path at its edges.
        const auto middle = static_cast<profile::Ticks>(exact.segments.back().to / 2);
        profile::Ticks beforeMiddle = 0;
        for (const analysis::PathSegment& e : exact.segments)
            beforeMiddle += std::max<profile::Ticks>(
                0, std::min<profile::Ticks>(static_cast<profile::Ticks>(e.to), middle) -
                       static_cast<profile::Ticks>(e.from));
        const profile::CriticalPath firstHalf = profile::computeCriticalPath(p, {INT64_MIN, middle});
        QVERIFY(beforeMiddle > 0 && beforeMiddle < pa.criticalPath.length);
        QCOMPARE(firstHalf.length, beforeMiddle);
        QCOMPARE(firstHalf.windowEnd, middle);
        QCOMPARE(firstHalf.segments.back().end, middle);

        // HTA's model of the same profile (what a copy of its Chrome export without the path would get,
        // profile/critical_path.h): the heaviest chain of MXU work and DMAs, where a core's wait on a DMA
        // weighs nothing. So it is shorter than the replay (here 23.1 of 27.4 us) and its DMA share counts
        // the DMAs' own time (47.8%), where the replay's own critical path counts the core's wait on a DMA
        // as DMA time (40.3%): both lead with the DMAs and the MXU.
        const profile::CriticalPath hta = profile::htaCriticalPath(p);
        const profile::Nanos span = p.endTime() - p.startTime();
        QVERIFY(hta.length <= span && hta.length * 5 >= span * 4);
        QCOMPARE(kind(hta, profile::PathSegmentKind::Memcpy) + kind(hta, profile::PathSegmentKind::Kernel) +
                     kind(hta, profile::PathSegmentKind::Idle),
                 hta.length);
        const double profileDma = static_cast<double>(kind(hta, profile::PathSegmentKind::Memcpy)) /
                                  static_cast<double>(hta.length);
        const double replayDma = exact.share(analysis::PathKind::Dma);
        QVERIFY2(profileDma > replayDma && profileDma < replayDma + 0.1,
                 (std::to_string(profileDma) + " vs " + std::to_string(replayDma)).c_str());
        QVERIFY(!pa.findings.empty());
        QCOMPARE(pa.findings[0].kind, std::string("exposed-memcpy"));
        QVERIFY(pa.findings[0].title.find("DMAs on chip 0") != std::string::npos);
    }

    void bufferLiveRange()
    {
        Analyzed a = analyze(latePrefetch(20));
        const analysis::BufferLiveRange* x = nullptr;
        for (const auto& b : a.analyses.vmem.buffers)
            if (b.name == "x")
                x = &b;
        QVERIFY(x);
        QVERIFY(x->accessed);
        QCOMPARE(x->firstAccess, issueCycleOf(*a.replayed, 1)); // the vst
        const events::DmaRecord& d = a.analyses.dma.dmas[0].record;
        QVERIFY(x->lastAccess >= d.start && x->lastAccess <= d.end); // the DMA's read of it
        QCOMPARE(x->writeBytes, std::uint64_t{4096});
        QCOMPARE(x->readBytes, std::uint64_t{4096});
        // y's live range ends with the vld, before the vst starts x's: never both live.
        QCOMPARE(a.analyses.vmem.peakLiveBytes, std::uint64_t{4096});
        QCOMPARE(a.analyses.vmem.capacity, static_cast<std::uint64_t>(a.replayed->trace.machine.vmemBytes));
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"

// The suggestion rules on small hand-written traces and the samples, each with its known answer: two
// serialized DMAs, a prefetch exactly K cycles late, an unbalanced engine, a one-way ring, single-buffered
// loops, a wait for a whole transfer, small tiles, and the tuned matmul as the negative control; every
// measured change keeps outputs bit-identical, the reported gain is the difference of the two replays, and
// a change that breaks a data dependency is caught.
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

#include <map>
#include <set>

using namespace xps;
using test::analyze;
using test::Analyzed;
using test::findKind;
using test::issueCycleOf;
using test::latePrefetch;

class TestSuggestionRules : public QObject
{
    Q_OBJECT

private slots:
    void serializedDmasAreFoundAndHoistingMeasured()
    {
        // Two independent 64 KiB loads, the second issued only after waiting for the first.
        Analyzed a = analyze(test::readFile(test::sourceDir() + "/tests/data/serialized_dmas.xasm"));
        QCOMPARE(a.analyses.dma.serialized.size(), std::size_t{1});
        const analysis::SerializedPair& p = a.analyses.dma.serialized[0];
        QCOMPARE(p.first, 0u);
        QCOMPARE(p.second, 1u);
        QCOMPARE(p.waitPc, 1u);
        QVERIFY(p.overlapCycles > 0);

        // The critical path runs through both DMAs and is almost all DMA time.
        const analysis::CriticalPath& path = a.analyses.criticalPath;
        QCOMPARE(path.total(), issueCycleOf(*a.replayed, 4));
        QVERIFY2(path.share(analysis::PathKind::Dma) > 0.9,
                 std::to_string(path.share(analysis::PathKind::Dma)).c_str());
        analysis::DependencyGraph graph(*a.view, a.analyses.dma);
        QVERIFY(graph.onCriticalPath({analysis::NodeRef::Kind::Dma, 0}));
        QVERIFY(graph.onCriticalPath({analysis::NodeRef::Kind::Dma, 1}));
        const analysis::Subgraph sub = graph.subgraph({analysis::NodeRef::Kind::Dma, 1});
        bool flagEdge = false, issueEdge = false;
        for (const analysis::GraphEdge& e : sub.edges) {
            flagEdge = flagEdge || e.kind == analysis::EdgeKind::Flag;
            issueEdge = issueEdge || e.kind == analysis::EdgeKind::Issue;
        }
        QVERIFY(flagEdge && issueEdge);
        // Around the first DMA: its completion (the flag edge) is what held the wait back, so that edge is on
        // the critical path and the program-order edge into the same wait is not, though both ends are.
        const analysis::Subgraph first = graph.subgraph({analysis::NodeRef::Kind::Dma, 0});
        int criticalFlags = 0, criticalOrderIntoWait = 0;
        for (const analysis::GraphEdge& e : first.edges) {
            const analysis::GraphNode& to = first.nodes[e.to];
            if (to.ref.kind != analysis::NodeRef::Kind::Bundle || to.pc != 1)
                continue;
            criticalFlags += e.kind == analysis::EdgeKind::Flag && e.critical;
            criticalOrderIntoWait += e.kind == analysis::EdgeKind::Order && e.critical;
        }
        QCOMPARE(criticalFlags, 1);
        QCOMPARE(criticalOrderIntoWait, 0);

        // The fix: issue the second load before the wait (its misc slot is taken: a new bundle).
        const suggest::Suggestion* hoist = findKind(a.suggestions, "late-dma");
        QVERIFY(hoist);
        QCOMPARE(hoist->change.pc, 2u);
        QCOMPARE(hoist->change.toPc, 1u);
        QVERIFY(hoist->change.newBundle);
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, hoist->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent > 30.0, std::to_string(m.gainPercent).c_str());

        // The reported numbers are the two replays' totals.
        auto changed = suggest::applyChange(a.replayed->trace, hoist->change);
        QVERIFY(changed.ok());
        events::EventStore store;
        const sim::ReplayResult r = sim::replay(changed.value(), {}, store);
        QCOMPARE(m.newCycles, r.totalCycles);
        QCOMPARE(m.baselineCycles, a.replayed->result.totalCycles);
    }

    void latePrefetchIsExactlyKCyclesLate()
    {
        constexpr int k = 20;
        Analyzed a = analyze(latePrefetch(k));
        QCOMPARE(a.analyses.dma.dmas.size(), std::size_t{1});
        const analysis::DmaFacts& f = a.analyses.dma.dmas[0];
        // Earliest legal issue: the cycle after the store to its source (pc 1); it was issued K later.
        QCOMPARE(f.earliestIssue, issueCycleOf(*a.replayed, 1) + 1);
        QCOMPARE(f.lateCycles, std::uint64_t{k});
        QVERIFY(f.exposedCycles > 0);

        const suggest::Suggestion* hoist = findKind(a.suggestions, "late-dma");
        QVERIFY(hoist);
        QCOMPARE(hoist->change.toPc, 2u); // right after the store
        QVERIFY(!hoist->change.newBundle);
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, hoist->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY(m.baselineCycles - m.newCycles >= std::uint64_t{k} - 1);
    }

    void unbalancedEngineIsSpreadAndMeasured()
    {
        Analyzed a = analyze(test::readFile(test::sourceDir() + "/tests/data/unbalanced_dmas.xasm"));
        QCOMPARE(a.analyses.dma.balance.size(), std::size_t{1});
        const analysis::EngineBalance& b = a.analyses.dma.balance[0];
        QCOMPARE(b.enginesUsed, 1);
        QVERIFY(b.queueDelayCycles > 0);
        QVERIFY(b.imbalance > 3.9); // all the work on one of four engines
        const suggest::Suggestion* spread = findKind(a.suggestions, "engine-imbalance");
        QVERIFY(spread);
        QCOMPARE(spread->change.engines.size(), std::size_t{4});
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, spread->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent > 20.0, std::to_string(m.gainPercent).c_str());
    }

    void oneWayRingIsSplitOverBothDirections()
    {
        // The naive ring All-Gather sends every step clockwise: half the link directions idle. The proposal
        // sends part of each transfer the other way round; replaying it gains >= 10% (the paper: up to 15%
        // on All-Gather), outputs bit-identical, and the gain is the difference of the two replays.
        auto source = workloads::generateAssembly("allgather", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        QCOMPARE(a.analyses.collectives.usedLinks, 4);
        const suggest::Suggestion* split = findKind(a.suggestions, "one-way-ring");
        QVERIFY(split);
        QCOMPARE(split->change.kind, suggest::ChangeKind::SplitRoute);
        QCOMPARE(split->change.chips, (std::vector<ChipId>{ChipId(0), ChipId(1), ChipId(2), ChipId(3)}));
        QVERIFY(split->change.firstBytes > 0 && split->change.firstBytes < (1 << 20));
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, split->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent >= 10.0, std::to_string(m.gainPercent).c_str());

        auto fixed = suggest::applyChange(a.replayed->trace, split->change);
        QVERIFY(fixed.ok());
        events::EventStore store;
        const sim::ReplayResult again = sim::replay(fixed.value(), {}, store);
        QVERIFY(!again.fault);
        QCOMPARE(m.newCycles, again.totalCycles);
        std::uint64_t longWay = 0;
        for (const events::DmaRecord& d : store.dmas())
            longWay += d.longWay;
        QCOMPARE(longWay, std::uint64_t{12}); // one long-way part per step per chip

        // The tuned variant already uses both directions.
        auto tuned = workloads::generateAssembly("allgather", "tuned", {});
        QVERIFY(tuned.ok());
        QVERIFY(!findKind(analyze(tuned.value()).suggestions, "one-way-ring"));
    }

    void tunedMatmulIsTheNegativeControl()
    {
        // Close to the MXU roofline: utilization above 80%, and no suggestion, program change or hardware
        // what-if, measures more than 1%.
        auto source = workloads::generateAssembly("matmul", "tuned", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        QVERIFY2(a.analyses.summary.mxuUtilization > 0.80,
                 std::to_string(a.analyses.summary.mxuUtilization).c_str());
        sim::measureSuggestions(a.suggestions, a.replayed->trace, a.replayed->result);
        for (const suggest::Suggestion& s : a.suggestions) {
            QVERIFY(s.measured);
            QVERIFY2(s.measured->gainPercent <= 1.0,
                     (s.title + ": " + std::to_string(s.measured->gainPercent)).c_str());
        }
        // The naive variant (one weight buffer) waits for every block: the same analysis sees it.
        auto naive = workloads::generateAssembly("matmul", "naive", {});
        QVERIFY(naive.ok());
        Analyzed b = analyze(naive.value());
        QVERIFY(b.analyses.summary.mxuUtilization < 0.65);
        QVERIFY(b.analyses.dma.exposedCycles > 20 * a.analyses.dma.exposedCycles);
    }

    void naiveDecodeLatePrefetchesAreFoundAndHoisted()
    {
        // The decode layer's naive variant fetches each weight / KV block through one buffer, late. The
        // analyses see the single-buffered loops and the late issue; hoisting a dma.start to where the buffer
        // became free measures a gain with the layer's outputs bit-identical.
        auto source = workloads::generateAssembly("decode", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        QVERIFY(!a.analyses.vmem.singleBuffered.empty());
        for (const analysis::SingleBufferedLoop& loop : a.analyses.vmem.singleBuffered) {
            QCOMPARE(loop.buffer, std::string("staging"));
            QVERIFY(loop.fitsTwice);
        }
        std::vector<suggest::Suggestion> hoists;
        for (const suggest::Suggestion& s : a.suggestions)
            if (s.kind == "late-dma")
                hoists.push_back(s);
        QVERIFY(hoists.size() >= 3);
        sim::measureSuggestions(hoists, a.replayed->trace, a.replayed->result);
        double best = 0.0;
        for (const suggest::Suggestion& s : hoists) {
            QVERIFY2(s.measured->verdict == suggest::Measurement::Verdict::Improves, s.title.c_str());
            best = std::max(best, s.measured->gainPercent);
        }
        QVERIFY2(best > 3.0, std::to_string(best).c_str());

        // Every op of the layer is a region; the tuned variant (everything prefetched) is faster.
        std::set<std::string> ops;
        for (const auto& region : a.analyses.summary.regions)
            ops.insert(region.name);
        for (const char* op :
             {"decode_layer", "qkv_projection", "attention", "output_projection", "mlp_up", "mlp_down"})
            QVERIFY2(ops.count(op), op);
        auto tuned = workloads::generateAssembly("decode", "tuned", {});
        QVERIFY(tuned.ok());
        QVERIFY(analyze(tuned.value()).replayed->result.totalCycles <
                a.replayed->result.totalCycles * 8 / 10);
    }

    void smallTilesGetTheTileSizeWhatIf()
    {
        // Under 10% of VMEM used, every DMA too small to reach bandwidth: the tile-size what-if re-generates
        // the kernel with a larger tile, outputs bit-identical, and the round trips saved show in the DMAs.
        auto generated = workloads::generate("smalltile", "naive", {});
        QVERIFY(generated.ok());
        QVERIFY(generated.value().generatedBy);
        Analyzed a = analyze(generated.value());
        QVERIFY(a.analyses.vmem.peakLiveBytes * 10 < a.analyses.vmem.capacity);
        const suggest::Suggestion* tile = findKind(a.suggestions, "tile-size");
        QVERIFY(tile);
        QVERIFY(tile->whatIf);
        QCOMPARE(tile->change.kind, suggest::ChangeKind::Regenerate);
        QCOMPARE(tile->change.param, std::string("tile_bytes"));
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, tile->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent > 50.0, std::to_string(m.gainPercent).c_str());
        auto fixed = suggest::applyChange(a.replayed->trace, tile->change);
        QVERIFY(fixed.ok());
        events::EventStore store;
        QVERIFY(!sim::replay(fixed.value(), {}, store).fault);
        QCOMPARE(a.replayed->store.dmas().size(), std::size_t{1024});
        QVERIFY(store.dmas().size() <= 32);
        // The tuned variant's tiles already fill what the kernel can use: no what-if.
        auto tuned = workloads::generate("smalltile", "tuned", {});
        QVERIFY(tuned.ok());
        QVERIFY(!findKind(analyze(tuned.value()).suggestions, "tile-size"));
    }

    void singleBufferedLoopsAreDoubleBuffered()
    {
        // The naive decode layer refills one staging buffer in 20 loops: double-buffering all of them
        // measures a large gain, outputs bit-identical.
        auto source = workloads::generateAssembly("decode", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        const suggest::Suggestion* db = findKind(a.suggestions, "single-buffered");
        QVERIFY(db);
        QCOMPARE(db->change.kind, suggest::ChangeKind::DoubleBuffer);
        QVERIFY(db->change.pcs.size() >= 10);
        const suggest::Measurement m = sim::measureChange(a.replayed->trace, a.replayed->result, db->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent > 20.0, std::to_string(m.gainPercent).c_str());
    }

    void doubleBufferingIsCheckedByTheOutputs_data()
    {
        QTest::addColumn<QString>("readRegister");
        QTest::addColumn<bool>("keepsOutputs");
        QTest::newRow("reads through the DMA's register") << QStringLiteral("s1") << true;
        QTest::newRow("reads through a copy of it") << QStringLiteral("s9") << false;
    }

    void doubleBufferingIsCheckedByTheOutputs()
    {
        // A loop refills `buf` through s1. When its compute reads the buffer through s1, the second buffer
        // is what it reads after the swap; when it reads through a copy (s9), it keeps reading the first
        // buffer, now stale: the replay's output comparison rejects the change.
        QFETCH(QString, readRegister);
        QFETCH(bool, keepsOutputs);
        std::string source = test::readFile(test::sourceDir() + "/tests/data/single_buffered_loop.xasm");
        for (std::size_t at; (at = source.find("READ")) != std::string::npos;)
            source.replace(at, 4, readRegister.toStdString());
        Analyzed a = analyze(source);
        const suggest::Suggestion* db = findKind(a.suggestions, "single-buffered");
        QVERIFY(db);
        const suggest::Measurement m = sim::measureChange(a.replayed->trace, a.replayed->result, db->change);
        if (keepsOutputs) {
            // Little compute per iteration to hide the refill behind: 6.1% measured.
            QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
            QVERIFY2(m.gainPercent > 5.0, std::to_string(m.gainPercent).c_str());
        } else {
            QCOMPARE(m.verdict, suggest::Measurement::Verdict::OutputsDiffer);
            QVERIFY2(m.detail.find("output dst differs") != std::string::npos, m.detail.c_str());
        }
    }

    void aWaitForAWholeTransferIsRelaxedToItsChunks()
    {
        // 8 chunks, each read by the next two tiles of straight-line work: the one wait becomes a wait per
        // chunk before its first reader; the replay measures the overlap, outputs bit-identical.
        Analyzed a = analyze(test::readFile(test::sourceDir() + "/tests/data/whole_transfer_wait.xasm"));
        const suggest::Suggestion* relax = findKind(a.suggestions, "whole-transfer-wait");
        QVERIFY(relax);
        QCOMPARE(relax->change.kind, suggest::ChangeKind::RelaxWait);
        QCOMPARE(relax->change.pc, 1u);
        QCOMPARE(relax->change.targets, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
        QCOMPARE(relax->change.pcs.front(), 2u); // the first vld reads chunk 0
        const suggest::Measurement m =
            sim::measureChange(a.replayed->trace, a.replayed->result, relax->change);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::Improves);
        QVERIFY2(m.gainPercent > 5.0, std::to_string(m.gainPercent).c_str());
        // Waits in loops (register targets) are left alone: the naive decode has many, none proposed.
        auto decode =
            workloads::generateAssembly("decode", "naive", {{"batch", 1}, {"seq", 128}, {"heads", 1}});
        QVERIFY(decode.ok());
        QVERIFY(!findKind(analyze(decode.value()).suggestions, "whole-transfer-wait"));
    }

    void everyMeasuredChangeKeepsOutputs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("vector_add") << QStringLiteral("resources/samples/vector_add.xasm");
        QTest::newRow("allgather_naive") << QStringLiteral("resources/samples/allgather_naive.xtrace.json");
        QTest::newRow("matmul_naive") << QStringLiteral("resources/samples/matmul_naive.xtrace.json");
        QTest::newRow("decode_naive") << QStringLiteral("resources/samples/decode_naive.xtrace.json");
        QTest::newRow("smalltile_naive") << QStringLiteral("resources/samples/smalltile_naive.xtrace.json");
    }

    void everyMeasuredChangeKeepsOutputs()
    {
        QFETCH(QString, file);
        auto loaded = trace::loadTrace(test::sourceDir() + "/" + file.toStdString());
        QVERIFY(loaded.ok());
        events::EventStore store;
        sim::ReplayResult result = sim::replay(loaded.value(), {}, store);
        QVERIFY(!result.fault);
        const analysis::ReplayView view{loaded.value(), store, result.totalCycles, result.chips};
        const analysis::Analyses analyses = analysis::analyzeReplay(view);
        std::vector<suggest::Suggestion> suggestions = suggest::proposeSuggestions(view, analyses);
        QVERIFY(!suggestions.empty());
        sim::measureSuggestions(suggestions, loaded.value(), result);
        for (const suggest::Suggestion& s : suggestions) {
            QVERIFY(s.measured);
            QVERIFY2(s.measured->verdict == suggest::Measurement::Verdict::Improves ||
                         s.measured->verdict == suggest::Measurement::Verdict::NoGain,
                     (s.title + ": " + std::string(suggest::verdictName(s.measured->verdict)) + " " +
                      s.measured->detail)
                         .c_str());
            QCOMPARE(s.measured->baselineCycles, result.totalCycles);
        }
        // Ranked: improving program changes first, by gain.
        for (std::size_t i = 1; i < suggestions.size(); ++i)
            if (suggestions[i].measured->verdict == suggest::Measurement::Verdict::Improves &&
                suggestions[i - 1].measured->verdict == suggest::Measurement::Verdict::Improves &&
                suggestions[i].whatIf == suggestions[i - 1].whatIf)
                QVERIFY(suggestions[i - 1].measured->gainPercent >= suggestions[i].measured->gainPercent);
        // The JSON form carries each measurement.
        const nlohmann::json j = report::analysisToJson(view, analyses, suggestions);
        QCOMPARE(j["suggestions"].size(), suggestions.size());
        QVERIFY(j["suggestions"][0].contains("gain_percent"));
    }

    void aChangeThatBreaksADependencyIsRejected()
    {
        // The copy-out reads what the load brought in; issuing it before the load's wait reads stale VMEM
        // (the load lands in one chunk at its end, the copy-out reads chunk by chunk from its start).
        const char* source = R"(
.machine chips=1
.hbm src, 0, 65536
.hbm out, 0x100000, 65536
.vmem x, 0, 65536
.init src, random_f32, seed=9, lo=-1.0, hi=1.0
.output out
    dma.start vmem[x], hbm[src], 65536, 0, engine=0, chunk=65536
    sync.wait 0, 1
    dma.start hbm[out], vmem[x], 65536, 1, engine=1
    sync.wait 1, 8
    halt
)";
        Analyzed a = analyze(source);
        QVERIFY(!findKind(a.suggestions, "late-dma")); // the proposer sees the dependency
        suggest::Change wrong;
        wrong.kind = suggest::ChangeKind::HoistDma;
        wrong.chips = {ChipId(0)};
        wrong.pc = 2;
        wrong.toPc = 1;
        wrong.newBundle = true;
        const suggest::Measurement m = sim::measureChange(a.replayed->trace, a.replayed->result, wrong);
        QCOMPARE(m.verdict, suggest::Measurement::Verdict::OutputsDiffer);
        QVERIFY2(m.detail.find("output out differs at byte") != std::string::npos, m.detail.c_str());
    }

    void programEditsKeepBranchTargets()
    {
        auto t = assembly::assemble(
            "top:\n    smov s1, 1\n    dma.start vmem[0], hbm[0], 4096, 0\n    br top\n", "t.xasm");
        QVERIFY(t.ok());
        suggest::Change c;
        c.kind = suggest::ChangeKind::HoistDma;
        c.chips = {ChipId(0)};
        c.pc = 1;
        c.toPc = 0;
        auto moved = suggest::applyChange(t.value(), c);
        QVERIFY2(moved.ok(), moved.ok() ? "" : moved.error().toString().c_str());
        // The emptied bundle is removed; the branch still reaches the top.
        QCOMPARE(moved->chips[0].program.bundles.size(), std::size_t{2});
        QCOMPARE(moved->chips[0].program.bundles[1].instructions[0].operands[0].value, std::int64_t{0});
        c.newBundle = true;
        auto inserted = suggest::applyChange(t.value(), c);
        QVERIFY(inserted.ok());
        QCOMPARE(inserted->chips[0].program.bundles.size(), std::size_t{3});
        QCOMPARE(inserted->chips[0].program.bundles[0].instructions[0].opcode, isa::Opcode::DmaStart);
        QCOMPARE(inserted->chips[0].program.bundles[2].instructions[0].operands[0].value, std::int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestSuggestionRules)
#include "tst_suggestion_rules.moc"

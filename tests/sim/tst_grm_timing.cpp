// The GRM's timing model: latencies and scoreboard stalls, unit occupancy, branch bubbles, DMA bandwidth
// sharing, chunked flags with partial data, remote DMA, determinism and cancel (the MXU's: tst_grm_mxu).
#include "sim/sim_support.h"

#include "analysis/residuals.h"
#include "isa/topology.h"
#include "trace/trace_io.h"
#include "util/cancel.h"
#include "workloads/workloads.h"

#include <chrono>
#include <cmath>
#include <thread>

using namespace xps;

namespace {

using test::atPc;
using test::bundles;

// FNV-1a over everything a replay records.
std::uint64_t eventHash(const test::Replayed& r)
{
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const void* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            h = (h ^ static_cast<const std::uint8_t*>(p)[i]) * 1099511628211ull;
    };
    for (const auto& e : bundles(r)) {
        mix(&e.cycle, 8);
        mix(&e.pc, 4);
        mix(&e.stallCycles, 4);
        mix(&e.cause, 4);
        mix(&e.reason, 1);
    }
    for (const auto& d : r.store.dmas()) {
        mix(&d.id, 4);
        mix(&d.start, 8);
        mix(&d.end, 8);
    }
    for (const auto& w : r.store.syncWaits()) {
        mix(&w.start, 8);
        mix(&w.end, 8);
    }
    mix(&r.result.totalCycles, 8);
    return h;
}

// 1000 bytes per cycle per engine and for HBM: round numbers for DMA arithmetic.
constexpr const char* kRoundMachine = ".machine dma_engine_peak_gbs=1050, hbm_bandwidth_gbs=1050\n";

} // namespace

class TestGrmTiming : public QObject
{
    Q_OBJECT
private slots:
    void resultLatency_data()
    {
        QTest::addColumn<QByteArray>("producer");
        QTest::addColumn<QByteArray>("consumer");
        QTest::addColumn<int>("latency");
        QTest::newRow("scalar alu") << QByteArray("sadd s1, s2, 1") << QByteArray("sadd s3, s1, 1") << 1;
        QTest::newRow("scalar mul") << QByteArray("smul s1, s2, 3") << QByteArray("sadd s3, s1, 1") << 3;
        QTest::newRow("smem load") << QByteArray("sld s1, [0]") << QByteArray("sadd s3, s1, 1") << 3;
        QTest::newRow("vector alu") << QByteArray("vadd.f32 v1, v2, v2") << QByteArray("vmov v3, v1") << 2;
        QTest::newRow("vector fma") << QByteArray("vfma.f32 v1, v2, v2, v2") << QByteArray("vmov v3, v1")
                                    << 4;
        QTest::newRow("transcendental") << QByteArray("vexp.f32 v1, v2") << QByteArray("vmov v3, v1") << 16;
        QTest::newRow("vector load") << QByteArray("vld v1, [0]") << QByteArray("vmov v3, v1") << 4;
        QTest::newRow("cross-lane") << QByteArray("xlu.rsum.f32 v1, v2") << QByteArray("vmov v3, v1") << 8;
    }
    void resultLatency()
    {
        QFETCH(QByteArray, producer);
        QFETCH(QByteArray, consumer);
        QFETCH(int, latency);
        auto r = test::replaySource(".sreg s2, 7\n.init v2, const_f32, 1.0\n" + producer.toStdString() +
                                    "\n" + consumer.toStdString() + "\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        QCOMPARE(b[1].cycle, std::uint64_t(latency));
        QCOMPARE(b[1].stallCycles, std::uint32_t(latency - 1));
        if (latency > 1) {
            QCOMPARE(b[1].reason, events::StallReason::OperandDependency);
            QCOMPARE(b[1].causeKind, events::CauseKind::Instruction);
            QCOMPARE(b[1].cause, 0u);
        }
        QCOMPARE(r->result.chips[0].stallCycles[static_cast<int>(events::StallReason::OperandDependency)],
                 std::uint64_t(latency - 1));
    }

    void transcendentalOccupancy()
    {
        auto r = test::replaySource(".init v2, const_f32, 1.0\nvexp.f32 v1, v2\nvexp.f32 v3, v2\nhalt\n");
        const auto b = bundles(*r);
        QCOMPARE(b[1].cycle, std::uint64_t(4)); // occ_transcendental
        QCOMPARE(b[1].reason, events::StallReason::UnitBusy);
    }

    void takenBranchCostsABubble()
    {
        auto r = test::replaySource("br next\nnop\nnext: halt\n");
        const auto b = bundles(*r);
        QCOMPARE(b.size(), std::size_t(2));
        QCOMPARE(b[1].pc, 2u);
        QCOMPARE(b[1].cycle, std::uint64_t(3)); // 1 + lat_branch_taken
        QCOMPARE(b[1].reason, events::StallReason::BranchBubble);
    }

    void dmaAloneAndShared()
    {
        auto one =
            test::replaySource(std::string(kRoundMachine) +
                               ".hbm src, 0, 200000\n.vmem dst, 0, 200000\n"
                               "dma.start vmem[0], hbm[0], 100000, 0, chunk=100000\nsync.wait 0, 1\nhalt\n");
        const auto d1 = one->store.dmas();
        QCOMPARE(d1.size(), std::size_t(1));
        QCOMPARE(d1[0].start, std::uint64_t(64));     // dma_setup_cycles
        QCOMPARE(d1[0].end, std::uint64_t(64 + 100)); // 100000 bytes at 1000 bytes/cycle
        QCOMPARE(atPc(bundles(*one), 1)->cycle, std::uint64_t(164));
        QCOMPARE(atPc(bundles(*one), 1)->causeKind, events::CauseKind::Dma);

        auto two =
            test::replaySource(std::string(kRoundMachine) +
                               ".hbm src, 0, 200000\n.vmem dst, 0, 200000\n"
                               "dma.start vmem[0], hbm[0], 100000, 0, engine=0, chunk=100000\n"
                               "dma.start vmem[100000], hbm[100000], 100000, 1, engine=1, chunk=100000\n"
                               "sync.wait 0, 1\nsync.wait 1, 1\nhalt\n");
        auto d2 = two->store.dmas();
        std::sort(d2.begin(), d2.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        // A runs alone for one cycle (1000 bytes), then both share HBM at 500 bytes/cycle each:
        // A ends at 65 + 99000 / 500 = 263; B then has 1000 bytes left alone: 264.
        QCOMPARE(d2[0].end, std::uint64_t(263));
        QCOMPARE(d2[1].end, std::uint64_t(264));
        QCOMPARE(two->result.dma[0].hbmBytes, std::uint64_t(200000));
    }

    // dma_completion_cycles: the flag hears of a DMA a round trip after its last byte, and the engine moves
    // the next descriptor meanwhile (setup, by contrast, holds the engine).
    void completionLatencyDelaysTheFlagNotTheEngine()
    {
        auto r = test::replaySource(std::string(kRoundMachine) +
                                    ".machine dma_completion_cycles=500\n"
                                    ".hbm src, 0, 200000\n.vmem dst, 0, 200000\n"
                                    "dma.start vmem[0], hbm[0], 100000, 0, engine=0, chunk=100000\n"
                                    "dma.start vmem[100000], hbm[100000], 100000, 1, engine=0, chunk=100000\n"
                                    "sync.wait 0, 1\nsync.wait 1, 1\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        auto dmas = r->store.dmas();
        std::sort(dmas.begin(), dmas.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        QCOMPARE(dmas.size(), std::size_t(2));
        QCOMPARE(dmas[0].end, std::uint64_t(64 + 100));
        QCOMPARE(dmas[1].start, std::uint64_t(164 + 64)); // the engine did not wait for the completion
        QCOMPARE(dmas[1].end, std::uint64_t(228 + 100));
        const std::vector<events::BundleIssue> issued = bundles(*r);
        QCOMPARE(atPc(issued, 2)->cycle, std::uint64_t(164 + 500));
        QCOMPARE(atPc(issued, 2)->causeKind, events::CauseKind::Dma); // still the DMA's wait
        QCOMPARE(atPc(issued, 2)->cause, std::uint32_t(0));
        QCOMPARE(atPc(issued, 3)->cycle, std::uint64_t(328 + 500));
        const auto waits = r->store.syncWaits();
        QCOMPARE(waits.size(), std::size_t(2));
        QCOMPARE(waits[0].satisfiedBy, std::int64_t(0));
        QCOMPARE(waits[1].satisfiedBy, std::int64_t(1));
    }

    // dma_prefetch_descriptors: the descriptors just behind the head set up while the head moves bytes.
    // Three 10,000-byte copies (10 cycles each at 1,000 bytes/cycle) queued on one engine at once.
    void prefetchedSetupsOverlapTheBytesAhead_data()
    {
        QTest::addColumn<int>("prefetch");
        QTest::addColumn<std::vector<std::uint64_t>>("starts");
        // Each setup after the last one's bytes: 64, 64 + 10 + 64, ...
        QTest::newRow("none") << 0 << std::vector<std::uint64_t>{64, 138, 212};
        // The second sets up beside the first and follows it at once; the third enters the window when
        // the first retires (cycle 74) and starts 64 later.
        QTest::newRow("one") << 1 << std::vector<std::uint64_t>{64, 74, 138};
        // All three set up together: the bytes follow one another.
        QTest::newRow("two") << 2 << std::vector<std::uint64_t>{64, 74, 84};
    }

    void prefetchedSetupsOverlapTheBytesAhead()
    {
        QFETCH(int, prefetch);
        QFETCH(std::vector<std::uint64_t>, starts);
        auto r = test::replaySource(std::string(kRoundMachine) +
                                    ".machine dma_prefetch_descriptors=" + std::to_string(prefetch) +
                                    "\n.hbm src, 0, 30000\n.vmem dst, 0, 30000\n"
                                    "dma.start vmem[0], hbm[0], 10000, 0, engine=0, chunk=10000\n"
                                    "dma.start vmem[10000], hbm[10000], 10000, 0, engine=0, chunk=10000\n"
                                    "dma.start vmem[20000], hbm[20000], 10000, 0, engine=0, chunk=10000\n"
                                    "sync.wait 0, 3\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        auto dmas = r->store.dmas();
        std::sort(dmas.begin(), dmas.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        QCOMPARE(dmas.size(), std::size_t(3));
        // The three dma.start issue at cycles 0, 1 and 2 (one a bundle): each setup is 64 from the later of
        // its issue and its entering the window.
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(dmas[i].start, starts[i]);
            QCOMPARE(dmas[i].end, starts[i] + 10);
        }
    }

    // Two DMAs on two engines increment one flag; the wait for both is caused by whichever is still in
    // flight when it is last looked at: the oldest pending writer, whichever engine it is on.
    void waitCauseIsTheOldestPendingWriter_data()
    {
        QTest::addColumn<int>("firstBytes");
        QTest::addColumn<int>("secondBytes");
        QTest::addColumn<std::int64_t>("cause");
        QTest::newRow("first is longer") << 100000 << 1000 << std::int64_t(0);
        QTest::newRow("second is longer") << 1000 << 100000 << std::int64_t(1);
    }

    void waitCauseIsTheOldestPendingWriter()
    {
        QFETCH(int, firstBytes);
        QFETCH(int, secondBytes);
        QFETCH(std::int64_t, cause);
        auto r = test::replaySource(
            std::string(kRoundMachine) + ".hbm src, 0, 200000\n.vmem dst, 0, 200000\n" +
            "dma.start vmem[0], hbm[0], " + std::to_string(firstBytes) + ", 0, engine=0, chunk=100000\n" +
            "dma.start vmem[100000], hbm[100000], " + std::to_string(secondBytes) +
            ", 0, engine=1, chunk=100000\n" + "sync.wait 0, 2\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const std::vector<events::BundleIssue> issued = bundles(*r); // atPc points into it
        const events::BundleIssue* wait = atPc(issued, 2);
        QVERIFY(wait);
        QCOMPARE(wait->reason, events::StallReason::SyncWait);
        QCOMPARE(wait->causeKind, events::CauseKind::Dma);
        QCOMPARE(static_cast<std::int64_t>(wait->cause), cause);
        const auto waits = r->store.syncWaits();
        QCOMPARE(waits.size(), std::size_t(1));
        QCOMPARE(waits[0].satisfiedBy, cause);
    }

    void chunkedFlagsAndPartialData()
    {
        auto r = test::replaySource(std::string(kRoundMachine) + R"(
.hbm src, 0, 4096
.vmem dst, 0, 4096
.init src, random_f32, seed=3
    dma.start vmem[dst], hbm[src], 4096, 0, chunk=1024
    sync.wait 0, 1
    vld.s v1, [0], 0 ; sync.wait 0, 4
    vld.s v2, [3072], 0
    vld.s v3, [3072], 0
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        // Chunk k lands at 64 + 1.024 k cycles: flag 1 at cycle 66, flag 4 at cycle 69.
        QCOMPARE(atPc(b, 1)->cycle, std::uint64_t(66));
        QCOMPARE(atPc(b, 2)->cycle, std::uint64_t(69));
        const auto waits = r->store.syncWaits();
        QCOMPARE(waits.size(), std::size_t(2));
        QCOMPARE(waits[0].satisfiedBy, std::int64_t(0));
        // Row 0 had landed when v1 was loaded.
        trace::Generator g;
        g.kind = trace::Generator::Kind::RandomF32;
        g.seed = 3;
        g.a = -1.0;
        g.b = 1.0;
        const auto src = test::generated(g, 1024);
        float v1;
        std::memcpy(&v1, &r->result.finalState[0].v[1][0], 4);
        QCOMPARE(v1, src[0]);
        float v3;
        std::memcpy(&v3, &r->result.finalState[0].v[3][0], 4);
        QCOMPARE(v3, src[768]);
    }

    void remoteDmaIncrementsTheRemoteFlag()
    {
        auto r = test::replaySource(R"(
.machine chips=2
.vmem buf, 0, 4096
.vmem got, 0x1000, 4096
.chip 0
.init buf, iota_s32
    dma.start vmem[got], vmem[buf], 4096, 3, chip=1
    halt
.chip 1
    sync.wait 3, 1
    vld v1, [got]
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto b = bundles(*r);
        const events::BundleIssue* wait = nullptr;
        for (const auto& e : b)
            if (e.chip == ChipId(1) && e.pc == 0)
                wait = &e;
        const double linkBytesPerCycle = 45.0 * 1000.0 / 1050.0;
        const auto expected =
            static_cast<std::uint64_t>(std::ceil(64.0 + 1050.0 + 4096.0 / linkBytesPerCycle));
        QCOMPARE(wait->cycle, expected);
        QCOMPARE(r->result.finalState[1].v[1][1023], 1023u);
        QCOMPARE(r->result.finalState[1].flags[3], 1u);
        QCOMPARE(r->result.finalState[0].flags[3], 0u);
        QCOMPARE(r->result.dma[0].iciBytes, std::uint64_t(4096));
    }

    void aWaitLearnsOfARemoteDmaIssuedAfterItStarted()
    {
        // Chip 1 waits from cycle 0; chip 0 issues the DMA that will satisfy it only at cycle 3. The stalled
        // chip must look again when another chip's DMA is issued to its flag (not only when one of its own
        // changes), or its wait would be blamed on nothing instead of that DMA.
        auto r = test::replaySource(R"(
.machine chips=2
.vmem buf, 0, 4096
.vmem got, 0x1000, 4096
.chip 0
.init buf, iota_s32
    smov s1, 0
    smov s1, 1
    smov s1, 2
    dma.start vmem[got], vmem[buf], 4096, 3, chip=1
    halt
.chip 1
    sync.wait 3, 1
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto issued = bundles(*r);
        const events::BundleIssue* wait = nullptr;
        for (const auto& e : issued)
            if (e.chip == ChipId(1) && e.pc == 0)
                wait = &e;
        QVERIFY(wait);
        QCOMPARE(wait->reason, events::StallReason::SyncWait);
        QCOMPARE(wait->causeKind, events::CauseKind::Dma);
        QCOMPARE(wait->cause, 0u); // the only DMA
        QCOMPARE(wait->cycle, r->store.dmas().at(0).end);
    }

    void longWayRouteCrossesTheOtherLinks()
    {
        // On a 4-chip ring, chip 0 -> chip 1 is one hop on +x; route=1 goes 0 -> 3 -> 2 -> 1 over -x.
        auto r = test::replaySource(R"(
.machine chips=4
.vmem buf, 0, 4096
.vmem got, 0x1000, 4096
.chip 0
.init buf, iota_s32
    dma.start vmem[got], vmem[buf], 4096, 3, chip=1, route=1
    halt
.chip 1-3
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto dmas = r->store.dmas();
        QCOMPARE(dmas.size(), std::size_t(1));
        QCOMPARE(dmas[0].longWay, std::uint8_t(1));
        const double linkBytesPerCycle = 45.0 * 1000.0 / 1050.0;
        QCOMPARE(dmas[0].end,
                 static_cast<std::uint64_t>(std::ceil(64.0 + 3 * 1050.0 + 4096.0 / linkBytesPerCycle)));
        QCOMPARE(r->result.finalState[1].flags[3], 1u);
        const trace::Trace& t = r->trace;
        QCOMPARE(isa::iciRoute(t.machine, ChipId(0), ChipId(1), true),
                 (std::vector<int>{0 * 4 + 1, 3 * 4 + 1, 2 * 4 + 1}));
        QCOMPARE(isa::iciRoute(t.machine, ChipId(0), ChipId(1)), (std::vector<int>{0 * 4 + 0}));
        QVERIFY(isa::iciRoute(t.machine, ChipId(2), ChipId(2), true).empty());
    }

    void stressWorkloadReplaysTheBundlesItPromises()
    {
        // The benchmarks' workload: `bundles` over all chips, each chip through the same loop.
        auto t = workloads::generate("stress", "", {{"chips", 3}, {"bundles", 24000}});
        QVERIFY(t.ok());
        QCOMPARE(t.value().machine.chips, std::int64_t{3});
        events::EventStore store;
        const sim::ReplayResult r = sim::replay(t.value(), {sim::ReplayMode::TimingOnly}, store);
        QVERIFY(!r.fault);
        const std::uint64_t issued = store.bundles().size();
        QVERIFY2(issued >= 24000 && issued <= 24000 + 3 * 16, std::to_string(issued).c_str());
        QCOMPARE(store.dmas().size(), std::size_t{3 * (24000 / 8 / 3 + 1)});
        // The default is at least the 10 M bundles the benchmarks need.
        const workloads::Workload* w = workloads::findWorkload("stress");
        QVERIFY(w && w->parameters[1].name == "bundles" && w->parameters[1].defaultValue >= 10'000'000);
    }

    void remoteSyncAddLandsAfterTheIciLatency()
    {
        // A DMA writes flag 4 first; the wait is satisfied by the sync.add, not by that DMA.
        auto r = test::replaySource(R"(
.machine chips=2
.chip 0
    sync.add 4, 1, chip=1
    halt
.chip 1
    dma.start vmem[0], vmem[4096], 512, 4
    sync.wait 4, 2
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto issued = bundles(*r); // keep the events alive: `wait` points into them
        const events::BundleIssue* wait = nullptr;
        for (const auto& e : issued)
            if (e.chip == ChipId(1) && e.pc == 1)
                wait = &e;
        QCOMPARE(wait->cycle, std::uint64_t(1050)); // one hop of ici_latency_cycles
        const auto waits = r->store.syncWaits();
        QCOMPARE(waits.size(), std::size_t(1));
        QCOMPARE(waits[0].satisfiedBy, std::int64_t(-1));
    }

    void replayIsDeterministic()
    {
        auto t = trace::loadTrace(test::sourceDir() + "/resources/samples/vector_add.xasm");
        QVERIFY(t.ok());
        test::Replayed a, b, timing;
        a.result = sim::replay(*t, {}, a.store);
        b.result = sim::replay(*t, {}, b.store);
        timing.result = sim::replay(*t, {sim::ReplayMode::TimingOnly}, timing.store);
        QVERIFY(!a.result.fault && !timing.result.fault);
        QCOMPARE(eventHash(a), eventHash(b));
        QCOMPARE(eventHash(a), eventHash(timing));
        QVERIFY(bundles(a).size() > 100);
    }

    void timingOnlyModeNeverSilentlyDiverges()
    {
        // A scalar loaded from SMEM that a DMA filled from vector results: timing-only mode cannot know it.
        // Broadcast into a vector register (a computed scalar, as a compiled kernel broadcasts a row's
        // mean) it needs no value: the vector is not computed either. Arithmetic on it is not computed
        // either (a gather's address from a computed index); a branch on it stops the replay.
        const char* dataDependent = R"(
.init v1, const_u32, 3
    vst v1, [0]
    dma.start smem[0], vmem[0], 16, 0
    sync.wait 0, 1
    sld s1, [0]
    vbcast v2, s1
    sadd s2, s1, 1
    brz s2, 5
    halt
)";
        auto full = test::replaySource(dataDependent);
        QVERIFY2(!full->result.fault, test::faultText(*full).c_str());
        QCOMPARE(full->result.finalState[0].s[2], 4u);
        auto timing = test::replaySource(dataDependent, sim::ReplayMode::TimingOnly);
        QCOMPARE(timing->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(test::faultText(*timing).starts_with("chip 0, pc 0x6, cycle "),
                 test::faultText(*timing).c_str());
        QVERIFY2(
            test::faultText(*timing).ends_with(
                "timing-only mode cannot know the value of s2: an sld read it from "
                "SMEM that a DMA filled with vector or DMA results this mode does not compute, and it is "
                "used here as a scalar; replay in full mode"),
            test::faultText(*timing).c_str());

        // From generator-initialised HBM the value is known: no false alarm, same value as full mode.
        const char* known = R"(
.hbm table, 0, 64
.init table, iota_s32
    dma.start smem[0], hbm[8], 16, 0
    sync.wait 0, 1
    sld s1, [4]
    halt
)";
        auto knownTiming = test::replaySource(known, sim::ReplayMode::TimingOnly);
        QVERIFY2(!knownTiming->result.fault, test::faultText(*knownTiming).c_str());
        QCOMPARE(knownTiming->result.finalState[0].s[1], 3u);
    }

    void eventsAreOrderedAndRangeQueriesFindThem()
    {
        auto t = trace::loadTrace(test::sourceDir() + "/resources/samples/vector_add.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        QVERIFY(!sim::replay(*t, {}, store).fault);
        const events::BundleSnapshot b = store.bundles();
        const events::VmemSnapshot v = store.vmemAccesses();
        for (std::size_t i = 1; i < b.size(); ++i)
            QVERIFY(b[i - 1].cycle <= b[i].cycle);
        for (std::size_t i = 1; i < v.size(); ++i)
            QVERIFY(v[i - 1].cycle <= v[i].cycle);
        for (const auto& [from, to] :
             {std::pair<events::Cycle, events::Cycle>{0, 1}, {100, 400}, {1000, 5000}, {5000, 6000}}) {
            const auto [first, last] = b.cycleRange(from, to);
            std::size_t expected = 0;
            for (std::size_t i = 0; i < b.size(); ++i)
                expected += b[i].cycle >= from && b[i].cycle < to;
            QCOMPARE(last - first, expected);
            if (last > first)
                QVERIFY(b[first].cycle >= from && b[last - 1].cycle < to);
        }
    }

    void perPcStatisticsAddUp()
    {
        auto r = test::replaySource(
            ".sreg s1, 0\nloop: smul s2, s1, 3\nsadd s1, s2, 1 ; scmp.lt s3, s1, 100\nbrnz s3, loop\nhalt\n");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto& perPc = r->result.chips[0].perPc;
        QCOMPARE(perPc.size(), std::size_t(4));
        // scmp.lt reads s1 before the sadd in its bundle writes it (bundle semantics), so the loop runs
        // once more than the new value suggests: s1 = 0, 1, 4, 13, 40, 121 at the compare: six iterations.
        QCOMPARE(perPc[0].executions, std::uint64_t(6));
        QCOMPARE(perPc[3].executions, std::uint64_t(1));
        // Each sadd waits 2 cycles for the smul (latency 3); each loop-back pays the branch bubble.
        QCOMPARE(perPc[1].stallCycles[static_cast<int>(events::StallReason::OperandDependency)],
                 std::uint64_t(12));
        QCOMPARE(perPc[0].stallCycles[static_cast<int>(events::StallReason::BranchBubble)],
                 std::uint64_t(10));
        std::uint64_t fromEvents = 0;
        for (const auto& e : bundles(*r))
            fromEvents += e.stallCycles;
        std::uint64_t fromPcs = 0;
        for (const auto& pc : perPc)
            for (std::uint64_t v : pc.stallCycles)
                fromPcs += v;
        QCOMPARE(fromPcs, fromEvents);
        // Chip totals follow from the executions: 6 x (smul; sadd, scmp.lt; brnz) and the halt.
        const events::ChipStats& chip = r->result.chips[0];
        QCOMPARE(chip.bundles, std::uint64_t(6 * 3 + 1));
        QCOMPARE(chip.instructions, std::uint64_t(6 * 4 + 1));
        QCOMPARE(chip.bundles, static_cast<std::uint64_t>(bundles(*r).size()));
        std::uint64_t busy = 0;
        for (std::uint64_t v : chip.unitBusyCycles)
            busy += v;
        QCOMPARE(busy, chip.instructions); // none of these ops occupies its unit for more than a cycle
    }

    // Without per-pc statistics (ReplayOptions::perPcStats, as estimateTrace replays) the chip's totals
    // and the cycle count are the same; only the per-pc table is left empty.
    void chipTotalsWithoutPerPcStatistics()
    {
        auto t = assembly::assemble(
            ".sreg s1, 0\nloop: smul s2, s1, 3\nsadd s1, s2, 1 ; scmp.lt s3, s1, 100\nbrnz s3, loop\nhalt\n",
            "p.xasm");
        QVERIFY(t.ok());
        events::EventStore withStore, withoutStore;
        sim::ReplayOptions without;
        without.perPcStats = false;
        const sim::ReplayResult with = sim::replay(*t, {}, withStore);
        const sim::ReplayResult lean = sim::replay(*t, without, withoutStore);
        QVERIFY(!with.fault && !lean.fault);
        QCOMPARE(with.chips[0].perPc.size(), std::size_t(4));
        QVERIFY(lean.chips[0].perPc.empty());
        QCOMPARE(lean.totalCycles, with.totalCycles);
        QCOMPARE(lean.chips[0].bundles, with.chips[0].bundles);
        QCOMPARE(lean.chips[0].instructions, with.chips[0].instructions);
        for (int r = 0; r < events::kStallReasonCount; ++r)
            QCOMPARE(lean.chips[0].stallCycles[r], with.chips[0].stallCycles[r]);
        for (int u = 0; u < events::kUnitCount; ++u)
            QCOMPARE(lean.chips[0].unitBusyCycles[u], with.chips[0].unitBusyCycles[u]);
    }

    // finish() gives the result away once: a second call returns an empty result rather than writing into
    // statistics the first result now owns (ASan would report it).
    void aSecondFinishReturnsNothing()
    {
        auto t = assembly::assemble(".sreg s1, 2\nsadd s1, s1, 1\nhalt\n", "f.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::Replayer replayer(*t, {}, store);
        const sim::ReplayResult first = replayer.run();
        QVERIFY(!first.fault);
        QCOMPARE(first.chips.size(), std::size_t(1));
        QCOMPARE(first.chips[0].bundles, std::uint64_t(2));
        const sim::ReplayResult second = replayer.finish();
        QVERIFY(second.chips.empty());
        QCOMPARE(first.chips[0].bundles, std::uint64_t(2));
    }

    // A store that keeps only regions (as estimateTrace replays) has the same region slices and nothing else.
    void aStoreKeepingOnlyRegionsHasTheSameRegions()
    {
        auto t = assembly::assemble(
            ".sreg s1, 2\n.region body, level=op\nregion.begin body\nvld v1, [0] ; smul s1, s1, 3\n"
            "vst v1, [4096]\nsadd s3, s1, 1\nregion.end\nhalt\n",
            "r.xasm");
        QVERIFY(t.ok());
        events::EventStore all, regions;
        regions.keepOnlyRegions();
        const sim::ReplayResult a = sim::replay(*t, {}, all);
        const sim::ReplayResult b = sim::replay(*t, {}, regions);
        QVERIFY(!a.fault && !b.fault);
        QCOMPARE(b.totalCycles, a.totalCycles);
        QVERIFY(all.bundles().size() > 0 && all.vmemAccesses().size() > 0);
        QCOMPARE(regions.bundles().size(), std::size_t(0));
        QCOMPARE(regions.vmemAccesses().size(), std::size_t(0));
        const auto expected = all.slices(all.regionTrack(ChipId(0)));
        const auto kept = regions.slices(regions.regionTrack(ChipId(0)));
        QCOMPARE(kept.size(), std::size_t(1));
        QCOMPARE(kept.size(), expected.size());
        QCOMPARE(kept[0].start, expected[0].start);
        QCOMPARE(kept[0].duration, expected[0].duration);
    }

    void residualsCompareReplayWithRecording()
    {
        auto t = assembly::assemble(".region body, level=op\nregion.begin body\nsmul s1, s1, 3 ; smov s2, "
                                    "1\nsadd s3, s1, 1\nregion.end\nhalt\n",
                                    "r.xasm");
        QVERIFY(t.ok());
        t->chips[0].initial.scalarRegisters[1] = 2;
        t->recorded = trace::RecordedTiming{{{ChipId(0), "body", 0, 4}, {ChipId(0), "body", 1, 9}},
                                            {{ChipId(0), 2, 4}, {ChipId(0), 4, 7}}};
        events::EventStore store;
        const sim::ReplayResult result = sim::replay(*t, {}, store);
        QVERIFY(!result.fault);
        const analysis::Residuals res = analysis::computeResiduals(*t, store);
        QCOMPARE(res.regions.size(), std::size_t(2));
        // region.begin at 0, smul at 1, sadd waits for it until 4, region.end at 5.
        QCOMPARE(res.regions[0].replayed, std::optional<std::uint64_t>(5));
        QCOMPARE(res.regions[0].relativeError(), 0.25);
        QVERIFY(!res.regions[1].replayed); // the region ran once
        QCOMPARE(res.samples[0].replayed, std::optional<std::uint64_t>(4));
        QCOMPARE(res.samples[1].replayed, std::optional<std::uint64_t>(6));
        // Worst first: the instance never reached leads; the measures and the sentence the report and the
        // explorer print.
        QCOMPARE(analysis::worstFirst(res), (std::vector<std::size_t>{1, 0}));
        const analysis::RegionErrorStats stats = analysis::regionErrorStats(res);
        QCOMPARE(analysis::describeRegionErrors(res, stats),
                 std::string("1 of 2 recorded region instances replayed; mean |error| 25.0%, median 25.0%, "
                             "worst +25.0% (body #0)"));
        const analysis::SampleErrorStats samples = analysis::sampleErrorStats(res);
        QCOMPARE(samples.recorded, std::size_t(2));
        QCOMPARE(samples.matched, std::size_t(2));
        QCOMPARE(samples.meanAbsCycles, 0.5); // |4 - 4| and |6 - 7|
        // Matching samples reads every bundle: a stop already requested ends it.
        std::stop_source stop;
        stop.request_stop();
        QVERIFY_THROWS_EXCEPTION(Cancelled, analysis::computeResiduals(*t, store, stop.get_token()));
    }

    void cancelStopsPromptlyAndKeepsPartialEvents()
    {
        // An effectively endless loop.
        auto t = assembly::assemble(
            ".sreg s1, 0\nloop: sadd s1, s1, 1 ; scmp.lt s2, s1, 0x7fffffff\nbrnz s2, loop\nhalt\n",
            "long.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayResult result;
        std::atomic<int> progressCalls{0};
        std::jthread worker([&](std::stop_token stop) {
            sim::Replayer replayer(*t, {}, store);
            result = replayer.run(stop, [&](const sim::ReplayProgress&) { ++progressCalls; });
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const auto requested = std::chrono::steady_clock::now();
        worker.request_stop();
        worker.join();
        const auto latency = std::chrono::steady_clock::now() - requested;
        QVERIFY2(latency < std::chrono::milliseconds(50),
                 qPrintable(QString::number(std::chrono::duration<double, std::milli>(latency).count()) +
                            QStringLiteral(" ms")));
        QCOMPARE(result.status, sim::ReplayResult::Status::Cancelled);
        QVERIFY(store.bundles().size() > 1000);
        QVERIFY2(progressCalls >= 3, qPrintable(QString::number(progressCalls))); // >= 10 Hz over 300 ms
    }
};

QTEST_GUILESS_MAIN(TestGrmTiming)
#include "tst_grm_timing.moc"

// Replays whose clock runs long: the GRM's answers must not depend on the clock's magnitude (a DMA that
// starts at cycle 2^32 takes exactly as long as one that starts at cycle 100), a program that never ends
// stops at a limit with a diagnostic naming its loop, and the DMA system can never spin in place.
#include "sim/sim_support.h"

#include "dma_time.h"

#include <chrono>

using namespace xps;

namespace {

// `iterations` passes of a dependent multiply chain with a 2^20-cycle latency (a few bundles each, so the
// clock reaches 2^32 in about 4,100 issues), then, if `withDmas`, a section of DMAs whose rates and sizes
// make fractional progress every cycle: two engines sharing HBM at 1050 MHz, odd chunk sizes, a
// VMEM-to-VMEM copy, waits on each.
std::string longDelayThenDmas(int iterations, bool withDmas)
{
    std::string s = ".machine lat_scalar_mul=1048576, hbm_bandwidth_gbs=1234.5, dma_engine_peak_gbs=777.7\n"
                    ".hbm src, 0, 262144\n.vmem dst, 0, 262144\n"
                    ".sreg s1, 0\n.sreg s2, 1\n";
    s += "delay:\n"
         "    smul s2, s2, 1 ; sadd s1, s1, 1\n"
         "    scmp.lt s6, s1, " +
         std::to_string(iterations) +
         "\n"
         "    brnz s6, delay\n"
         "    smul s2, s2, 1\n"; // wait out the last multiply: the section starts on a whole cycle
    if (withDmas)
        s += "section:\n"
             "    dma.start vmem[0], hbm[0], 100003, 0, engine=0, chunk=3001\n"
             "    dma.start vmem[131072], hbm[131072], 77777, 1, engine=1, chunk=999\n"
             "    sync.wait 0, 34\n"
             "    dma.start vmem[100352], vmem[0], 25013, 2, engine=0, chunk=4093\n"
             "    sync.wait 1, 78\n"
             "    sync.wait 2, 7\n";
    return s + "    halt\n";
}

struct SectionTiming
{
    std::uint64_t totalCycles = 0;
    std::vector<std::uint64_t>
        relative; // every DMA's start and end, every wait's end, minus the section start
};

SectionTiming replayLongDelay(int iterations, bool withDmas)
{
    auto r = test::replaySource(longDelayThenDmas(iterations, withDmas), sim::ReplayMode::TimingOnly);
    if (r->result.status != sim::ReplayResult::Status::Completed)
        qFatal("replay did not complete: %s", test::faultText(*r).c_str());
    SectionTiming t;
    t.totalCycles = r->result.totalCycles;
    if (!withDmas)
        return t;
    std::uint32_t sectionPc = 0;
    for (const trace::Label& l : r->trace.chips[0].symbols.labels)
        if (l.name == "section")
            sectionPc = l.pc;
    std::uint64_t origin = 0;
    const auto issues = r->store.bundles();
    for (std::size_t i = 0; i < issues.size(); ++i)
        if (issues[i].pc == sectionPc)
            origin = issues[i].cycle;
    for (const auto& d : r->store.dmas()) {
        t.relative.push_back(d.start - origin);
        t.relative.push_back(d.end - origin);
    }
    for (const auto& w : r->store.syncWaits())
        t.relative.push_back(w.end - origin);
    t.relative.push_back(t.totalCycles - origin);
    return t;
}

} // namespace

class TestGrmLongRuns : public QObject
{
    Q_OBJECT
private slots:
    void dmaTimeKeepsSubCycleResolutionAtAnyClock()
    {
        for (const std::uint64_t base :
             {std::uint64_t{0}, std::uint64_t{1} << 25, std::uint64_t{1} << 52, std::uint64_t{1} << 62}) {
            const sim::DmaTime t = sim::DmaTime::at(base).plus(1e-9);
            QVERIFY2(sim::DmaTime::at(base) < t, qPrintable(QString::number(base)));
            QCOMPARE(t.ceilCycle(), base + 1);
            QCOMPARE(t.since(sim::DmaTime::at(base)), 1e-9);
            const sim::DmaTime u = sim::DmaTime::at(base).plus(2.75).plus(0.5);
            QCOMPARE(u.cycle, base + 3);
            QCOMPARE(u.fraction, 0.25);
        }
        QVERIFY(sim::DmaTime::at(5).plus(1e300).isNever());
        QVERIFY(sim::DmaTime::never().plus(1.0).isNever());
        QVERIFY(sim::DmaTime::at(~std::uint64_t{0} - 3).plus(10.0).isNever()); // saturates, never wraps
    }

    // The delay's cycle count is exact and linear in its iterations, so the expected count at 2^32 is known;
    // the DMA section then takes the same cycles, to the cycle, wherever on the clock it starts.
    void aReplayDoesNotDependOnTheClocksMagnitude_data()
    {
        QTest::addColumn<int>("iterations");
        QTest::newRow("past 2^24") << 17;
        QTest::newRow("past 2^25") << 33;
        QTest::newRow("past 2^32") << 4097;
    }
    void aReplayDoesNotDependOnTheClocksMagnitude()
    {
        QFETCH(int, iterations);
        const std::uint64_t one = replayLongDelay(1, false).totalCycles;
        const std::uint64_t two = replayLongDelay(2, false).totalCycles;
        const std::uint64_t perIteration = two - one;
        QVERIFY(perIteration >= (1u << 20));
        const std::uint64_t expected = one + perIteration * static_cast<std::uint64_t>(iterations - 1);
        const auto start = std::chrono::steady_clock::now();
        QCOMPARE(replayLongDelay(iterations, false).totalCycles, expected);

        const SectionTiming early = replayLongDelay(1, true);
        const SectionTiming late = replayLongDelay(iterations, true);
        QCOMPARE(late.relative.size(), std::size_t(3 * 2 + 3 + 1));
        QCOMPARE(late.relative, early.relative);
        QVERIFY(late.totalCycles > expected);
        // Idle stretches are skipped in one step: thousands of issues, not billions of cycles.
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    }

    // The fuzzer's livelocks: a 1 MHz clock makes one cycle worth 10^6 bytes, so a chunk's progress in one
    // representable time step used to fall below the old completion tolerance and time stood still.
    void fuzzFoundDmaLivelocksFinish_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("livelock") << QStringLiteral("hang_dma_livelock.xasm");
        QTest::newRow("clock 1 MHz wait loop")
            << QStringLiteral("hang_dma_livelock_clock1_dma_wait_loop.xasm");
    }
    void fuzzFoundDmaLivelocksFinish()
    {
        QFETCH(QString, file);
        const std::string path = test::sourceDir() + "/tests/data/fuzz/" + file.toStdString();
        auto t = assembly::assemble(test::readFile(path), path);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        for (const auto mode : {sim::ReplayMode::Full, sim::ReplayMode::TimingOnly}) {
            auto r = test::replayTrace(t.value(), mode);
            QVERIFY2(r->result.status == sim::ReplayResult::Status::Completed, test::faultText(*r).c_str());
            QVERIFY(r->result.chips[0].halted);
            QVERIFY(!r->store.dmas().empty());
        }
    }

    void aProgramThatNeverEndsStopsAtTheBundleLimitNamingItsLoop()
    {
        auto t = assembly::assemble(".sreg s1, 0\nnop\nloop:\n    sadd s1, s1, 1\n    br loop\n    halt\n",
                                    "spin.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayOptions options{sim::ReplayMode::TimingOnly};
        options.maxBundles = 50'000;
        const sim::ReplayResult r = sim::replay(t.value(), options, store);
        QCOMPARE(r.status, sim::ReplayResult::Status::LimitReached);
        QCOMPARE(r.chips[0].bundles, std::uint64_t(50'000));
        QVERIFY2(
            r.limitMessage.starts_with("the bundle limit (50,000 bundles); chip 0 still running at pc 0x"),
            r.limitMessage.c_str());
        // Both loop bundles ran 24,999 or 25,000 times; the first of the two is named.
        QVERIFY2(r.limitMessage.find("its most executed bundle pc 0x1 (`sadd s1, s1, 1`, 25,000 times)") !=
                     std::string::npos,
                 r.limitMessage.c_str());
    }

    void theDefaultLimitsStopANeverEndingProgram()
    {
        const sim::ReplayOptions defaults;
        QCOMPARE(defaults.maxBundles, sim::kDefaultMaxBundles);
        QCOMPARE(defaults.maxCycles, sim::kDefaultMaxCycles);
        // A loop of long stalls: few bundles, many cycles. The cycle limit stops it (2^40 cycles here would
        // be 2^20 issues; a lower limit keeps the test short, the mechanism is the same).
        auto t = assembly::assemble(".machine lat_scalar_mul=1048576\n.sreg s2, 1\nloop:\n"
                                    "    smul s2, s2, 1\n    br loop\n    halt\n",
                                    "stall.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayOptions options{sim::ReplayMode::TimingOnly};
        options.maxCycles = std::uint64_t{1} << 33;
        const sim::ReplayResult r = sim::replay(t.value(), options, store);
        QCOMPARE(r.status, sim::ReplayResult::Status::LimitReached);
        QVERIFY(r.totalCycles >= options.maxCycles);
        QVERIFY2(r.limitMessage.starts_with("the cycle limit (8,589,934,592 cycles); chip 0 still running"),
                 r.limitMessage.c_str());
    }

    void withoutLimitsANeverEndingProgramStopsAtTheMemoryLimit()
    {
        // Cycle and bundle limits off (`--max-bundles 0 --max-cycles 0`, or both off in Replay > Limits…):
        // the events' memory stops it before the system would kill the process. By default at half the
        // machine's memory; here at 8 MiB, so the test is quick.
        QVERIFY(sim::ReplayOptions{}.maxEventBytes == sim::defaultMaxEventBytes());
        QVERIFY(sim::defaultMaxEventBytes() > 0); // Linux says how much memory it has
        auto t = assembly::assemble(".sreg s1, 0\nloop:\n    sadd s1, s1, 1\n    br loop\n", "spin.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayOptions options{sim::ReplayMode::TimingOnly};
        options.maxBundles = 0;
        options.maxCycles = 0;
        options.maxEventBytes = 8u << 20;
        const sim::ReplayResult r = sim::replay(t.value(), options, store);
        QCOMPARE(r.status, sim::ReplayResult::Status::LimitReached);
        QVERIFY2(r.limitMessage.starts_with("the memory limit (8 MiB of events); chip 0 still running at pc 0x"),
                 r.limitMessage.c_str());
        // Checked every 4,096 steps: past the limit by at most the chunk the last step opened.
        QVERIFY(store.allocatedBytes() > options.maxEventBytes);
        QVERIFY2(store.allocatedBytes() < options.maxEventBytes + (4u << 20),
                 std::to_string(store.allocatedBytes()).c_str());
        QVERIFY(r.chips[0].bundles > 300'000); // at most 19 bytes a bundle, and VMEM accesses
    }
};

QTEST_GUILESS_MAIN(TestGrmLongRuns)
#include "tst_grm_long_runs.moc"

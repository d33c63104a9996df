// What-ifs measured side by side: the work pool visits every item once and passes an exception on, a
// page never touched can be read by several threads without materialising it, and measuring suggestions
// or groups on several workers gives exactly what one worker gives (verdicts, cycles, details, order),
// with progress reported one call at a time and cancel honoured.
#include "sim/analysis_test_support.h"

#include "sparse_memory.h"
#include "suggest/group.h"
#include "what_if.h"
#include "work_pool.h"
#include "workloads/workloads.h"

#include <atomic>
#include <stdexcept>
#include <thread>

using namespace xps;
using test::analyze;
using test::Analyzed;

namespace {

// What a measurement says, for comparing two of them field by field.
std::string describe(const suggest::Suggestion& s)
{
    if (!s.measured)
        return s.id + ": not measured";
    const suggest::Measurement& m = *s.measured;
    return s.id + ": " + std::string(suggest::verdictName(m.verdict)) + ", " + std::to_string(m.baselineCycles) +
           " -> " + std::to_string(m.newCycles) + " cycles, " + std::to_string(m.gainPercent) + "%, severity " +
           std::to_string(static_cast<int>(s.severity)) + ", " + m.detail;
}

} // namespace

class TestWhatIfWorkers : public QObject
{
    Q_OBJECT

private slots:
    void everyItemOnceOnAnyNumberOfWorkers()
    {
        for (unsigned workers : {1u, 2u, 7u, 64u}) {
            std::vector<std::atomic<int>> visits(100);
            sim::forEachOnWorkers(visits.size(), workers, {}, [&](std::size_t i) { ++visits[i]; });
            for (std::size_t i = 0; i < visits.size(); ++i)
                QVERIFY2(visits[i] == 1, (std::to_string(workers) + " workers, item " + std::to_string(i)).c_str());
        }
        int calls = 0;
        sim::forEachOnWorkers(0, 4, {}, [&](std::size_t) { ++calls; });
        QCOMPARE(calls, 0);
    }

    void aStopRequestedSkipsWhatHasNotStarted()
    {
        std::stop_source source;
        source.request_stop();
        std::atomic<int> calls = 0;
        sim::forEachOnWorkers(50, 3, source.get_token(), [&](std::size_t) { ++calls; });
        QCOMPARE(calls.load(), 0);

        // Requested by the item run third on one worker: nothing after it starts.
        std::stop_source midway;
        std::vector<std::size_t> order;
        sim::forEachOnWorkers(10, 1, midway.get_token(), [&](std::size_t i) {
            order.push_back(i);
            if (order.size() == 3)
                midway.request_stop();
        });
        QCOMPARE(order, (std::vector<std::size_t>{0, 1, 2}));
    }

    void anExceptionReachesTheCallerAfterEveryWorkerReturned()
    {
        std::atomic<int> running = 0, after = 0;
        bool caught = false;
        try {
            sim::forEachOnWorkers(200, 4, {}, [&](std::size_t i) {
                ++running;
                if (i == 5)
                    throw std::runtime_error("item 5 failed");
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                --running;
            });
        } catch (const std::runtime_error& e) {
            caught = std::string(e.what()) == "item 5 failed";
            after = running.load();
        }
        QVERIFY(caught);
        QCOMPARE(after.load(), 1); // the failed item's own count: every other worker had returned
    }

    void peekReadsUntouchedPagesWithoutMaterialisingThem()
    {
        trace::Payload random;
        random.isGenerator = true;
        random.generator.kind = trace::Generator::Kind::RandomU32;
        random.generator.seed = 7;
        trace::Payload literal;
        literal.bytes = {1, 2, 3, 4, 5, 6, 7, 8};
        sim::SparseMemory touched(1 << 20), untouched(1 << 20);
        for (sim::SparseMemory* m : {&touched, &untouched}) {
            m->addSource(0x100, 200'000, random); // across page boundaries
            m->addSource(0x20000 - 4, 8, literal); // overrides the generator where they overlap
        }
        std::vector<std::uint8_t> a(300'000), b(300'000);
        touched.read(0, a);
        untouched.peek(0, b);
        QCOMPARE(untouched.materialisedPages(), std::size_t{0});
        QVERIFY(a == b);
        QCOMPARE(b[0x20000 - 4], std::uint8_t{1});
        QCOMPARE(b[0], std::uint8_t{0}); // before any source: zero

        // A page that was written is read as written.
        const std::uint8_t written[4] = {9, 9, 9, 9};
        untouched.write(0x30000, written);
        std::uint8_t back[6] = {};
        untouched.peek(0x30000 - 1, back);
        QCOMPARE(untouched.materialisedPages(), std::size_t{1});
        QCOMPARE(back[1], std::uint8_t{9});
        QCOMPARE(back[4], std::uint8_t{9});
        std::uint8_t fromRead[6] = {};
        touched.read(0x30000 - 1, fromRead);
        QCOMPARE(back[0], fromRead[0]); // the generator's byte, from an untouched page
    }

    void suggestionsMeasuredSideBySideMatchOneAtATime()
    {
        auto source = workloads::generateAssembly("decode", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        QVERIFY(a.suggestions.size() >= 4);
        std::vector<suggest::Suggestion> alone = a.suggestions, together = a.suggestions;
        sim::measureSuggestions(alone, a.replayed->trace, a.replayed->result, {}, {}, 1);

        std::atomic<bool> inCallback = false;
        bool overlapped = false, sawSeveral = false, monotonic = true, bounded = true;
        std::vector<sim::WhatIfStatus> statuses;
        sim::measureSuggestions(
            together, a.replayed->trace, a.replayed->result, {},
            [&](const sim::WhatIfStatus& s) {
                overlapped = overlapped || inCallback.exchange(true);
                monotonic = monotonic && (statuses.empty() || s.done >= statuses.back().done);
                bounded = bounded && s.current >= 0.0 && s.current <= static_cast<double>(s.inFlight) &&
                          s.done + s.inFlight <= s.total;
                sawSeveral = sawSeveral || s.inFlight > 1;
                statuses.push_back(s);
                inCallback = false;
            },
            4);
        QVERIFY(!overlapped);
        QVERIFY(monotonic);
        QVERIFY(bounded);
        QVERIFY(sawSeveral);
        QCOMPARE(statuses.back().done, together.size());
        QCOMPARE(statuses.back().inFlight, std::size_t{0});
        QCOMPARE(together.size(), alone.size());
        for (std::size_t i = 0; i < alone.size(); ++i)
            QCOMPARE(describe(together[i]), describe(alone[i]));
        QVERIFY(std::any_of(together.begin(), together.end(), [](const suggest::Suggestion& s) {
            return s.measured->verdict == suggest::Measurement::Verdict::Improves;
        }));

        // Groups likewise.
        const auto groupsAlone = sim::measureGroups(alone, a.replayed->trace, a.replayed->result, {}, {}, 1);
        const auto groupsTogether =
            sim::measureGroups(together, a.replayed->trace, a.replayed->result, {}, {}, 3);
        QVERIFY(!groupsAlone.empty());
        QCOMPARE(groupsTogether.size(), groupsAlone.size());
        for (std::size_t g = 0; g < groupsAlone.size(); ++g) {
            QCOMPARE(groupsTogether[g].members, groupsAlone[g].members);
            QCOMPARE(groupsTogether[g].applied, groupsAlone[g].applied);
            QVERIFY(groupsTogether[g].combined && groupsAlone[g].combined);
            QCOMPARE(groupsTogether[g].combined->newCycles, groupsAlone[g].combined->newCycles);
            QCOMPARE(groupsTogether[g].combined->verdict, groupsAlone[g].combined->verdict);
        }
    }

    void cancelLeavesWhatWasNotMeasuredCancelled()
    {
        auto source = workloads::generateAssembly("decode", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        std::vector<suggest::Suggestion> suggestions = a.suggestions;
        QVERIFY(suggestions.size() >= 4);
        std::stop_source stop;
        sim::measureSuggestions(
            suggestions, a.replayed->trace, a.replayed->result, stop.get_token(),
            [&](const sim::WhatIfStatus& s) {
                if (s.done >= 1)
                    stop.request_stop();
            },
            2);
        std::size_t cancelled = 0, measured = 0;
        for (const suggest::Suggestion& s : suggestions) {
            QVERIFY(s.measured);
            (s.measured->verdict == suggest::Measurement::Verdict::Cancelled ? cancelled : measured)++;
            QCOMPARE(s.measured->baselineCycles, a.replayed->result.totalCycles);
        }
        QVERIFY2(measured >= 1 && measured <= 2, std::to_string(measured).c_str()); // the two in flight at most
        QVERIFY(cancelled >= suggestions.size() - 2);
    }

    void workersAreBoundedByItemsAndRequest()
    {
        auto source = workloads::generateAssembly("decode", "naive", {});
        QVERIFY(source.ok());
        Analyzed a = analyze(source.value());
        QCOMPARE(sim::whatIfWorkers(a.replayed->trace, a.replayed->result, 3, 16), 3u);
        QCOMPARE(sim::whatIfWorkers(a.replayed->trace, a.replayed->result, 10, 2), 2u);
        QCOMPARE(sim::whatIfWorkers(a.replayed->trace, a.replayed->result, 0, 4), 1u);
        QVERIFY(sim::whatIfWorkers(a.replayed->trace, a.replayed->result, 100) <= sim::hardwareThreads());
        QVERIFY(sim::hardwareThreads() >= 1);
    }
};

QTEST_GUILESS_MAIN(TestWhatIfWorkers)
#include "tst_what_if_workers.moc"

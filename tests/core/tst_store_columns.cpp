// The store's compact columns (bundle_chunk.h, cycle_column.h): every field of every bundle issue and VMEM
// access comes back, whether the bundle stalled or not, wherever its stall detail lies, and whatever its
// cycle (2^32 boundaries inside a chunk, events billions of cycles apart, a store filled by hand out of
// order).
#include "test_support.h"

#include "events/event_store.h"

#include <random>
#include <vector>

using namespace xps;

namespace {

events::BundleIssue issue(events::Cycle cycle, std::uint32_t pc, std::uint32_t stall, std::uint32_t cause,
                          std::uint16_t chip, events::StallReason reason, events::CauseKind kind)
{
    return {cycle, pc, stall, cause, ChipId(chip), reason, kind};
}

// Compares one field at a time, so a failure names the event and the field.
void compareIssues(const events::BundleIssue& got, const events::BundleIssue& want, std::size_t i)
{
    const auto what = [i](const char* field) {
        return QByteArray("event " + QByteArray::number(static_cast<qulonglong>(i)) + ' ' + field);
    };
    QVERIFY2(got.cycle == want.cycle, what("cycle").constData());
    QVERIFY2(got.pc == want.pc, what("pc").constData());
    QVERIFY2(got.stallCycles == want.stallCycles, what("stall cycles").constData());
    QVERIFY2(got.cause == want.cause, what("cause").constData());
    QVERIFY2(got.chip == want.chip, what("chip").constData());
    QVERIFY2(got.reason == want.reason, what("reason").constData());
    QVERIFY2(got.causeKind == want.causeKind, what("cause kind").constData());
}

// Every event, read three ways: by index through a snapshot, chunk by chunk with forEach, and each
// column's accessor.
void verifyReadsBack(const events::EventStore& store, const std::vector<events::BundleIssue>& want)
{
    const events::BundleSnapshot bundles = store.bundles();
    QCOMPARE(bundles.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        compareIssues(bundles[i], want[i], i);
        if (QTest::currentTestFailed())
            return;
    }
    std::size_t i = 0;
    for (const auto& chunk : bundles.chunks()) {
        chunk->forEach(0, chunk->size, [&](std::size_t k, const events::BundleIssue& e) {
            compareIssues(e, want[i], i);
            QCOMPARE(chunk->cycleAt(k), want[i].cycle);
            QCOMPARE(chunk->stalled(k), want[i].stallCycles > 0);
            QCOMPARE(chunk->stallCyclesAt(k), want[i].stallCycles);
            ++i;
        });
        // From the middle of a 64-event word on, too.
        if (chunk->size > 100) {
            std::size_t j = i - chunk->size + 37;
            chunk->forEach(37, 100, [&](std::size_t, const events::BundleIssue& e) {
                compareIssues(e, want[j], j);
                ++j;
            });
        }
    }
    QCOMPARE(i, want.size());
}

// Appends every issue, then flushes (publishes the last chunk).
void appendAll(events::EventStore& store, const std::vector<events::BundleIssue>& issues)
{
    for (const events::BundleIssue& e : issues)
        store.appendBundle(e);
    store.flush();
}

} // namespace

class TestStoreColumns : public QObject
{
    Q_OBJECT
private slots:
    // A random mix of stalled and unstalled issues over several chunks: every field round-trips, the
    // stalled ones' details included, and an unstalled issue takes no detail.
    void stalledAndUnstalledIssuesReadBack()
    {
        std::mt19937 random(27);
        std::vector<events::BundleIssue> want;
        events::Cycle cycle = 0;
        for (std::size_t i = 0; i < 3 * events::kChunkEvents + 123; ++i) {
            cycle += random() % 5;
            const bool stalled = random() % 3 == 0;
            const auto reason =
                static_cast<events::StallReason>(1 + random() % (events::kStallReasonCount - 1));
            const auto kind = static_cast<events::CauseKind>(random() % 3);
            want.push_back(stalled ? issue(cycle, random() % 5000, 1 + random() % 100000, random(),
                                           static_cast<std::uint16_t>(random() % 700), reason, kind)
                                   : issue(cycle, random() % 5000, 0, 0,
                                           static_cast<std::uint16_t>(random() % 700),
                                           events::StallReason::None, events::CauseKind::None));
        }
        events::EventStore store;
        appendAll(store, want);
        verifyReadsBack(store, want);
    }

    // Unstalled issues fill most of a detail block's chunk, then every issue stalls: the next chunk's
    // details begin at the end of one block and go on in the next, and a saturated stall reads back whole.
    void aChunksDetailsSpanTwoBlocks()
    {
        std::vector<events::BundleIssue> want;
        for (std::size_t i = 0; i < 1000; ++i)
            want.push_back(issue(i, 1, 0, 0, 0, events::StallReason::None, events::CauseKind::None));
        for (std::size_t i = 1000; i < 3 * events::kChunkEvents; ++i)
            want.push_back(issue(i, 2, static_cast<std::uint32_t>(i % 7 == 0 ? UINT32_MAX : i),
                                 static_cast<std::uint32_t>(i * 3), 1, events::StallReason::SyncWait,
                                 events::CauseKind::Dma));
        events::EventStore store;
        appendAll(store, want);
        verifyReadsBack(store, want);
        const auto chunks = store.bundles().chunks();
        QVERIFY(chunks[1]->detailsContinued != nullptr); // the case this test is for
        QVERIFY(chunks[1]->detailsInFirst > 0 && chunks[1]->detailsInFirst < events::kChunkEvents);
    }

    // Cycles crossing 2^32 and 2^33 inside one chunk, events 2^40 cycles apart, and a last cycle near
    // 2^64: each chunk that holds more than one window of 2^32 cycles keeps its cycles whole, and
    // cycleRange() still finds them.
    void cyclesOfAnyMagnitudeReadBack()
    {
        std::vector<events::BundleIssue> want;
        const events::Cycle two32 = events::Cycle{1} << 32;
        for (events::Cycle c = two32 - 100; c < two32 + 100; ++c)
            want.push_back(issue(c, 3, c % 2 ? 5 : 0, c % 2 ? 9 : 0, 0,
                                 c % 2 ? events::StallReason::MxuBusy : events::StallReason::None,
                                 c % 2 ? events::CauseKind::Instruction : events::CauseKind::None));
        for (events::Cycle c = 2 * two32 - 10; c < 2 * two32 + 10; ++c)
            want.push_back(issue(c, 4, 0, 0, 1, events::StallReason::None, events::CauseKind::None));
        for (int i = 1; i < 1000; ++i)
            want.push_back(issue(events::Cycle(i) << 40, 5, 0, 0, 0, events::StallReason::None,
                                 events::CauseKind::None));
        want.push_back(
            issue(UINT64_MAX - 1, 6, 1, 1, 0, events::StallReason::SyncWait, events::CauseKind::Dma));
        // Then enough to fill the chunk and start another, in the top window.
        for (std::size_t i = want.size(); i < events::kChunkEvents + 10; ++i)
            want.push_back(issue(UINT64_MAX, 7, 0, 0, 0, events::StallReason::None, events::CauseKind::None));
        events::EventStore store;
        appendAll(store, want);
        verifyReadsBack(store, want);
        const events::BundleSnapshot bundles = store.bundles();
        QVERIFY(bundles.chunks()[0]->cycles.whole != nullptr);
        QVERIFY(bundles.chunks()[1]->cycles.whole == nullptr); // one window: low halves only
        const auto [first, last] = bundles.cycleRange(two32, 2 * two32);
        QCOMPARE(first, std::size_t(100));
        QCOMPARE(last, std::size_t(210));
    }

    // A store filled by hand need not be in cycle order: a cycle of an earlier window after a later one
    // still reads back as it was written.
    void cyclesOutOfOrderReadBack()
    {
        std::vector<events::BundleIssue> want;
        for (int i = 0; i < 300; ++i)
            want.push_back(issue(i % 3 == 0 ? (events::Cycle{5} << 32) + i : events::Cycle(i), 8, 0, 0, 0,
                                 events::StallReason::None, events::CauseKind::None));
        events::EventStore store;
        appendAll(store, want);
        verifyReadsBack(store, want);
    }

    // VMEM accesses keep their cycles the same way: across a 2^32 boundary and out of order, every field
    // reads back, and the heatmap takes each at its whole cycle.
    void vmemAccessesOfAnyCycleReadBack()
    {
        const events::Cycle two32 = events::Cycle{1} << 32;
        std::vector<events::VmemAccess> want;
        for (std::size_t i = 0; i < events::kChunkEvents + 500; ++i) {
            const events::Cycle cycle = i < 300 ? two32 - 150 + i : (i % 5 == 0 ? 7 : two32 + i);
            want.push_back({cycle, static_cast<std::uint32_t>(i * 64 % (1 << 20)), 64,
                            static_cast<std::uint32_t>(i), ChipId(0), static_cast<std::uint8_t>(i % 4)});
        }
        events::EventStore store;
        store.configure(1, 1 << 20);
        for (const events::VmemAccess& a : want)
            store.appendVmemAccess(a, a.bytes);
        store.flush();
        const events::VmemSnapshot got = store.vmemAccesses();
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            const events::VmemAccess a = got[i];
            QVERIFY2(a.cycle == want[i].cycle && a.address == want[i].address && a.bytes == want[i].bytes &&
                         a.source == want[i].source && a.chip == want[i].chip && a.kind == want[i].kind,
                     qPrintable(QStringLiteral("access %1").arg(i)));
        }
        QVERIFY(got.chunks()[0]->cycles.whole != nullptr);
        QVERIFY(got.chunks()[1]->cycles.whole != nullptr); // out of order: cycle 7 after 2^32 + n
    }

    // What a bundle takes: 11 bytes unstalled, 8 more stalled, and a store of unstalled bundles holds no
    // detail block at all.
    void aBundleTakesElevenBytesAndAStalledOneNineteen()
    {
        QVERIFY(sizeof(events::BundleChunk) / events::kChunkEvents == 11);
        QCOMPARE(sizeof(events::StallDetail), std::size_t(8));
        events::EventStore plain, stalled;
        for (std::size_t i = 0; i < 4 * events::kChunkEvents; ++i) {
            plain.appendBundle(issue(i, 0, 0, 0, 0, events::StallReason::None, events::CauseKind::None));
            stalled.appendBundle(
                issue(i, 0, 1, 0, 0, events::StallReason::OperandDependency, events::CauseKind::Instruction));
        }
        plain.flush();
        stalled.flush();
        QCOMPARE(plain.residentBytes(), 4 * sizeof(events::BundleChunk));
        QCOMPARE(plain.residentBytesByKind().stallDetails, std::size_t(0));
        QCOMPARE(stalled.residentBytesByKind().stallDetails,
                 4 * events::kChunkEvents * sizeof(events::StallDetail));
        QCOMPARE(stalled.residentBytesByKind().bundles, 4 * sizeof(events::BundleChunk));
        QCOMPARE(stalled.residentBytes(),
                 4 * sizeof(events::BundleChunk) + 4 * events::kChunkEvents * sizeof(events::StallDetail));
    }
};

QTEST_GUILESS_MAIN(TestStoreColumns)
#include "tst_store_columns.moc"

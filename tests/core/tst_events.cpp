// The event store and the VMEM heatmap: binning and its bounded coarsening, and readers that take
// snapshots while a writer appends.
#include "test_support.h"

#include "events/event_store.h"
#include "util/sort_runs.h"

#include <array>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

using namespace xps;

class TestEvents : public QObject
{
    Q_OBJECT
private slots:
    void heatmapBinsByTimeAndAddress()
    {
        events::VmemHeatmap h(128 * 1024); // 1 KiB per address bin
        QCOMPARE(h.bytesPerAddressBin(), std::uint64_t(1024));
        h.add(0, 0, 4096, 4096, false);    // bins 0..3 of time bin 0
        h.add(17, 1536, 1024, 1024, true); // half in bin 1, half in bin 2, time bin 1 (16 cycles per bin)
        QCOMPARE(h.readBytes(0, 0), std::uint64_t(1024));
        QCOMPARE(h.readBytes(0, 3), std::uint64_t(1024));
        QCOMPARE(h.readBytes(0, 4), std::uint64_t(0));
        QCOMPARE(h.writeBytes(1, 1), std::uint64_t(512));
        QCOMPARE(h.writeBytes(1, 2), std::uint64_t(512));
        QCOMPARE(h.usedTimeBins(), 2);
    }

    void stridedAccessSpreadsItsBytes()
    {
        events::VmemHeatmap h(128 * 1024);
        // 8 rows of 512 B with a 2 KiB stride: 4 KiB moved over a 14.5 KiB range.
        h.add(0, 0, 7 * 2048 + 512, 4096, false);
        std::uint64_t sum = 0;
        for (int a = 0; a < events::VmemHeatmap::kAddressBins; ++a)
            sum += h.readBytes(0, a);
        QVERIFY(sum <= 4096 && sum >= 4096 - 16); // integer shares may round down a few bytes
        QCOMPARE(h.totalRead(), std::uint64_t(4096));
    }

    void manyChipsShareTheHeatmapBudget()
    {
        // Full resolution up to 64 chips, then fewer time bins per chip: 4,096 chips that each touched VMEM
        // once held 8 GiB of grids and copies (fuzz_replay: 1.5 KB of .xasm, 10 GB and 25 s to replay).
        QCOMPARE(events::VmemHeatmap::timeBinsFor(1), 512);
        QCOMPARE(events::VmemHeatmap::timeBinsFor(64), 512);
        QCOMPARE(events::VmemHeatmap::timeBinsFor(65), 256);
        QCOMPARE(events::VmemHeatmap::timeBinsFor(4096), 16);
        events::VmemHeatmap h(1 << 20, events::VmemHeatmap::timeBinsFor(4096));
        QCOMPARE(h.timeBins(), 16);
        std::uint64_t read = 0;
        for (std::uint64_t cycle = 0; cycle < 100'000; cycle += 31) {
            h.add(cycle, (cycle * 512) % (1 << 20), 512, 512, false);
            read += 512;
        }
        QCOMPARE(h.heldBytes(), std::size_t(16 * events::VmemHeatmap::kAddressBins * 2 * 8));
        QVERIFY(h.usedTimeBins() <= 16 && h.cyclesPerBin() >= 100'000 / 16);
        std::uint64_t sum = 0;
        for (int t = 0; t < h.usedTimeBins(); ++t)
            for (int a = 0; a < events::VmemHeatmap::kAddressBins; ++a)
                sum += h.readBytes(t, a);
        QCOMPARE(sum, read);
    }

    void coarseningKeepsTotalsInBoundedMemory()
    {
        events::VmemHeatmap h(1 << 20);
        std::uint64_t written = 0;
        for (std::uint64_t cycle = 0; cycle < 1'000'000; cycle += 97) {
            h.add(cycle, (cycle * 4096) % (1 << 20), 4096, 4096, true);
            written += 4096;
        }
        QVERIFY(h.cyclesPerBin() >= 1'000'000 / events::VmemHeatmap::kTimeBins);
        QVERIFY(h.usedTimeBins() <= events::VmemHeatmap::kTimeBins);
        std::uint64_t sum = 0;
        for (int t = 0; t < h.usedTimeBins(); ++t)
            for (int a = 0; a < events::VmemHeatmap::kAddressBins; ++a)
                sum += h.writeBytes(t, a);
        QCOMPARE(sum, written);
        QCOMPARE(h.totalWritten(), written);
    }

    // add() takes an inline path for an access inside one address bin of a grid that needs no coarsening,
    // and the general one otherwise. Random accesses of both kinds, on a power-of-two VMEM and on one that is
    // not (no shift for the address bin), land where the documented rule puts them at the final resolution:
    // time bin = cycle / cycles per bin, each address bin's share = its bytes x data bytes / range bytes,
    // the last bin taking everything past it.
    void heatmapMatchesItsRuleOnRandomAccesses()
    {
        for (const std::uint64_t vmemBytes : {std::uint64_t{1} << 20, std::uint64_t{1000} * 1024}) {
            struct Access
            {
                std::uint64_t cycle, address, range, data;
                bool write;
            };
            std::mt19937_64 random(7);
            std::vector<Access> accesses;
            events::VmemHeatmap h(vmemBytes);
            std::uint64_t cycle = 0;
            for (int i = 0; i < 20'000; ++i) {
                cycle += random() % 64;
                const std::uint64_t range = random() % 4 == 0 ? 1 + random() % 40'000 : 1 + random() % 512;
                const std::uint64_t address = random() % vmemBytes;
                const Access a{cycle, address, range, 1 + random() % range, random() % 2 == 0};
                accesses.push_back(a);
                h.add(a.cycle, a.address, a.range, a.data, a.write);
            }
            QVERIFY(h.cyclesPerBin() > 16); // coarsened on the way
            const std::uint64_t perBin = h.bytesPerAddressBin();
            constexpr int bins = events::VmemHeatmap::kAddressBins;
            std::vector<std::uint64_t> read(static_cast<std::size_t>(h.timeBins()) * bins),
                written(read.size());
            for (const Access& a : accesses) {
                auto& grid = a.write ? written : read;
                const std::size_t t = a.cycle / h.cyclesPerBin();
                for (std::uint64_t at = a.address, end = a.address + a.range; at < end;) {
                    const std::uint64_t bin = std::min<std::uint64_t>(at / perBin, bins - 1);
                    const std::uint64_t binEnd = bin == bins - 1 ? end : std::min(end, (bin + 1) * perBin);
                    grid[t * bins + bin] += (binEnd - at) * a.data / a.range;
                    at = binEnd;
                }
            }
            for (int t = 0; t < h.timeBins(); ++t)
                for (int b = 0; b < bins; ++b) {
                    QCOMPARE(h.readBytes(t, b), read[static_cast<std::size_t>(t) * bins + b]);
                    QCOMPARE(h.writeBytes(t, b), written[static_cast<std::size_t>(t) * bins + b]);
                }
        }
    }

    void readersSeeConsistentSnapshotsWhileTheWriterAppends()
    {
        events::EventStore store;
        store.configure(1, 1 << 20);
        constexpr std::size_t total = 5 * events::kChunkEvents + 123;
        std::jthread writer([&] {
            for (std::size_t i = 0; i < total; ++i)
                store.appendBundle({i, static_cast<std::uint32_t>(i % 1000), 0, 0, ChipId(0),
                                    events::StallReason::None, events::CauseKind::None});
            store.flush();
        });
        std::size_t last = 0;
        while (last < total) {
            const events::BundleSnapshot s = store.bundles();
            QVERIFY(s.size() >= last);
            QVERIFY(s.size() % events::kChunkEvents == 0 ||
                    s.size() == total); // only whole chunks until flush
            if (s.size() > 0)
                QCOMPARE(s[s.size() - 1].cycle, std::uint64_t(s.size() - 1));
            last = s.size();
        }
        QCOMPARE(store.bundleCount(), total);
    }

    // Chunks live in the store's arena; a reader's snapshot must keep them readable after the store is gone
    // (the explorer drops a run while a view may still hold its snapshot).
    void snapshotsOutliveTheStore()
    {
        events::BundleSnapshot bundles;
        events::VmemSnapshot vmem;
        {
            events::EventStore store;
            store.configure(2, 1 << 20);
            for (std::uint64_t i = 0; i < events::kChunkEvents + 10; ++i) {
                store.appendBundle({i * 3, static_cast<std::uint32_t>(i), 7, 0, chipIdAt(i % 2),
                                    events::StallReason::SyncWait, events::CauseKind::None});
                store.appendVmemAccess(
                    {i, static_cast<std::uint32_t>(i * 512 % (1 << 20)), 512, 0, ChipId(1), 1}, 512);
            }
            store.flush();
            bundles = store.bundles();
            vmem = store.vmemAccesses();
        }
        QCOMPARE(bundles.size(), std::size_t(events::kChunkEvents + 10));
        for (const std::size_t i : {std::size_t(0), std::size_t(events::kChunkEvents - 1),
                                    std::size_t(events::kChunkEvents), bundles.size() - 1}) {
            QCOMPARE(bundles[i].cycle, std::uint64_t(i * 3));
            QCOMPARE(bundles[i].pc, std::uint32_t(i));
            QCOMPARE(bundles[i].stallCycles, 7u);
            QCOMPARE(bundles[i].reason, events::StallReason::SyncWait);
            QCOMPARE(vmem[i].address, std::uint32_t(i * 512 % (1 << 20)));
        }
    }

    // DMA, wait and region slices and their rows are kept in blocks: every one reads back as written,
    // across block boundaries, and as copies from any offset.
    void recordsKeepTheirValues()
    {
        events::EventStore store;
        store.configure(1, 1 << 20);
        constexpr std::size_t n = 3 * events::RecordLog<events::DmaRow>::kPerBlock + 5;
        for (std::size_t i = 0; i < n; ++i) {
            events::DmaRecord r;
            r.id = static_cast<std::uint32_t>(i);
            r.bytes = i * 100;
            r.end = i + 1;
            store.appendDma(r);
            store.appendSyncWait(
                {ChipId(0), static_cast<std::uint32_t>(i), 3, 4, i, i + 2, static_cast<std::int64_t>(i)});
        }
        // Published in groups while the writer appends, all at flush().
        QCOMPARE(store.dmaCount(), n / events::RecordLog<events::DmaRow>::kPublishEvery *
                                       events::RecordLog<events::DmaRow>::kPublishEvery);
        store.flush();
        QCOMPARE(store.dmaCount(), n);
        std::size_t i = 0;
        store.forEachDma([&](const events::DmaRecord& d) {
            QCOMPARE(d.id, std::uint32_t(i));
            QCOMPARE(d.bytes, std::uint64_t(i * 100));
            QCOMPARE(d.end, events::Cycle(i + 1));
            ++i;
        });
        QCOMPARE(i, n);
        const auto tail = store.syncWaits(ChipId(0), n - 7);
        QCOMPARE(tail.size(), std::size_t(7));
        QCOMPARE(tail.front().pc, std::uint32_t(n - 7));
        QCOMPARE(tail.front().flag, std::uint32_t(3));
        QCOMPARE(tail.front().target, std::uint32_t(4));
        QCOMPARE(tail.front().start, events::Cycle(n - 7));
        QCOMPARE(tail.front().end, events::Cycle(n - 5));
        QCOMPARE(tail.back().satisfiedBy, std::int64_t(n - 1));
        QVERIFY(store.syncWaits(ChipId(0), n + 1).empty());
        QVERIFY(store.syncWaits(ChipId(1), 0).empty());
        QCOMPARE(store.syncWaitCount(), n);
        QCOMPARE(store.dmas().size(), n);
    }

    // DMAs are slices on their chip's track of their engine, made with the engine's first DMA,
    // and a row beside each: every field of the record the replayer wrote comes back. dmas() hands them
    // out by id whatever order they ended in; a track's, in the order they ended, from any offset.
    void dmasAreSlicesOnTheirEnginesTrack()
    {
        events::EventStore store;
        store.configure(2, 1 << 20);
        // Ids 0..5 issued on (chip, engine) = (1, 2), (0, 0), (1, 2), (0, 1), (0, 0), (1, 0); they end in
        // another order than they were issued in.
        const std::array<std::pair<int, int>, 6> engineOf{{{1, 2}, {0, 0}, {1, 2}, {0, 1}, {0, 0}, {1, 0}}};
        const std::array<std::uint32_t, 6> endOrder{3, 1, 5, 0, 4, 2};
        const auto recordOf = [&](std::uint32_t id) {
            events::DmaRecord d;
            d.id = id;
            d.chip = chipIdAt(static_cast<std::size_t>(engineOf[id].first));
            d.engine = static_cast<std::uint8_t>(engineOf[id].second);
            d.dstChip = ChipId(static_cast<std::uint16_t>(1 - d.chip.value));
            d.pc = 100 + id;
            d.srcSpace = 2;
            d.dstSpace = 1;
            d.longWay = id % 2;
            d.convert = static_cast<std::uint8_t>(id % 5);
            d.srcAddress = (std::uint64_t{1} << 40) + id;
            d.dstAddress = 4096 * id;
            d.bytes = (std::uint64_t{5} << 33) + id;
            d.flag = 7 + id;
            d.chunks = 3 * id;
            d.issue = (std::uint64_t{1} << 35) + id; // past 2^32: kept whole
            d.start = d.issue + 10 + endOrder[id];
            d.end = d.start + 1000 * (id + 1);
            return d;
        };
        for (const std::uint32_t id : {3u, 1u, 5u, 0u, 4u, 2u})
            store.appendDma(recordOf(id));
        store.flush();
        const std::vector<events::DmaRecord> all = store.dmas();
        QCOMPARE(all.size(), std::size_t(6));
        for (std::uint32_t id = 0; id < 6; ++id) {
            const events::DmaRecord want = recordOf(id);
            QVERIFY2(all[id] == want, qPrintable(QStringLiteral("DMA %1 reads back otherwise").arg(id)));
        }
        // Tracks chip by chip, each chip's by engine; the store's track table in arrival order.
        const std::vector<events::TrackId> tracks = store.dmaTracks();
        QCOMPARE(tracks.size(), std::size_t(4));
        const std::vector<events::StoreTrack> table = store.tracks();
        const auto engineOfTrack = [&](events::TrackId t) {
            return std::pair<int, int>(table[t.value].chip.value, table[t.value].engine);
        };
        QCOMPARE(engineOfTrack(tracks[0]), std::make_pair(0, 0));
        QCOMPARE(engineOfTrack(tracks[1]), std::make_pair(0, 1));
        QCOMPARE(engineOfTrack(tracks[2]), std::make_pair(1, 0));
        QCOMPARE(engineOfTrack(tracks[3]), std::make_pair(1, 2));
        QCOMPARE(table[tracks[0].value].kind, events::RowKind::DmaEngine);
        QCOMPARE(events::rowName(table[tracks[3].value]), std::string("DMA engine 2"));
        QCOMPARE(tracks[1].value, 0u); // id 3, on (0, 1), ended first
        // A track's in end order, from an offset; its slices carry pc and id + 1.
        const std::vector<events::DmaRecord> chip1engine2 = store.dmas(tracks[3], 0);
        QCOMPARE(chip1engine2.size(), std::size_t(2));
        QCOMPARE(chip1engine2[0].id, 0u);
        QCOMPARE(chip1engine2[1].id, 2u);
        QCOMPARE(store.dmas(tracks[3], 1).front().id, 2u);
        QVERIFY(store.dmas(tracks[3], 2).empty());
        const std::vector<events::StoreSlice> slices = store.slices(tracks[3]);
        QCOMPARE(slices[1].type, 102u);
        QCOMPARE(slices[1].link, 3u);
        QCOMPARE(slices[1].duration, events::Cycle(3000));
        // A track of another kind, or none, has no DMAs.
        QVERIFY(store.dmas(events::TrackId(), 0).empty());
        store.appendSyncWait({ChipId(0), 1, 2, 3, 4, 5, -1});
        store.flush();
        QVERIFY(store.dmas(store.waitTrack(ChipId(0)), 0).empty());
        // forEachDma goes track by track in dmaTracks()' order.
        std::vector<std::uint32_t> visited;
        store.forEachDma([&](const events::DmaRecord& d) { visited.push_back(d.id); });
        QCOMPARE(visited, (std::vector<std::uint32_t>{1, 4, 3, 5, 0, 2}));
        // Ids that are not 0..n-1 still come out by id.
        store.appendDma(recordOf(1));
        store.flush();
        std::vector<std::uint32_t> ids;
        for (const events::DmaRecord& d : store.dmas())
            ids.push_back(d.id);
        QCOMPARE(ids, (std::vector<std::uint32_t>{0, 1, 1, 2, 3, 4, 5}));
    }

    // The last, partly filled chunks give their columns' unused pages back at flush(): a short replay holds
    // what it wrote, not 1.5 MiB a chunk, and every event still reads back.
    void aPartlyFilledChunkGivesItsEmptyPagesBack()
    {
        events::EventStore store;
        store.configure(1, 1 << 20);
        constexpr std::size_t n = events::kChunkEvents + 1000; // one full chunk of each, one partly filled
        for (std::uint64_t i = 0; i < n; ++i) {
            store.appendBundle({i, static_cast<std::uint32_t>(i), 0, 0, ChipId(0), events::StallReason::None,
                                events::CauseKind::None});
            store.appendVmemAccess({i, static_cast<std::uint32_t>(i % 4096), 4, 0, ChipId(0), 0}, 4);
        }
        store.flush();
#if defined(__linux__)
        // Each column's used part, rounded out to whole pages at both ends.
        const std::size_t partial =
            store.residentBytes() - sizeof(events::BundleChunk) - sizeof(events::VmemChunk);
        QVERIFY2(partial <= 1000 * (11 + 23) + 2 * 10 * 4096 + 2 * sizeof(std::size_t),
                 qPrintable(QString::number(partial)));
#endif
        const events::BundleSnapshot bundles = store.bundles();
        const events::VmemSnapshot vmem = store.vmemAccesses();
        QCOMPARE(bundles.size(), n);
        QCOMPARE(vmem.size(), n);
        for (std::size_t i = events::kChunkEvents; i < n; ++i) {
            QCOMPARE(bundles[i].pc, std::uint32_t(i));
            QCOMPARE(vmem[i].address, std::uint32_t(i % 4096));
        }
    }

    // A log's blocks start at 4 KiB and double to 64 KiB: a log of a few records holds 4 KiB, not 64, and
    // indexing and copying agree at every block boundary, growing or full-sized.
    void recordLogsStartSmallAndIndexAcrossEveryBlock()
    {
        using Log = events::RecordLog<std::uint64_t>;
        auto arena = std::make_shared<events::ChunkArena>();
        std::mutex lock;
        Log log;
        log.append(0, *arena, lock);
        log.publishLocked();
        QCOMPARE(log.residentBytes(), std::size_t{4096});
        const std::size_t n = 15 * Log::kFirstBlock + 2 * Log::kPerBlock + 3; // 4 growing blocks, 3 full
        for (std::size_t i = 1; i < n; ++i)
            log.append(i, *arena, lock);
        log.publishLocked();
        QCOMPARE(log.size(), n);
        QCOMPARE(log.residentBytes(), std::size_t{(4 + 8 + 16 + 32 + 3 * 64) << 10});
        for (std::size_t i = 0; i < n; ++i)
            if (log[i] != i)
                QFAIL(qPrintable(QStringLiteral("record %1 reads %2").arg(i).arg(log[i])));
        for (const std::size_t first :
             {std::size_t{0}, Log::kFirstBlock - 1, Log::kFirstBlock, 3 * Log::kFirstBlock,
              15 * Log::kFirstBlock - 1, 15 * Log::kFirstBlock, 15 * Log::kFirstBlock + Log::kPerBlock, n - 1,
              n, n + 5}) {
            const std::vector<std::uint64_t> tail = log.copyFrom(first);
            QCOMPARE(tail.size(), first < n ? n - first : 0);
            if (!tail.empty()) {
                QCOMPARE(tail.front(), std::uint64_t(first));
                QCOMPARE(tail.back(), std::uint64_t(n - 1));
            }
        }
    }

    // Regions are slices on their chip's region track: the track is made with the chip's first
    // region, slices keep the order they exited in and their depth, and readers walk them by entry with the
    // enclosing one first, ties kept in exit order. A reader that follows the replay reads only what is new.
    void regionsAreSlicesOnTheirChipsTrack()
    {
        events::EventStore store;
        store.configure(3, 1 << 20);
        QVERIFY(!store.regionTrack(ChipId(0)).valid());
        // Chip 2 first: tracks come in the order their first slice arrived, not by chip.
        store.appendRegion(ChipId(2), 7, 0, 0, 4);
        // Chip 0: an outer region [10, 50) holding [10, 20) and two of no cycles at 30, exited innermost
        // first.
        store.appendRegion(ChipId(0), 1, 1, 10, 20);
        store.appendRegion(ChipId(0), 2, 1, 30, 30);
        store.appendRegion(ChipId(0), 3, 1, 30, 30);
        store.appendRegion(ChipId(0), 0, 0, 10, 50);
        store.flush();

        const std::vector<events::StoreTrack> tracks = store.tracks();
        QCOMPARE(tracks.size(), std::size_t(2));
        QCOMPARE(tracks[0].chip, ChipId(2));
        QCOMPARE(tracks[1].chip, ChipId(0));
        QCOMPARE(store.regionTrack(ChipId(2)), events::TrackId(0));
        QCOMPARE(store.regionTrack(ChipId(0)), events::TrackId(1));
        QVERIFY(!store.regionTrack(ChipId(1)).valid()); // no region, no row
        QCOMPARE(events::rowName(tracks[1]), std::string("regions"));
        QCOMPARE(store.regionCount(), std::size_t(5));
        QCOMPARE(store.eventCount(), std::size_t(5));

        const std::vector<events::StoreSlice> exited = store.slices(store.regionTrack(ChipId(0)));
        QCOMPARE(exited.size(), std::size_t(4));
        QCOMPARE(events::regionOf(exited.back()), std::uint32_t(0));
        QCOMPARE(exited.back().start, events::Cycle(10));
        QCOMPARE(exited.back().end(), events::Cycle(50));
        QCOMPARE(exited.back().track, store.regionTrack(ChipId(0)));

        std::vector<std::uint32_t> byEntry;
        for (const events::StoreSlice& r : store.regionsByEntry(ChipId(0)))
            byEntry.push_back(events::regionOf(r));
        QCOMPARE(byEntry, (std::vector<std::uint32_t>{0, 1, 2, 3}));
        QVERIFY(store.regionsByEntry(ChipId(1)).empty());

        const std::vector<events::StoreSlice> since = store.slices(store.regionTrack(ChipId(0)), 3);
        QCOMPARE(since.size(), std::size_t(1));
        QCOMPARE(events::regionOf(since.front()), std::uint32_t(0));
        QVERIFY(store.slices(events::TrackId(9)).empty()); // no such track: nothing, not a crash

        // Sync waits: a track per chip beside the regions', its slices' pcs as their type and the DMA that
        // ended them as their link; read back whole, chip by chip, each chip's in the order they ended.
        store.appendSyncWait({ChipId(1), 40, 3, 2, 100, 130, 17});
        store.appendSyncWait({ChipId(0), 41, 5, 1, 90, 90, -1});
        store.appendSyncWait({ChipId(1), 42, 3, 3, 140, 150, 0});
        store.flush();
        QCOMPARE(store.tracks().size(), std::size_t(4));
        QCOMPARE(store.waitTrack(ChipId(1)), events::TrackId(2));
        QCOMPARE(events::rowName(store.tracks()[2]), std::string("sync waits"));
        const events::StoreSlice waitSlice = store.slices(store.waitTrack(ChipId(1))).front();
        QCOMPARE(waitSlice.type, std::uint32_t(40));
        QCOMPARE(waitSlice.link, std::uint32_t(18));
        QCOMPARE(waitSlice.duration, events::Cycle(30));
        std::vector<std::pair<std::uint32_t, std::int64_t>> waits; // pc, satisfied by
        store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            waits.push_back({w.pc, w.satisfiedBy});
        });
        QCOMPARE(waits, (std::vector<std::pair<std::uint32_t, std::int64_t>>{{41, -1}, {40, 17}, {42, 0}}));
        QCOMPARE(store.syncWaits().size(), std::size_t(3));
        QCOMPARE(store.syncWaitCount(), std::size_t(3));
        QCOMPARE(store.eventCount(), std::size_t(8));
    }

    // A finished store's events handed to another (Apply and compare's run shown as the fixed run): every
    // event and record moves, in place, with the heatmaps; the one it came from is empty.
    void aFinishedStoreIsTakenOverWithoutACopy()
    {
        events::EventStore from;
        from.configure(2, 1 << 20);
        constexpr std::size_t n = events::kChunkEvents + 10;
        for (std::uint64_t i = 0; i < n; ++i) {
            from.appendBundle({i, static_cast<std::uint32_t>(i), 1, 0, chipIdAt(i % 2),
                               events::StallReason::SyncWait, events::CauseKind::None});
            from.appendVmemAccess({i, static_cast<std::uint32_t>(i * 64), 64, 0, ChipId(1), 1}, 64);
            events::DmaRecord d;
            d.id = static_cast<std::uint32_t>(i);
            from.appendDma(d);
        }
        from.appendRegion(ChipId(1), 0, 0, 5, 9);
        from.flush();
        const events::BundleChunk* first = from.bundles().chunks().front().get();
        const events::VmemHeatmap heatmap = from.vmemHeatmap(ChipId(1));
        const std::size_t resident = from.residentBytes();

        events::EventStore to;
        to.takeFrom(from);
        QCOMPARE(to.bundleCount(), n);
        QCOMPARE(to.bundles()[n - 1].pc, std::uint32_t(n - 1));
        QCOMPARE(to.vmemAccesses().size(), n);
        QCOMPARE(to.dmaCount(), n);
        QCOMPARE(to.regionCount(), std::size_t(1));
        QCOMPARE(to.tracks().size(), std::size_t(2)); // DMA engine 0 of chip 0, then chip 1's regions
        QCOMPARE(to.dmas().back().id, std::uint32_t(n - 1));
        QCOMPARE(to.regionsByEntry(ChipId(1)).front().end(), events::Cycle(9));
        QVERIFY(!from.regionTrack(ChipId(1)).valid());
        QCOMPARE(to.bundles().chunks().front().get(), first); // not copied
        QCOMPARE(to.vmemHeatmap(ChipId(1)).totalRead(), heatmap.totalRead());
        QCOMPARE(to.residentBytes(), resident);
        QCOMPARE(from.bundleCount(), std::size_t(0));
        QCOMPARE(from.dmaCount(), std::size_t(0));
        QCOMPARE(from.vmemAccesses().size(), std::size_t(0));
        QCOMPARE(from.residentBytes(), std::size_t(0));
    }

    // sortRuns and sortPairsByKey (util/sort_runs.h) give what std::sort gives, whatever the order they find.
    void sortingWhatIsAlreadyInRunsMatchesStdSort()
    {
        std::mt19937 random(7);
        const auto check = [&](std::vector<std::pair<std::uint32_t, std::uint32_t>> v) {
            auto expected = v;
            std::sort(expected.begin(), expected.end());
            auto runs = v;
            sortRuns(runs);
            QVERIFY(runs == expected);
            sortPairsByKey(v, 1000);
            QVERIFY(v == expected);
        };
        std::vector<std::pair<std::uint32_t, std::uint32_t>> v;
        check(v);
        for (std::uint32_t i = 0; i < 5000; ++i) // sorted
            v.emplace_back(i / 5, i);
        check(v);
        for (std::uint32_t runs : {2u, 3u, 7u, 64u, 65u, 400u}) { // tracks appended: `runs` ascending runs
            v.clear();
            for (std::uint32_t r = 0; r < runs; ++r)
                for (std::uint32_t i = 0; i < 300; ++i)
                    v.emplace_back(std::min<std::uint32_t>(999, i * 3 + r),
                                   static_cast<std::uint32_t>(random() % 4));
            check(v);
        }
        v.clear();
        for (int i = 0; i < 20000; ++i) // no order: the std::sort fallback
            v.emplace_back(static_cast<std::uint32_t>(random() % 1000),
                           static_cast<std::uint32_t>(random() % 50));
        check(v);
        // Stable, as a merge of runs is: equal elements keep their order.
        std::vector<std::pair<int, int>> stable{{1, 0}, {2, 0}, {1, 1}, {2, 1}, {0, 2}};
        sortRuns(stable, [](const auto& a, const auto& b) { return a.first < b.first; });
        QVERIFY((stable == std::vector<std::pair<int, int>>{{0, 2}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}));
    }
};

QTEST_GUILESS_MAIN(TestEvents)
#include "tst_events.moc"

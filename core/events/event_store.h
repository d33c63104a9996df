#pragma once
// The append-only event store of one replay. The replayer appends from its worker thread; views and
// analyses read concurrently. Bundle issues are stored column-wise in fixed-size chunks; a chunk is
// published (made visible to readers) once full and never changes afterwards, so readers need no lock
// beyond taking a snapshot of the published chunk list.

#include "events/bundle_chunk.h"
#include "events/chunk_arena.h"
#include "events/events.h"
#include "events/record_log.h"
#include "events/store_tracks.h"
#include "events/vmem_heatmap.h"
#include "util/sort_runs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace xps::events {

// The bytes of `chunk` that are resident: all of a full one (and what it holds outside itself); of the partly
// filled last one, what is left after flush() gave its columns' unused pages back.
template <typename Chunk> std::size_t residentBytesOf(const Chunk& chunk)
{
    std::size_t bytes = sizeof(Chunk) + chunk.outOfLineBytes();
    if (chunk.size < kChunkEvents)
        chunk.forEachUnusedTail([&](const void* p, std::size_t n) { bytes -= ChunkArena::givenBack(p, n); });
    return bytes;
}

// Column-wise storage of kChunkEvents VMEM accesses: 4 + 4 + 4 + 4 + 2 + 1 = 19 bytes per event (the cycle
// as CycleColumn keeps it).
struct VmemChunk
{
    using Record = VmemAccess;
    CycleColumn cycles;
    std::array<std::uint32_t, kChunkEvents> address;
    std::array<std::uint32_t, kChunkEvents> bytes;
    std::array<std::uint32_t, kChunkEvents> source;
    std::array<ChipId, kChunkEvents> chip;
    std::array<std::uint8_t, kChunkEvents> kind;
    std::size_t size = 0;

    Cycle cycleAt(std::size_t i) const { return cycles.at(i); }
    VmemAccess at(std::size_t i) const
    {
        return {cycles.at(i), address[i], bytes[i], source[i], chip[i], kind[i]};
    }
    std::size_t outOfLineBytes() const { return cycles.outOfLineBytes(); }
    template <typename F> void forEachUnusedTail(F&& f) const
    {
        cycles.forEachUnusedTail(size, f);
        (unusedTail(address, size, f), unusedTail(bytes, size, f), unusedTail(source, size, f),
         unusedTail(chip, size, f), unusedTail(kind, size, f));
    }
    void append(const VmemAccess& e)
    {
        const std::size_t i = size++;
        cycles.set(i, e.cycle);
        address[i] = e.address;
        bytes[i] = e.bytes;
        source[i] = e.source;
        chip[i] = e.chip;
        kind[i] = e.kind;
    }
};

// A consistent view of the events of one kind published so far.
template <typename Chunk> class ChunkSnapshot
{
public:
    std::size_t size() const { return m_size; }
    typename Chunk::Record operator[](std::size_t i) const
    {
        return m_chunks[i / kChunkEvents]->at(i % kChunkEvents);
    }

    // Events are appended in non-decreasing cycle order (the replay finishes a cycle on every chip before
    // the next), so the events of [fromCycle, toCycle) are one index range, found by binary search:
    // O(log n), whatever the replay's size. Returns {first, last + 1}.
    std::pair<std::size_t, std::size_t> cycleRange(Cycle fromCycle, Cycle toCycle) const
    {
        return {lowerBound(fromCycle), lowerBound(toCycle)};
    }
    const std::vector<std::shared_ptr<const Chunk>>& chunks() const { return m_chunks; }

private:
    friend class EventStore;
    std::size_t lowerBound(Cycle cycle) const
    {
        std::size_t lo = 0, hi = m_size;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (m_chunks[mid / kChunkEvents]->cycleAt(mid % kChunkEvents) < cycle)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    std::vector<std::shared_ptr<const Chunk>> m_chunks;
    std::size_t m_size = 0;
};
using BundleSnapshot = ChunkSnapshot<BundleChunk>;
using VmemSnapshot = ChunkSnapshot<VmemChunk>;

class EventStore
{
public:
    // Writer side (one thread). configure() first: it sizes the per-chip VMEM heatmaps.
    void configure(int chips, std::uint64_t vmemBytes);
    // Before configure(): keep no events at all, only let the replay run (its statistics are in its
    // result). For callers that replay thousands of small programs and read only their cycle counts
    // (calibration): a store that keeps events maps 64 MiB and faults in several megabytes per replay.
    void discardEvents() { m_discard = true; }
    // Before configure(): keep the regions' slices only (no bundle issues, VMEM accesses, heatmaps, DMAs or
    // waits), for a caller that reads a replay's cycles and region times (estimateTrace: GPT-2 at sequence
    // 1024 records 14 M events, 234 MiB, it never reads).
    void keepOnlyRegions() { m_onlyRegions = true; }
    void appendBundle(const BundleIssue& e)
    {
        // Inline: one per issued bundle, the replay's most frequent call. A new or full chunk, a cycle past
        // the chunk's 2^32 window and a stall with the detail block full go the slow way.
        if (m_current && m_current->size + 1 < kChunkEvents && (e.cycle >> 32) == m_bundleWindow &&
            (e.stallCycles == 0 || m_nextDetail != m_detailsEnd)) [[likely]]
            m_current->append(e, m_nextDetail);
        else
            appendBundleSlow(e);
    }
    // `dataBytes`: bytes moved within the access's range (less than the range for strided accesses).
    // Inline as appendBundle is: every vld, vst and DMA chunk of VMEM records one.
    void appendVmemAccess(const VmemAccess& e, std::uint32_t dataBytes)
    {
        if (m_currentVmem && m_currentVmem->size + 1 < kChunkEvents && (e.cycle >> 32) == m_vmemWindow &&
            e.chip.value < m_heatmaps.size() &&
            m_vmemSinceHeatmapPublish + 1 < kVmemAccessesPerHeatmapPublish) [[likely]] {
            m_currentVmem->append(e);
            m_heatmaps[e.chip.value].add(e.cycle, e.address, e.bytes, dataBytes, e.isWrite());
            ++m_vmemSinceHeatmapPublish;
            return;
        }
        appendVmemAccessSlow(e, dataBytes);
    }
    // A DMA, when its last chunk has landed: a slice on its chip's track of its engine and a row beside it.
    void appendDma(const DmaRecord& r);
    void appendSyncWait(const SyncWaitRecord& r);
    // A region instance, at its exit: a slice on the chip's region track (made with its first region).
    void appendRegion(ChipId chip, std::uint32_t region, std::uint16_t depth, Cycle enter, Cycle exit);
    // Publishes the partly filled last chunk (at the end of a replay or on cancel).
    void flush();
    // Takes every event of `finished` (flushed; its writer done with it), which is left empty: a replay run
    // elsewhere (Apply and compare's changed run) becomes this store's without a copy. Chunks and records
    // keep their addresses. This store must be empty and have no writer.
    void takeFrom(EventStore& finished);

    // Reader side (any thread).
    BundleSnapshot bundles() const;
    VmemSnapshot vmemAccesses() const;
    // The chip's binned VMEM traffic as last published (every ~1M accesses and at flush()).
    VmemHeatmap vmemHeatmap(ChipId chip) const;
    // The slices of every track, with their rows, as published: in groups of RecordLog::kPublishEvery
    // while the writer appends, all of them at flush().
    //
    // Every DMA, by id (the order they were issued in).
    std::vector<DmaRecord> dmas() const;
    // The same, each made into a T as it is visited (`make(record)`), so that a reader that keeps more
    // per DMA needs no second copy; `idOf(T)` gives its id back. The GRM numbers its DMAs 0..n-1: each
    // goes straight to its place. Other ids (a store filled by hand, a replay cancelled with DMAs in
    // flight) are sorted by `less`, which a caller may make cancellable; each engine's are in order already.
    template <typename T, typename Make, typename Less>
    std::vector<T> dmasById(Make&& make, Less&& less) const
    {
        const std::size_t n = dmaCount();
        std::vector<T> out(n);
        std::vector<bool> placed(n, false);
        std::size_t count = 0;
        bool dense = true;
        forEachDma([&](const DmaRecord& d) {
            ++count;
            if (dense && d.id < n && !placed[d.id]) {
                out[d.id] = make(d);
                placed[d.id] = true;
            } else {
                dense = false;
            }
        });
        if (dense && count == n)
            return out;
        out.clear();
        forEachDma([&](const DmaRecord& d) { out.push_back(make(d)); });
        sortRuns(out.begin(), out.end(), less);
        return out;
    }
    // One DMA track's from its `first` on, in the order they ended, which for an engine's queue is the
    // order they were issued in: what a view that follows a running replay reads every refresh.
    std::vector<DmaRecord> dmas(TrackId track, std::size_t first) const;
    // The DMA tracks, chip by chip, each chip's by engine.
    std::vector<TrackId> dmaTracks() const;
    // Every sync wait, chip by chip, each chip's in the order they ended.
    std::vector<SyncWaitRecord> syncWaits() const;
    // One chip's, from its `first` on: what a view that follows a running replay reads every refresh.
    std::vector<SyncWaitRecord> syncWaits(ChipId chip, std::size_t first) const;
    // Every DMA without copying them all, track by track in dmaTracks()' order, each put together from its
    // slice and row as it is visited (`f` takes a temporary: keep a copy, not its address; the lock is
    // held: `f` must not call back).
    template <typename F> void forEachDma(F&& f) const
    {
        std::lock_guard lock(m_mutex);
        for (const auto& engines : m_dmaTracks)
            for (const TrackId track : engines)
                if (track.valid()) {
                    const TrackSlices& t = m_tracks[track.value];
                    const std::size_t n = std::min(t.slices.size(), t.dmaRows.size());
                    for (std::size_t i = 0; i < n; ++i)
                        f(dmaOf(t.track, t.slices[i], t.dmaRows[i]));
                }
    }
    // The sync waits in syncWaits()'s order, each put together from its slice and row as it is visited
    // (`f` takes a temporary: keep a copy, not its address; the lock is held: `f` must not call back).
    template <typename F> void forEachSyncWait(F&& f) const
    {
        std::lock_guard lock(m_mutex);
        for (const ChipId chip : idsBelow<ChipId>(m_waitTracks.size()))
            if (const TrackId track = m_waitTracks[chip.value]; track.valid()) {
                const TrackSlices& t = m_tracks[track.value];
                const std::size_t n = std::min(t.slices.size(), t.waitRows.size());
                for (std::size_t i = 0; i < n; ++i)
                    f(syncWaitOf(chip, t.slices[i], t.waitRows[i]));
            }
    }
    std::size_t dmaCount() const;
    std::size_t syncWaitCount() const;
    // The store's tracks (store_tracks.h), in the order their first slice arrived.
    std::vector<StoreTrack> tracks() const;
    // The chip's region track; invalid until its first region exits. Its sync-wait track, the same.
    TrackId regionTrack(ChipId chip) const;
    TrackId waitTrack(ChipId chip) const;
    // A track's published slices from `first` on, in arrival order (a region's: the order they exited).
    // What a view that follows a running replay reads every refresh.
    std::vector<StoreSlice> slices(TrackId track, std::size_t first = 0) const;
    // The chip's region instances by entry, the enclosing one first: the order a reader walks nested
    // regions in (a stack of the open ones). Copies; a replay has thousands, not millions.
    std::vector<StoreSlice> regionsByEntry(ChipId chip) const;
    std::size_t regionCount() const;
    std::size_t bundleCount() const { return m_published.load(std::memory_order_acquire); }

    // Bytes held for published events, counting whole allocated chunks, and their number: what
    // `replay --summary` and the benchmark report as resident bytes per event. Exact after flush().
    std::size_t residentBytes() const { return residentBytesByKind().total(); }
    // The same, by what holds them: where a replay's bytes per event go.
    struct ResidentBytes
    {
        std::size_t bundles = 0;      // the bundle chunks
        std::size_t stallDetails = 0; // their stalled bundles' details
        std::size_t vmemAccesses = 0;
        std::size_t slicesAndRows = 0; // regions, sync waits and DMAs
        std::size_t total() const { return bundles + stallDetails + vmemAccesses + slicesAndRows; }
    };
    ResidentBytes residentBytesByKind() const;
    // Bundle events, and VMEM accesses.
    std::size_t vmemAccessCount() const;
    // What the writer has taken for events so far (every kind; O(1), writer thread only).
    std::size_t allocatedBytes() const { return m_arena->allocatedBytes(); }
    std::size_t eventCount() const;

private:
    template <typename Chunk>
    ChunkSnapshot<Chunk> snapshotOf(const std::vector<std::shared_ptr<const Chunk>>& chunks) const;
    void appendBundleSlow(const BundleIssue& e);
    // Makes the chunk's cycles whole if `cycle` is outside its window.
    template <typename Chunk> void keepCycleOf(Chunk& chunk, Cycle cycle);
    void newDetailBlock();
    void appendVmemAccessSlow(const VmemAccess& e, std::uint32_t dataBytes);
    // Publishing copies every grid (1 MiB each): often enough for a live view, rarely enough to be free.
    static constexpr std::uint64_t kVmemAccessesPerHeatmapPublish = 1u << 20;
    void publishCurrent();
    void publishVmem();
    void publishHeatmaps();

    template <typename Chunk> Chunk* newChunk();
    template <typename Chunk> std::shared_ptr<const Chunk> published(Chunk* chunk);

    // Chunks and records live in the arena; published chunks share its ownership, so a reader's snapshot
    // keeps them valid after the store is gone.
    std::shared_ptr<ChunkArena> m_arena = std::make_shared<ChunkArena>();
    bool m_discard = false;
    bool m_onlyRegions = false;
    bool keepsDetail() const { return !m_discard && !m_onlyRegions; }
    BundleChunk* m_current = nullptr;
    // The current chunks' CycleColumn::fastWindow(): one comparison sends a cycle outside it the slow way.
    std::uint64_t m_bundleWindow = CycleColumn::kNoWindow;
    std::uint64_t m_vmemWindow = CycleColumn::kNoWindow;
    StallDetail* m_nextDetail = nullptr; // in the current detail block
    StallDetail* m_detailsEnd = nullptr;
    std::size_t m_detailBlocks = 0;         // guarded by m_mutex
    std::size_t m_detailBytesGivenBack = 0; // the same
    VmemChunk* m_currentVmem = nullptr;
    std::vector<VmemHeatmap> m_heatmaps; // the writer's, updated without a lock
    std::uint64_t m_vmemSinceHeatmapPublish = 0;
    mutable std::mutex m_mutex; // guards the vectors below
    std::vector<std::shared_ptr<const BundleChunk>> m_chunks;
    std::vector<std::shared_ptr<const VmemChunk>> m_vmemChunks;
    std::vector<VmemHeatmap> m_publishedHeatmaps;
    // Slices and rows are block-allocated, so a million never hold a million more in spare capacity.
    struct TrackSlices
    {
        StoreTrack track;
        RecordLog<StoreSlice> slices;
        // A sync-wait or DMA track's, row for row; a row is appended before its slice, so a reader that
        // sees the slice sees its row.
        RecordLog<WaitRow> waitRows;
        RecordLog<DmaRow> dmaRows;
    };
    // The chip's track of `kind` in `byChip`, made on first use. Inline: once per wait and region.
    TrackId trackOf(std::vector<TrackId>& byChip, ChipId chip, RowKind kind)
    {
        if (chip.value < byChip.size() && byChip[chip.value].valid()) [[likely]]
            return byChip[chip.value];
        return addTrack(byChip, chip, kind);
    }
    TrackId addTrack(std::vector<TrackId>& byChip, ChipId chip, RowKind kind);
    TrackId dmaTrackOf(ChipId chip, std::uint8_t engine)
    {
        if (chip.value < m_dmaTracks.size() && engine < m_dmaTracks[chip.value].size() &&
            m_dmaTracks[chip.value][engine].valid()) [[likely]]
            return m_dmaTracks[chip.value][engine];
        return addDmaTrack(chip, engine);
    }
    TrackId addDmaTrack(ChipId chip, std::uint8_t engine);
    std::vector<TrackSlices> m_tracks;             // by TrackId; grown by the writer under the lock
    std::vector<TrackId> m_regionTracks;           // by chip; grown by the writer under the lock
    std::vector<TrackId> m_waitTracks;             // the same
    std::vector<std::vector<TrackId>> m_dmaTracks; // by chip, then engine; the same
    std::atomic<std::size_t> m_published{0};
};

} // namespace xps::events

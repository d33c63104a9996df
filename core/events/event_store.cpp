#include "events/event_store.h"

#include <algorithm>
#include <new>
#include <type_traits>
#include <utility>

namespace xps::events {

std::string_view stallReasonName(StallReason reason)
{
    switch (reason) {
    case StallReason::None: return "none";
    case StallReason::OperandDependency: return "operand dependency";
    case StallReason::SyncWait: return "sync wait";
    case StallReason::MxuBusy: return "MXU busy";
    case StallReason::ResultFifoEmpty: return "result FIFO empty";
    case StallReason::ResultFifoFull: return "result FIFO full";
    case StallReason::DmaQueueFull: return "DMA queue full";
    case StallReason::UnitBusy: return "unit busy";
    case StallReason::BranchBubble: return "branch bubble";
    case StallReason::Count_: break;
    }
    return "?";
}

template <typename Chunk> Chunk* EventStore::newChunk()
{
    static_assert(std::is_trivially_destructible_v<Chunk>, "chunks are never destroyed, only their arena");
    // Default-initialised: the columns are written as events arrive, never zeroed first.
    return new (m_arena->allocate(sizeof(Chunk))) Chunk;
}

template <typename Chunk> std::shared_ptr<const Chunk> EventStore::published(Chunk* chunk)
{
    return std::shared_ptr<const Chunk>(m_arena, chunk); // owns the arena, points at the chunk
}

template <typename Chunk> void EventStore::keepCycleOf(Chunk& chunk, Cycle cycle)
{
    if (!chunk.cycles.whole && (cycle >> 32) != chunk.cycles.window) [[unlikely]]
        chunk.cycles.makeWhole(static_cast<Cycle*>(m_arena->allocate(kChunkEvents * sizeof(Cycle))),
                               chunk.size);
}

void EventStore::appendBundleSlow(const BundleIssue& e)
{
    if (!keepsDetail())
        return;
    if (!m_current) {
        m_current = newChunk<BundleChunk>();
        m_current->cycles.window = static_cast<std::uint32_t>(e.cycle >> 32);
        m_current->details = m_nextDetail;
    }
    keepCycleOf(*m_current, e.cycle);
    if (e.stallCycles > 0 && m_nextDetail == m_detailsEnd)
        newDetailBlock();
    m_current->append(e, m_nextDetail);
    m_bundleWindow = m_current->cycles.fastWindow();
    if (m_current->size == kChunkEvents)
        publishCurrent();
}

void EventStore::newDetailBlock()
{
    auto* block = static_cast<StallDetail*>(m_arena->allocate(kStallDetailsPerBlock * sizeof(StallDetail)));
    // The current chunk's details continue in the new block. A chunk has at most kChunkEvents of them and a
    // block holds as many, so no chunk needs a third.
    m_current->detailsInFirst = m_current->detailCount;
    m_current->detailsContinued = block;
    m_nextDetail = block;
    m_detailsEnd = block + kStallDetailsPerBlock;
    std::lock_guard lock(m_mutex);
    ++m_detailBlocks;
}

void EventStore::publishCurrent()
{
    std::shared_ptr<const BundleChunk> done = published(std::exchange(m_current, nullptr));
    m_bundleWindow = CycleColumn::kNoWindow;
    const std::size_t total =
        m_published.load(std::memory_order_relaxed) + done->size; // only this thread writes it
    // Inside the lock: a reader whose snapshot holds the chunk must also see the count that includes it.
    std::lock_guard lock(m_mutex);
    m_chunks.push_back(std::move(done));
    m_published.store(total, std::memory_order_release);
}

void EventStore::takeFrom(EventStore& finished)
{
    std::scoped_lock lock(m_mutex, finished.m_mutex);
    m_arena = std::exchange(finished.m_arena, std::make_shared<ChunkArena>());
    m_discard = finished.m_discard;
    m_onlyRegions = finished.m_onlyRegions;
    m_current = std::exchange(finished.m_current, nullptr);
    m_bundleWindow = std::exchange(finished.m_bundleWindow, CycleColumn::kNoWindow);
    m_vmemWindow = std::exchange(finished.m_vmemWindow, CycleColumn::kNoWindow);
    m_nextDetail = std::exchange(finished.m_nextDetail, nullptr);
    m_detailsEnd = std::exchange(finished.m_detailsEnd, nullptr);
    m_detailBlocks = std::exchange(finished.m_detailBlocks, 0);
    m_detailBytesGivenBack = std::exchange(finished.m_detailBytesGivenBack, 0);
    m_currentVmem = std::exchange(finished.m_currentVmem, nullptr);
    m_heatmaps = std::move(finished.m_heatmaps);
    m_vmemSinceHeatmapPublish = std::exchange(finished.m_vmemSinceHeatmapPublish, 0);
    m_chunks = std::move(finished.m_chunks);
    m_vmemChunks = std::move(finished.m_vmemChunks);
    m_publishedHeatmaps = std::move(finished.m_publishedHeatmaps);
    m_tracks = std::exchange(finished.m_tracks, {});
    m_regionTracks = std::exchange(finished.m_regionTracks, {});
    m_waitTracks = std::exchange(finished.m_waitTracks, {});
    m_dmaTracks = std::exchange(finished.m_dmaTracks, {});
    m_published.store(finished.m_published.exchange(0, std::memory_order_acq_rel), std::memory_order_release);
}

void EventStore::configure(int chips, std::uint64_t vmemBytes)
{
    if (!keepsDetail())
        return;
    m_heatmaps.assign(static_cast<std::size_t>(chips),
                      VmemHeatmap(vmemBytes, VmemHeatmap::timeBinsFor(chips)));
    std::lock_guard lock(m_mutex);
    m_publishedHeatmaps = m_heatmaps;
}

void EventStore::appendVmemAccessSlow(const VmemAccess& e, std::uint32_t dataBytes)
{
    if (!keepsDetail())
        return;
    if (!m_currentVmem) {
        m_currentVmem = newChunk<VmemChunk>();
        m_currentVmem->cycles.window = static_cast<std::uint32_t>(e.cycle >> 32);
    }
    keepCycleOf(*m_currentVmem, e.cycle);
    m_currentVmem->append(e);
    m_vmemWindow = m_currentVmem->cycles.fastWindow();
    if (e.chip.value < m_heatmaps.size())
        m_heatmaps[e.chip.value].add(e.cycle, e.address, e.bytes, dataBytes, e.isWrite());
    if (m_currentVmem->size == kChunkEvents)
        publishVmem();
    if (++m_vmemSinceHeatmapPublish >= kVmemAccessesPerHeatmapPublish)
        publishHeatmaps();
}

void EventStore::publishVmem()
{
    std::shared_ptr<const VmemChunk> done = published(std::exchange(m_currentVmem, nullptr));
    m_vmemWindow = CycleColumn::kNoWindow;
    std::lock_guard lock(m_mutex);
    m_vmemChunks.push_back(std::move(done));
}

void EventStore::publishHeatmaps()
{
    m_vmemSinceHeatmapPublish = 0;
    std::lock_guard lock(m_mutex);
    m_publishedHeatmaps = m_heatmaps;
}

template <typename Chunk>
ChunkSnapshot<Chunk> EventStore::snapshotOf(const std::vector<std::shared_ptr<const Chunk>>& chunks) const
{
    ChunkSnapshot<Chunk> s;
    std::lock_guard lock(m_mutex);
    s.m_chunks = chunks;
    for (const auto& c : s.m_chunks)
        s.m_size += c->size;
    return s;
}

VmemSnapshot EventStore::vmemAccesses() const
{
    return snapshotOf(m_vmemChunks);
}

VmemHeatmap EventStore::vmemHeatmap(ChipId chip) const
{
    std::lock_guard lock(m_mutex);
    return chip.value < m_publishedHeatmaps.size() ? m_publishedHeatmaps[chip.value] : VmemHeatmap();
}

void EventStore::flush()
{
    // A partial chunk is published as the last one; a replay that continues afterwards is not supported
    // (flush ends the writer's life), which keeps published chunks immutable.
    // Its columns' unused pages go back to the system first: the chunk was made resident whole, and at 1 M
    // bundles the last chunks' empty ends were 1.0 byte per event. (The chunks are the writer's, so
    // casting the columns' constness away is sound.)
    const auto giveBack = [](const void* p, std::size_t n) { ChunkArena::giveBack(const_cast<void*>(p), n); };
    if (m_current && m_current->size > 0) {
        m_current->forEachUnusedTail(giveBack);
        publishCurrent();
    }
    if (m_currentVmem && m_currentVmem->size > 0) {
        m_currentVmem->forEachUnusedTail(giveBack);
        publishVmem();
    }
    // The same for the last detail block; details of bundles appended after this go to a new one.
    const std::size_t detailTail =
        static_cast<std::size_t>(m_detailsEnd - m_nextDetail) * sizeof(StallDetail);
    giveBack(m_nextDetail, detailTail);
    m_detailsEnd = m_nextDetail;
    publishHeatmaps();
    std::lock_guard lock(m_mutex);
    m_detailBytesGivenBack += ChunkArena::givenBack(m_nextDetail, detailTail);
    for (TrackSlices& t : m_tracks) {
        t.waitRows.publishLocked();
        t.dmaRows.publishLocked();
        t.slices.publishLocked();
    }
}

void EventStore::appendDma(const DmaRecord& r)
{
    if (!keepsDetail())
        return;
    const TrackId track = dmaTrackOf(r.chip, r.engine);
    TrackSlices& t = m_tracks[track.value];
    t.dmaRows.emplace([&r](DmaRow& row) { fillDmaRow(row, r); }, *m_arena,
                      m_mutex); // the row first, as for waits
    t.slices.emplace([&](StoreSlice& s) { fillDmaSlice(s, r, track); }, *m_arena, m_mutex);
}

void EventStore::appendSyncWait(const SyncWaitRecord& r)
{
    if (!keepsDetail())
        return;
    TrackSlices& t = m_tracks[trackOf(m_waitTracks, r.chip, RowKind::SyncWaits).value];
    // The row first: a reader that sees the slice sees its row.
    t.waitRows.emplace(
        [&r](WaitRow& row) {
            row.flag = r.flag;
            row.target = r.target;
        },
        *m_arena, m_mutex);
    t.slices.emplace(
        [&](StoreSlice& s) {
            s.start = r.start;
            s.duration = r.end - r.start;
            s.track = TrackId(static_cast<std::uint32_t>(&t - m_tracks.data()));
            s.type = r.pc;
            // DMA ids stop below 2^32 - 1 (docs/grm.md), so id + 1 fits.
            s.link = r.satisfiedBy >= 0 ? static_cast<std::uint32_t>(r.satisfiedBy) + 1 : 0;
        },
        *m_arena, m_mutex);
}

TrackId EventStore::addTrack(std::vector<TrackId>& byChip, ChipId chip, RowKind kind)
{
    std::lock_guard lock(m_mutex);
    if (chip.value >= byChip.size())
        byChip.resize(std::size_t{chip.value} + 1);
    byChip[chip.value] = TrackId(static_cast<std::uint32_t>(m_tracks.size()));
    m_tracks.push_back({{chip, kind}, {}, {}, {}});
    return byChip[chip.value];
}

TrackId EventStore::addDmaTrack(ChipId chip, std::uint8_t engine)
{
    std::lock_guard lock(m_mutex);
    if (chip.value >= m_dmaTracks.size())
        m_dmaTracks.resize(std::size_t{chip.value} + 1);
    std::vector<TrackId>& engines = m_dmaTracks[chip.value];
    if (engine >= engines.size())
        engines.resize(std::size_t{engine} + 1);
    engines[engine] = TrackId(static_cast<std::uint32_t>(m_tracks.size()));
    m_tracks.push_back({{chip, RowKind::DmaEngine, engine}, {}, {}, {}});
    return engines[engine];
}

void EventStore::appendRegion(ChipId chip, std::uint32_t region, std::uint16_t depth, Cycle enter, Cycle exit)
{
    if (m_discard)
        return;
    const TrackId track = trackOf(m_regionTracks, chip, RowKind::Regions);
    m_tracks[track.value].slices.emplace(
        [&](StoreSlice& s) {
            s.start = enter;
            s.duration = exit - enter;
            s.track = track;
            s.depth = depth;
            s.type = region;
        },
        *m_arena, m_mutex);
}

BundleSnapshot EventStore::bundles() const
{
    return snapshotOf(m_chunks);
}

std::vector<DmaRecord> EventStore::dmas() const
{
    return dmasById<DmaRecord>([](const DmaRecord& d) { return d; },
                               [](const DmaRecord& a, const DmaRecord& b) { return a.id < b.id; });
}

std::vector<DmaRecord> EventStore::dmas(TrackId track, std::size_t first) const
{
    std::lock_guard lock(m_mutex);
    std::vector<DmaRecord> out;
    if (track.value >= m_tracks.size() || m_tracks[track.value].track.kind != RowKind::DmaEngine)
        return out;
    const TrackSlices& t = m_tracks[track.value];
    const std::size_t n = std::min(t.slices.size(), t.dmaRows.size());
    if (first < n)
        out.reserve(n - first);
    for (std::size_t i = first; i < n; ++i)
        out.push_back(dmaOf(t.track, t.slices[i], t.dmaRows[i]));
    return out;
}

std::vector<TrackId> EventStore::dmaTracks() const
{
    std::lock_guard lock(m_mutex);
    std::vector<TrackId> out;
    for (const auto& engines : m_dmaTracks)
        for (const TrackId track : engines)
            if (track.valid())
                out.push_back(track);
    return out;
}

std::size_t EventStore::dmaCount() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const auto& engines : m_dmaTracks)
        for (const TrackId track : engines)
            if (track.valid())
                n += std::min(m_tracks[track.value].slices.size(), m_tracks[track.value].dmaRows.size());
    return n;
}

std::vector<SyncWaitRecord> EventStore::syncWaits() const
{
    std::vector<SyncWaitRecord> out;
    out.reserve(syncWaitCount());
    forEachSyncWait([&](const SyncWaitRecord& w) { out.push_back(w); });
    return out;
}

std::vector<SyncWaitRecord> EventStore::syncWaits(ChipId chip, std::size_t first) const
{
    std::lock_guard lock(m_mutex);
    std::vector<SyncWaitRecord> out;
    if (chip.value >= m_waitTracks.size() || !m_waitTracks[chip.value].valid())
        return out;
    const TrackSlices& t = m_tracks[m_waitTracks[chip.value].value];
    const std::size_t n = std::min(t.slices.size(), t.waitRows.size());
    if (first < n)
        out.reserve(n - first);
    for (std::size_t i = first; i < n; ++i)
        out.push_back(syncWaitOf(chip, t.slices[i], t.waitRows[i]));
    return out;
}

std::size_t EventStore::syncWaitCount() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const TrackId track : m_waitTracks)
        n += track.valid()
                 ? std::min(m_tracks[track.value].slices.size(), m_tracks[track.value].waitRows.size())
                 : 0;
    return n;
}

TrackId EventStore::waitTrack(ChipId chip) const
{
    std::lock_guard lock(m_mutex);
    return chip.value < m_waitTracks.size() ? m_waitTracks[chip.value] : TrackId();
}

std::vector<StoreTrack> EventStore::tracks() const
{
    std::lock_guard lock(m_mutex);
    std::vector<StoreTrack> out;
    out.reserve(m_tracks.size());
    for (const TrackSlices& t : m_tracks)
        out.push_back(t.track);
    return out;
}

TrackId EventStore::regionTrack(ChipId chip) const
{
    std::lock_guard lock(m_mutex);
    return chip.value < m_regionTracks.size() ? m_regionTracks[chip.value] : TrackId();
}

std::vector<StoreSlice> EventStore::slices(TrackId track, std::size_t first) const
{
    std::lock_guard lock(m_mutex);
    return track.value < m_tracks.size() ? m_tracks[track.value].slices.copyFrom(first)
                                         : std::vector<StoreSlice>();
}

std::vector<StoreSlice> EventStore::regionsByEntry(ChipId chip) const
{
    std::vector<StoreSlice> out = slices(regionTrack(chip));
    // Exits arrive innermost first; by entry, of two that enter together the enclosing one (less deep), and
    // of two at one depth (regions of no cycles) the one that exited first.
    std::stable_sort(out.begin(), out.end(), [](const StoreSlice& a, const StoreSlice& b) {
        return a.start != b.start ? a.start < b.start : a.depth < b.depth;
    });
    return out;
}

std::size_t EventStore::regionCount() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const TrackId track : m_regionTracks)
        n += track.valid() ? m_tracks[track.value].slices.size() : 0;
    return n;
}

EventStore::ResidentBytes EventStore::residentBytesByKind() const
{
    std::lock_guard lock(m_mutex);
    ResidentBytes bytes;
    for (const auto& c : m_chunks)
        bytes.bundles += residentBytesOf(*c);
    bytes.stallDetails =
        m_detailBlocks * kStallDetailsPerBlock * sizeof(StallDetail) - m_detailBytesGivenBack;
    for (const auto& c : m_vmemChunks)
        bytes.vmemAccesses += residentBytesOf(*c);
    for (const TrackSlices& t : m_tracks)
        bytes.slicesAndRows +=
            t.slices.residentBytes() + t.waitRows.residentBytes() + t.dmaRows.residentBytes();
    return bytes;
}

std::size_t EventStore::vmemAccessCount() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const auto& c : m_vmemChunks)
        n += c->size;
    return n;
}

std::size_t EventStore::eventCount() const
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (const auto& c : m_chunks)
        n += c->size;
    for (const auto& c : m_vmemChunks)
        n += c->size;
    for (const TrackSlices& t : m_tracks)
        n += t.slices.size();
    return n;
}

} // namespace xps::events

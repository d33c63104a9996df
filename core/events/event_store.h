#pragma once
// The append-only event store of one replay. The replayer appends from its worker thread; views and
// analyses read concurrently. Bundle issues are stored column-wise in fixed-size chunks; a chunk is
// published (made visible to readers) once full and never changes afterwards, so readers need no lock
// beyond taking a snapshot of the published chunk list.

#include "events/events.h"

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace xps::events {

inline constexpr std::size_t kChunkEvents = 1u << 16;

// Column-wise storage of kChunkEvents bundle issues: 8 + 4 + 4 + 4 + 2 + 1 + 1 = 24 bytes per event.
struct BundleChunk
{
    std::array<Cycle, kChunkEvents> cycle;
    std::array<std::uint32_t, kChunkEvents> pc;
    std::array<std::uint32_t, kChunkEvents> stallCycles;
    std::array<std::uint32_t, kChunkEvents> cause;
    std::array<std::uint16_t, kChunkEvents> chip;
    std::array<StallReason, kChunkEvents> reason;
    std::array<CauseKind, kChunkEvents> causeKind;
    std::size_t size = 0;

    BundleIssue at(std::size_t i) const
    {
        return {cycle[i], pc[i], stallCycles[i], cause[i], chip[i], reason[i], causeKind[i]};
    }
};

// A consistent view of the bundles published so far.
class BundleSnapshot
{
public:
    std::size_t size() const { return m_size; }
    BundleIssue operator[](std::size_t i) const { return m_chunks[i / kChunkEvents]->at(i % kChunkEvents); }
    const std::vector<std::shared_ptr<const BundleChunk>>& chunks() const { return m_chunks; }

private:
    friend class EventStore;
    std::vector<std::shared_ptr<const BundleChunk>> m_chunks;
    std::size_t m_size = 0;
};

class EventStore
{
public:
    // Writer side (one thread).
    void appendBundle(const BundleIssue& e);
    void appendDma(const DmaRecord& r);
    void appendSyncWait(const SyncWaitRecord& r);
    void appendRegion(const RegionRecord& r);
    // Publishes the partly filled last chunk (at the end of a replay or on cancel).
    void flush();

    // Reader side (any thread).
    BundleSnapshot bundles() const;
    std::vector<DmaRecord> dmas() const;
    std::vector<SyncWaitRecord> syncWaits() const;
    std::vector<RegionRecord> regions() const;
    std::size_t bundleCount() const { return m_published.load(std::memory_order_acquire); }

    // Bytes held for published events, counting whole allocated chunks, and their number: what
    // `replay --summary` and the benchmark report as resident bytes per event. Exact after flush().
    std::size_t residentBytes() const;
    std::size_t eventCount() const;

private:
    void publishCurrent();

    std::unique_ptr<BundleChunk> m_current;
    mutable std::mutex m_mutex; // guards the vectors below
    std::vector<std::shared_ptr<const BundleChunk>> m_chunks;
    // Block-allocated, so a million records never hold a million more in spare capacity.
    std::deque<DmaRecord> m_dmas;
    std::deque<SyncWaitRecord> m_waits;
    std::deque<RegionRecord> m_regions;
    std::atomic<std::size_t> m_published{0};
    std::size_t m_publishedFullChunks = 0;
};

} // namespace xps::events

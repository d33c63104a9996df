#pragma once
// The DMA engines and ICI of all chips, in continuous time. Rates are piecewise constant: they change only
// when a transfer starts or finishes, and each active transfer gets the smallest of its engine's peak and
// its equal share of every shared resource it crosses (the HBM of a chip, the VMEM copy path, each ICI link
// direction on its route). A chunk's bytes are copied and its flag incremented when the chunk completes,
// so a consumer that reads early sees old data, as on hardware.

#include "chip_state.h"
#include "dma_time.h"
#include "events/event_store.h"
#include "isa/machine_config.h"
#include "ring.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace xps::sim {

inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();
// The DMA system's watchdog: more events than this at one instant means time has stopped (a bug, reported as
// a fault naming the transfer, never a spin). Legitimate bursts are a handful of starts and chunks.
inline constexpr std::uint64_t kMaxEventsAtOneInstant = std::uint64_t{1} << 22;

struct DmaDescriptor
{
    ChipId chip = ChipId(0);
    ChipId dstChip = ChipId(0);
    std::uint32_t pc = 0;
    int engine = 0;
    isa::Space srcSpace = isa::Space::Hbm;
    isa::Space dstSpace = isa::Space::Vmem;
    std::uint64_t srcAddress = 0;
    std::uint64_t dstAddress = 0;
    std::uint64_t rowBytes = 0;
    std::uint64_t rows = 1;
    std::uint64_t srcStride = 0; // 0 = rowBytes
    std::uint64_t dstStride = 0;
    std::uint64_t chunkBytes = 0;
    std::uint32_t flag = 0;
    bool longWay = false; // route=1: the other way round the ring
    // cvt=: each element converted on the way (isa::DmaConvert). rowBytes is the source's bytes per row.
    std::uint8_t convert = 0;
};

struct DmaTotals
{
    std::uint64_t hbmBytes = 0;           // bytes read from or written to this chip's HBM
    std::uint64_t iciBytes = 0;           // bytes this chip sent over ICI
    std::uint64_t bytesByPath[3][3] = {}; // [src space][dst space]
};

class DmaSystem
{
public:
    DmaSystem(const isa::MachineConfig& config, std::vector<ChipState>& chips, events::EventStore& store,
              bool copyPayload);

    bool queueFull(ChipId chip, int engine) const;
    // Validates the descriptor against memory bounds (throws SimFault) and queues it; returns the DMA id.
    std::uint32_t issue(const DmaDescriptor& d, std::uint64_t cycle);
    // sync.add to another chip: the increment lands after the ICI latency of the route.
    void sendFlagAdd(ChipId fromChip, ChipId toChip, std::uint32_t flag, std::uint32_t value,
                     std::uint64_t cycle);

    // Processes every event up to and including `cycle`.
    void advanceTo(std::uint64_t cycle);
    // The first cycle at which something changes (a flag may advance, a queue slot frees), or kNever.
    std::uint64_t nextEventCycle() const;
    bool idle() const;

    // The in-flight DMA that will next increment `flag` on `chip`, or -1.
    std::int64_t pendingWriterOf(ChipId chip, std::uint32_t flag) const;
    // A core's sync.set/sync.add changed `flag`: a wait it satisfies was not satisfied by a DMA.
    void noteFlagWrittenByCore(ChipId chip, std::uint32_t flag);
    // The DMA whose chunk last changed `flag` on `chip`, or -1 if a core's sync.set/add did.
    std::int64_t lastWriterOf(ChipId chip, std::uint32_t flag) const;
    const DmaTotals& totals(ChipId chip) const { return m_totals[chip.value]; }
    // Changes whenever something a stalled core of `chip` may be waiting on has changed: one of its flags,
    // the in-flight DMAs that will write them, or one of its DMA queues. A core stalled on something only
    // the DMA system or a flag write can clear need not look again until it does. Per chip: with one
    // number for all, every DMA event anywhere made every waiting chip look again (a second, useless
    // look per sync.wait on a 4-chip stress loop).
    std::uint64_t version(ChipId chip) const { return m_versions[chip.value]; }

private:
    struct Transfer
    {
        std::uint32_t id;
        DmaDescriptor d;
        // Progress, chunks and the record count "unit" bytes: the source's, or for a converting transfer its
        // 2-byte side's (the element index x 2); unitRow is a row's unit bytes, each side's byte offset in a
        // row is (unit offset x its element size / unit element size).
        std::uint64_t total;
        std::uint64_t chunk;
        std::uint64_t unitRow = 0;
        std::uint8_t unitElement = 1, srcElement = 1, dstElement = 1;
        std::uint64_t chunksDone = 0;
        // Progress is exact by construction: bytes move at a constant rate from an anchor (the time and
        // bytes moved when the rate last changed or a chunk last completed), and a chunk completes when the
        // event scheduled for its boundary (boundaryAt) is processed: never by comparing a floating byte
        // count with the boundary, which can land a hair short and then never arrive.
        // When its setup began: on reaching the head of its queue, or with dma_prefetch_descriptors on
        // entering the window behind the head (never() until then).
        DmaTime setupFrom = DmaTime::never();
        DmaTime startAt;  // when bytes begin to move (setup and route latency paid)
        DmaTime anchorAt; // while active: when `anchorBytes` had been moved
        double anchorBytes = 0.0;
        double rate = 0.0;                     // bytes per cycle, while active
        DmaTime boundaryAt = DmaTime::never(); // while active: when the next chunk boundary is reached
        bool active = false;
        std::vector<int> links; // ICI link-direction indices on the route
        std::uint64_t issueCycle = 0;
        std::uint64_t firstByteCycle = 0;
        events::DmaRecord record; // completed and stored when the transfer retires
    };
    struct FlagMessage
    {
        DmaTime at;
        ChipId chip;
        std::uint32_t flag;
        std::uint32_t value;
        // A DMA's completion (dma_completion_cycles after its chunk landed): the transfer that adds to the
        // flag, -1 for a core's sync.add; lastOfTransfer retires it as the flag's pending writer.
        std::int64_t transfer = -1;
        bool lastOfTransfer = false;
    };

    void schedule(Transfer& head, DmaTime now) const;
    // Starts the setup of the transfers of `q` that have just entered the prefetch window (after a push or
    // a pop); the head's is started by schedule().
    void beginSetups(Ring<Transfer>& q, DmaTime now) const;
    void recomputeRates();
    DmaTime nextEventTime() const;
    // The next chunk boundary of an active transfer, in bytes, and when it is reached at the current rate.
    static std::uint64_t nextBoundary(const Transfer& t);
    static void planBoundary(Transfer& t);
    void completeChunks(Transfer& t);
    [[noreturn]] void reportStuck(std::uint64_t events) const;
    // Calls fn(srcAddress, srcBytes, dstAddress, dstBytes) for each row's run of [from, to) (unit bytes).
    template <typename Fn>
    static void forEachRun(const Transfer& t, std::uint64_t from, std::uint64_t to, Fn&& fn);
    void copyChunk(const Transfer& t, std::uint64_t from, std::uint64_t to);
    void trackStaleness(const Transfer& t, std::uint64_t from, std::uint64_t to);
    void recordVmemAccesses(const Transfer& t, std::uint64_t from, std::uint64_t to, std::uint64_t cycle);
    void retire();
    // Calls fn(queue, index) (const: fn(queue)) for every non-empty queue, in queue order: the order events
    // are recorded in.
    template <typename Fn> void forEachBusyQueue(Fn&& fn);
    template <typename Fn> void forEachBusyQueue(Fn&& fn) const;
    void markBusy(std::size_t queue) { m_busy[queue / 64] |= std::uint64_t{1} << (queue % 64); }
    void markIdle(std::size_t queue) { m_busy[queue / 64] &= ~(std::uint64_t{1} << (queue % 64)); }

    const isa::MachineConfig& m_config;
    std::vector<ChipState>& m_chips;
    events::EventStore& m_store;
    bool m_copyPayload;
    DmaTime m_now;                          // time of the last processed event
    DmaTime m_nextEvent = DmaTime::never(); // cached nextEventTime(): a cycle without an event costs O(1)
    std::uint32_t m_nextId = 0;
    std::vector<std::uint64_t> m_versions; // by chip
    void changed(ChipId chip) { ++m_versions[chip.value]; }
    // queues[chip * engines + engine]: the head may be active; the rest wait.
    std::vector<Ring<Transfer>> m_queues;
    // One bit per queue, set while it holds a transfer: a handful of engines are busy at a time, and every
    // event used to walk all chips x engines queues several times.
    std::vector<std::uint64_t> m_busy;
    // [dst chip * flags + flag]: ids of queued transfers that will increment the flag, oldest first (ids
    // grow with issue order), so the wait's cause is found without scanning every queue.
    std::vector<std::vector<std::uint32_t>> m_pendingWriters;
    std::vector<FlagMessage> m_messages;
    std::vector<std::vector<std::int64_t>> m_lastWriter; // [chip][flag]
    std::vector<DmaTotals> m_totals;
    // Transfers sharing each resource, recounted when rates change (kept to avoid allocating per event).
    struct Users
    {
        std::vector<int> hbm, vmem, links, converts;
    } m_users;
    // A chunk's bytes on their way (and converted), kept from chunk to chunk: a fresh vector per chunk cost
    // an allocation and zeroing its bytes before they were read over (a tenth of a full-mode replay of 4 KiB
    // DMAs).
    std::vector<std::uint8_t> m_copyBuffer, m_convertBuffer;
};

template <typename Fn>
void DmaSystem::forEachRun(const Transfer& t, std::uint64_t from, std::uint64_t to, Fn&& fn)
{
    if (t.unitElement == 1) {
        // A plain copy: unit bytes are bytes on both sides, and the element divisions (64-bit divides, three
        // a run) are not needed.
        for (std::uint64_t at = from; at < to;) {
            const std::uint64_t row = at / t.unitRow;
            const std::uint64_t col = at - row * t.unitRow;
            const std::uint64_t n = std::min(t.unitRow - col, to - at);
            fn(t.d.srcAddress + row * t.d.srcStride + col, n, t.d.dstAddress + row * t.d.dstStride + col, n);
            at += n;
        }
        return;
    }
    for (std::uint64_t at = from; at < to;) {
        const std::uint64_t row = at / t.unitRow;
        const std::uint64_t col = at % t.unitRow;
        const std::uint64_t n = std::min(t.unitRow - col, to - at);
        fn(t.d.srcAddress + row * t.d.srcStride + col / t.unitElement * t.srcElement,
           n / t.unitElement * t.srcElement,
           t.d.dstAddress + row * t.d.dstStride + col / t.unitElement * t.dstElement,
           n / t.unitElement * t.dstElement);
        at += n;
    }
}

template <typename Fn> void DmaSystem::forEachBusyQueue(Fn&& fn)
{
    for (std::size_t w = 0; w < m_busy.size(); ++w)
        for (std::uint64_t bits = m_busy[w]; bits; bits &= bits - 1) // a copy: fn may empty the queue
            fn(m_queues[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))],
               w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
}

template <typename Fn> void DmaSystem::forEachBusyQueue(Fn&& fn) const
{
    for (std::size_t w = 0; w < m_busy.size(); ++w)
        for (std::uint64_t bits = m_busy[w]; bits; bits &= bits - 1)
            fn(m_queues[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))]);
}

} // namespace xps::sim

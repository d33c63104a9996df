#include "dma_system.h"

#include "isa/topology.h"
#include "util/half_float.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace xps::sim {

namespace {

// dma.start cvt=: the elements of `in` (2-byte for 1 and 2, 4-byte for 3 and 4) converted into `out`.
void convertElements(std::uint8_t convert, const std::vector<std::uint8_t>& in,
                     std::vector<std::uint8_t>& out)
{
    const bool widen = convert <= 2;
    const std::size_t elements = in.size() / (widen ? 2 : 4);
    out.resize(elements * (widen ? 4 : 2));
    for (std::size_t i = 0; i < elements; ++i) {
        if (widen) {
            std::uint16_t h = 0;
            std::memcpy(&h, in.data() + 2 * i, 2);
            const std::uint32_t f = convert == 1 ? half::f16ToF32(h) : half::bf16ToF32(h);
            std::memcpy(out.data() + 4 * i, &f, 4);
        } else {
            std::uint32_t f = 0;
            std::memcpy(&f, in.data() + 4 * i, 4);
            const std::uint16_t h = convert == 3 ? half::f32ToF16(f) : half::f32ToBf16(f);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
}

} // namespace

DmaSystem::DmaSystem(const isa::MachineConfig& config, std::vector<ChipState>& chips,
                     events::EventStore& store, bool copyPayload)
    : m_config(config), m_chips(chips), m_store(store), m_copyPayload(copyPayload),
      m_versions(chips.size(), 0), m_queues(chips.size() * static_cast<std::size_t>(config.dmaEngines)),
      m_busy((m_queues.size() + 63) / 64),
      m_pendingWriters(chips.size() * static_cast<std::size_t>(config.syncFlags)),
      m_lastWriter(chips.size(), std::vector<std::int64_t>(static_cast<std::size_t>(config.syncFlags), -1)),
      m_totals(chips.size())
{
}

bool DmaSystem::queueFull(ChipId chip, int engine) const
{
    const auto& q = m_queues[static_cast<std::size_t>(chip.value * m_config.dmaEngines + engine)];
    return static_cast<std::int64_t>(q.size()) >= m_config.dmaQueueDepth;
}

std::uint32_t DmaSystem::issue(const DmaDescriptor& d, std::uint64_t cycle)
{
    if (d.engine < 0 || d.engine >= m_config.dmaEngines)
        throw SimFault{"invalid DMA descriptor: engine " + std::to_string(d.engine) + " does not exist"};
    if (d.dstChip.value >= m_chips.size())
        throw SimFault{"invalid DMA descriptor: chip " + std::to_string(d.dstChip.value) + " does not exist"};
    if (d.flag >= static_cast<std::uint32_t>(m_config.syncFlags))
        throw SimFault{"invalid DMA descriptor: flag " + std::to_string(d.flag) + " does not exist"};
    if (d.rowBytes == 0 || d.rows == 0)
        throw SimFault{"invalid DMA descriptor: bytes and rows must be positive"};
    // DMA ids and chunk counts are 32-bit in the event records: refuse rather than wrap.
    if (m_nextId == UINT32_MAX)
        throw SimFault{"more than 4,294,967,295 DMAs in one replay: DMA ids are 32-bit"};
    // A converting copy reads elements of one size and writes another: each side's row has its own bytes.
    if (d.convert > 4)
        throw SimFault{"invalid DMA descriptor: cvt=" + std::to_string(d.convert) +
                       " is not a conversion (0 none, 1 f16->f32, 2 bf16->f32, 3 f32->f16, 4 f32->bf16)"};
    const std::uint8_t srcElement = d.convert == 0 ? 1 : d.convert <= 2 ? 2 : 4;
    const std::uint8_t dstElement = d.convert == 0 ? 1 : d.convert <= 2 ? 4 : 2;
    if (d.rowBytes % srcElement != 0)
        throw SimFault{"invalid DMA descriptor: cvt=" + std::to_string(d.convert) + " reads " +
                       std::to_string(srcElement) + "-byte elements, but bytes per row (" +
                       std::to_string(d.rowBytes) + ") is not a multiple of " + std::to_string(srcElement)};
    if (d.rowBytes > UINT64_MAX / 2)
        throw SimFault{"invalid DMA descriptor: bytes per row overflows 64 bits"};
    const std::uint64_t dstRowBytes = d.rowBytes / srcElement * dstElement;
    const std::uint64_t srcStride = d.srcStride ? d.srcStride : d.rowBytes;
    const std::uint64_t dstStride = d.dstStride ? d.dstStride : dstRowBytes;
    const auto check = [&](ChipId chip, isa::Space space, std::uint64_t address, std::uint64_t stride,
                           std::uint64_t rowBytes, const char* what) {
        const SparseMemory& m = m_chips[chip.value].memory(space);
        const std::uint64_t span = (d.rows - 1) * stride + rowBytes;
        const bool overflow = d.rows > 1 && stride > (UINT64_MAX - rowBytes) / (d.rows - 1);
        if (overflow || !m.contains(address, span))
            throw SimFault{std::string("invalid DMA descriptor: ") + what + " " +
                           std::string(isa::spaceName(space)) + "[" + text::hex(address) + ", +" +
                           std::to_string(span) + ") is outside " + std::string(isa::spaceName(space)) +
                           " (" + text::formatBytes(m.size()) + ")"};
    };
    check(d.chip, d.srcSpace, d.srcAddress, srcStride, d.rowBytes, "source");
    check(d.dstChip, d.dstSpace, d.dstAddress, dstStride, dstRowBytes, "destination");

    if (d.rows > UINT64_MAX / d.rowBytes)
        throw SimFault{"invalid DMA descriptor: rows x bytes per row overflows 64 bits"};
    const std::uint8_t unitElement = d.convert == 0 ? 1 : 2;
    const std::uint64_t unitRow = d.rowBytes / srcElement * unitElement;
    const std::uint64_t total = d.rows * unitRow;
    std::uint64_t chunk = d.chunkBytes ? d.chunkBytes : static_cast<std::uint64_t>(m_config.dmaChunkBytes);
    if (d.convert != 0) // chunks end between elements of the 2-byte side
        chunk = std::max<std::uint64_t>(2, chunk & ~std::uint64_t{1});
    // Chunks, rounded up without total + chunk - 1 (a chunk= of ~2^64 from a negative operand would wrap).
    const std::uint64_t chunks = total / chunk + (total % chunk != 0 ? 1 : 0);
    if (chunks > UINT32_MAX)
        throw SimFault{"invalid DMA descriptor: " + std::to_string(total) + " bytes in chunks of " +
                       std::to_string(chunk) +
                       " is more than 4,294,967,295 chunks (flags count chunks in 32 bits)"};

    changed(d.chip);    // a queue grew
    changed(d.dstChip); // a flag has a new pending writer
    const std::uint32_t id = m_nextId++;
    m_pendingWriters[std::size_t{d.dstChip.value} * static_cast<std::size_t>(m_config.syncFlags) + d.flag]
        .push_back(id);
    const auto index = static_cast<std::size_t>(d.chip.value * m_config.dmaEngines + d.engine);
    auto& q = m_queues[index];
    // Filled where it lives (every member: the slot holds a retired transfer).
    Transfer& t = q.push_slot();
    t.id = id;
    t.d = d;
    t.d.srcStride = srcStride;
    t.d.dstStride = dstStride;
    t.total = total;
    t.chunk = chunk;
    t.unitRow = unitRow;
    t.unitElement = unitElement;
    t.srcElement = srcElement;
    t.dstElement = dstElement;
    t.chunksDone = 0;
    t.setupFrom = DmaTime::never();
    t.startAt = DmaTime{};
    t.anchorAt = DmaTime{};
    t.anchorBytes = 0.0;
    t.rate = 0.0;
    t.boundaryAt = DmaTime::never();
    t.active = false;
    if (d.dstChip == d.chip)
        t.links.clear();
    else
        t.links = isa::iciRoute(m_config, d.chip, d.dstChip, d.longWay);
    t.issueCycle = cycle;
    t.firstByteCycle = 0;

    events::DmaRecord& r = t.record;
    r.id = id;
    r.chip = d.chip;
    r.dstChip = d.dstChip;
    r.pc = d.pc;
    r.engine = static_cast<std::uint8_t>(d.engine);
    r.srcSpace = static_cast<std::uint8_t>(d.srcSpace);
    r.dstSpace = static_cast<std::uint8_t>(d.dstSpace);
    r.longWay = d.longWay ? 1 : 0;
    r.convert = d.convert & 7;
    r.srcAddress = d.srcAddress;
    r.dstAddress = d.dstAddress;
    r.bytes = total;
    r.flag = d.flag;
    r.chunks = static_cast<std::uint32_t>(chunks);
    r.issue = cycle;
    r.start = 0;
    r.end = 0;

    markBusy(index);
    const DmaTime now = later(m_now, DmaTime::at(cycle));
    if (q.size() == 1) {
        // The only change to the next event: this new head's start (nothing moved since it was computed).
        schedule(t, now);
        m_nextEvent = earlier(m_nextEvent, t.startAt);
    } else {
        beginSetups(q, now); // its start waits for the head's last byte: no event earlier than that one
    }
    return id;
}

void DmaSystem::sendFlagAdd(ChipId fromChip, ChipId toChip, std::uint32_t flag, std::uint32_t value,
                            std::uint64_t cycle)
{
    changed(toChip);
    const double hops = static_cast<double>(isa::iciRoute(m_config, fromChip, toChip).size());
    m_messages.push_back({DmaTime::at(cycle).plus(hops * static_cast<double>(m_config.iciLatencyCycles)),
                          toChip, flag, value});
    m_nextEvent = earlier(m_nextEvent, m_messages.back().at);
}

void DmaSystem::noteFlagWrittenByCore(ChipId chip, std::uint32_t flag)
{
    m_lastWriter[chip.value][flag] = -1;
    changed(chip);
}

void DmaSystem::schedule(Transfer& head, DmaTime now) const
{
    // A new head starts after the setup cost and its route's latency from when its setup began (strictly
    // after now, so every event moves something forward, unless a prefetched setup is already over: then
    // its bytes follow the last head's at once).
    const double latency =
        static_cast<double>(m_config.dmaSetupCycles) +
        static_cast<double>(head.links.size()) * static_cast<double>(m_config.iciLatencyCycles);
    if (head.setupFrom.isNever())
        head.setupFrom = later(now, DmaTime::at(head.issueCycle));
    head.startAt = later(now, head.setupFrom.plus(std::max(latency, 1e-9)));
}

void DmaSystem::beginSetups(Ring<Transfer>& q, DmaTime now) const
{
    // Those nearer the head began when they entered: only the window's newcomers, at its far end, have not
    // (a pop or a push moves a few in), so this walks back from the end to the first that has begun.
    const auto window = std::min(q.size(), static_cast<std::size_t>(m_config.dmaPrefetchDescriptors) + 1);
    for (std::size_t i = window; i-- > 1 && q[i].setupFrom.isNever();)
        q[i].setupFrom = later(now, DmaTime::at(q[i].issueCycle));
}

std::uint64_t DmaSystem::nextBoundary(const Transfer& t)
{
    return std::min((t.chunksDone + 1) * t.chunk, t.total);
}

void DmaSystem::planBoundary(Transfer& t)
{
    if (t.chunksDone * t.chunk >= t.total || !(t.rate > 0.0)) {
        t.boundaryAt = DmaTime::never();
        return;
    }
    const double remaining = std::max(0.0, static_cast<double>(nextBoundary(t)) - t.anchorBytes);
    t.boundaryAt = t.anchorAt.plus(remaining / t.rate);
}

void DmaSystem::recomputeRates()
{
    std::vector<int>& hbmUsers = m_users.hbm; // not a structured binding: lambdas below capture these
    std::vector<int>& vmemUsers = m_users.vmem;
    std::vector<int>& linkUsers = m_users.links;
    std::vector<int>& convertUsers = m_users.converts; // [chip * 2 + (bf16 ? 1 : 0)]
    const std::size_t chips = m_chips.size();
    hbmUsers.assign(chips, 0);
    vmemUsers.assign(chips, 0);
    linkUsers.assign(chips * 4, 0);
    convertUsers.assign(chips * 2, 0);
    const auto convertSlot = [](const Transfer& t) {
        return std::size_t{t.d.chip.value} * 2 + (t.d.convert == 2 || t.d.convert == 4 ? 1 : 0);
    };
    const auto touches = [](const Transfer& t, auto&& fn) {
        if (t.d.srcSpace == isa::Space::Hbm)
            fn('h', t.d.chip.value);
        if (t.d.dstSpace == isa::Space::Hbm)
            fn('h', t.d.dstChip.value);
        if (t.d.srcSpace != isa::Space::Hbm && t.d.dstSpace != isa::Space::Hbm && t.links.empty())
            fn('v', t.d.chip.value);
        for (int link : t.links)
            fn('l', link);
    };
    forEachBusyQueue([&](Ring<Transfer>& q, std::size_t) {
        if (!q.front().active)
            return;
        touches(q.front(), [&](char kind, int index) {
            (kind == 'h' ? hbmUsers : kind == 'v' ? vmemUsers : linkUsers)[static_cast<std::size_t>(index)]++;
        });
        if (q.front().d.convert != 0)
            ++convertUsers[convertSlot(q.front())];
    });
    const double enginePeak = m_config.bytesPerCycle(m_config.dmaEnginePeakGBs);
    const double hbm = m_config.bytesPerCycle(m_config.hbmBandwidthGBs);
    const double vmem = m_config.bytesPerCycle(m_config.vmemDmaBandwidthGBs);
    const double link = m_config.bytesPerCycle(m_config.iciLinkGBs);
    const double convertF16 = m_config.bytesPerCycle(m_config.convertGBs);
    const double convertBf16 = m_config.bytesPerCycle(m_config.convertBf16GBs);
    forEachBusyQueue([&](Ring<Transfer>& q, std::size_t) {
        if (!q.front().active)
            return;
        Transfer& t = q.front();
        const bool bf16 = t.d.convert == 2 || t.d.convert == 4;
        // The chip converts on one unit (a TPU's vector unit): its rate is shared by every converting copy.
        double rate =
            t.d.convert != 0
                ? std::min(enginePeak, (bf16 ? convertBf16 : convertF16) / convertUsers[convertSlot(t)])
                : enginePeak;
        touches(t, [&](char kind, int index) {
            const auto i = static_cast<std::size_t>(index);
            if (kind == 'h')
                rate = std::min(rate, hbm / hbmUsers[i]);
            else if (kind == 'v')
                rate = std::min(rate, vmem / vmemUsers[i]);
            else
                rate = std::min(rate, link / linkUsers[i]);
        });
        if (rate == t.rate)
            return; // same rate: the anchor and the planned boundary stand
        // Re-anchor at now: the bytes moved so far at the old rate, never past the boundary still ahead.
        const double moved = t.anchorBytes + t.rate * m_now.since(t.anchorAt);
        t.anchorBytes = std::min(moved, static_cast<double>(nextBoundary(t)));
        t.anchorAt = m_now;
        t.rate = rate;
        planBoundary(t);
    });
}

DmaTime DmaSystem::nextEventTime() const
{
    DmaTime next = DmaTime::never();
    forEachBusyQueue([&](const Ring<Transfer>& q) {
        const Transfer& t = q.front();
        next = earlier(next, t.active ? t.boundaryAt : t.startAt);
    });
    for (const FlagMessage& m : m_messages)
        next = earlier(next, m.at);
    return next;
}

void DmaSystem::copyChunk(const Transfer& t, std::uint64_t from, std::uint64_t to)
{
    ChipState& src = m_chips[t.d.chip.value];
    ChipState& dst = m_chips[t.d.dstChip.value];
    std::vector<std::uint8_t>& buffer = m_copyBuffer;
    std::vector<std::uint8_t>& converted = m_convertBuffer;
    forEachRun(
        t, from, to,
        [&](std::uint64_t srcAddress, std::uint64_t srcBytes, std::uint64_t dstAddress, std::uint64_t) {
            buffer.resize(srcBytes);
            src.memory(t.d.srcSpace).read(srcAddress, buffer);
            if (t.d.convert == 0) {
                dst.memory(t.d.dstSpace).write(dstAddress, buffer);
                return;
            }
            convertElements(t.d.convert, buffer, converted);
            dst.memory(t.d.dstSpace).write(dstAddress, converted);
        });
}

void DmaSystem::trackStaleness(const Transfer& t, std::uint64_t from, std::uint64_t to)
{
    // Timing-only mode: a skipped copy leaves its destination unknown; a copy into SMEM is real, and
    // unknown only where its source was.
    const ChipState& src = m_chips[t.d.chip.value];
    ChipState& dst = m_chips[t.d.dstChip.value];
    forEachRun(t, from, to,
               [&](std::uint64_t srcAddress, std::uint64_t srcBytes, std::uint64_t dstAddress,
                   std::uint64_t dstBytes) {
                   if (t.d.dstSpace != isa::Space::Smem || src.stale.any(t.d.srcSpace, srcAddress, srcBytes))
                       dst.stale.mark(t.d.dstSpace, dstAddress, dstBytes, dst.memory(t.d.dstSpace).size());
                   else
                       dst.stale.clearSmem(dstAddress, dstBytes);
               });
}

void DmaSystem::recordVmemAccesses(const Transfer& t, std::uint64_t from, std::uint64_t to,
                                   std::uint64_t cycle)
{
    if (t.d.srcSpace != isa::Space::Vmem && t.d.dstSpace != isa::Space::Vmem)
        return;
    // A record's byte count is 32-bit: a run of 4 GiB (VMEM's largest) is recorded in pieces of 2 GiB.
    const auto record = [&](std::uint64_t address, std::uint64_t bytes, ChipId chip, std::uint8_t kind) {
        for (std::uint64_t done = 0; done < bytes;) {
            const auto n = static_cast<std::uint32_t>(std::min(bytes - done, std::uint64_t{1} << 31));
            m_store.appendVmemAccess({cycle, static_cast<std::uint32_t>(address + done), n, t.id, chip, kind},
                                     n);
            done += n;
        }
    };
    forEachRun(t, from, to,
               [&](std::uint64_t srcAddress, std::uint64_t srcBytes, std::uint64_t dstAddress,
                   std::uint64_t dstBytes) {
                   if (t.d.srcSpace == isa::Space::Vmem)
                       record(srcAddress, srcBytes, t.d.chip, 2);
                   if (t.d.dstSpace == isa::Space::Vmem)
                       record(dstAddress, dstBytes, t.d.dstChip, 3);
               });
}

void DmaSystem::completeChunks(Transfer& t)
{
    // A chunk completes when the time planned for its boundary has come: its bytes are then exactly the
    // boundary, whatever the floating-point sum of rate x time would say.
    while (t.chunksDone * t.chunk < t.total && t.boundaryAt <= m_now) {
        const std::uint64_t boundary = nextBoundary(t);
        if (m_copyPayload || t.d.dstSpace == isa::Space::Smem)
            copyChunk(t, t.chunksDone * t.chunk, boundary);
        if (!m_copyPayload)
            trackStaleness(t, t.chunksDone * t.chunk, boundary);
        recordVmemAccesses(t, t.chunksDone * t.chunk, boundary, m_now.ceilCycle());
        const std::uint64_t bytes = boundary - t.chunksDone * t.chunk;
        DmaTotals& src = m_totals[t.d.chip.value];
        if (t.d.srcSpace == isa::Space::Hbm) // each side's own bytes (a converting copy's sides differ)
            src.hbmBytes += bytes / t.unitElement * t.srcElement;
        if (t.d.dstSpace == isa::Space::Hbm)
            m_totals[t.d.dstChip.value].hbmBytes += bytes / t.unitElement * t.dstElement;
        if (!t.links.empty())
            src.iciBytes += bytes;
        src.bytesByPath[static_cast<int>(t.d.srcSpace)][static_cast<int>(t.d.dstSpace)] += bytes;
        ++t.chunksDone;
        if (m_config.dmaCompletionCycles > 0) {
            // The flag hears of the chunk a round trip later; the engine goes on meanwhile.
            m_messages.push_back({m_now.plus(static_cast<double>(m_config.dmaCompletionCycles)), t.d.dstChip,
                                  t.d.flag, 1, static_cast<std::int64_t>(t.id),
                                  t.chunksDone * t.chunk >= t.total});
            m_nextEvent = earlier(m_nextEvent, m_messages.back().at);
        } else {
            m_chips[t.d.dstChip.value].flags[t.d.flag] += 1;
            m_lastWriter[t.d.dstChip.value][t.d.flag] = t.id;
            changed(t.d.dstChip);
        }
        t.anchorAt = t.boundaryAt;
        t.anchorBytes = static_cast<double>(boundary);
        planBoundary(t);
    }
}

void DmaSystem::retire()
{
    forEachBusyQueue([&](Ring<Transfer>& q, std::size_t index) {
        bool popped = false;
        while (!q.empty() && q.front().active && q.front().chunksDone * q.front().chunk >= q.front().total) {
            Transfer& t = q.front();
            t.record.start = t.firstByteCycle;
            t.record.end = m_now.ceilCycle();
            m_store.appendDma(t.record);
            auto& writers = m_pendingWriters[std::size_t{t.d.dstChip.value} *
                                                 static_cast<std::size_t>(m_config.syncFlags) +
                                             t.d.flag];
            if (m_config.dmaCompletionCycles == 0) // else when its last completion reaches the flag
                writers.erase(std::find(writers.begin(), writers.end(), t.id));
            changed(t.d.chip); // a queue slot freed
            changed(t.d.dstChip);
            q.pop_front();
            popped = true;
        }
        if (q.empty()) {
            markIdle(index);
        } else if (popped) {
            schedule(q.front(), m_now);
            beginSetups(q, m_now);
        }
    });
}

void DmaSystem::advanceTo(std::uint64_t cycle)
{
    const DmaTime until = DmaTime::at(cycle);
    // Every event consumes something (a start, a chunk, a flag message), so the loop ends; the watchdog
    // turns a future mistake that breaks this into a diagnostic instead of a replay that never returns.
    std::uint64_t eventsAtThisInstant = 0;
    while (m_nextEvent <= until) {
        const DmaTime te = m_nextEvent;
        eventsAtThisInstant = te == m_now ? eventsAtThisInstant + 1 : 0;
        if (eventsAtThisInstant > kMaxEventsAtOneInstant)
            reportStuck(eventsAtThisInstant);
        m_now = later(m_now, te);
        forEachBusyQueue([&](Ring<Transfer>& q, std::size_t) {
            Transfer& t = q.front();
            if (!t.active && t.startAt <= m_now) {
                t.active = true;
                t.firstByteCycle = m_now.ceilCycle();
                t.anchorAt = m_now;
                t.anchorBytes = 0.0;
                t.rate = 0.0; // set, and the first boundary planned, by recomputeRates below
                t.boundaryAt = DmaTime::never();
            }
            if (t.active)
                completeChunks(t);
        });
        for (std::size_t i = 0; i < m_messages.size();) {
            if (m_messages[i].at <= m_now) {
                const FlagMessage& m = m_messages[i];
                m_chips[m.chip.value].flags[m.flag] += m.value;
                if (m.transfer < 0) {
                    noteFlagWrittenByCore(m.chip, m.flag);
                } else {
                    m_lastWriter[m.chip.value][m.flag] = m.transfer;
                    changed(m.chip);
                    if (m.lastOfTransfer) {
                        auto& writers = m_pendingWriters[std::size_t{m.chip.value} *
                                                             static_cast<std::size_t>(m_config.syncFlags) +
                                                         m.flag];
                        writers.erase(std::find(writers.begin(), writers.end(),
                                                static_cast<std::uint32_t>(m.transfer)));
                    }
                }
                m_messages.erase(m_messages.begin() + static_cast<long>(i));
            } else {
                ++i;
            }
        }
        retire();
        recomputeRates();
        m_nextEvent = nextEventTime();
    }
}

void DmaSystem::reportStuck(std::uint64_t events) const
{
    std::string waiting;
    forEachBusyQueue([&](const Ring<Transfer>& q) {
        if (!waiting.empty())
            return;
        const Transfer& t = q.front();
        waiting = "DMA #" + std::to_string(t.id) + " (issued at pc " + text::hex(t.d.pc) + " on chip " +
                  std::to_string(t.d.chip.value) + ", engine " + std::to_string(t.d.engine) + ", chunk " +
                  std::to_string(t.chunksDone) + " of " + std::to_string(t.record.chunks) +
                  (t.active ? ", moving " + text::formatDouble(t.rate) + " B/cycle" : ", not started") + ")";
    });
    throw SimFault{"DMA system stopped advancing: " + std::to_string(events) + " events at cycle " +
                   std::to_string(m_now.cycle) + " without time moving on" +
                   (waiting.empty() ? std::string() : "; waiting for " + waiting)};
}

std::uint64_t DmaSystem::nextEventCycle() const
{
    return m_nextEvent.isNever() ? kNever : m_nextEvent.ceilCycle();
}

bool DmaSystem::idle() const
{
    return m_messages.empty() &&
           std::all_of(m_busy.begin(), m_busy.end(), [](std::uint64_t w) { return w == 0; });
}

std::int64_t DmaSystem::pendingWriterOf(ChipId chip, std::uint32_t flag) const
{
    const auto& writers =
        m_pendingWriters[std::size_t{chip.value} * static_cast<std::size_t>(m_config.syncFlags) + flag];
    return writers.empty() ? -1 : static_cast<std::int64_t>(writers.front());
}

std::int64_t DmaSystem::lastWriterOf(ChipId chip, std::uint32_t flag) const
{
    return m_lastWriter[chip.value][flag];
}

} // namespace xps::sim

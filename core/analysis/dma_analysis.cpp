#include "analysis/dma_analysis.h"

#include "isa/topology.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace xps::analysis {
namespace {

using events::DmaRecord;
using isa::Space;

struct Range
{
    ChipId chip;
    int space;
    std::uint64_t begin, end;
    bool overlaps(const Range& o) const
    {
        return chip == o.chip && space == o.space && begin < o.end && o.begin < end;
    }
};
Range sourceOf(const DmaRecord& d)
{
    return {d.chip, d.srcSpace, d.srcAddress, d.srcAddress + events::dmaSourceBytes(d)};
}
Range destinationOf(const DmaRecord& d)
{
    return {d.dstChip, d.dstSpace, d.dstAddress, d.dstAddress + events::dmaDestinationBytes(d)};
}

bool dependent(const DmaRecord& a, const DmaRecord& b)
{
    return destinationOf(a).overlaps(sourceOf(b)) || destinationOf(a).overlaps(destinationOf(b)) ||
           sourceOf(a).overlaps(destinationOf(b));
}

// Per chip, the last cycle (+1; 0 = never) each VMEM granule was written and accessed, advanced in time
// order: the data-flow bound of a DMA's issue.
class VmemLastTouch
{
public:
    VmemLastTouch(std::uint64_t vmemBytes, std::size_t chips) : m_chips(chips)
    {
        m_granule = 512;
        while (vmemBytes / m_granule > 65536)
            m_granule *= 2;
        m_granules = static_cast<std::size_t>((vmemBytes + m_granule - 1) / m_granule);
    }
    void touch(const events::VmemAccess& a)
    {
        auto& c = chip(a.chip.value);
        const auto [g0, g1] = granules(a.address, a.bytes);
        for (std::size_t g = g0; g < g1; ++g) {
            c.access[g] = a.cycle + 1;
            if (a.isWrite())
                c.write[g] = a.cycle + 1;
        }
    }
    std::uint64_t lastWrite(ChipId chipIndex, std::uint64_t address, std::uint64_t bytes)
    {
        return last(chipIndex, address, bytes, true);
    }
    std::uint64_t lastAccess(ChipId chipIndex, std::uint64_t address, std::uint64_t bytes)
    {
        return last(chipIndex, address, bytes, false);
    }

private:
    struct Chip
    {
        std::vector<std::uint64_t> write, access;
    };
    Chip& chip(std::size_t c)
    {
        if (m_chips[c].write.empty()) {
            m_chips[c].write.assign(m_granules, 0);
            m_chips[c].access.assign(m_granules, 0);
        }
        return m_chips[c];
    }
    std::pair<std::size_t, std::size_t> granules(std::uint64_t address, std::uint64_t bytes) const
    {
        const std::size_t g0 = std::min<std::size_t>(address / m_granule, m_granules);
        const std::size_t g1 =
            std::min<std::size_t>((address + bytes + m_granule - 1) / m_granule, m_granules);
        return {g0, g1};
    }
    std::uint64_t last(ChipId chipIndex, std::uint64_t address, std::uint64_t bytes, bool writes)
    {
        if (chipIndex.value >= m_chips.size())
            return 0;
        auto& c = chip(chipIndex.value);
        const auto& v = writes ? c.write : c.access;
        std::uint64_t best = 0;
        const auto [g0, g1] = granules(address, bytes);
        for (std::size_t g = g0; g < g1; ++g)
            best = std::max(best, v[g]);
        return best;
    }
    std::vector<Chip> m_chips;
    std::uint64_t m_granule;
    std::size_t m_granules;
};

void computeEarliestIssue(const ReplayView& replay, std::vector<DmaFacts>& dmas)
{
    CancelPoint cancel = replay.cancelPoint();
    std::vector<std::size_t> byIssue(dmas.size());
    for (std::size_t i = 0; i < dmas.size(); ++i)
        byIssue[i] = i;
    const auto issueOrder = [&](std::size_t a, std::size_t b) {
        return dmas[a].record.issue < dmas[b].record.issue;
    };
    if (!std::is_sorted(byIssue.begin(), byIssue.end(), issueOrder)) // the GRM's ids are in issue order
        std::stable_sort(byIssue.begin(), byIssue.end(), cancel.polling(issueOrder));
    VmemLastTouch vmem(static_cast<std::uint64_t>(replay.trace.machine.vmemBytes), replay.trace.chips.size());
    const events::VmemSnapshot accesses = replay.store.vmemAccesses();
    std::size_t nextAccess = 0;
    // HBM and SMEM are written only by DMAs: per 4 KiB page, the last cycle a finished DMA wrote it and
    // accessed it, applied in end order as the issue cycles advance.
    // (end, place in issue order) pairs, sorted by value: a stable sort by end, without reading a DMA's
    // record at every comparison (a cache miss each: sorting indices through the records was a quarter
    // of the DMA analysis at 3 M stress bundles).
    std::vector<std::pair<std::uint64_t, std::size_t>> byEnd(byIssue.size());
    for (std::size_t k = 0; k < byIssue.size(); ++k)
        byEnd[k] = {dmas[byIssue[k]].record.end, k};
    std::sort(byEnd.begin(), byEnd.end(), cancel.polling(std::less<>()));
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> pages; // -> (write, access)
    constexpr std::uint64_t kPage = 4096;
    const auto pageKey = [](ChipId chip, int space, std::uint64_t page) {
        return (static_cast<std::uint64_t>(chip.value) << 48) ^ (static_cast<std::uint64_t>(space) << 44) ^
               page;
    };
    const auto forPages = [&](ChipId chip, int space, std::uint64_t address, std::uint64_t bytes, auto&& fn) {
        if (space == static_cast<int>(Space::Vmem) || bytes == 0)
            return;
        for (std::uint64_t p = address / kPage; p <= (address + bytes - 1) / kPage; ++p) {
            cancel();
            fn(pages[pageKey(chip, space, p)]);
        }
    };
    std::size_t nextEnd = 0;
    for (std::size_t k = 0; k < byIssue.size(); ++k) {
        cancel();
        DmaFacts& f = dmas[byIssue[k]];
        const DmaRecord& d = f.record;
        for (; nextAccess < accesses.size(); ++nextAccess) {
            cancel();
            const events::VmemAccess a = accesses[nextAccess];
            if (a.cycle >= d.issue)
                break;
            vmem.touch(a);
        }
        std::uint64_t earliest = 0;
        if (d.srcSpace == static_cast<int>(Space::Vmem))
            earliest = std::max(earliest, vmem.lastWrite(d.chip, d.srcAddress, events::dmaSourceBytes(d)));
        if (d.dstSpace == static_cast<int>(Space::Vmem))
            earliest =
                std::max(earliest, vmem.lastAccess(d.dstChip, d.dstAddress, events::dmaDestinationBytes(d)));
        for (; nextEnd < byEnd.size() && byEnd[nextEnd].first <= d.issue; ++nextEnd) {
            const DmaRecord& e = dmas[byIssue[byEnd[nextEnd].second]].record;
            forPages(e.dstChip, e.dstSpace, e.dstAddress, events::dmaDestinationBytes(e),
                     [&](auto& t) { t.first = t.second = e.end; });
            forPages(e.chip, e.srcSpace, e.srcAddress, events::dmaSourceBytes(e),
                     [&](auto& t) { t.second = std::max(t.second, e.end); });
        }
        forPages(d.chip, d.srcSpace, d.srcAddress, events::dmaSourceBytes(d),
                 [&](auto& t) { earliest = std::max(earliest, t.first); });
        forPages(d.dstChip, d.dstSpace, d.dstAddress, events::dmaDestinationBytes(d),
                 [&](auto& t) { earliest = std::max(earliest, t.second); });
        f.earliestIssue = std::min(earliest, d.issue);
        f.lateCycles = d.issue - f.earliestIssue;
    }
}

} // namespace

const DmaFacts* DmaAnalysis::find(std::uint32_t id) const
{
    // The GRM hands out ids 0, 1, 2, ... in issue order: usually the id is the index.
    if (id < dmas.size() && dmas[id].record.id == id)
        return &dmas[id];
    const auto it = std::lower_bound(dmas.begin(), dmas.end(), id,
                                     [](const DmaFacts& f, std::uint32_t v) { return f.record.id < v; });
    return it != dmas.end() && it->record.id == id ? &*it : nullptr;
}

DmaAnalysis analyzeDmas(const ReplayView& replay)
{
    DmaAnalysis out = collectDmas(replay);
    finishDmaAnalysis(replay, out);
    return out;
}

DmaAnalysis collectDmas(const ReplayView& replay)
{
    DmaAnalysis out;
    CancelPoint cancel = replay.cancelPoint();
    out.dmas = replay.store.dmasById<DmaFacts>(
        [&](const DmaRecord& d) {
            cancel();
            return DmaFacts{d};
        },
        cancel.polling([](const DmaFacts& a, const DmaFacts& b) { return a.record.id < b.record.id; }));
    return out;
}

void finishDmaAnalysis(const ReplayView& replay, DmaAnalysis& out)
{
    const isa::MachineConfig& m = replay.trace.machine;
    const std::size_t chips = replay.trace.chips.size();
    const std::uint64_t total = std::max<std::uint64_t>(replay.totalCycles, 1);
    CancelPoint cancel = replay.cancelPoint();

    // Exposed time and slack, from the waits.
    // In the store's order: chip by chip, each chip's as they ended, so each chip's list below is in end
    // order. The store keeps a wait as a slice and a row; it is put together once here, and the lists
    // point into this copy. The searches below look at cycles only, kept contiguous beside the lists (a
    // binary search that followed a pointer to a record at every step missed the cache at every step: a
    // third of this function at 3 M stress bundles).
    const std::vector<events::SyncWaitRecord> waits = replay.store.syncWaits();
    std::map<std::pair<ChipId, std::uint32_t>, std::vector<std::uint64_t>> waitStartsByFlag;
    std::vector<std::vector<const events::SyncWaitRecord*>> waitsByChip(chips);
    for (const events::SyncWaitRecord& w : waits) {
        cancel();
        waitStartsByFlag[{w.chip, w.flag}].push_back(w.start);
        if (w.chip.value < chips)
            waitsByChip[w.chip.value].push_back(&w);
        if (w.satisfiedBy < 0)
            continue;
        // find(): the id is the index for the GRM's DMAs (a search otherwise).
        if (const DmaFacts* found = out.find(static_cast<std::uint32_t>(w.satisfiedBy))) {
            out.dmas[static_cast<std::size_t>(found - out.dmas.data())].exposedCycles += w.end - w.start;
            out.exposedCycles += w.end - w.start;
        }
    }
    for (auto& [key, starts] : waitStartsByFlag)
        if (!std::is_sorted(starts.begin(), starts.end()))
            std::sort(starts.begin(), starts.end(), cancel.polling(std::less<>()));
    std::vector<std::vector<std::uint64_t>> waitEndsByChip(chips); // beside waitsByChip, row for row
    for (std::size_t c = 0; c < chips; ++c) {
        auto& list = waitsByChip[c];
        const auto byEnd = [](const auto* a, const auto* b) { return a->end < b->end; };
        if (!std::is_sorted(list.begin(), list.end(), byEnd))
            std::stable_sort(list.begin(), list.end(), cancel.polling(byEnd));
        waitEndsByChip[c].reserve(list.size());
        for (const events::SyncWaitRecord* w : list)
            waitEndsByChip[c].push_back(w->end);
    }
    for (DmaFacts& f : out.dmas) {
        cancel();
        const auto it = waitStartsByFlag.find({f.record.dstChip, f.record.flag});
        if (it == waitStartsByFlag.end())
            continue;
        const std::vector<std::uint64_t>& starts = it->second;
        const auto next = std::lower_bound(starts.begin(), starts.end(), f.record.end);
        if (next != starts.end())
            f.slackCycles = static_cast<std::int64_t>(*next - f.record.end);
        else if (f.exposedCycles > 0)
            f.slackCycles = 0;
    }

    // Engines: occupancy, queueing, setup efficiency.
    const double peakPerCycle = m.bytesPerCycle(m.dmaEnginePeakGBs);
    const std::uint64_t setup = static_cast<std::uint64_t>(m.dmaSetupCycles);
    std::map<std::pair<ChipId, int>, EngineUse> engines;
    std::map<std::pair<ChipId, int>, std::uint64_t> busyUntil;
    std::vector<const DmaFacts*> byStart;
    byStart.reserve(out.dmas.size());
    for (const DmaFacts& f : out.dmas)
        byStart.push_back(&f);
    const auto startOrder = [](const auto* a, const auto* b) { return a->record.start < b->record.start; };
    if (!std::is_sorted(byStart.begin(), byStart.end(), startOrder)) // one engine never starts two at once
        std::sort(byStart.begin(), byStart.end(), cancel.polling(startOrder));
    for (const DmaFacts* f : byStart) {
        cancel();
        const DmaRecord& d = f->record;
        EngineUse& e = engines[{d.chip, d.engine}];
        e.chip = d.chip;
        e.engine = d.engine;
        ++e.transfers;
        e.bytes += d.bytes;
        const std::uint64_t from = d.start > setup ? d.start - setup : 0;
        std::uint64_t& until = busyUntil[{d.chip, d.engine}];
        const std::uint64_t begin = std::max(from, until);
        if (d.end > begin)
            e.busyCycles += d.end - begin;
        until = std::max(until, d.end);
        const std::uint64_t hops = d.dstChip == d.chip
                                       ? 0
                                       : isa::iciRoute(m, d.chip, d.dstChip, d.longWay != 0).size() *
                                             static_cast<std::uint64_t>(m.iciLatencyCycles);
        const std::uint64_t unqueued = d.issue + setup + hops;
        e.queueDelayCycles += d.start > unqueued ? d.start - unqueued : 0;
    }
    for (auto& [key, e] : engines) {
        e.occupancy = static_cast<double>(e.busyCycles) / static_cast<double>(total);
        out.engines.push_back(e);
    }
    for (std::size_t c = 0; c < chips; ++c) {
        EngineBalance b;
        b.chip = chipIdAt(c);
        b.engines = static_cast<int>(m.dmaEngines);
        std::uint64_t sum = 0, busiest = 0;
        for (const EngineUse& e : out.engines) {
            if (e.chip != b.chip)
                continue;
            ++b.enginesUsed;
            sum += e.busyCycles;
            busiest = std::max(busiest, e.busyCycles);
            b.queueDelayCycles += e.queueDelayCycles;
        }
        const double mean = static_cast<double>(sum) / static_cast<double>(std::max(b.engines, 1));
        b.imbalance = mean > 0 ? static_cast<double>(busiest) / mean : 1.0;
        out.balance.push_back(b);
    }

    computeEarliestIssue(replay, out.dmas);

    // Per issuing pc: late and small transfers. An engine that prefetches descriptors runs the setups of
    // those behind its head while the head moves bytes: a transfer's share of the setup is what is left.
    const double perTransferSetup =
        static_cast<double>(setup) /
        static_cast<double>(1 + std::max<std::int64_t>(m.dmaPrefetchDescriptors, 0));
    std::map<std::pair<ChipId, std::uint32_t>, DmaPcGroup> groups;
    for (DmaFacts& f : out.dmas) {
        cancel();
        const DmaRecord& d = f.record;
        const double transfer = static_cast<double>(d.bytes) / peakPerCycle;
        f.setupEfficiency = transfer / (transfer + perTransferSetup);
        DmaPcGroup& g = groups[{d.chip, d.pc}];
        if (g.transfers == 0)
            g.engine = d.engine;
        g.chip = d.chip;
        g.pc = d.pc;
        ++g.transfers;
        g.bytes += d.bytes;
        g.exposedCycles += f.exposedCycles;
        g.lateCycles += f.lateCycles;
        g.hideableCycles += std::min(f.lateCycles, f.exposedCycles);
        if (f.setupEfficiency < 0.5) {
            ++g.smallTransfers;
            g.setupCycles += static_cast<std::uint64_t>(std::llround(perTransferSetup));
        }
    }
    for (auto& [key, g] : groups)
        out.byPc.push_back(g);
    std::stable_sort(out.byPc.begin(), out.byPc.end(), [](const auto& a, const auto& b) {
        return a.hideableCycles + a.setupCycles > b.hideableCycles + b.setupCycles;
    });

    // Serialized pairs: B issued after a wait that stalled on A, with no data dependency between them.
    for (const DmaFacts& fb : out.dmas) {
        cancel();
        const DmaRecord& b = fb.record;
        if (b.chip.value >= chips)
            continue;
        const auto& ends = waitEndsByChip[b.chip.value];
        const auto it = std::upper_bound(ends.begin(), ends.end(), b.issue);
        if (it == ends.begin())
            continue;
        const events::SyncWaitRecord& w =
            *waitsByChip[b.chip.value][static_cast<std::size_t>(it - ends.begin()) - 1];
        if (w.satisfiedBy < 0 || w.end == w.start)
            continue;
        const DmaFacts* fa = out.find(static_cast<std::uint32_t>(w.satisfiedBy));
        if (!fa || fa->record.id == b.id || b.start < fa->record.end || dependent(fa->record, b))
            continue;
        const std::uint64_t da = fa->record.end - fa->record.start, db = b.end - b.start;
        out.serialized.push_back({fa->record.id, b.id, b.chip, w.pc, std::min(da, db)});
    }

    // Concurrency and HBM bandwidth over time.
    std::vector<std::pair<std::uint64_t, int>> edges;
    edges.reserve(2 * out.dmas.size());
    for (const DmaFacts& f : out.dmas) {
        if (f.record.end <= f.record.start)
            continue;
        edges.push_back({f.record.start, +1});
        edges.push_back({f.record.end, -1});
    }
    std::sort(edges.begin(), edges.end(), cancel.polling(std::less<>()));
    int active = 0;
    std::uint64_t last = 0, activeCycles = 0;
    double weighted = 0.0;
    for (const auto& [cycle, delta] : edges) {
        if (active > 0) {
            activeCycles += cycle - last;
            weighted += static_cast<double>(active) * static_cast<double>(cycle - last);
        }
        active += delta;
        last = cycle;
        out.maxConcurrency = std::max(out.maxConcurrency, active);
    }
    out.meanConcurrency = activeCycles ? weighted / static_cast<double>(activeCycles) : 0.0;

    const std::uint64_t bins = std::min<std::uint64_t>(512, total);
    out.binCycles = (total + bins - 1) / bins;
    out.hbmBytesPerBin.assign(chips, std::vector<double>(bins, 0.0));
    const auto spread = [&](ChipId chipId, const DmaRecord& d) {
        const std::size_t chip = chipId.value;
        if (chip >= chips)
            return;
        const std::uint64_t begin = d.start, end = std::max(d.end, d.start + 1);
        const double perCycle = static_cast<double>(d.bytes) / static_cast<double>(end - begin);
        for (std::uint64_t b = begin / out.binCycles; b < bins && b * out.binCycles < end; ++b) {
            const std::uint64_t lo = std::max(begin, b * out.binCycles);
            const std::uint64_t hi = std::min(end, (b + 1) * out.binCycles);
            out.hbmBytesPerBin[chip][b] += perCycle * static_cast<double>(hi - lo);
        }
    };
    for (const DmaFacts& f : out.dmas) {
        cancel();
        if (f.record.srcSpace == static_cast<int>(Space::Hbm))
            spread(f.record.chip, f.record);
        if (f.record.dstSpace == static_cast<int>(Space::Hbm))
            spread(f.record.dstChip, f.record);
    }
}

} // namespace xps::analysis

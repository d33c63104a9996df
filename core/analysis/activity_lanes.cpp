#include "analysis/activity_lanes.h"

#include "analysis/region_levels.h"
#include "isa/isa.h"
#include "isa/topology.h"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace xps::analysis {
namespace {

using events::Cycle;

constexpr int kRegionLevels = 3; // layer > op > loop; deeper nesting shares the last lane
constexpr std::size_t kNextEventScan = 1u << 16;

// Adds `perCycle` x the overlap of [start, end) with each of `columns` equal parts of [from, from + width).
void spread(std::vector<double>& out, int categories, int category, double from, double columnWidth,
            int columns, double start, double end, double perCycle)
{
    const double windowEnd = from + columnWidth * columns;
    start = std::max(start, from);
    end = std::min(end, windowEnd);
    if (end <= start)
        return;
    int column = std::clamp(static_cast<int>((start - from) / columnWidth), 0, columns - 1);
    while (start < end && column < columns) {
        const double columnEnd = from + columnWidth * (column + 1);
        const double pieceEnd = std::min(end, columnEnd);
        out[static_cast<std::size_t>(column * categories + category)] += (pieceEnd - start) * perCycle;
        start = pieceEnd;
        ++column;
    }
}

} // namespace

std::uint64_t PcActivity::totalStall() const
{
    std::uint64_t sum = 0;
    for (std::uint64_t c : stallCycles)
        sum += c;
    return sum;
}

ActivityLanes::ActivityLanes(const trace::Trace& trace) : m_trace(trace)
{
    const bool multiChip = trace.chips.size() > 1;
    for (const trace::ChipTrace& chip : trace.chips) {
        ChipLayout l;
        const ChipId c = chip.chip;
        auto add = [&](LaneKind kind, int index, int categories, std::string name) {
            m_lanes.push_back({kind, c, index, categories, std::move(name)});
            return m_lanes.size() - 1;
        };
        l.firstRegion = m_lanes.size();
        if (!chip.symbols.regions.empty()) {
            static constexpr const char* kLevelNames[kRegionLevels] = {"regions", "regions 2", "regions 3"};
            const auto levels = regionLevelsByDepth(chip, kRegionLevels);
            for (int d = 0; d < kRegionLevels; ++d)
                add(LaneKind::Region, d, 1,
                    levels[static_cast<std::size_t>(d)].empty()
                        ? std::string(kLevelNames[d])
                        : "regions: " + levels[static_cast<std::size_t>(d)]);
            l.regionLanes = kRegionLevels;
        }
        l.stall = add(LaneKind::Stall, 0, events::kStallReasonCount, "stalls");
        l.syncWait = add(LaneKind::SyncWait, 0, 2, "sync waits");
        l.firstUnit = m_lanes.size();
        for (int g = 0; g < kUnitGroupCount; ++g)
            add(LaneKind::Unit, g, 1, std::string(unitGroupName(static_cast<UnitGroup>(g))));
        l.firstEngine = m_lanes.size();
        for (int e = 0; e < trace.machine.dmaEngines; ++e)
            add(LaneKind::DmaEngine, e, kDmaPathClassCount, "DMA " + std::to_string(e));
        l.firstLink = m_lanes.size();
        if (multiChip) {
            static constexpr const char* kDirections[isa::kLinkDirectionsPerChip] = {"+x", "-x", "+y", "-y"};
            for (int d = 0; d < isa::kLinkDirectionsPerChip; ++d)
                add(LaneKind::IciLink, c.value * isa::kLinkDirectionsPerChip + d, 1,
                    std::string("ICI ") + kDirections[d]);
            l.linkLanes = isa::kLinkDirectionsPerChip;
        }
        m_layout.push_back(l);

        auto busy = unitGroupBusyPerPc(trace, c);
        for (const auto& groups : busy)
            for (const std::uint32_t cycles : groups)
                m_maxUnitBusy = std::max(m_maxUnitBusy, cycles);
        m_unitBusy.push_back(std::move(busy));
        m_pcs.emplace_back(chip.program.bundles.size());
    }
    m_bins.resize(m_lanes.size());
}

void ActivityLanes::growTo(Cycle end)
{
    m_end = std::max(m_end, end);
    while (end > kMaxBins * m_cyclesPerBin) {
        for (Bins& lane : m_bins)
            for (std::vector<float>& bins : lane.perCategory) {
                if (bins.empty())
                    continue;
                for (std::size_t i = 0; i < kMaxBins / 2; ++i)
                    bins[i] = bins[2 * i] + bins[2 * i + 1];
                std::fill(bins.begin() + kMaxBins / 2, bins.end(), 0.0f);
            }
        m_cyclesPerBin *= 2;
    }
}

void ActivityLanes::addBusy(Bins& lane, int category, Cycle start, Cycle end, double scale)
{
    if (end <= start)
        return;
    growTo(end);
    lane.active = true;
    if (lane.perCategory.size() <= static_cast<std::size_t>(category))
        lane.perCategory.resize(static_cast<std::size_t>(category) + 1);
    std::vector<float>& bins = lane.perCategory[static_cast<std::size_t>(category)];
    if (bins.empty())
        bins.assign(kMaxBins, 0.0f);
    for (Cycle b = start / m_cyclesPerBin; b * m_cyclesPerBin < end; ++b) {
        const Cycle binStart = b * m_cyclesPerBin;
        const Cycle overlap = std::min(end, binStart + m_cyclesPerBin) - std::max(start, binStart);
        bins[b] += static_cast<float>(static_cast<double>(overlap) * scale);
    }
}

void ActivityLanes::ingest(const events::EventStore& store)
{
    ingestBundles(store.bundles());

    std::vector<events::DmaRecord> dmas;
    for (const events::TrackId track : store.dmaTracks()) {
        if (track.value >= m_dmasIngested.size())
            m_dmasIngested.resize(std::size_t{track.value} + 1, 0);
        const std::vector<events::DmaRecord> more = store.dmas(track, m_dmasIngested[track.value]);
        m_dmasIngested[track.value] += more.size();
        dmas.insert(dmas.end(), more.begin(), more.end());
    }
    // Only this thread changes the counts read here.
    std::vector<events::SyncWaitRecord> waits;
    std::vector<events::RegionInstance> regions;
    m_waitsIngested.resize(m_layout.size());
    m_regionsIngested.resize(m_layout.size());
    for (const ChipId chip : idsBelow<ChipId>(m_layout.size())) {
        const std::vector<events::SyncWaitRecord> moreWaits =
            store.syncWaits(chip, m_waitsIngested[chip.value]);
        m_waitsIngested[chip.value] += moreWaits.size();
        waits.insert(waits.end(), moreWaits.begin(), moreWaits.end());
        const std::vector<events::StoreSlice> more =
            store.slices(store.regionTrack(chip), m_regionsIngested[chip.value]);
        m_regionsIngested[chip.value] += more.size();
        for (const events::StoreSlice& s : more)
            regions.push_back({chip, s});
    }
    std::unique_lock lock(m_mutex);
    std::vector<std::size_t> firstNew(m_lanes.size());
    for (std::size_t i = 0; i < m_lanes.size(); ++i)
        firstNew[i] = m_bins[i].spans.size();

    for (const events::DmaRecord& d : dmas) {
        if (d.id >= m_dmas.size()) {
            m_dmas.resize(d.id + 1);
            m_dmaSeen.resize(d.id + 1, false);
        }
        m_dmas[d.id] = d;
        m_dmaSeen[d.id] = true;
        if (d.chip.value >= m_layout.size() || d.end <= d.start)
            continue;
        const ChipLayout& l = layout(d.chip);
        const auto pathClass = static_cast<std::uint8_t>(dmaPathClass(d));
        if (d.engine < m_trace.machine.dmaEngines)
            addSpan(l.firstEngine + d.engine, {d.start, d.end, d.issue, d.id, pathClass});
        if (d.dstChip != d.chip && l.linkLanes)
            for (int link : isa::iciRoute(m_trace.machine, d.chip, d.dstChip, d.longWay != 0)) {
                const ChipLayout& from =
                    m_layout[static_cast<std::size_t>(link / isa::kLinkDirectionsPerChip)];
                addSpan(from.firstLink + static_cast<std::size_t>(link % isa::kLinkDirectionsPerChip),
                        {d.start, d.end, d.start, d.id, 0});
            }
    }
    for (const events::SyncWaitRecord& w : waits) {
        const std::uint64_t index = m_waits.size();
        m_waits.push_back(w);
        if (w.chip.value < m_layout.size() && w.end > w.start)
            addSpan(layout(w.chip).syncWait,
                    {w.start, w.end, w.start, index, w.satisfiedBy >= 0 ? std::uint8_t{0} : std::uint8_t{1}});
    }
    for (const events::RegionInstance& r : regions) {
        const std::uint64_t index = m_regions.size();
        m_regions.push_back(r);
        if (r.slice.duration == 0)
            continue;
        if (const ChipLayout& l = layout(r.chip); l.regionLanes)
            addSpan(l.firstRegion + std::min<std::size_t>(r.slice.depth, l.regionLanes - 1),
                    {r.slice.start, r.slice.end(), r.slice.start, index, 0});
    }
    for (std::size_t i = 0; i < m_lanes.size(); ++i)
        if (m_bins[i].spans.size() > firstNew[i])
            sortNewSpans(i, firstNew[i]);
}

void ActivityLanes::addSpan(std::size_t lane, const LaneItem& item)
{
    Bins& bins = m_bins[lane];
    bins.spans.push_back(item);
    bins.maxSpan = std::max(bins.maxSpan, item.end - item.start);
    addBusy(bins, item.category, item.start, item.end);
}

void ActivityLanes::sortNewSpans(std::size_t lane, std::size_t firstNew)
{
    std::vector<LaneItem>& spans = m_bins[lane].spans;
    const auto byStart = [](const LaneItem& a, const LaneItem& b) { return a.start < b.start; };
    const auto middle = spans.begin() + static_cast<std::ptrdiff_t>(firstNew);
    std::sort(middle, spans.end(), byStart);
    std::inplace_merge(spans.begin(), middle, spans.end(), byStart);
}

void ActivityLanes::ingestBundles(const events::BundleSnapshot& bundles)
{
    // One chunk per lock hold, so readers wait at most about a millisecond.
    while (m_bundlesIngested < bundles.size()) {
        std::unique_lock lock(m_mutex);
        const std::size_t end =
            std::min(bundles.size(), (m_bundlesIngested / events::kChunkEvents + 1) * events::kChunkEvents);
        const events::BundleChunk& chunk = *bundles.chunks()[m_bundlesIngested / events::kChunkEvents];
        for (std::size_t i = m_bundlesIngested; i < end; ++i) {
            const std::size_t k = i % events::kChunkEvents;
            const std::size_t chip = chunk.chip[k].value;
            const std::uint32_t pc = chunk.pc[k];
            if (chip >= m_layout.size() || pc >= m_pcs[chip].size())
                continue;
            const Cycle cycle = chunk.cycleAt(k);
            PcActivity& activity = m_pcs[chip][pc];
            if (activity.executions++ == 0)
                activity.first = cycle;
            activity.last = cycle;
            const ChipLayout& l = m_layout[chip];
            if (chunk.stalled(k)) {
                const std::uint32_t stall = chunk.detailAt(k).stallCycles;
                activity.stallCycles[static_cast<int>(chunk.reasonAt(k))] += stall;
                addBusy(m_bins[l.stall], static_cast<int>(chunk.reasonAt(k)),
                        cycle - std::min<Cycle>(stall, cycle), cycle);
            }
            const auto& busy = m_unitBusy[chip][pc];
            for (int g = 0; g < kUnitGroupCount; ++g)
                if (busy[static_cast<std::size_t>(g)])
                    addBusy(m_bins[l.firstUnit + static_cast<std::size_t>(g)], 0, cycle,
                            cycle + busy[static_cast<std::size_t>(g)]);
            growTo(cycle + 1);
        }
        m_bundlesIngested = end;
        m_bundles = bundles;
    }
}

bool ActivityLanes::hasActivity(std::size_t lane) const
{
    std::shared_lock lock(m_mutex);
    return lane < m_bins.size() && m_bins[lane].active;
}

Cycle ActivityLanes::endCycle() const
{
    std::shared_lock lock(m_mutex);
    return m_end;
}

std::uint64_t ActivityLanes::bundlesSeen() const
{
    std::shared_lock lock(m_mutex);
    return m_bundlesIngested;
}

Cycle ActivityLanes::cyclesPerBin() const
{
    std::shared_lock lock(m_mutex);
    return m_cyclesPerBin;
}

std::size_t ActivityLanes::residentBytes() const
{
    std::shared_lock lock(m_mutex);
    const auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    std::size_t total = bytes(m_lanes) + bytes(m_bins) + bytes(m_dmas) + m_dmaSeen.capacity() / 8 +
                        bytes(m_waits) + bytes(m_regions) + bytes(m_pcs) + bytes(m_unitBusy);
    for (const Bins& b : m_bins) {
        total += bytes(b.perCategory) + bytes(b.spans);
        for (const std::vector<float>& c : b.perCategory)
            total += bytes(c);
    }
    for (const auto& chip : m_pcs)
        total += bytes(chip);
    for (const auto& chip : m_unitBusy)
        total += bytes(chip);
    return total;
}

std::size_t ActivityLanes::countBundlesIn(Cycle from, Cycle to) const
{
    const auto [first, last] = m_bundles.cycleRange(from, to);
    return last - first;
}

namespace {
// Calls fn(LaneItem) for the bundle-derived items of a unit or stall lane that overlap [from, to).
template <typename Fn>
void forEachBundleItem(const events::BundleSnapshot& bundles, const LaneInfo& lane, std::uint32_t maxUnitBusy,
                       const std::vector<std::array<std::uint32_t, kUnitGroupCount>>& unitBusy, Cycle from,
                       Cycle to, Fn&& fn)
{
    const bool stalls = lane.kind == LaneKind::Stall;
    const Cycle back = stalls ? 0 : maxUnitBusy;
    auto [first, last] = bundles.cycleRange(from > back ? from - back : 0, to);
    auto visit = [&](std::size_t i) -> bool { // true: the item was this chip's
        const events::BundleIssue e = bundles[i];
        if (e.chip != lane.chip)
            return false;
        LaneItem item;
        item.ref = i;
        if (stalls) {
            if (e.stallCycles == 0)
                return true;
            item.start = e.cycle - std::min<Cycle>(e.stallCycles, e.cycle);
            item.end = e.cycle;
            item.category = static_cast<std::uint8_t>(e.reason);
        } else {
            const std::uint32_t busy =
                e.pc < unitBusy.size() ? unitBusy[e.pc][static_cast<std::size_t>(lane.index)] : 0;
            if (busy == 0)
                return true;
            item.start = e.cycle;
            item.end = e.cycle + busy;
        }
        item.queued = item.start;
        if (item.end > from && item.start < to)
            fn(item);
        return true;
    };
    for (std::size_t i = first; i < last; ++i)
        visit(i);
    // A stall that ends after the window may cover it: the chip's next bundle says.
    if (stalls)
        for (std::size_t i = last; i < bundles.size() && i < last + kNextEventScan; ++i)
            if (visit(i))
                break;
}
} // namespace

void ActivityLanes::columnTotals(std::size_t lane, Cycle from, Cycle to, int columns,
                                 std::vector<double>& out, std::size_t exactLimit) const
{
    std::shared_lock lock(m_mutex);
    const LaneInfo& info = m_lanes[lane];
    out.assign(static_cast<std::size_t>(columns * info.categories), 0.0);
    if (to <= from || columns <= 0)
        return;
    const double width = static_cast<double>(to - from) / columns;
    const double origin = static_cast<double>(from);
    const Bins& bins = m_bins[lane];
    const bool fromBundles = info.kind == LaneKind::Unit || info.kind == LaneKind::Stall;
    std::size_t items = 0;
    if (fromBundles) {
        items = countBundlesIn(from, to);
    } else {
        const auto lo = std::lower_bound(bins.spans.begin(), bins.spans.end(),
                                         from > bins.maxSpan ? from - bins.maxSpan : 0,
                                         [](const LaneItem& a, Cycle c) { return a.start < c; });
        const auto hi = std::lower_bound(lo, bins.spans.end(), to,
                                         [](const LaneItem& a, Cycle c) { return a.start < c; });
        items = static_cast<std::size_t>(hi - lo);
    }
    // The bins answer as well as the events once several of them fall in each column (a column then
    // misses at most a fraction of a bin at each edge), and far faster for record lanes with many spans.
    const double binsPerColumn = width / static_cast<double>(m_cyclesPerBin);
    if (items <= exactLimit && binsPerColumn < kBinsPerColumnForLevelOfDetail) {
        auto add = [&](const LaneItem& item) {
            spread(out, info.categories, item.category, origin, width, columns,
                   static_cast<double>(item.start), static_cast<double>(item.end), 1.0);
        };
        if (fromBundles)
            forEachBundleItem(m_bundles, info, m_maxUnitBusy, m_unitBusy[info.chip.value], from, to, add);
        else
            for (const LaneItem& item : spanItems(lane, from, to, exactLimit, nullptr))
                add(item);
        return;
    }
    const double binWidth = static_cast<double>(m_cyclesPerBin);
    const Cycle firstBin = from / m_cyclesPerBin;
    const Cycle lastBin = std::min<Cycle>(kMaxBins, (to + m_cyclesPerBin - 1) / m_cyclesPerBin);
    const double windowEnd = origin + width * columns;
    for (std::size_t c = 0; c < bins.perCategory.size(); ++c) {
        const std::vector<float>& v = bins.perCategory[c];
        if (v.empty())
            continue;
        // Bins and columns walked in step (this is the whole-run redraw's inner loop: no division per bin).
        int column = 0;
        double columnEnd = origin + width;
        for (Cycle b = firstBin; b < lastBin; ++b) {
            if (v[b] == 0.0f)
                continue;
            double start = std::max(static_cast<double>(b) * binWidth, origin);
            const double end = std::min(static_cast<double>(b + 1) * binWidth, windowEnd);
            const double perCycle = static_cast<double>(v[b]) / binWidth;
            while (start >= columnEnd && column < columns - 1) {
                ++column;
                columnEnd = origin + width * (column + 1);
            }
            while (start < end) {
                const double pieceEnd = std::min(end, columnEnd);
                out[static_cast<std::size_t>(column * info.categories) + c] += (pieceEnd - start) * perCycle;
                start = pieceEnd;
                if (start >= columnEnd) {
                    if (column == columns - 1)
                        break;
                    ++column;
                    columnEnd = origin + width * (column + 1);
                }
            }
        }
    }
}

std::vector<LaneItem> ActivityLanes::spanItems(std::size_t lane, Cycle from, Cycle to, std::size_t limit,
                                               bool* truncated) const
{
    const Bins& bins = m_bins[lane];
    std::vector<LaneItem> items;
    auto it =
        std::lower_bound(bins.spans.begin(), bins.spans.end(), from > bins.maxSpan ? from - bins.maxSpan : 0,
                         [](const LaneItem& a, Cycle c) { return a.start < c; });
    for (; it != bins.spans.end() && it->start < to; ++it) {
        if (it->end <= from)
            continue;
        if (items.size() >= limit) {
            if (truncated)
                *truncated = true;
            break;
        }
        items.push_back(*it);
    }
    return items;
}

std::vector<LaneItem> ActivityLanes::bundleItems(std::size_t lane, Cycle from, Cycle to, std::size_t limit,
                                                 bool* truncated) const
{
    std::vector<LaneItem> items;
    const LaneInfo& info = m_lanes[lane];
    forEachBundleItem(m_bundles, info, m_maxUnitBusy, m_unitBusy[info.chip.value], from, to,
                      [&](const LaneItem& item) {
                          if (items.size() < limit)
                              items.push_back(item);
                          else if (truncated)
                              *truncated = true;
                      });
    return items;
}

std::vector<LaneItem> ActivityLanes::itemsIn(std::size_t lane, Cycle from, Cycle to, std::size_t limit,
                                             bool* truncated) const
{
    std::shared_lock lock(m_mutex);
    if (truncated)
        *truncated = false;
    if (lane >= m_lanes.size() || to <= from)
        return {};
    const LaneKind kind = m_lanes[lane].kind;
    if (kind == LaneKind::Unit || kind == LaneKind::Stall)
        return bundleItems(lane, from, to, limit, truncated);
    return spanItems(lane, from, to, limit, truncated);
}

bool ActivityLanes::itemAt(std::size_t lane, Cycle cycle, Cycle tolerance, LaneItem& item) const
{
    const std::vector<LaneItem> items =
        itemsIn(lane, cycle > tolerance ? cycle - tolerance : 0, cycle + tolerance + 1, 4096);
    Cycle best = ~Cycle{0};
    for (const LaneItem& candidate : items) {
        const Cycle distance = cycle < candidate.start  ? candidate.start - cycle
                               : cycle >= candidate.end ? cycle - candidate.end + 1
                                                        : 0;
        // The item under the cursor, else the nearest; of overlapping ones (DMAs on one engine may overlap
        // while queued), the shortest.
        if (distance < best ||
            (distance == best && candidate.end - candidate.start < item.end - item.start)) {
            best = distance;
            item = candidate;
        }
    }
    return best != ~Cycle{0};
}

PcActivity ActivityLanes::pcActivity(ChipId chip, std::uint32_t pc) const
{
    std::shared_lock lock(m_mutex);
    const auto& pcs = m_pcs[chip.value];
    return pc < pcs.size() ? pcs[pc] : PcActivity{};
}

std::vector<PcActivity> ActivityLanes::pcActivities(ChipId chip) const
{
    std::shared_lock lock(m_mutex);
    return m_pcs[chip.value];
}

bool ActivityLanes::dma(std::uint32_t id, events::DmaRecord& out) const
{
    std::shared_lock lock(m_mutex);
    if (id >= m_dmas.size() || !m_dmaSeen[id])
        return false;
    out = m_dmas[id];
    return true;
}

bool ActivityLanes::syncWait(std::uint64_t index, events::SyncWaitRecord& out) const
{
    std::shared_lock lock(m_mutex);
    if (index >= m_waits.size())
        return false;
    out = m_waits[index];
    return true;
}

bool ActivityLanes::region(std::uint64_t index, events::RegionInstance& out) const
{
    std::shared_lock lock(m_mutex);
    if (index >= m_regions.size())
        return false;
    out = m_regions[index];
    return true;
}

events::BundleSnapshot ActivityLanes::bundles() const
{
    std::shared_lock lock(m_mutex);
    return m_bundles;
}

std::uint32_t ActivityLanes::unitBusy(ChipId chip, std::uint32_t pc, UnitGroup group) const
{
    const auto& busy = m_unitBusy[chip.value];
    return pc < busy.size() ? busy[pc][static_cast<std::size_t>(group)] : 0;
}

} // namespace xps::analysis

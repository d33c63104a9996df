#pragma once
// What the timeline and the disassembly read while a replay runs: per chip, one lane per kind of activity
// (region levels, stalls by reason, sync waits, functional-unit groups, DMA engines, ICI link directions),
// each with busy cycles binned over time in a fixed number of bins, plus per-pc execution counts.
//
// Why bins: a 10M-bundle replay cannot be drawn event by event at 60 Hz. A frame asks for one value per
// pixel column; when the visible window holds few enough events the columns are computed exactly from the
// events, otherwise from the bins (a bin is never wider than the window divided by kMaxBins). Bins merge
// pairwise when the replay outgrows them, so memory stays bounded however long the replay is.
//
// Threads: one writer calls ingest() (the replay's worker, between bundles); any number of readers call
// the const functions. ingest() holds the write lock for one chunk of events at a time (about a
// millisecond), so a reader never waits long.

#include "analysis/activity_classes.h"
#include "events/event_store.h"
#include "isa/isa.h"
#include "trace/trace.h"

#include <array>
#include <cstdint>
#include <shared_mutex>
#include <string>
#include <vector>

namespace xps::analysis {

enum class LaneKind : std::uint8_t { Region, Stall, SyncWait, Unit, DmaEngine, IciLink };

struct LaneInfo
{
    LaneKind kind = LaneKind::Unit;
    ChipId chip = ChipId(0);
    int index = 0;      // Region: depth; Unit: UnitGroup; DmaEngine: engine; IciLink: link direction id
    int categories = 1; // Stall: per reason; DmaEngine: per DmaPathClass; SyncWait: by DMA / by signal
    std::string name;   // "MXU", "DMA 2", "+x link", "layer" ...
};

// One thing drawn in a lane: a bundle's use of a unit, a stall, a wait, a DMA, a region instance.
struct LaneItem
{
    events::Cycle start = 0;
    events::Cycle end = 0;    // exclusive; > start
    events::Cycle queued = 0; // DMA lanes: dma.start issue (<= start); otherwise == start
    std::uint64_t ref = 0;    // bundle: global event index; DMA: id; wait: index; region: record index
    std::uint8_t category = 0;
};

// Per pc of a chip, updated as the replay goes.
struct PcActivity
{
    std::uint64_t executions = 0;
    events::Cycle first = 0; // issue cycle of the first and last execution; valid when executions > 0
    events::Cycle last = 0;
    std::uint64_t stallCycles[events::kStallReasonCount] = {};
    std::uint64_t totalStall() const;
};

class ActivityLanes
{
public:
    static constexpr std::size_t kMaxBins = 1u << 15;
    // columnTotals reads the bins instead of the events once this many bins fall in one column.
    static constexpr double kBinsPerColumnForLevelOfDetail = 4.0;

    explicit ActivityLanes(const trace::Trace& trace);

    // Writer: reads whatever `store` published since the last call.
    void ingest(const events::EventStore& store);

    // Readers.
    const std::vector<LaneInfo>& lanes() const { return m_lanes; } // fixed at construction
    bool hasActivity(std::size_t lane) const;
    events::Cycle endCycle() const; // the latest cycle seen in any lane
    std::uint64_t bundlesSeen() const;
    events::Cycle cyclesPerBin() const; // grows (doubling) as the replay does
    // Heap bytes the lanes hold (bins, spans, per-pc counts, copied records), not counting the store's
    // events they read.
    std::size_t residentBytes() const;

    // Busy cycles per category in `columns` equal parts of [from, to): out[column * categories + category].
    // Exact (from the events) when the window holds at most `exactLimit` items and the bins are coarser than
    // kBinsPerColumnForLevelOfDetail per column, else from the bins.
    void columnTotals(std::size_t lane, events::Cycle from, events::Cycle to, int columns,
                      std::vector<double>& out, std::size_t exactLimit = 200000) const;
    // Items overlapping [from, to), at most `limit` (the rest are dropped; `truncated` says so).
    std::vector<LaneItem> itemsIn(std::size_t lane, events::Cycle from, events::Cycle to, std::size_t limit,
                                  bool* truncated = nullptr) const;
    // The item under `cycle`, or the nearest within `tolerance` cycles; false if none.
    bool itemAt(std::size_t lane, events::Cycle cycle, events::Cycle tolerance, LaneItem& item) const;

    PcActivity pcActivity(ChipId chip, std::uint32_t pc) const;
    std::vector<PcActivity> pcActivities(ChipId chip) const;
    // Records by id or index, as ingested (copies: the writer may grow the vectors).
    bool dma(std::uint32_t id, events::DmaRecord& out) const;
    bool syncWait(std::uint64_t index, events::SyncWaitRecord& out) const;
    bool region(std::uint64_t index, events::RegionInstance& out) const;
    events::BundleSnapshot bundles() const; // the events the lanes were last built from
    // Cycles `pc` of `chip` keeps `group` busy (0: not at all).
    std::uint32_t unitBusy(ChipId chip, std::uint32_t pc, UnitGroup group) const;

private:
    struct Bins
    {
        std::vector<std::vector<float>> perCategory; // allocated on first use
        std::vector<LaneItem> spans;                 // record lanes only, sorted by start
        events::Cycle maxSpan = 0;
        bool active = false;
    };
    struct ChipLayout
    {
        std::size_t firstRegion = 0, regionLanes = 0, stall = 0, syncWait = 0, firstUnit = 0, firstEngine = 0,
                    firstLink = 0, linkLanes = 0;
    };

    void addBusy(Bins& bins, int category, events::Cycle start, events::Cycle end, double scale = 1.0);
    void growTo(events::Cycle end);
    void ingestBundles(const events::BundleSnapshot& bundles);
    void addSpan(std::size_t lane, const LaneItem& item);
    void sortNewSpans(std::size_t lane, std::size_t firstNew);
    std::size_t countBundlesIn(events::Cycle from, events::Cycle to) const;
    void exactColumnsFromBundles(std::size_t lane, events::Cycle from, events::Cycle to, int columns,
                                 std::vector<double>& out) const;
    std::vector<LaneItem> bundleItems(std::size_t lane, events::Cycle from, events::Cycle to,
                                      std::size_t limit, bool* truncated) const;
    std::vector<LaneItem> spanItems(std::size_t lane, events::Cycle from, events::Cycle to, std::size_t limit,
                                    bool* truncated) const;
    const ChipLayout& layout(ChipId chip) const { return m_layout[chip.value]; }

    const trace::Trace& m_trace;
    std::vector<LaneInfo> m_lanes;
    std::vector<ChipLayout> m_layout;
    // [chip][pc]: busy cycles of each unit group (0: unused), the widest of them.
    std::vector<std::vector<std::array<std::uint32_t, kUnitGroupCount>>> m_unitBusy;
    std::uint32_t m_maxUnitBusy = 1;

    mutable std::shared_mutex m_mutex; // guards everything below
    std::vector<Bins> m_bins;          // per lane
    events::Cycle m_cyclesPerBin = 4;
    events::Cycle m_end = 0;
    events::BundleSnapshot m_bundles;
    std::size_t m_bundlesIngested = 0;
    std::vector<std::vector<PcActivity>> m_pcs; // [chip][pc]
    std::vector<events::DmaRecord> m_dmas;      // by id (ids are dense)
    std::vector<bool> m_dmaSeen;
    std::vector<std::size_t> m_dmasIngested; // per store track (by TrackId): its DMAs read so far
    std::vector<events::SyncWaitRecord> m_waits;
    std::vector<std::size_t> m_waitsIngested;      // per chip: its sync waits read so far
    std::vector<events::RegionInstance> m_regions; // in the order ingested
    std::vector<std::size_t> m_regionsIngested;    // per chip: slices of its region track read so far
};

} // namespace xps::analysis

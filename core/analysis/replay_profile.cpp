#include "analysis/replay_profile.h"
#include "util/release_memory.h"

#include "analysis/activity_lanes.h"
#include "analysis/replay_critical_path.h"
#include "analysis/replay_flows.h"
#include "analysis/replay_unit_runs.h"
#include "isa/isa.h"
#include "profile/profile_builder.h"
#include "util/cancel.h"
#include "util/text.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>

namespace xps::analysis {

using profile::Profile;
using profile::SliceClass;
using profile::SliceId;
using profile::Ticks;
using profile::TrackId;
using profile::TrackKind;

namespace {

// Writes a finished replay into a profile through the one builder every importer uses,
// assembled from what the store keeps: its region, DMA and wait slices copied onto a chip's threads, the
// units' runs derived from its bundle columns (analysis/replay_unit_runs.h), and the flows between them
// (analysis/replay_flows.h). Tracks are made by key, slices by SliceId, flows between SliceIds, bound by
// the builder when it finishes.
class ReplayWriter
{
public:
    ReplayWriter(const ReplayView& replay, const std::string& source, std::stop_token stop)
        : m_replay(replay), m_builder(m_p, 0, [](profile::ProfileBuilder::Limit) {}),
          m_flows(replay.trace.chips.size()), m_stop(stop), m_cancel(std::move(stop))
    {
        m_p.source = source;
        m_p.format = std::string(profile::kReplayFormat);
        m_p.timebase = profile::Timebase::cyclesAt(replay.trace.machine.clockMhz);
        m_p.metadata.emplace_back("trace", replay.trace.name);
        m_p.metadata.emplace_back("clock", text::formatDouble(replay.trace.machine.clockMhz) + " MHz");
        m_p.metadata.emplace_back("cycles", std::to_string(replay.totalCycles));
    }

    Profile write(const CriticalPath& path)
    {
        const std::size_t chips = m_replay.trace.chips.size();
        m_threads.assign(chips * static_cast<std::size_t>(waitTid() + 1), TrackId());
        // Each step polls in its loops; between steps, the token itself.
        for (void (ReplayWriter::*step)() : {&ReplayWriter::addUnitRuns, &ReplayWriter::addRegions,
                                             &ReplayWriter::addDmas, &ReplayWriter::addSyncWaits}) {
            throwIfStopped(m_stop);
            (this->*step)();
        }
        throwIfStopped(m_stop);
        m_flows.link(m_builder, m_flowTypes, m_cancel);
        throwIfStopped(m_stop);
        m_builder.finish(m_stop);
        m_p.exactCriticalPath = criticalPathInProfile(m_p, path, m_stop);
        return std::move(m_p);
    }

private:
    // The profile counts in the replay's own cycles (its timebase says what one is): no rounding on the way
    // in, a one-cycle run is one tick long however fast the clock.
    static Ticks ticks(events::Cycle c) { return static_cast<Ticks>(c); }

    // Threads by tid, in the order a kernel author reads a chip: regions, the units, the DMA engines, the
    // waits.
    static constexpr std::int64_t kRegionsTid = replay_tid::kRegions, kFirstUnitTid = replay_tid::kFirstUnit,
                                  kFirstEngineTid = replay_tid::kFirstEngine;
    static_assert(kFirstUnitTid + static_cast<std::int64_t>(kProfiledUnits.size()) <= replay_tid::kBundles);
    static_assert(kProfiledUnits.size() <= 32, "ReplayFlows keeps a wait's linked units a bit each");
    std::int64_t waitTid() const { return kFirstEngineTid + m_replay.trace.machine.dmaEngines; }
    std::string threadName(std::int64_t tid) const
    {
        // The store's names for the rows it has.
        if (tid == kRegionsTid)
            return events::rowName({ChipId(0), events::RowKind::Regions});
        if (tid < kFirstEngineTid)
            return std::string(unitGroupName(kProfiledUnits[static_cast<std::size_t>(tid - kFirstUnitTid)]));
        if (tid < waitTid())
            return events::rowName(
                {ChipId(0), events::RowKind::DmaEngine, static_cast<std::uint8_t>(tid - kFirstEngineTid)});
        return events::rowName({ChipId(0), events::RowKind::SyncWaits});
    }

    // The thread `tid` of `chip`, made when it gets its first slice: a unit or engine the program never used
    // has no empty row. The builder keys tracks by name; the ids are cached here, as a unit's thread is
    // asked for once per run.
    TrackId thread(std::size_t chip, std::int64_t tid)
    {
        const TrackId id =
            m_threads[chip * static_cast<std::size_t>(waitTid() + 1) + static_cast<std::size_t>(tid)];
        return id.valid() ? id : makeThread(chip, tid);
    }
    TrackId makeThread(std::size_t chip, std::int64_t tid)
    {
        TrackId& id =
            m_threads[chip * static_cast<std::size_t>(waitTid() + 1) + static_cast<std::size_t>(tid)];
        const std::string chipKey = std::to_string(chip);
        id = m_builder.trackFor(TrackKind::Thread, chipKey + "/" + std::to_string(tid), [&] {
            const TrackId process = m_builder.trackFor(TrackKind::Process, chipKey, [&] {
                profile::Track p;
                p.kind = TrackKind::Process;
                p.device = true;
                p.pid = static_cast<std::int64_t>(chip);
                p.sortIndex = p.pid;
                p.name = "chip " + chipKey;
                return p;
            });
            profile::Track t;
            t.kind = TrackKind::Thread;
            t.device = true;
            t.parent = process;
            t.pid = static_cast<std::int64_t>(chip);
            t.tid = tid;
            t.sortIndex = tid;
            t.name = threadName(tid);
            return t;
        });
        return id;
    }

    SliceId addSlice(TrackId track, events::Cycle start, events::Cycle end, std::uint32_t type,
                     std::uint32_t args = 0, std::uint32_t link = 0)
    {
        return m_builder.addSlice(track, ticks(start), end > start ? ticks(end) - ticks(start) : 0, type,
                                  args, link);
    }

    // Each unit's runs, one slice each, with the pc that began it.
    void addUnitRuns()
    {
        std::vector<ChipUnitRuns> runs = unitRunsOf(m_replay, m_cancel);
        // Everything sized once: growing vectors of millions by doubling copies them and touches twice the
        // pages, and on a VM handing out fresh pages is what takes the time.
        std::size_t runCount = 0;
        for (std::size_t c = 0; c < runs.size(); ++c) {
            std::size_t chipRuns = 0;
            for (const auto& unit : runs[c])
                chipRuns += unit.size();
            m_flows.reserveRuns(c, chipRuns);
            runCount += chipRuns;
        }
        const std::size_t dmas = m_replay.store.dmaCount(), waits = m_replay.store.syncWaitCount();
        m_builder.reserve(runCount + m_replay.store.regionCount() + dmas + waits,
                          runCount + 4 * dmas + 2 * waits, runCount + dmas + 3 * waits);
        std::array<std::uint32_t, kProfiledUnits.size()> types{};
        for (std::size_t u = 0; u < kProfiledUnits.size(); ++u)
            types[u] = m_p.typeOf(unitGroupName(kProfiledUnits[u]), "unit", SliceClass::Kernel);
        const std::uint32_t pcKey = m_p.intern("first pc");
        for (std::size_t c = 0; c < runs.size(); ++c) {
            for (std::size_t u = 0; u < kProfiledUnits.size(); ++u) {
                for (const UnitRun& r : runs[c][u]) {
                    m_cancel();
                    const SliceId id = addSlice(thread(c, kFirstUnitTid + static_cast<std::int64_t>(u)),
                                                r.start, r.end, types[u]);
                    m_flows.addComputeRun(c, m_builder.slice(id), id, static_cast<std::uint8_t>(u));
                    m_builder.addSliceArg(id, pcKey, r.firstPc);
                }
                releaseMemory(runs[c][u]);
            }
        }
        m_flowTypes.programOrder = m_p.typeOf("program order", "dependency", SliceClass::Other);
    }

    void addRegions()
    {
        // The store's region slices, chip by chip in entry order (the enclosing one first), with the
        // symbol's name and level as their type.
        for (const ChipId chip : idsBelow<ChipId>(m_replay.trace.chips.size())) {
            const auto& symbols = m_replay.trace.chips[chip.value].symbols.regions;
            for (const events::StoreSlice& r : m_replay.store.regionsByEntry(chip)) {
                m_cancel();
                const std::uint32_t region = events::regionOf(r);
                const std::string name =
                    region < symbols.size() ? symbols[region].name : "region " + std::to_string(region);
                const std::string level = region < symbols.size() && !symbols[region].level.empty()
                                              ? symbols[region].level
                                              : std::string("region");
                addSlice(thread(chip.value, kRegionsTid), r.start, r.end(),
                         m_p.typeOf(name, level, SliceClass::DeviceAnnotation));
            }
        }
    }

    // A DMA keeps the numbers a reader of its slice wants beside the ones the profile has (its times and
    // id, the link): the issuing pc, the bytes, the flag it signals and how long it queued. Addresses and
    // chunks are in the replay's DMA view; at 16 bytes an argument, a million DMAs make each one count.
    void addDmas()
    {
        const std::uint32_t pcKey = m_p.intern("pc"), bytesKey = m_p.intern("bytes"),
                            flagKey = m_p.intern("flag"), queuedKey = m_p.intern("queued cycles");
        m_flowTypes.issued = m_p.typeOf("issued", "dependency", SliceClass::Other);
        std::array<std::uint32_t, kDmaPathClassCount> types{};
        for (int c = 0; c < kDmaPathClassCount; ++c) {
            const auto path = static_cast<DmaPathClass>(c);
            types[static_cast<std::size_t>(c)] =
                m_p.typeOf("DMA " + std::string(dmaPathClassName(path)), "dma",
                           path == DmaPathClass::Ici ? SliceClass::Communication : SliceClass::Memcpy);
        }
        // Where from and to, as a shared argument set: a handful of combinations however many DMAs.
        std::map<std::tuple<int, int, int>, std::uint32_t> placeArgs;
        const auto argsOf = [&](const events::DmaRecord& d) {
            const int toChip = d.dstChip != d.chip ? d.dstChip.value : -1;
            auto [it, added] = placeArgs.try_emplace({d.srcSpace, d.dstSpace, toChip}, 0);
            if (added)
                it->second = m_p.internArgs(
                    "{\"from\":\"" + std::string(isa::spaceName(static_cast<isa::Space>(d.srcSpace))) +
                    (toChip >= 0 ? "\",\"to chip\":" + std::to_string(toChip) + ",\"to\":\""
                                 : "\",\"to\":\"") +
                    std::string(isa::spaceName(static_cast<isa::Space>(d.dstSpace))) + "\"}");
            return it->second;
        };
        // Each engine's DMAs by start, as the store hands them out: engine by engine, each in the order its
        // queue ran them.
        const std::size_t chips = m_replay.trace.chips.size();
        std::optional<events::DmaRecord> previous;
        m_replay.store.forEachDma([&](const events::DmaRecord& d) {
            m_cancel();
            if (d.chip.value >= chips || d.engine >= m_replay.trace.machine.dmaEngines)
                return;
            const bool sameEngine = previous && previous->chip == d.chip && previous->engine == d.engine;
            // The engine works on a DMA from when it is issued and the engine's previous one has landed (the
            // latency to its first byte included) to its last chunk: not while it only sits in the queue.
            const events::Cycle begin =
                std::min(d.start, std::max(d.issue, sameEngine ? previous->end : events::Cycle(0)));
            previous = d;
            const SliceId id = addSlice(thread(d.chip.value, kFirstEngineTid + d.engine), begin, d.end,
                                        types[static_cast<std::size_t>(dmaPathClass(d))], argsOf(d),
                                        d.id + 1); // link 0 is "none"
            if (d.id >= m_dmaSlice.size())
                m_dmaSlice.resize(std::max<std::size_t>(d.id + 1, m_dmaSlice.size() * 2), SliceId());
            m_dmaSlice[d.id] = id;
            m_flows.addDmaIssue(d.chip.value, ticks(d.issue), id);
            m_builder.addSliceArg(id, pcKey, d.pc);
            m_builder.addSliceArg(id, bytesKey, static_cast<std::int64_t>(d.bytes));
            m_builder.addSliceArg(id, flagKey, d.flag);
            m_builder.addSliceArg(id, queuedKey, static_cast<std::int64_t>(begin - std::min(d.issue, begin)));
        });
    }

    void addSyncWaits()
    {
        const std::uint32_t type = m_p.typeOf("sync.wait", "sync", SliceClass::Other);
        m_flowTypes.endsWait = m_p.typeOf("ends wait", "dependency", SliceClass::Other);
        const std::uint32_t pcKey = m_p.intern("pc"), flagKey = m_p.intern("flag");
        // Stalled waits, chip by chip as the store keeps them (a core waits for one thing at a time, so each
        // chip's are in time order).
        const std::size_t chips = m_replay.trace.chips.size();
        m_replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            m_cancel();
            if (w.chip.value >= chips || w.end <= w.start)
                return;
            const SliceId id = addSlice(thread(w.chip.value, waitTid()), w.start, w.end, type);
            m_builder.addSliceArg(id, pcKey, w.pc);
            m_builder.addSliceArg(id, flagKey, w.flag);
            if (w.satisfiedBy >= 0 && static_cast<std::size_t>(w.satisfiedBy) < m_dmaSlice.size() &&
                m_dmaSlice[static_cast<std::size_t>(w.satisfiedBy)].valid())
                m_flows.addEndedWait(w.chip.value, ticks(w.end), id,
                                     m_dmaSlice[static_cast<std::size_t>(w.satisfiedBy)]);
        });
    }

    const ReplayView& m_replay;
    Profile m_p;
    profile::ProfileBuilder m_builder; // writes m_p
    std::vector<TrackId> m_threads;    // [chip][tid], invalid until used
    std::vector<SliceId> m_dmaSlice;   // by DMA id
    ReplayFlows m_flows;
    ReplayFlows::Types m_flowTypes;
    std::stop_token m_stop;
    CancelPoint m_cancel; // polled per bundle, region, DMA and wait
};

} // namespace

profile::Profile replayAsProfile(const ReplayView& replay, const std::string& source,
                                 const CriticalPath& path, std::stop_token stop)
{
    return ReplayWriter(replay, source, std::move(stop)).write(path);
}

profile::Profile replayAsProfileFindingItsPath(const ReplayView& replay, const std::string& source,
                                               std::stop_token stop)
{
    // The walk polls the replay's token: this one is the caller's.
    ReplayView view = replay;
    view.stop = stop;
    const CriticalPath found = findReplayCriticalPath(view);
    return ReplayWriter(replay, source, std::move(stop)).write(found);
}

ReplayRef replayRefOf(const profile::Profile& profile, profile::SliceRow slice)
{
    ReplayRef ref;
    if (!slice.valid() || slice.value >= profile.slices.size() || profile.format != profile::kReplayFormat)
        return ref;
    const profile::Slice& s = profile.slice(slice);
    ref.chip = chipIdAt(static_cast<std::size_t>(profile.track(s.track()).pid));
    if (profile.categoryOf(s) == "dma" && s.link > 0)
        ref.dma = s.link - 1;
    const std::uint32_t pcKey = profile.findString("pc"), firstPcKey = profile.findString("first pc");
    const auto& args = profile.sliceArgs; // sorted by slice
    for (auto it =
             std::lower_bound(args.begin(), args.end(), slice,
                              [](const profile::SliceArg&a, profile::SliceRow x) { return a.slice < x; });
         it != args.end() && it->slice == slice; ++it)
        if ((it->key == pcKey || it->key == firstPcKey) && it->value >= 0)
            ref.pc = static_cast<std::uint32_t>(it->value);
    return ref;
}

std::vector<profile::SliceRow> dmaSlicesOf(const profile::Profile& profile)
{
    std::vector<profile::SliceRow> slices;
    const std::uint32_t dmaCategory = profile.findString("dma");
    if (profile.format != profile::kReplayFormat || dmaCategory == profile::kNone)
        return slices;
    for (std::uint32_t i = 0; i < profile.slices.size(); ++i) {
        const profile::Slice& s = profile.slices[i];
        if (s.link == 0 || profile.types[s.type].category != dmaCategory)
            continue;
        const std::uint32_t dma = s.link - 1;
        if (dma >= slices.size())
            slices.resize(std::size_t{dma} + 1);
        slices[dma] = profile::SliceRow(i);
    }
    return slices;
}

} // namespace xps::analysis

#include "analysis/replay_critical_path.h"

#include "analysis/dma_analysis.h"
#include "analysis/replay_profile.h"
#include "events/store_tracks.h"
#include "util/cancel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace xps::analysis {

using profile::PathSegmentKind;
using profile::SliceRow;
using profile::Ticks;
using profile::TrackId;

namespace {

constexpr std::size_t kUnitRows = replay_tid::kBundles - replay_tid::kFirstUnit; // MXU .. load/store

// One chip's rows of the profile that segments are attributed to.
struct ChipRows
{
    std::array<TrackId, kUnitRows> units; // in the order a kernel author reads them: MXU first
    TrackId waits;
};

class SegmentPlacer
{
public:
    explicit SegmentPlacer(const profile::Profile& p) : m_p(p), m_dmaSlices(dmaSlicesOf(p))
    {
        const std::string waitsName = events::rowName({ChipId(0), events::RowKind::SyncWaits});
        for (std::uint32_t i = 0; i < p.tracks.size(); ++i) {
            const profile::Track& t = p.tracks[i];
            if (t.kind != profile::TrackKind::Thread || t.pid < 0)
                continue;
            const auto chip = static_cast<std::size_t>(t.pid);
            if (chip >= m_chips.size())
                m_chips.resize(chip + 1);
            if (t.tid >= replay_tid::kFirstUnit && t.tid < replay_tid::kBundles)
                m_chips[chip].units[static_cast<std::size_t>(t.tid - replay_tid::kFirstUnit)] = TrackId(i);
            else if (t.name == waitsName)
                m_chips[chip].waits = TrackId(i);
        }
    }

    profile::PathSegment place(const PathSegment& s) const
    {
        profile::PathSegment out;
        out.start = static_cast<Ticks>(s.from);
        out.end = static_cast<Ticks>(s.to);
        const ChipRows* rows = s.chip.value < m_chips.size() ? &m_chips[s.chip.value] : nullptr;
        switch (s.kind) {
        case PathKind::Dma: {
            // The segment leads to the DMA (its queueing, setup and transfer), or from it to the next one on
            // its engine.
            const NodeRef dma = s.end.kind == NodeRef::Kind::Dma ? s.end : s.begin;
            if (dma.kind == NodeRef::Kind::Dma && dma.index < m_dmaSlices.size())
                out.slice = m_dmaSlices[dma.index];
            out.kind =
                out.slice.valid() && m_p.classOf(m_p.slice(out.slice)) == profile::SliceClass::Communication
                    ? PathSegmentKind::Communication
                    : PathSegmentKind::Memcpy;
            return out;
        }
        case PathKind::Sync:
            out.kind = PathSegmentKind::Sync;
            if (rows && out.end > out.start)
                out.slice = covering(rows->waits, out.end - 1);
            return out;
        default: break;
        }
        out.kind = PathSegmentKind::Kernel;
        if (!rows)
            return out;
        for (const TrackId unit : rows->units)
            if (const SliceRow r = covering(unit, out.start); r.valid()) {
                out.slice = r;
                return out;
            }
        // Nothing busy at its start (scalar bundles, or a wait on one): the earliest run within it.
        for (const TrackId unit : rows->units) {
            const SliceRow r = firstStartingIn(unit, out.start, out.end);
            if (r.valid() && (!out.slice.valid() || m_p.slice(r).start < m_p.slice(out.slice).start))
                out.slice = r;
        }
        return out;
    }

private:
    // A track's slices are sorted by start, and a unit's runs and a chip's waits do not overlap.
    std::pair<const profile::Slice*, const profile::Slice*> slicesOf(TrackId track) const
    {
        const profile::Track& t = m_p.track(track);
        const profile::Slice* first = m_p.slices.data() + t.firstSlice;
        return {first, first + t.sliceCount};
    }
    SliceRow rowOf(const profile::Slice* s) const
    {
        return SliceRow(static_cast<std::uint32_t>(s - m_p.slices.data()));
    }
    SliceRow covering(TrackId track, Ticks t) const
    {
        if (!track.valid())
            return {};
        const auto [first, last] = slicesOf(track);
        const profile::Slice* after =
            std::upper_bound(first, last, t, [](Ticks x, const profile::Slice& s) { return x < s.start; });
        if (after == first)
            return {};
        const profile::Slice* s = after - 1;
        return t < s->end() || (s->duration == 0 && t == s->start) ? rowOf(s) : SliceRow();
    }
    SliceRow firstStartingIn(TrackId track, Ticks from, Ticks to) const
    {
        if (!track.valid())
            return {};
        const auto [first, last] = slicesOf(track);
        const profile::Slice* s =
            std::lower_bound(first, last, from, [](const profile::Slice& x, Ticks t) { return x.start < t; });
        return s != last && s->start < to ? rowOf(s) : SliceRow();
    }

    const profile::Profile& m_p;
    std::vector<SliceRow> m_dmaSlices; // by DMA id
    std::vector<ChipRows> m_chips;
};

} // namespace

std::shared_ptr<const profile::CriticalPath>
criticalPathInProfile(const profile::Profile& profile, const CriticalPath& path, std::stop_token stop)
{
    CancelPoint cancel(std::move(stop));
    auto out = std::make_shared<profile::CriticalPath>();
    const SegmentPlacer placer(profile);
    out->segments.reserve(path.segments.size());
    for (const PathSegment& s : path.segments) {
        cancel();
        const profile::PathSegment placed = placer.place(s);
        out->byKind[static_cast<std::size_t>(placed.kind)] += placed.end - placed.start;
        out->length += placed.end - placed.start;
        out->segments.push_back(placed);
    }
    // Found over the whole run, as HTA's model says of an unwindowed path.
    out->windowStart = INT64_MIN;
    out->windowEnd = INT64_MAX;
    return out;
}

CriticalPath findReplayCriticalPath(const ReplayView& replay)
{
    const DmaAnalysis dmas = collectDmas(replay);
    return DependencyGraph(replay, dmas).takeCriticalPath();
}

} // namespace xps::analysis

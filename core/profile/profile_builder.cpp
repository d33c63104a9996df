#include "profile/profile_builder.h"
#include "util/cancel.h"
#include "util/release_memory.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace xps::profile {

namespace {
constexpr std::uint32_t kMaxTracks = 1u << 24; // Slice::trackAndDepth keeps 24 bits of track
}

ProfileBuilder::ProfileBuilder(Profile& profile, std::uint64_t maxEvents, LimitHandler onLimit)
    : m_p(profile), m_maxEvents(maxEvents), m_onLimit(std::move(onLimit))
{
    if (!m_p.slices.empty())
        throw std::logic_error("ProfileBuilder: the profile already has slices");
}

TrackId ProfileBuilder::addTrack(Track track)
{
    if (m_p.tracks.size() >= kMaxTracks)
        m_onLimit(Limit::Tracks);
    if (m_p.tracks.size() >= kMaxTracks) // the handler did not throw: still never past what Slice can keep
        throw std::length_error("more than 16,777,216 tracks");
    m_p.tracks.push_back(std::move(track));
    return TrackId(static_cast<std::uint32_t>(m_p.tracks.size() - 1));
}

void ProfileBuilder::addCounter(TrackId track, Ticks time, double value)
{
    checkEventLimit();
    m_p.counters.push_back({time, value, track});
}

void ProfileBuilder::addFlowStep(std::uint32_t type, std::uint64_t id, FlowPhase phase, bool enclosing,
                                 TrackId track, Ticks time)
{
    m_flowSteps.push_back(
        {id, time, type, track.value << 3 | static_cast<std::uint32_t>(phase) << 1 | (enclosing ? 1u : 0u)});
}

void ProfileBuilder::addFlowEnd(std::uint64_t id, SliceId slice, bool out)
{
    m_flowEnds.push_back({id, slice.value, out});
}

void ProfileBuilder::setFallbackLinker(std::uint32_t category, FallbackLinker link)
{
    m_fallbackCategory = category;
    m_fallbackLinker = std::move(link);
}

void ProfileBuilder::repair(RepairKind kind, const std::string& what, const std::string& firstAt)
{
    const auto [it, added] = m_repairIndex.try_emplace({kind, what}, m_p.repairs.size());
    if (added)
        m_p.addRepair(kind, 0, what, firstAt);
    ++m_p.repairs[it->second].count;
}

void ProfileBuilder::addRepair(RepairKind kind, std::uint64_t count, std::string what, std::string firstAt)
{
    m_p.addRepair(kind, count, std::move(what), std::move(firstAt));
}

void ProfileBuilder::finish(std::stop_token stop)
{
    m_slices.moveInto(m_p.slices); // exactly sized: Profile::finish's shrink has nothing to copy
    m_sliceArgs.moveInto(m_p.sliceArgs);
    std::vector<std::uint32_t> moved = m_p.finish(stop);
    CancelPoint cancel(std::move(stop));
    // Flows and slice arguments held SliceIds' values in their rows' places until now.
    const auto where = [&](SliceRow id) { return id.valid() ? SliceRow(moved[id.value]) : id; };
    for (Flow& f : m_flows) {
        cancel();
        f.from = where(f.from);
        f.to = where(f.to);
    }
    for (FlowEnd& f : m_flowEnds)
        f.slice = moved[f.slice];
    releaseMemory(moved); // 4 bytes a slice, not needed past here: freed before the flow steps are bound
    if (m_p.flows.empty())
        m_p.flows = std::move(m_flows); // no copy of what may be millions
    else
        m_p.flows.insert(m_p.flows.end(), m_flows.begin(), m_flows.end());
    releaseMemory(m_flows);
    bindFlowSteps();
    bindFlowEnds();
    if (m_fallbackLinker) {
        const bool bound = std::any_of(m_p.flows.begin(), m_p.flows.end(), [&](const Flow& f) {
            return m_p.types[f.type].category == m_fallbackCategory;
        });
        if (!bound)
            m_fallbackLinker(m_p, m_p.flows);
        m_fallbackLinker = nullptr;
    }
    shrinkIfWasteful(m_p.flows);
}

void ProfileBuilder::bindFlowSteps()
{
    const auto& steps = m_flowSteps;
    // Sorted by index: 4 bytes a step moved instead of 32 (and half that again for stable_sort's buffer).
    std::vector<std::uint32_t> byFlow(steps.size());
    std::iota(byFlow.begin(), byFlow.end(), 0u);
    std::stable_sort(byFlow.begin(), byFlow.end(), [&](std::uint32_t x, std::uint32_t y) {
        const FlowStep &a = steps[x], &b = steps[y];
        if (a.type != b.type || a.id != b.id)
            return a.type != b.type ? a.type < b.type : a.id < b.id;
        return a.time < b.time; // stable: ties keep the order they came in
    });
    std::uint64_t unbound = 0;
    const auto bind = [&](const FlowStep& f) -> SliceRow {
        if (f.enclosing())
            return m_p.sliceAt(f.track(), f.time);
        const Track& t = m_p.track(f.track());
        const auto first = m_p.slices.begin() + t.firstSlice, last = first + t.sliceCount;
        const auto it =
            std::lower_bound(first, last, f.time, [](const Slice& s, Ticks v) { return s.start < v; });
        return it == last ? SliceRow() : SliceRow(static_cast<std::uint32_t>(it - m_p.slices.begin()));
    };
    const auto sameFlow = [](const FlowStep& a, const FlowStep& b) {
        return a.type == b.type && a.id == b.id;
    };
    const auto step = [&](std::size_t k) -> const FlowStep& { return steps[byFlow[k]]; };
    // At most a flow per step that is not a start: room for them once, not by doubling.
    std::size_t ends = 0;
    steps.forEach([&](const FlowStep& f) { ends += f.phase() != FlowPhase::Start ? 1 : 0; });
    m_p.flows.reserve(m_p.flows.size() + ends);
    for (std::size_t i = 0; i < byFlow.size();) {
        std::size_t j = i;
        while (j < byFlow.size() && sameFlow(step(j), step(i)))
            ++j;
        // One start and one finish with their own id: a flow, whichever comes first in time (a dependency
        // can point back in time, as a Chakra control dependency on a parent that started later does).
        if (j - i == 2 && step(i + 1).phase() == FlowPhase::Start && step(i).phase() == FlowPhase::Finish)
            std::swap(byFlow[i], byFlow[i + 1]);
        SliceRow from;
        for (std::size_t k = i; k < j; ++k) {
            const FlowStep& f = step(k);
            const SliceRow at = bind(f);
            if (f.phase() == FlowPhase::Start) {
                from = at;
            } else if (from.valid() && at.valid()) {
                m_p.flows.push_back({from, at, f.type});
                from = f.phase() == FlowPhase::Step ? at : SliceRow();
            } else {
                ++unbound;
            }
        }
        i = j;
    }
    m_flowSteps.clear();
    if (unbound > 0)
        addRepair(RepairKind::Unbound, unbound,
                  "flow steps found no slice to bind to (or no start before them) and were dropped");
}

void ProfileBuilder::bindFlowEnds()
{
    if (m_flowEnds.empty())
        return;
    std::stable_sort(m_flowEnds.begin(), m_flowEnds.end(), [&](const FlowEnd& a, const FlowEnd& b) {
        return a.id != b.id ? a.id < b.id : m_p.slices[a.slice].start < m_p.slices[b.slice].start;
    });
    const std::uint32_t type = m_p.typeOf("flow", "", SliceClass::Other);
    for (std::size_t i = 0; i < m_flowEnds.size();) {
        std::size_t j = i;
        SliceRow from;
        for (; j < m_flowEnds.size() && m_flowEnds[j].id == m_flowEnds[i].id; ++j) {
            if (!m_flowEnds[j].out && from.valid())
                m_p.flows.push_back({from, SliceRow(m_flowEnds[j].slice), type});
            if (m_flowEnds[j].out)
                from = SliceRow(m_flowEnds[j].slice);
        }
        i = j;
    }
    releaseMemory(m_flowEnds);
}

} // namespace xps::profile

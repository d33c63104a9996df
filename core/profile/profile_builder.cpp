#include "profile/profile_builder.h"
#include "util/release_memory.h"

#include <algorithm>
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

void ProfileBuilder::reserve(std::size_t sliceArgs, std::size_t flows)
{
    m_p.sliceArgs.reserve(m_p.sliceArgs.size() + sliceArgs);
    m_flows.reserve(m_flows.size() + flows);
}

void ProfileBuilder::addCounter(TrackId track, Nanos time, double value)
{
    checkEventLimit();
    m_p.counters.push_back({time, value, track.value});
}

void ProfileBuilder::addFlowStep(std::uint32_t type, std::uint64_t id, FlowPhase phase, bool enclosing,
                                 TrackId track, Nanos time, std::uint64_t order)
{
    m_flowSteps.push_back({type, id, phase, enclosing, track.value, time, order});
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

void ProfileBuilder::moveSlicesIntoProfile()
{
    m_p.slices.reserve(m_sliceCount); // exactly: Profile::finish's shrink then has nothing to copy
    for (auto& chunk : m_sliceChunks) {
        m_p.slices.insert(m_p.slices.end(), chunk.begin(), chunk.end());
        releaseMemory(chunk); // freed now, not after the last one is copied
    }
    releaseMemory(m_sliceChunks);
}

std::vector<std::uint32_t> ProfileBuilder::finish()
{
    moveSlicesIntoProfile();
    std::vector<std::uint32_t> moved = m_p.finish();
    const auto where = [&](std::uint32_t slice) { return slice == kNone ? kNone : moved[slice]; };
    for (Flow& f : m_flows) {
        f.from = where(f.from);
        f.to = where(f.to);
    }
    if (m_p.flows.empty())
        m_p.flows = std::move(m_flows); // no copy of what may be millions
    else
        m_p.flows.insert(m_p.flows.end(), m_flows.begin(), m_flows.end());
    releaseMemory(m_flows);
    bindFlowSteps();
    bindFlowEnds(moved);
    if (m_fallbackLinker) {
        const bool bound = std::any_of(m_p.flows.begin(), m_p.flows.end(), [&](const Flow& f) {
            return m_p.types[f.type].category == m_fallbackCategory;
        });
        if (!bound)
            m_fallbackLinker(m_p, m_p.flows);
        m_fallbackLinker = nullptr;
    }
    m_p.flows.shrink_to_fit();
    return moved;
}

void ProfileBuilder::bindFlowSteps()
{
    auto& steps = m_flowSteps;
    std::stable_sort(steps.begin(), steps.end(), [](const FlowStep& a, const FlowStep& b) {
        if (a.type != b.type || a.id != b.id)
            return a.type != b.type ? a.type < b.type : a.id < b.id;
        return a.time != b.time ? a.time < b.time : a.order < b.order;
    });
    std::uint64_t unbound = 0;
    const auto bind = [&](const FlowStep& f) -> std::uint32_t {
        if (f.enclosing)
            return m_p.sliceAt(f.track, f.time);
        const Track& t = m_p.tracks[f.track];
        const auto first = m_p.slices.begin() + t.firstSlice, last = first + t.sliceCount;
        const auto it =
            std::lower_bound(first, last, f.time, [](const Slice& s, Nanos v) { return s.start < v; });
        return it == last ? kNone : static_cast<std::uint32_t>(it - m_p.slices.begin());
    };
    const auto sameFlow = [](const FlowStep& a, const FlowStep& b) {
        return a.type == b.type && a.id == b.id;
    };
    for (std::size_t i = 0; i < steps.size();) {
        std::size_t j = i;
        while (j < steps.size() && sameFlow(steps[j], steps[i]))
            ++j;
        // One start and one finish with their own id: a flow, whichever comes first in time (a dependency
        // can point back in time, as a Chakra control dependency on a parent that started later does).
        if (j - i == 2 && steps[i + 1].phase == FlowPhase::Start && steps[i].phase == FlowPhase::Finish)
            std::swap(steps[i], steps[i + 1]);
        std::uint32_t from = kNone;
        for (std::size_t k = i; k < j; ++k) {
            const FlowStep& f = steps[k];
            const std::uint32_t at = bind(f);
            if (f.phase == FlowPhase::Start) {
                from = at;
            } else if (from != kNone && at != kNone) {
                m_p.flows.push_back({from, at, f.type});
                from = f.phase == FlowPhase::Step ? at : kNone;
            } else {
                ++unbound;
            }
        }
        i = j;
    }
    releaseMemory(steps);
    if (unbound > 0)
        addRepair(RepairKind::Unbound, unbound,
                  "flow steps found no slice to bind to (or no start before them) and were dropped");
}

void ProfileBuilder::bindFlowEnds(const std::vector<std::uint32_t>& moved)
{
    if (m_flowEnds.empty())
        return;
    for (FlowEnd& f : m_flowEnds)
        f.slice = moved[f.slice];
    std::stable_sort(m_flowEnds.begin(), m_flowEnds.end(), [&](const FlowEnd& a, const FlowEnd& b) {
        return a.id != b.id ? a.id < b.id : m_p.slices[a.slice].start < m_p.slices[b.slice].start;
    });
    const std::uint32_t type = m_p.typeOf("flow", "", SliceClass::Other);
    for (std::size_t i = 0; i < m_flowEnds.size();) {
        std::size_t j = i;
        std::uint32_t from = kNone;
        for (; j < m_flowEnds.size() && m_flowEnds[j].id == m_flowEnds[i].id; ++j) {
            if (!m_flowEnds[j].out && from != kNone)
                m_p.flows.push_back({from, m_flowEnds[j].slice, type});
            if (m_flowEnds[j].out)
                from = m_flowEnds[j].slice;
        }
        i = j;
    }
    releaseMemory(m_flowEnds);
}

} // namespace xps::profile

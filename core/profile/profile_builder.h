#pragma once
// The one way an importer writes a Profile (Perfetto's track, slice and flow trackers):
// tracks made once per key, slices and counter samples appended under the import's event limit, flows
// linked by the ids this builder handed out or by the ids the file gives them, repairs counted by kind with
// their first location, and finish(), which sorts once and binds everything to where the slices went.
// Before it, each importer pushed into Profile's vectors and re-linked its flows through finish()'s
// permutation by hand.
//
// A SliceId is the slice's place in arrival order: stable while the import runs, until finish().

#include "profile/profile.h"
#include "util/chunked_vector.h"
#include "util/strong_id.h"

#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xps::profile {

using SliceId = StrongId<struct SliceTag>;

// Chrome's flow events (v1): s starts a flow, t steps it, f finishes it; bound after sorting to the slice
// that encloses the step's time on its thread, or (f with "bp": "e" absent) the next slice to start there.
enum class FlowPhase : std::uint8_t { Start, Step, Finish };

class ProfileBuilder
{
public:
    // Called when the import would keep more than `maxEvents` slices and counter samples (0: no limit) or
    // more than 2^24 tracks (what Slice keeps of a track); it must throw: the importer's own error, with
    // its location and its words for the limit (InputLimits::eventsMessage).
    enum class Limit : std::uint8_t { Events, Tracks };
    using LimitHandler = std::function<void(Limit)>;

    ProfileBuilder(Profile& profile, std::uint64_t maxEvents, LimitHandler onLimit);

    Profile& profile() { return m_p; }
    // Room for what a writer knows it will add (a replay does; a file being parsed does not), in one block
    // each that becomes the profile's without a copy: chunks handed over at the end would touch every page
    // twice (on this VM a page fault is what takes the time).
    void reserve(std::size_t slices, std::size_t sliceArgs, std::size_t flows)
    {
        m_slices.reserveExactly(slices);
        m_sliceArgs.reserveExactly(sliceArgs);
        m_flows.reserve(m_flows.size() + flows);
    }

    // Tracks. The track of `kind` that `key` names; made by `make` the first time (which may make other
    // tracks itself, its process say: the new track's id is taken after them).
    template <typename Make> TrackId trackFor(TrackKind kind, const std::string& key, Make&& make)
    {
        auto& index = m_trackIndex[static_cast<int>(kind)];
        if (const auto it = index.find(key); it != index.end())
            return it->second;
        Track t = make();
        const TrackId id = addTrack(std::move(t));
        index.emplace(key, id);
        return id;
    }
    // How many tracks of `kind` trackFor has made (an importer numbers unnamed ones by it).
    std::size_t keyedTracks(TrackKind kind) const { return m_trackIndex[static_cast<int>(kind)].size(); }
    TrackId addTrack(Track track);
    Track& track(TrackId id) { return m_p.tracks[id.value]; }

    // Events. The duration is made safe to store (boundedDuration).
    // Inline, as the next three are: a replay writes millions, one call each.
    SliceId addSlice(TrackId track, Ticks start, Ticks duration, std::uint32_t type, std::uint32_t args,
                     std::uint32_t link)
    {
        checkEventLimit();
        Slice& s = m_slices.emplace_back();
        s.start = start;
        s.duration = boundedDuration(start, duration);
        s.trackAndDepth = track.value << 8;
        s.type = type;
        s.args = args;
        s.link = link;
        return SliceId(static_cast<std::uint32_t>(m_slices.size() - 1));
    }
    // Slices added so far, by id (until finish(), they are the builder's, not yet in the profile).
    const Slice& slice(SliceId id) const { return m_slices[id.value]; }
    std::size_t sliceCount() const { return m_slices.size(); }
    template <typename Visit> void forEachSlice(Visit&& visit) const { m_slices.forEach(visit); }
    // An integer argument of this slice alone (profile::SliceArg).
    void addSliceArg(SliceId slice, std::uint32_t key, std::int64_t value)
    {
        m_sliceArgs.push_back({SliceRow(slice.value), key, value}); // a row from finish() on
    }
    void addCounter(TrackId track, Ticks time, double value);

    // Flows. Between two slices of this builder.
    void addFlow(SliceId from, SliceId to, std::uint32_t type)
    {
        m_flows.push_back({SliceRow(from.value), SliceRow(to.value), type}); // rows from finish() on
    }
    // Chrome's v1 flow event: `type` (name and category) and `id` name the flow; steps at the same time keep
    // the order they were added in (the file's).
    void addFlowStep(std::uint32_t type, std::uint64_t id, FlowPhase phase, bool enclosing, TrackId track,
                     Ticks time);
    // A slice's end of a flow named by `id` alone (Chrome's flow v2: bind_id with flow_out / flow_in): each
    // flow_in is joined to the latest flow_out of its id that starts before it.
    void addFlowEnd(std::uint64_t id, SliceId slice, bool out);
    // Flows worked out from the finished profile (slices sorted, indexes final), asked for only if no bound
    // flow has category `category`: Kineto's ac2g, which older files lack, their launches then linked by
    // correlation id. Lazy, because a file that has them would pay a pass and a map over all its slices.
    using FallbackLinker = std::function<void(const Profile&, std::vector<Flow>& out)>;
    void setFallbackLinker(std::uint32_t category, FallbackLinker link);

    // Repairs, counted per (kind, what) in the order first met; the first location kept.
    void repair(RepairKind kind, const std::string& what, const std::string& firstAt = {});
    // A repair already counted, or a statement of its own (count 0).
    void addRepair(RepairKind kind, std::uint64_t count, std::string what, std::string firstAt = {});

    // Sorts and nests (Profile::finish), then binds every flow. SliceIds mean nothing after it: what an
    // importer keeps beside the profile must be bound through flows or found again by time and track (the
    // permutation, 4 bytes a slice, is freed before the flow steps are bound). Throws Cancelled once `stop`
    // is requested (a replay's writer passes its token; on ten million slices this runs for a quarter
    // second).
    void finish(std::stop_token stop = {});

private:
    void checkEventLimit() const
    {
        if (m_maxEvents != 0 && m_slices.size() + m_p.counters.size() >= m_maxEvents)
            m_onLimit(Limit::Events);
    }
    void bindFlowSteps();
    void bindFlowEnds();

    struct FlowStep // 24 bytes: a Kineto trace has two per kernel launch
    {
        std::uint64_t id;
        Ticks time;
        std::uint32_t type;
        std::uint32_t packed; // track << 3 | phase << 1 | enclosing (a track fits 24 bits: kMaxTracks)
        TrackId track() const { return TrackId(packed >> 3); }
        FlowPhase phase() const { return static_cast<FlowPhase>(packed >> 1 & 3u); }
        bool enclosing() const { return (packed & 1u) != 0; }
    };
    static_assert(sizeof(FlowStep) == 24);
    struct FlowEnd
    {
        std::uint64_t id;
        std::uint32_t slice;
        bool out;
    };

    // Slices and flow steps arrive in chunks and move into the profile, sized exactly, at finish(), each
    // chunk freed once copied (the import's peak within 1.5x of what it keeps).
    ChunkedVector<Slice> m_slices;
    ChunkedVector<SliceArg> m_sliceArgs;

    Profile& m_p;
    std::uint64_t m_maxEvents;
    LimitHandler m_onLimit;
    std::unordered_map<std::string, TrackId> m_trackIndex[4]; // by TrackKind
    std::vector<Flow> m_flows;                                // by SliceId until finish()
    ChunkedVector<FlowStep> m_flowSteps;
    std::vector<FlowEnd> m_flowEnds;
    std::uint32_t m_fallbackCategory = kNone;
    FallbackLinker m_fallbackLinker;
    std::map<std::pair<RepairKind, std::string>, std::size_t> m_repairIndex; // -> index in Profile::repairs
};

} // namespace xps::profile

#include "profile/cuda_sync.h"
#include "util/cancel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace xps::profile {
namespace {

// An integer argument of a cuda_sync event, or -1 (absent, not an integer, or arguments that do not parse).
std::int64_t intArg(const nlohmann::json& args, const char* key)
{
    const auto it = args.find(key);
    return it != args.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

class Reader
{
public:
    Reader(const Profile& profile, const std::vector<std::uint32_t>& launcher, std::stop_token stop)
        : p(profile), m_launcher(launcher), m_cancel(std::move(stop))
    {
    }

    CudaSyncs read()
    {
        const std::uint32_t category = p.findString("cuda_sync");
        CudaSyncs out;
        if (category == kNone)
            return out;
        index();
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            m_cancel();
            const Slice& s = p.slices[i];
            if (p.types[s.type].category != category || s.link == 0)
                continue;
            const auto call = m_calls.find(s.link);
            if (call == m_calls.end())
                continue;
            const nlohmann::json args = nlohmann::json::parse(p.argsOf(SliceRow(i)), nullptr, false);
            const std::string& name = p.nameOf(s);
            const TrackId device = p.processOf(s.track());
            HostWait wait;
            wait.call = call->second;
            if (name == "Context Sync") {
                wait.on = HostWait::On::AllStreams;
            } else if (name == "Stream Sync") {
                if (const TrackId stream = streamOf(device, intArg(args, "stream")); stream.valid()) {
                    wait.on = HostWait::On::Stream;
                    wait.stream = stream;
                }
            } else if (name == "Event Sync" || name == "Stream Wait Event") {
                const std::uint32_t recorded =
                    recordedWork(device, intArg(args, "wait_on_stream"),
                                 intArg(args, "wait_on_cuda_event_record_corr_id"));
                if (recorded != kNone && name == "Event Sync") {
                    wait.on = HostWait::On::Work;
                    wait.work = recorded;
                } else if (recorded != kNone) {
                    const std::uint32_t next = nextLaunched(device, intArg(args, "stream"), call->second);
                    if (next != kNone)
                        out.waits.emplace_back(next, recorded);
                }
            } else {
                continue;
            }
            out.hostWaits.push_back(wait);
        }
        std::sort(out.hostWaits.begin(), out.hostWaits.end(),
                  [](const HostWait& a, const HostWait& b) { return a.call < b.call; });
        // One per call: Kineto writes one event per call (an Event Sync for cudaEventQuery too).
        out.hostWaits.erase(
            std::unique(out.hostWaits.begin(), out.hostWaits.end(),
                        [](const HostWait& a, const HostWait& b) { return a.call == b.call; }),
            out.hostWaits.end());
        return out;
    }

private:
    void index()
    {
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            m_cancel();
            const Slice& s = p.slices[i];
            const SliceClass c = p.classOf(s);
            const Track& t = p.track(s.track());
            if ((c == SliceClass::Runtime || c == SliceClass::RuntimeSync) && !t.device && s.link != 0)
                m_calls.emplace(s.link, i);
            if (t.device && t.kind == TrackKind::Thread && isDeviceWork(c) && m_launcher[i] != kNone)
                m_launches[s.track()].push_back(i);
        }
        for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
            if (p.tracks[t].device && p.tracks[t].kind == TrackKind::Thread)
                m_streams.emplace(std::pair{p.processOf(TrackId(t)).value, p.tracks[t].tid}, TrackId(t));
        // Each stream's launched work by its launch's start: the order HTA numbers launches in.
        for (auto& [track, work] : m_launches) {
            m_cancel();
            std::stable_sort(work.begin(), work.end(), [&](std::uint32_t a, std::uint32_t b) {
                return p.slices[m_launcher[a]].start < p.slices[m_launcher[b]].start;
            });
        }
    }

    TrackId streamOf(TrackId device, std::int64_t stream) const
    {
        const auto it = m_streams.find({device.value, stream});
        return stream < 0 || it == m_streams.end() ? TrackId() : it->second;
    }
    const std::vector<std::uint32_t>* launchesOn(TrackId device, std::int64_t stream) const
    {
        const TrackId track = streamOf(device, stream);
        const auto it = track.valid() ? m_launches.find(track) : m_launches.end();
        return it == m_launches.end() ? nullptr : &it->second;
    }

    // The work launched last on the stream at or before the cudaEventRecord call of `recordCorrelation`.
    std::uint32_t recordedWork(TrackId device, std::int64_t stream, std::int64_t recordCorrelation) const
    {
        const auto record = m_calls.find(static_cast<std::uint32_t>(recordCorrelation));
        const std::vector<std::uint32_t>* work = launchesOn(device, stream);
        if (recordCorrelation <= 0 || record == m_calls.end() || !work)
            return kNone;
        const Ticks at = p.slices[record->second].start;
        const auto it = std::upper_bound(work->begin(), work->end(), at, [&](Ticks t, std::uint32_t w) {
            return t < p.slices[m_launcher[w]].start;
        });
        return it == work->begin() ? kNone : *std::prev(it);
    }

    // The first work launched on the stream from the thread of `call`, at or after it.
    std::uint32_t nextLaunched(TrackId device, std::int64_t stream, std::uint32_t call) const
    {
        const std::vector<std::uint32_t>* work = launchesOn(device, stream);
        if (!work)
            return kNone;
        const Slice& c = p.slices[call];
        auto it = std::lower_bound(work->begin(), work->end(), c.start, [&](std::uint32_t w, Ticks t) {
            return p.slices[m_launcher[w]].start < t;
        });
        for (; it != work->end(); ++it)
            if (p.slices[m_launcher[*it]].track() == c.track() && m_launcher[*it] != call)
                return *it;
        return kNone;
    }

    const Profile& p;
    const std::vector<std::uint32_t>& m_launcher;
    CancelPoint m_cancel;
    std::unordered_map<std::uint32_t, std::uint32_t> m_calls;            // correlation -> runtime call
    std::map<TrackId, std::vector<std::uint32_t>> m_launches;            // stream -> launched work
    std::map<std::pair<std::uint32_t, std::int64_t>, TrackId> m_streams; // (device, stream id) -> track
};

} // namespace

CudaSyncs readCudaSyncs(const Profile& profile, const std::vector<std::uint32_t>& launcher,
                        std::stop_token stop)
{
    return Reader(profile, launcher, std::move(stop)).read();
}

} // namespace xps::profile

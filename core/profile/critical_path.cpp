#include "profile/critical_path.h"
#include "profile/cuda_sync.h"
#include "profile/pass_threads.h"
#include "util/cancel.h"
#include "util/sort_runs.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace xps::profile {
namespace {

constexpr std::uint32_t kNoNode = UINT32_MAX;
// HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: a gap on a stream this long or longer is not the stream's delay
// but a dependency the profile does not show (a stream's gaps are microseconds for compute, about a
// millisecond for communication), so it gets no edge. Without it a stream of a few sparse transfers (MTIA's
// DMA requests without a stream) strung its gaps into a 100%-idle path across the whole profile.
constexpr Nanos kKernelKernelDelayLimit = 1'500'000;

enum class EdgeKind : std::uint8_t { HostSpan, DeviceSpan, LaunchDelay, KernelKernel, Dependency };

struct Edge
{
    std::uint32_t from, to;
    Ticks weight;
    EdgeKind kind;
    std::uint32_t slice; // attribution
};

// HTA's operators and runtime calls (categories cpu_op, cuda_runtime, cuda_driver), and Chakra's CPU nodes:
// not the annotations drawn over them (user_annotation such as ProfilerStep#N, Python functions, an
// XSpace's TraceMe ranges), which a window can select instead.
bool isHostWork(const Profile& p, const Slice& s)
{
    const SliceClass c = p.classOf(s);
    if (c == SliceClass::Runtime || c == SliceClass::RuntimeSync)
        return true;
    if (c != SliceClass::CpuOp)
        return false;
    const std::string& category = p.categoryOf(s);
    return category == "cpu_op" || category == "operator" ||
           (category.size() > 5 && category.compare(category.size() - 5, 5, "_NODE") == 0);
}

// HTA's blocking calls: their own wait is not host time.
bool isBlocking(const Profile& p, const Slice& s)
{
    if (p.classOf(s) == SliceClass::RuntimeSync)
        return true;
    const std::string& n = p.nameOf(s);
    return n == "cudaMemcpy" || n == "cudaMemcpyAsync" || n == "cudaEventQuery" || n == "hipMemcpy" ||
           n == "hipMemcpyAsync" || n == "hipEventQuery";
}

// An asynchronous copy call: blocking only when the copy has to wait (pageable memory); HTA gives its whole
// duration to the host (its runtime lock, CUDA_RUNTIME_EVENTS).
bool isAsyncCopyCall(const Profile& p, const Slice& s)
{
    const std::string& n = p.nameOf(s);
    return n == "cudaMemcpyAsync" || n == "hipMemcpyAsync";
}

class Graph
{
public:
    Graph(const Profile& profile, const CriticalPathWindow& window, std::stop_token stop)
        : p(profile), m_window(window), m_cancel(stop)
    {
        indexFlows();
        m_syncs = readCudaSyncs(p, m_launcher, std::move(stop));
        m_dependencies.insert(m_dependencies.end(), m_syncs.waits.begin(), m_syncs.waits.end());
        sortPairsByKey(m_dependencies, p.slices.size(), &m_cancel); // linear: slices are dense ids
        m_index.assign(p.slices.size(), kNoNode);
        m_trackNodes.assign(p.tracks.size() + 1, 0);
        const PassTypes passes(p);
        for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
            m_cancel();
            const Slice& s = p.slices[i];
            const SliceClass c = p.classOf(s);
            const Track& t = p.track(s.track());
            if (s.duration <= 0 || t.kind != TrackKind::Thread || !inWindow(i))
                continue;
            if (!t.device)
                m_passes.note(passes, s);
            if ((t.device && isDeviceWork(c)) || (!t.device && isHostWork(p, s))) {
                m_index[i] = static_cast<std::uint32_t>(m_slices.size());
                m_slices.push_back(i);
                ++m_trackNodes[s.track().value + 1];
            }
        }
        // Slices are grouped by track: track t's nodes are m_slices[m_trackNodes[t], m_trackNodes[t + 1]).
        for (std::size_t t = 0; t < p.tracks.size(); ++t)
            m_trackNodes[t + 1] += m_trackNodes[t];
    }

    CriticalPath run()
    {
        // About two edges per node and one per dependency, plus the sync edges: reserved once. Growing by
        // doubling would copy hundreds of MB at 10 M slices, each time for a second without a cancel poll;
        // pages reserved and never used cost nothing.
        m_edges.reserve(2 * m_slices.size() + m_dependencies.size() + (m_slices.size() >> 2));
        const auto [forward, backward] = m_passes.threads(p);
        for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
            if (p.tracks[t].kind == TrackKind::Thread && p.tracks[t].device)
                for (std::uint32_t i = p.tracks[t].firstSlice;
                     i < p.tracks[t].firstSlice + p.tracks[t].sliceCount; ++i)
                    if (m_cancel(); m_index[i] != kNoNode)
                        m_streamWork[t].push_back(i);
        // Before the threads: whether a blocking call waited for device work decides its own weight.
        findSyncWaits();
        for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
            if (p.tracks[t].kind != TrackKind::Thread)
                continue;
            if (p.tracks[t].device)
                addStream(t);
            else if (t == forward)
                addThread(mergedNodes(forward, backward));
            else if (t != backward)
                addThread(nodesOf(t));
        }
        for (const auto& [work, call] : m_syncWaits)
            add(end(work), end(call), 0, EdgeKind::Dependency, call);
        for (const auto& [slice, dep] : m_dependencies)
            if (m_cancel(); m_index[slice] != kNoNode && m_index[dep] != kNoNode &&
                            p.slices[dep].end() <= p.slices[slice].start)
                add(end(dep), start(slice), 0, EdgeKind::Dependency, slice);
        return heaviestPath();
    }

private:
    // HTA's window (TraceAnalysis.critical_path_analysis): host work that starts inside it, and device work
    // whose launch starts inside it, wherever the work itself runs (a GPU-bound step's kernels run long
    // after its host side ends: they are the step's path). Device work nothing launched goes by its own
    // start in a profile without launches (XSpace, Chakra); in one with them it is on no path, window or
    // not, as HTA keeps only kernels with a runtime call (work launched before the profiler started).
    bool inWindow(std::uint32_t i) const
    {
        const auto inside = [&](const Slice& s) {
            return s.start >= m_window.from && s.start <= m_window.to;
        };
        if (!p.track(p.slices[i].track()).device)
            return inside(p.slices[i]);
        if (m_launcher[i] != kNone)
            return inside(p.slices[m_launcher[i]]);
        return !m_linksLaunches && inside(p.slices[i]);
    }
    std::uint32_t start(std::uint32_t slice) const { return 2 * m_index[slice]; }
    std::uint32_t end(std::uint32_t slice) const { return 2 * m_index[slice] + 1; }
    Ticks time(std::uint32_t node) const
    {
        const Slice& s = p.slices[m_slices[node / 2]];
        return node % 2 ? s.end() : s.start;
    }
    void add(std::uint32_t from, std::uint32_t to, Ticks weight, EdgeKind kind, std::uint32_t slice)
    {
        if (from != to && time(to) >= time(from)) // forward in time: the graph stays acyclic
            m_edges.push_back({from, to, std::max<Ticks>(weight, 0), kind, slice});
    }

    void indexFlows()
    {
        m_launcher.assign(p.slices.size(), kNone);
        const std::uint32_t dependency = p.findString("dependency");
        for (const Flow& f : p.flows) {
            m_cancel();
            if (!f.from.valid() || !f.to.valid())
                continue;
            const SliceClass from = p.classOf(p.slice(f.from));
            if ((from == SliceClass::Runtime || from == SliceClass::RuntimeSync) &&
                isDeviceWork(p.classOf(p.slice(f.to)))) {
                m_launcher[f.to.value] = f.from.value;
                m_linksLaunches = true;
            } else if (dependency != kNone && p.types[f.type].category == dependency)
                m_dependencies.emplace_back(f.to.value, f.from.value);
        }
    }
    // When the last of `slice`'s dependencies in the graph ended (INT64_MIN if none).
    Ticks dependenciesEnd(std::uint32_t slice) const
    {
        Ticks latest = INT64_MIN;
        for (auto d =
                 std::lower_bound(m_dependencies.begin(), m_dependencies.end(), std::make_pair(slice, 0u));
             d != m_dependencies.end() && d->first == slice; ++d)
            if (m_index[d->second] != kNoNode)
                latest = std::max(latest, p.slices[d->second].end());
        return latest;
    }

    // A CPU thread: HTA's walk of its call stack. Edges join each node to the next one in time, the time
    // between attributed to the innermost operator it is spent in; top-level operators follow each other
    // with zero-weight edges (the gap between them is not the thread's work).
    void addThread(std::span<const std::uint32_t> slices)
    {
        std::vector<std::uint32_t> open;
        std::uint32_t last = kNoNode, lastTopLevel = kNoNode;
        const auto exit = [&] {
            const std::uint32_t x = open.back();
            open.pop_back();
            if (last != kNoNode) {
                // From a start: the time is that slice's; from an end: the exiting slice's (its tail).
                // A blocking call's own time weighs nothing (its wait is the device's), but for an
                // asynchronous copy that no device work ended during: it did not wait.
                const Slice& xs = p.slices[x];
                const bool waits = isBlocking(p, xs) && (m_waitedForDevice[x] || !isAsyncCopyCall(p, xs));
                add(last, end(x), waits ? 0 : time(end(x)) - time(last), EdgeKind::HostSpan, x);
            }
            if (open.empty()) {
                last = kNoNode;
                lastTopLevel = end(x);
            } else {
                last = end(x);
            }
        };
        for (const std::uint32_t i : slices) {
            m_cancel();
            const Slice& s = p.slices[i];
            while (!open.empty() &&
                   (p.slices[open.back()].end() <= s.start || p.slices[open.back()].end() < s.end()))
                exit();
            if (open.empty() && lastTopLevel != kNoNode)
                add(lastTopLevel, start(i), 0, EdgeKind::Dependency, i);
            if (last != kNoNode) {
                // A start to a nested start: the outer slice's time; an end to a start: the enclosing one's.
                const std::uint32_t owner = last % 2 == 0 ? m_slices[last / 2] : open.back();
                add(last, start(i), time(start(i)) - time(last), EdgeKind::HostSpan, owner);
            }
            last = start(i);
            open.push_back(i);
        }
        while (!open.empty())
            exit();
    }

    // The host slices of thread track `t` in the graph, in start order.
    std::span<const std::uint32_t> nodesOf(std::uint32_t t) const
    {
        return std::span(m_slices).subspan(m_trackNodes[t], m_trackNodes[t + 1] - m_trackNodes[t]);
    }
    // HTA's merge of the backward pass's thread into the forward pass's (CPGraph._construct_graph_from_call
    // _stacks): both threads' slices as one call stack, in start order, the enclosing one first. The main
    // thread waits while the autograd thread runs the backward pass, so the path goes through its operators
    // as if the main thread ran them; without it the path skips the backward pass (a step of HTA's
    // sampled training trace: 267.6 ms instead of HTA's 301.5 ms).
    std::span<const std::uint32_t> mergedNodes(std::uint32_t forward, std::uint32_t backward)
    {
        if (backward == kNone)
            return nodesOf(forward);
        const auto a = nodesOf(forward), b = nodesOf(backward);
        m_merged.resize(a.size() + b.size());
        std::merge(a.begin(), a.end(), b.begin(), b.end(), m_merged.begin(),
                   [&](std::uint32_t x, std::uint32_t y) {
                       const Slice &sx = p.slices[x], &sy = p.slices[y];
                       return sx.start != sy.start ? sx.start < sy.start : sx.end() > sy.end();
                   });
        return m_merged;
    }

    // A device stream: each piece of work's span; before it, its launch delay when the stream was empty at
    // the launch (the previous work had ended before the call began), else the gap after the previous work.
    void addStream(std::uint32_t track)
    {
        const Track& t = p.tracks[track];
        std::uint32_t prev = kNone;
        for (std::uint32_t i = t.firstSlice; i < t.firstSlice + t.sliceCount; ++i) {
            m_cancel();
            if (m_index[i] == kNoNode)
                continue;
            const Slice& s = p.slices[i];
            add(start(i), end(i), s.duration, EdgeKind::DeviceSpan, i);
            // As HTA: a dependency that ended later than the launch or the previous work is what it waited
            // for (a zero-weight edge, added in run()), not the launch or the stream.
            const std::uint32_t launch = m_launcher[i];
            const bool launched = launch != kNone && m_index[launch] != kNoNode;
            const Ticks dependency = dependenciesEnd(i);
            // HTA's queue lengths: the stream was empty at the launch (the previous work had ended before the
            // call began), and nothing was queued behind this work when it began (the next work's launch came
            // after its start). Work that started with another launch already waiting behind it is reached
            // from its predecessor on the stream, not from its launch.
            const std::uint32_t next = i + 1 < t.firstSlice + t.sliceCount ? m_launcher[i + 1] : kNone;
            const bool queuedBehind = next != kNone && p.slices[next].start < s.start;
            if (launched && !queuedBehind &&
                (prev == kNone || p.slices[prev].end() < p.slices[launch].start) &&
                dependency <= p.slices[launch].start)
                add(start(launch), start(i), s.start - p.slices[launch].start, EdgeKind::LaunchDelay, launch);
            else if (prev != kNone && dependency <= p.slices[prev].end() &&
                     s.start - p.slices[prev].end() < m_kernelKernelDelayLimit)
                add(end(prev), start(i), s.start - p.slices[prev].end(), EdgeKind::KernelKernel, prev);
            if (prev == kNone || s.end() >= p.slices[prev].end())
                prev = i;
        }
    }

    // A blocking call waited for the last work on each stream that ended while it waited; a synchronize,
    // for the last work on each stream that ended by its end. Calls x streams
    // probes, bounded (a hostile file of a million calls and a million streams must not take hours): past
    // the budget, later calls get no such edge and the path says it is approximate.
    //
    // A call Kineto wrote a cuda_sync event for waited for what that event names (profile/cuda_sync.h), as
    // in HTA: every stream, one stream, or the work an event was recorded after (then even if that work
    // ended before the call began, as HTA links it); the rest are told by their names, as above.
    //
    // A blocking call's own duration weighs nothing, as in HTA: its wait is the device's time, reached
    // through these edges. A cudaMemcpyAsync known by its name only that no device work ended during did
    // not wait for the device (a copy from pinned memory returns at once): its duration is host time, as
    // HTA counts every cudaMemcpyAsync's (the runtime lock). Without that, a step whose copies waited for
    // nothing lost their time: 2.7 ms of copies on HTA's 188.9 ms path of its nccl_parser_config trace.
    void findSyncWaits()
    {
        m_waitedForDevice.assign(p.slices.size(), false);
        std::uint64_t budget = 64 * std::uint64_t{m_slices.size()} + (1u << 20);
        for (const std::uint32_t call : m_slices) {
            m_cancel();
            const Slice& r = p.slices[call];
            if (p.track(r.track()).device)
                continue;
            const auto wait = std::lower_bound(m_syncs.hostWaits.begin(), m_syncs.hostWaits.end(), call,
                                               [](const HostWait& w, std::uint32_t c) { return w.call < c; });
            const bool named = wait != m_syncs.hostWaits.end() && wait->call == call;
            if (named && wait->on == HostWait::On::Work) {
                if (m_index[wait->work] != kNoNode)
                    m_syncWaits.emplace_back(wait->work, call);
                m_waitedForDevice[call] = isBlocking(p, r);
                continue;
            }
            if (named)
                m_waitedForDevice[call] = isBlocking(p, r);
            if (named ? wait->on == HostWait::On::Nothing : !isBlocking(p, r))
                continue;
            if (budget < m_streamWork.size()) {
                // Out of budget: this and later blocking calls are taken to have waited (weight 0, as
                // before there was a budget to say otherwise), but not what for.
                m_approximate = true;
                if (!named)
                    m_waitedForDevice[call] = true;
                continue;
            }
            budget -= m_streamWork.size();
            const bool synchronizes = named || p.classOf(r) == SliceClass::RuntimeSync;
            for (const auto& [track, work] : m_streamWork) {
                m_cancel();
                if (named && wait->on == HostWait::On::Stream && TrackId(track) != wait->stream)
                    continue;
                // Work on a stream ends in start order: the last that ended by the call's end.
                auto it = std::upper_bound(work.begin(), work.end(), r.end(),
                                           [&](Ticks v, std::uint32_t k) { return v < p.slices[k].end(); });
                if (it == work.begin())
                    continue;
                // A synchronize (cudaDeviceSynchronize, ...) also when that work had ended before it began
                // (it returned at once), as HTA links a Context Sync to the last work of every stream: the
                // host went on only after it, so a path through the device and the call's end is a real
                // one, and may be the heaviest. Other blocking calls (cudaMemcpyAsync, cudaEventQuery)
                // wait for one stream's or event's work, which the profile does not name: only work that
                // ended while they waited is taken as what they waited for.
                const std::uint32_t w = *std::prev(it);
                if (synchronizes || p.slices[w].end() > r.start) {
                    m_syncWaits.emplace_back(w, call);
                    m_waitedForDevice[call] = true;
                }
            }
        }
    }

    CriticalPath heaviestPath()
    {
        CriticalPath path;
        path.approximate = m_approximate;
        path.windowStart = m_window.from;
        path.windowEnd = m_window.to;
        const std::size_t nodes = 2 * m_slices.size();
        if (nodes == 0)
            return path;
        // Topological order: by time, a start before an end at the same instant, then node id; every edge
        // goes forward in time, and the few at equal times (a start to a nested start, a dependency at
        // the same instant) are ordered by Kahn's algorithm over that order.
        std::vector<std::uint32_t> indegree(nodes, 0), firstOut(nodes + 1, 0);
        for (const Edge& e : m_edges) {
            m_cancel();
            ++indegree[e.to];
            ++firstOut[e.from + 1];
        }
        for (std::size_t n = 0; n < nodes; ++n) {
            m_cancel();
            firstOut[n + 1] += firstOut[n];
        }
        std::vector<std::uint32_t> out(m_edges.size());
        {
            std::vector<std::uint32_t> fill(firstOut.begin(), firstOut.end() - 1);
            for (std::uint32_t e = 0; e < m_edges.size(); ++e) {
                m_cancel();
                out[fill[m_edges[e].from]++] = e;
            }
        }
        // Left uninitialised and filled in a loop that polls: at 20 M nodes, zeroing them at allocation
        // is a tenth of a second without a cancel poll.
        const auto best = std::make_unique_for_overwrite<Ticks[]>(nodes);
        const auto via = std::make_unique_for_overwrite<std::uint32_t[]>(nodes); // edge into the node
        std::vector<std::uint32_t> ready;
        for (std::uint32_t n = 0; n < nodes; ++n) {
            m_cancel();
            best[n] = 0;
            via[n] = UINT32_MAX;
            if (indegree[n] == 0)
                ready.push_back(n);
        }
        std::uint32_t heaviest = ready.empty() ? 0 : ready.front();
        while (!ready.empty()) {
            m_cancel();
            const std::uint32_t n = ready.back();
            ready.pop_back();
            if (best[n] > best[heaviest] || (best[n] == best[heaviest] && time(n) > time(heaviest)))
                heaviest = n;
            for (std::uint32_t k = firstOut[n]; k < firstOut[n + 1]; ++k) {
                const Edge& e = m_edges[out[k]];
                if (via[e.to] == UINT32_MAX || best[n] + e.weight > best[e.to]) {
                    best[e.to] = best[n] + e.weight;
                    via[e.to] = out[k];
                }
                if (--indegree[e.to] == 0)
                    ready.push_back(e.to);
            }
        }
        for (std::uint32_t n = heaviest; via[n] != UINT32_MAX;) {
            m_cancel();
            const Edge& e = m_edges[via[n]];
            if (e.weight > 0)
                path.segments.push_back({kindOf(e), time(e.from), time(e.to), SliceRow(e.slice)});
            n = e.from;
        }
        std::reverse(path.segments.begin(), path.segments.end());
        std::vector<PathSegment> merged;
        for (const PathSegment& s : path.segments) {
            m_cancel();
            if (!merged.empty() && merged.back().kind == s.kind && merged.back().slice == s.slice &&
                merged.back().end == s.start)
                merged.back().end = s.end;
            else
                merged.push_back(s);
            path.byKind[static_cast<std::size_t>(s.kind)] += s.end - s.start;
            path.length += s.end - s.start;
        }
        path.segments = std::move(merged);
        return path;
    }

    PathSegmentKind kindOf(const Edge& e) const
    {
        switch (e.kind) {
        case EdgeKind::HostSpan: return PathSegmentKind::Host;
        case EdgeKind::LaunchDelay: return PathSegmentKind::LaunchDelay;
        case EdgeKind::KernelKernel: return PathSegmentKind::Idle;
        case EdgeKind::Dependency: return PathSegmentKind::Sync; // weighs 0: never a segment
        case EdgeKind::DeviceSpan: break;
        }
        const SliceClass c = p.classOf(p.slices[e.slice]);
        return c == SliceClass::Kernel          ? PathSegmentKind::Kernel
               : c == SliceClass::Communication ? PathSegmentKind::Communication
                                                : PathSegmentKind::Memcpy;
    }

    const Profile& p;
    const Ticks m_kernelKernelDelayLimit = p.timebase.fromNanos(kKernelKernelDelayLimit);
    CriticalPathWindow m_window;
    std::vector<std::uint32_t> m_index;  // slice -> its position in m_slices, or kNoNode
    std::vector<std::uint32_t> m_slices; // the slices in the graph; node 2k is k's start, 2k+1 its end
    std::vector<Edge> m_edges;
    std::vector<std::uint32_t> m_launcher;                               // device slice -> runtime call
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_dependencies; // (slice, what it waited for)
    std::map<std::uint32_t, std::vector<std::uint32_t>> m_streamWork;    // device track -> its work
    std::vector<std::uint32_t> m_trackNodes; // track -> its first position in m_slices (prefix sums)
    PassThreadFinder m_passes;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_syncWaits; // (device work, the call that waited)
    std::vector<bool> m_waitedForDevice; // slice -> a blocking call whose own time weighs nothing
    std::vector<std::uint32_t> m_merged; // the forward and backward threads' nodes, merged
    bool m_approximate = false;
    bool m_linksLaunches = false; // some device work has a launch
    CudaSyncs m_syncs;            // what Kineto's cuda_sync events say calls and streams waited for
    CancelPoint m_cancel;         // polled per slice, flow and edge in every pass
};

} // namespace

std::string_view pathSegmentName(PathSegmentKind k)
{
    switch (k) {
    case PathSegmentKind::Host: return "host";
    case PathSegmentKind::Kernel: return "kernel";
    case PathSegmentKind::Communication: return "communication";
    case PathSegmentKind::Memcpy: return "memcpy";
    case PathSegmentKind::LaunchDelay: return "launch delay";
    case PathSegmentKind::Sync: return "sync wait";
    case PathSegmentKind::Idle: return "idle";
    case PathSegmentKind::Count_: break;
    }
    return "?";
}

CriticalPath htaCriticalPath(const Profile& profile, const CriticalPathWindow& window, std::stop_token stop)
{
    return Graph(profile, window, std::move(stop)).run();
}

CriticalPath computeCriticalPath(const Profile& profile, const CriticalPathWindow& window,
                                 std::stop_token stop)
{
    if (profile.exactCriticalPath)
        return clipCriticalPath(*profile.exactCriticalPath, window);
    return htaCriticalPath(profile, window, std::move(stop));
}

CriticalPath clipCriticalPath(const CriticalPath& path, const CriticalPathWindow& window)
{
    if (window.from <= path.windowStart && window.to >= path.windowEnd)
        return path; // the whole path: no cut
    CriticalPath cut;
    cut.approximate = path.approximate;
    cut.windowStart = std::max(window.from, path.windowStart); // what it was computed over, as HTA's says
    cut.windowEnd = std::min(window.to, path.windowEnd);
    for (const PathSegment& s : path.segments) {
        const Ticks start = std::max(s.start, window.from), end = std::min(s.end, window.to);
        if (end <= start)
            continue;
        cut.segments.push_back({s.kind, start, end, s.slice});
        cut.byKind[static_cast<std::size_t>(s.kind)] += end - start;
        cut.length += end - start;
    }
    return cut;
}

std::optional<CriticalPathWindow> windowOfSlice(const Profile& profile, std::string_view name)
{
    for (const Slice& s : profile.slices)
        if (profile.nameOf(s) == name)
            return CriticalPathWindow{s.start, s.end()};
    return std::nullopt;
}

} // namespace xps::profile

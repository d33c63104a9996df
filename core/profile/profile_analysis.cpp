#include "profile/profile_analysis.h"
#include "profile/gpu_metrics.h"
#include "profile/intervals.h"
#include "profile/launches.h"

#include "util/cancel.h"
#include "util/checked_number.h"
#include "util/sort_runs.h"
#include "util/text.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

namespace xps::profile {
namespace {

// Kineto's framework operators (not Python functions or user annotations).
bool isOperatorCategory(std::string_view category)
{
    return category == "cpu_op" || category == "operator" || category == "Operator";
}

class Analyzer
{
public:
    Analyzer(const Profile& profile, std::stop_token stop, std::optional<CriticalPathWindow> opsWindow = {})
        : p(profile), m_stop(stop), m_cancel(std::move(stop)), m_opsWindow(opsWindow)
    {
    }
    ProfileAnalysis run();
    std::vector<OpStats> operations()
    {
        ProfileAnalysis out;
        indexLaunches();
        ops(out);
        return std::move(out.ops);
    }

private:
    void indexLaunches();
    void devices(ProfileAnalysis& out);
    void streams(ProfileAnalysis& out);
    void launches(ProfileAnalysis& out);
    void ops(ProfileAnalysis& out);
    void criticalPath(ProfileAnalysis& out);
    void findings(ProfileAnalysis& out);

    bool isDeviceSlice(std::uint32_t i) const { return isDeviceWork(p.classOf(p.slices[i])); }
    // Whether slice `i` counts in the operations' window: launched from inside it, or lying inside it.
    bool inOpsWindow(std::uint32_t i) const
    {
        if (!m_opsWindow)
            return true;
        // In a profile that links launches (Kineto), device work nothing launched is not any step's, as in
        // HTA (its iteration is -1); in one that does not (XSpace, Chakra, a replay), it goes by its time.
        if (m_launcher[i] == kNone && m_linksLaunches && isDeviceSlice(i))
            return false;
        const Slice& s = p.slices[m_launcher[i] != kNone ? m_launcher[i] : i];
        return s.start >= m_opsWindow->from && s.end() <= m_opsWindow->to;
    }

    const Profile& p;
    std::vector<std::uint32_t> m_launcher;
    std::stop_token m_stop;
    CancelPoint m_cancel; // polled per slice, flow and item in every pass    // device slice -> runtime call
                          // that launched it
    std::vector<std::uint32_t> m_opOf;        // runtime slice -> innermost CPU op around it
    std::vector<std::uint32_t> m_deviceByEnd; // device-work slices by end
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> m_deviceOnTrack;  // by start
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> m_anchorsOnTrack; // runtime calls, by start
    std::vector<std::pair<std::uint32_t, std::uint32_t>>
        m_dependsOn;                               // (slice, what it waited for), by slice:
                                                   // flows of category "dependency" (Chakra)
    std::optional<CriticalPathWindow> m_opsWindow; // operationsIn's
    bool m_linksLaunches = false;                  // some device work has a launch
};

void Analyzer::indexLaunches()
{
    const std::uint32_t dependency = p.findString("dependency");
    for (const Flow& f : p.flows) {
        m_cancel();
        if (f.from.valid() && f.to.valid() && p.types[f.type].category == dependency)
            m_dependsOn.emplace_back(f.to.value, f.from.value);
    }
    m_launcher = launchers(p, m_cancel);
    m_linksLaunches =
        std::any_of(m_launcher.begin(), m_launcher.end(), [](std::uint32_t l) { return l != kNone; });
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        m_cancel();
        const Slice& s = p.slices[i];
        const SliceClass c = p.classOf(s);
        if (isDeviceWork(c)) {
            m_deviceByEnd.push_back(i);
            m_deviceOnTrack[s.track().value].push_back(i);
        } else if (c == SliceClass::Runtime || c == SliceClass::RuntimeSync) {
            m_anchorsOnTrack[s.track().value].push_back(i);
        }
    }
    // A track's slices come in time order: merge the tracks' runs. Dependencies by slice: a counting sort.
    sortRuns(m_deviceByEnd, m_cancel.polling([&](std::uint32_t a, std::uint32_t b) {
        return p.slices[a].end() < p.slices[b].end();
    }));
    sortPairsByKey(m_dependsOn, p.slices.size());
}

void Analyzer::devices(ProfileAnalysis& out)
{
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
        const Track& process = p.tracks[t];
        if (process.kind != TrackKind::Process || !process.device)
            continue;
        Intervals all, compute, comm, copy, set;
        for (std::uint32_t c = 0; c < p.tracks.size(); ++c) {
            if (p.tracks[c].parent != TrackId(t))
                continue;
            const auto it = m_deviceOnTrack.find(c);
            if (it == m_deviceOnTrack.end())
                continue;
            for (const std::uint32_t i : it->second) {
                m_cancel();
                const Slice& s = p.slices[i];
                const std::pair<Ticks, Ticks> iv{s.start, s.end()};
                all.push_back(iv);
                switch (p.classOf(s)) {
                case SliceClass::Kernel: compute.push_back(iv); break;
                case SliceClass::Communication: comm.push_back(iv); break;
                case SliceClass::Memcpy: copy.push_back(iv); break;
                case SliceClass::Memset: set.push_back(iv); break;
                default: break;
                }
            }
        }
        DeviceBreakdown d;
        d.process = TrackId(t);
        d.name = process.name;
        d.span = out.span;
        const Intervals c = merged(std::move(compute), &m_cancel), m = merged(std::move(comm), &m_cancel),
                        y = merged(std::move(copy), &m_cancel);
        const Intervals busy = merged(std::move(all), &m_cancel);
        if (!busy.empty()) {
            d.activeStart = busy.front().first;
            d.activeEnd = busy.back().second;
        }
        d.busy = total(busy);
        d.compute = total(c);
        d.communication = total(m);
        d.memcpy = total(y);
        d.memset = total(merged(std::move(set), &m_cancel));
        d.communicationOverlapped = overlap(m, c);
        d.memcpyOverlapped = overlap(y, c);
        Intervals computeOrComm = c;
        computeOrComm.insert(computeOrComm.end(), m.begin(), m.end());
        d.memcpyOverlappedAny = overlap(y, merged(std::move(computeOrComm), &m_cancel));
        out.devices.push_back(std::move(d));
    }
}

void Analyzer::streams(ProfileAnalysis& out)
{
    for (const auto& [track, items] : m_deviceOnTrack) {
        StreamUse u;
        u.track = TrackId(track);
        u.name = trackLabel(p, TrackId(track));
        u.items = items.size();
        Ticks communication = 0, all = 0;
        for (const std::uint32_t i : items) {
            m_cancel();
            all = checked::saturatingAdd(all, p.slices[i].duration);
            if (p.classOf(p.slices[i]) == SliceClass::Communication)
                communication = checked::saturatingAdd(communication, p.slices[i].duration);
        }
        u.communication = communication > all / 2;
        Ticks coveredUntil = INT64_MIN;
        for (const std::uint32_t i : items) {
            m_cancel();
            const Slice& s = p.slices[i];
            if (coveredUntil != INT64_MIN && s.start > coveredUntil) {
                const Ticks gap = s.start - coveredUntil;
                u.idle += gap;
                // The stream went idle before the host had even begun to launch this work.
                if (!u.communication && m_launcher[i] != kNone &&
                    p.slices[m_launcher[i]].start >= coveredUntil) {
                    u.launchIdle += gap;
                    ++u.launchBoundGaps;
                }
            }
            if (s.start >= coveredUntil)
                u.busy += s.duration;
            else if (s.end() > coveredUntil)
                u.busy += s.end() - coveredUntil;
            coveredUntil = std::max(coveredUntil, s.end());
        }
        out.streams.push_back(std::move(u));
    }
    std::sort(out.streams.begin(), out.streams.end(),
              [](const StreamUse& a, const StreamUse& b) { return a.track < b.track; });
}

void Analyzer::launches(ProfileAnalysis& out)
{
    std::vector<std::pair<Ticks, std::uint32_t>> delays;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        m_cancel();
        if (m_launcher[i] == kNone)
            continue;
        const Slice &k = p.slices[i], &r = p.slices[m_launcher[i]];
        delays.emplace_back(std::max<Ticks>(k.start - r.start, 0), i);
        if (k.duration < r.duration)
            ++out.launch.shortKernels;
    }
    if (delays.empty())
        return;
    std::sort(delays.begin(), delays.end(), m_cancel.polling(std::less<>()));
    LaunchStats& l = out.launch;
    l.launches = delays.size();
    Ticks sum = 0;
    for (const auto& [d, i] : delays)
        sum += d;
    l.meanDelay = sum / static_cast<Ticks>(delays.size());
    l.p50Delay = delays[delays.size() / 2].first;
    l.p95Delay = delays[std::min(delays.size() - 1, delays.size() * 95 / 100)].first;
    l.maxDelay = delays.back().first;
    l.maxDelaySlice = SliceRow(delays.back().second);
}

void Analyzer::ops(ProfileAnalysis& out)
{
    std::vector<Ticks> childTime(p.slices.size(), 0);
    m_opOf.assign(p.slices.size(), kNone);
    std::vector<std::uint32_t> enclosingOp(p.slices.size(), kNone); // CPU op -> the CPU op around it
    std::vector<std::uint32_t> stack;
    for (const Track& t : p.tracks) {
        if (t.kind == TrackKind::Async || t.kind == TrackKind::Counter)
            continue;
        stack.clear();
        for (std::uint32_t i = t.firstSlice; i < t.firstSlice + t.sliceCount; ++i) {
            m_cancel();
            const Slice& s = p.slices[i];
            while (!stack.empty() && p.slices[stack.back()].end() <= s.start)
                stack.pop_back();
            if (!stack.empty()) {
                childTime[stack.back()] += std::min(s.end(), p.slices[stack.back()].end()) - s.start;
                const SliceClass c = p.classOf(s);
                if (c == SliceClass::Runtime || c == SliceClass::RuntimeSync || c == SliceClass::CpuOp)
                    for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                        if (p.classOf(p.slices[*it]) == SliceClass::CpuOp) {
                            (c == SliceClass::CpuOp ? enclosingOp : m_opOf)[i] = *it;
                            break;
                        }
            }
            if (s.duration > 0)
                stack.push_back(i);
        }
    }
    // An operator whose only nested operator has its name is one call with it (a dispatcher's re-entry:
    // aten::div inside aten::div), as PyTorch's profiler tables and the TensorBoard plugin merge them
    // (EventList._remove_dup_nodes): the inner one is not a call of its own; its self time is the outer's.
    std::vector<std::uint32_t> nestedOps(p.slices.size(), 0);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (m_cancel(); enclosingOp[i] != kNone)
            ++nestedOps[enclosingOp[i]];
    std::vector<bool> mergedIntoOuter(p.slices.size(), false);
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        m_cancel();
        const std::uint32_t outer = enclosingOp[i];
        mergedIntoOuter[i] = outer != kNone && nestedOps[outer] == 1 &&
                             p.slices[outer].type == p.slices[i].type &&
                             isOperatorCategory(p.categoryOf(p.slices[i]));
    }
    // Rows: one per type, and per device for what ran on one (device work, and the annotations and regions
    // drawn on a device's tracks: a chip's "decode_layer" is that chip's, not the host's).
    std::vector<OpStats> rows;
    std::vector<std::uint32_t> hostRow(p.types.size(), kNone);
    std::unordered_map<std::uint64_t, std::uint32_t> deviceRow; // type << 32 | process
    const auto rowOf = [&](std::uint32_t slice) -> OpStats& {
        const Slice& s = p.slices[slice];
        const Track& track = p.track(s.track());
        const bool device = track.device;
        std::uint32_t* row = &hostRow[s.type];
        const std::uint32_t process = p.processOf(s.track()).value;
        if (device)
            row = &deviceRow.try_emplace(std::uint64_t{s.type} << 32 | process, kNone).first->second;
        if (*row == kNone) {
            *row = static_cast<std::uint32_t>(rows.size());
            OpStats o;
            o.type = s.type;
            o.cls = p.classOf(s);
            o.device = track.device;
            o.process = device ? TrackId(process) : TrackId();
            o.min = s.duration;
            rows.push_back(o);
        }
        return rows[*row];
    };
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        m_cancel();
        if (!inOpsWindow(i))
            continue;
        const Slice& s = p.slices[i];
        if (p.track(s.track()).detail)
            continue;
        OpStats& o = rowOf(i);
        if (mergedIntoOuter[i]) { // the outer one's row: its name's
            o.self += std::max<Ticks>(s.duration - childTime[i], 0);
            continue;
        }
        if (o.process.valid() && isDeviceWork(o.cls)) {
            o.deviceTime += s.duration;
            o.deviceTotal += s.duration;
        }
        ++o.count;
        o.total += s.duration;
        o.self += std::max<Ticks>(s.duration - childTime[i], 0);
        o.min = std::min(o.min, s.duration);
        if (!o.longest.valid() || s.duration > o.max) {
            o.max = s.duration;
            o.longest = SliceRow(i);
        }
        if (!o.first.valid() || s.start < p.slices[o.first.value].start)
            o.first = SliceRow(i);
    }
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        if (m_cancel(); m_launcher[i] == kNone || m_opOf[m_launcher[i]] == kNone || !inOpsWindow(i))
            continue;
        const std::uint32_t launchedIn = m_opOf[m_launcher[i]];
        rowOf(launchedIn).deviceTime += p.slices[i].duration;
        // Every operator around it: an instance of a name inside another of the same name counts it twice,
        // as the plugin's per-name sum does.
        for (std::uint32_t op = launchedIn; op != kNone; op = enclosingOp[op])
            if (!mergedIntoOuter[op])
                rowOf(op).deviceTotal += p.slices[i].duration;
    }
    out.ops = std::move(rows);
    std::stable_sort(out.ops.begin(), out.ops.end(),
                     [](const OpStats& a, const OpStats& b) { return a.total > b.total; });
}

void Analyzer::criticalPath(ProfileAnalysis& out)
{
    out.criticalPath = computeCriticalPath(p, {}, m_stop);
}

void Analyzer::findings(ProfileAnalysis& out)
{
    const Timebase& tb = p.timebase; // the findings' words say times as a person reads them
    const auto longest = [&](TrackId process, SliceClass cls) {
        std::vector<SliceRow> v;
        for (const auto& [track, items] : m_deviceOnTrack)
            if (p.tracks[track].parent == process)
                for (const std::uint32_t i : items)
                    if (m_cancel(); p.classOf(p.slices[i]) == cls)
                        v.push_back(SliceRow(i));
        // The three longest (the earliest of equals first): no need to order the other million.
        const std::size_t kept = std::min<std::size_t>(v.size(), 3);
        std::partial_sort(
            v.begin(), v.begin() + static_cast<std::ptrdiff_t>(kept), v.end(), [&](SliceRow a, SliceRow b) {
                return p.slice(a).duration != p.slice(b).duration ? p.slice(a).duration > p.slice(b).duration
                                                                  : a < b;
            });
        v.resize(kept);
        return v;
    };
    const auto rangeOf = [&](ProfileFinding& f) {
        if (f.slices.empty()) {
            f.from = p.startTime();
            f.to = p.endTime();
            return;
        }
        f.from = INT64_MAX;
        f.to = INT64_MIN;
        for (const SliceRow i : f.slices) {
            f.from = std::min(f.from, p.slice(i).start);
            f.to = std::max(f.to, p.slice(i).end());
        }
    };
    // Exposed copies and communication: one finding each, over every device that shows it. Devices run in
    // parallel, so what it could save is the largest device's share, not the sum.
    const auto exposed = [&](const char* kind, SliceClass cls, auto exposedOf, auto totalOf,
                             const std::string& what, const char* verb, const std::string& advice) {
        std::vector<const DeviceBreakdown*> hit;
        for (const DeviceBreakdown& d : out.devices)
            if (exposedOf(d) > 0 && exposedOf(d) > d.span / 50) // x * 50 > span, without overflow
                hit.push_back(&d);
        if (hit.empty())
            return;
        const DeviceBreakdown* worst = *std::max_element(
            hit.begin(), hit.end(), [&](auto* a, auto* b) { return exposedOf(*a) < exposedOf(*b); });
        std::string where = hit.size() == 1 ? worst->name : std::to_string(hit.size()) + " devices";
        std::string detail;
        for (const DeviceBreakdown* d : hit)
            detail += d->name + ": " + tb.ms(exposedOf(*d)) + " of " + tb.ms(totalOf(*d)) + " (" +
                      formatPercent(exposedOf(*d), totalOf(*d)) + ") with no compute beside it; ";
        ProfileFinding f{kind,
                         what + " on " + where + " " + verb + " exposed",
                         detail + advice,
                         exposedOf(*worst),
                         0,
                         0,
                         longest(worst->process, cls)};
        rangeOf(f);
        out.findings.push_back(std::move(f));
    };
    const bool replay = p.format == kReplayFormat;
    exposed(
        "exposed-memcpy", SliceClass::Memcpy, [](const DeviceBreakdown& d) { return d.memcpyExposed(); },
        [](const DeviceBreakdown& d) { return d.memcpy; }, replay ? "DMAs" : "Memory copies", "are",
        replay
            ? "issue each DMA earlier (hoist it out of the loop, or a block ahead) or double-buffer its "
              "destination so the core computes while it lands; the replay's suggestions measure such "
              "changes."
            : "copy from pinned host memory with non_blocking=True on a side stream, and prefetch the next "
              "batch while this one computes.");
    exposed(
        "exposed-communication", SliceClass::Communication,
        [](const DeviceBreakdown& d) { return d.communicationExposed(); },
        [](const DeviceBreakdown& d) { return d.communication; }, replay ? "ICI transfers" : "Communication",
        replay ? "are" : "is",
        replay
            ? "overlap them with compute (send in chunks as the data is produced, use both ring directions)."
            : "overlap it with compute (bucketed gradient all-reduce, prefetching the next layer's "
              "all-gather).");
    // Devices that wait for the slowest one (a straggler rank, an unbalanced split).
    if (out.devices.size() >= 2) {
        const auto busiest = std::max_element(
            out.devices.begin(), out.devices.end(),
            [](const DeviceBreakdown& a, const DeviceBreakdown& b) { return a.busy < b.busy; });
        Ticks sum = 0; // saturating: a hostile file's busy times can each be near 2^63
        for (const DeviceBreakdown& d : out.devices)
            sum = checked::saturatingAdd(sum, d.busy);
        const Ticks mean = sum / static_cast<Ticks>(out.devices.size());
        if (busiest->busy - mean > out.span / 20) {
            ProfileFinding f{"device-imbalance",
                             busiest->name + " sets the pace: the other devices wait for it",
                             busiest->name + " is busy " + tb.ms(busiest->busy) + " (" +
                                 formatPercent(busiest->busy, out.span) + " of the run) against a mean of " +
                                 tb.ms(mean) + " over " + std::to_string(out.devices.size()) +
                                 " devices; the others idle while collectives and dependencies wait for it. "
                                 "Balance the work "
                                 "(or find why this device is slower: thermal, a different part, more data) "
                                 "to win up to the "
                                 "difference.",
                             busiest->busy - mean,
                             p.startTime(),
                             p.endTime(),
                             {}};
            out.findings.push_back(std::move(f));
        }
    }
    for (const StreamUse& u : out.streams) {
        if (u.launchBoundGaps >= 10 && u.launchIdle > out.span / 20) { // x * 20 > span, without overflow
            ProfileFinding f{"launch-bound",
                             u.name + " waits for the host to launch its work",
                             tb.ms(u.launchIdle) + " in " + text::withThousands(u.launchBoundGaps) +
                                 " gaps where the stream had finished before the launch call began (" +
                                 text::withThousands(out.launch.shortKernels) +
                                 " kernels ran shorter than their launch call; median launch delay " +
                                 tb.ms(out.launch.p50Delay) +
                                 "). Capture the loop as a CUDA graph or fuse the small "
                                 "kernels (torch.compile) so the host stops pacing the device.",
                             u.launchIdle,
                             0,
                             0,
                             {}};
            rangeOf(f);
            out.findings.push_back(std::move(f));
        }
    }
    // Host synchronizations the device then waits out: the device idle after each sync until its next work.
    Ticks syncCost = 0, syncTime = 0;
    std::uint64_t syncs = 0;
    std::vector<std::pair<Ticks, std::uint32_t>> worst;
    std::vector<std::uint32_t> byStart = m_deviceByEnd;
    sortRuns(byStart,
             [&](std::uint32_t a, std::uint32_t b) { return p.slices[a].start < p.slices[b].start; });
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const Slice& s = p.slices[i];
        if (p.classOf(s) != SliceClass::RuntimeSync)
            continue;
        ++syncs;
        syncTime += s.duration;
        const auto next = std::lower_bound(byStart.begin(), byStart.end(), s.end(),
                                           [&](std::uint32_t k, Ticks v) { return p.slices[k].start < v; });
        if (next == byStart.end())
            continue;
        // Idle only if nothing on the device was still running when the sync returned.
        const auto before = std::upper_bound(m_deviceByEnd.begin(), m_deviceByEnd.end(), s.end(),
                                             [&](Ticks v, std::uint32_t k) { return v < p.slices[k].end(); });
        const Ticks lastEnd =
            before == m_deviceByEnd.begin() ? INT64_MIN : p.slices[*std::prev(before)].end();
        const Ticks idle = p.slices[*next].start - std::max(s.end(), lastEnd);
        if (idle > 0) {
            syncCost += idle;
            worst.emplace_back(idle, i);
        }
    }
    if (syncs > 0 && syncCost > out.span / 20) {
        std::sort(worst.rbegin(), worst.rend());
        ProfileFinding f{"host-sync",
                         "Host synchronizations leave the device idle",
                         text::withThousands(syncs) + " synchronizing calls block the host for " +
                             tb.ms(syncTime) + "; after they return the device sits idle " + tb.ms(syncCost) +
                             " (" + formatPercent(syncCost, out.span) +
                             " of the run) until the host launches again. Avoid .item(), .cpu() and explicit "
                             "synchronizes inside the loop, or defer them.",
                         syncCost,
                         0,
                         0,
                         {}};
        for (std::size_t k = 0; k < std::min<std::size_t>(worst.size(), 3); ++k)
            f.slices.push_back(SliceRow(worst[k].second));
        rangeOf(f);
        out.findings.push_back(std::move(f));
    }
    std::stable_sort(out.findings.begin(), out.findings.end(),
                     [](const ProfileFinding& a, const ProfileFinding& b) {
                         return a.estimatedSavings > b.estimatedSavings;
                     });
}

ProfileAnalysis Analyzer::run()
{
    ProfileAnalysis out;
    out.timebase = p.timebase;
    out.span = p.span();
    // Each pass polls in its loops; between passes, the token itself.
    indexLaunches();
    for (void (Analyzer::*pass)(ProfileAnalysis&) :
         {&Analyzer::devices, &Analyzer::streams, &Analyzer::launches, &Analyzer::ops,
          &Analyzer::criticalPath, &Analyzer::findings}) {
        throwIfStopped(m_stop);
        (this->*pass)(out);
    }
    out.opCategories = deviceTimeByCategory(p, kernelLaunchers(p, m_launcher, m_cancel));
    out.transfers = findTransfers(p, m_stop);
    for (const Transfer& t : out.transfers) {
        const TrackId process = p.track(p.slice(t.slice).track()).parent;
        for (DeviceBreakdown& d : out.devices)
            if (d.process == process) {
                ++d.transfers;
                d.transferBytes += t.bytes;
            }
    }
    // The TensorBoard plugin's steps: the kernel utilization's window and the step breakdown's rows.
    ProfilerSteps steps = profilerSteps(p, m_stop);
    for (DeviceUtilization& u : deviceUtilization(p, steps, m_stop))
        for (DeviceBreakdown& d : out.devices)
            if (d.process == u.process) {
                u.busyFraction.clear(); // the timeline has it as a counter track
                d.kernels = std::move(u);
            }
    out.stepTimes = stepBreakdown(p, std::move(steps), m_stop);
    return out;
}

} // namespace

std::string trackLabel(const Profile& profile, TrackId track)
{
    // Names as written, without the blanks around them that would show in a sentence (Kineto names its
    // streams "stream 7 ": "... / stream 7  waits for the host"); the tracks keep theirs.
    const auto trimmed = [](std::string_view name) {
        const std::size_t first = name.find_first_not_of(" \t");
        return first == std::string_view::npos
                   ? std::string()
                   : std::string(name.substr(first, name.find_last_not_of(" \t") - first + 1));
    };
    const Track& t = profile.track(track);
    if (!t.parent.valid())
        return trimmed(t.name);
    return trimmed(profile.track(t.parent).name) + " / " + trimmed(t.name);
}

ProfileAnalysis analyzeProfile(const Profile& profile, std::stop_token stop)
{
    return Analyzer(profile, std::move(stop)).run();
}

std::vector<OpStats> operationsIn(const Profile& profile, const CriticalPathWindow& window,
                                  std::stop_token stop)
{
    return Analyzer(profile, std::move(stop), window).operations();
}

} // namespace xps::profile

#include "profile/profile.h"
#include "profile/critical_path.h"
#include "util/cancel.h"
#include "util/release_memory.h"
#include "util/text.h"
#include "util/utf8.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace xps::profile {

std::string_view sliceClassName(SliceClass c)
{
    switch (c) {
    case SliceClass::Other: return "other";
    case SliceClass::CpuOp: return "CPU op";
    case SliceClass::Runtime: return "runtime call";
    case SliceClass::RuntimeSync: return "runtime sync";
    case SliceClass::Kernel: return "kernel";
    case SliceClass::Communication: return "communication";
    case SliceClass::Memcpy: return "memcpy";
    case SliceClass::Memset: return "memset";
    case SliceClass::DeviceAnnotation: return "device annotation";
    case SliceClass::Count_: break;
    }
    return "?";
}

std::vector<std::string> Profile::warningLines() const
{
    std::vector<std::string> lines;
    lines.reserve(repairs.size());
    for (const ImportRepair& r : repairs)
        lines.push_back(r.text());
    return lines;
}

std::uint32_t Profile::intern(std::string_view s)
{
    if (const auto it = m_stringIds.find(s); it != m_stringIds.end())
        return it->second;
    std::string stored(s);
    if (!text::isAscii(stored) && text::repairUtf8(stored) > 0) {
        ++m_repairedStrings; // a name from a protobuf (XSpace, Chakra) that was not UTF-8
        if (const auto it = m_stringIds.find(stored); it != m_stringIds.end())
            return it->second;
    }
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.push_back(std::move(stored));
    m_stringIds.emplace(m_strings.back(), id);
    return id;
}

std::uint32_t Profile::internArgs(std::string_view compactJson)
{
    if (compactJson.empty() || compactJson == "{}")
        return 0;
    if (const auto it = m_argIds.find(compactJson); it != m_argIds.end())
        return it->second;
    // Replacing an invalid sequence never touches JSON's ASCII structure, so the set stays valid JSON.
    std::string stored(compactJson);
    if (!text::isAscii(stored) && text::repairUtf8(stored) > 0) {
        ++m_repairedStrings;
        if (const auto it = m_argIds.find(stored); it != m_argIds.end())
            return it->second;
    }
    const auto id = static_cast<std::uint32_t>(m_argSets.size());
    m_argSets.push_back(std::move(stored));
    m_argIds.emplace(m_argSets.back(), id);
    return id;
}

std::uint32_t Profile::typeOf(std::string_view name, std::string_view category, SliceClass cls)
{
    const std::uint32_t n = intern(name), c = intern(category);
    const std::uint64_t key = static_cast<std::uint64_t>(n) << 32 | c;
    if (const auto it = m_typeIds.find(key); it != m_typeIds.end())
        return it->second;
    const auto id = static_cast<std::uint32_t>(types.size());
    types.push_back({n, c, cls});
    m_typeIds.emplace(key, id);
    return id;
}

std::vector<std::uint32_t> Profile::finish(std::stop_token stop)
{
    CancelPoint cancel(std::move(stop)); // polled per slice, argument and counter sample
    // Warnings quote what the file said (a profiler's own warning, a bad value): keep them valid text too.
    for (ImportRepair& r : repairs) {
        text::repairUtf8(r.what);
        text::repairUtf8(r.firstAt);
    }
    if (m_repairedStrings > 0)
        addRepair(RepairKind::Replaced, m_repairedStrings,
                  "names or argument sets held invalid UTF-8; each invalid sequence was replaced by U+FFFD");
    // Every analysis subtracts times of different events (gaps, spans, buckets): held within +-kTimeLimit,
    // any two differ by less than INT64_MAX. A real profile is nowhere near (2^62 ns is 146 years).
    std::uint64_t clamped = 0;
    for (Slice& x : slices) {
        cancel();
        const Ticks start = std::clamp(x.start, -kTimeLimit, kTimeLimit);
        const Ticks duration = std::min(x.duration, kTimeLimit - start);
        clamped += start != x.start || duration != x.duration ? 1 : 0;
        x.start = start;
        x.duration = duration;
    }
    for (CounterSample& c : counters) {
        cancel();
        const Ticks time = std::clamp(c.time, -kTimeLimit, kTimeLimit);
        clamped += time != c.time ? 1 : 0;
        c.time = time;
    }
    if (clamped > 0)
        addRepair(RepairKind::Clamped, clamped,
                  timebase.isNanoseconds()
                      ? "events lay beyond 2^62 ns (146 years) from the clock's zero; held at that limit"
                      : "events lay beyond 2^62 ticks (" + timebase.describe() +
                            ") from the clock's zero; held at that limit");
    // Order: by track, then start, then the longer first (a parent before the child that starts with it).
    const auto before = [](const Slice& x, const Slice& y) {
        if (x.track() != y.track())
            return x.track() < y.track();
        if (x.start != y.start)
            return x.start < y.start;
        return x.duration > y.duration;
    };
    std::vector<std::uint32_t> newIndex(slices.size());
    std::iota(newIndex.begin(), newIndex.end(), 0u);
    // Importers that read track by track (XSpace lines, Chakra streams) append in order already: no sort,
    // no permutation.
    if (!std::is_sorted(slices.begin(), slices.end(), cancel.polling(before))) {
        // By track in one counting pass (an importer appends tracks interleaved, each mostly in time
        // order), then by time within a track, sorted only where it is not in order already.
        std::uint32_t trackCount = 0;
        for (const Slice& x : slices)
            trackCount = std::max(trackCount, x.track().value + 1);
        std::vector<std::uint32_t> begin(trackCount + 1, 0);
        for (const Slice& x : slices)
            ++begin[x.track().value + 1];
        std::partial_sum(begin.begin(), begin.end(), begin.begin());
        std::vector<std::uint32_t> order(slices.size());
        {
            std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
            for (std::uint32_t i = 0; i < slices.size(); ++i)
                order[next[slices[i].track().value]++] = i;
        }
        const auto byTime = [&](std::uint32_t a, std::uint32_t b) { return before(slices[a], slices[b]); };
        for (std::uint32_t t = 0; t < trackCount; ++t) {
            const auto from = order.begin() + begin[t], to = order.begin() + begin[t + 1];
            if (!std::is_sorted(from, to, cancel.polling(byTime)))
                std::stable_sort(from, to, cancel.polling(byTime));
        }
        for (std::uint32_t k = 0; k < order.size(); ++k)
            newIndex[order[k]] = k;
        releaseMemory(order);
        // Moved in place, cycle by cycle, instead of into a sorted copy: 32 bytes per slice less at the peak.
        std::vector<bool> placed(slices.size());
        for (std::uint32_t first = 0; first < slices.size(); ++first) {
            cancel();
            if (placed[first])
                continue;
            Slice carried = slices[first];
            std::uint32_t at = first;
            do {
                at = newIndex[at];
                std::swap(carried, slices[at]);
                placed[at] = true;
            } while (at != first);
        }
    }
    for (Flow& f : flows) {
        cancel();
        if (f.from.valid())
            f.from = SliceRow(newIndex[f.from.value]);
        if (f.to.valid())
            f.to = SliceRow(newIndex[f.to.value]);
    }
    for (SliceArg& a : sliceArgs) {
        cancel();
        a.slice = SliceRow(newIndex[a.slice.value]);
    }
    const auto bySlice = [](const SliceArg& a, const SliceArg& b) { return a.slice < b.slice; };
    if (!std::is_sorted(sliceArgs.begin(), sliceArgs.end(), cancel.polling(bySlice)))
        std::stable_sort(sliceArgs.begin(), sliceArgs.end(), cancel.polling(bySlice));

    for (Track& t : tracks) {
        t.firstSlice = 0;
        t.sliceCount = 0;
        t.maxDepth = 0;
    }
    m_start = INT64_MAX;
    m_end = INT64_MIN;
    std::vector<Ticks> open; // ends of the enclosing slices (threads) or of each row (async)
    std::size_t improper = 0;
    for (std::uint32_t i = 0; i < slices.size();) {
        const TrackId track = slices[i].track();
        Track& t = tracks[track.value];
        t.firstSlice = i;
        open.clear();
        for (; i < slices.size() && slices[i].track() == track; ++i) {
            cancel();
            Slice& s = slices[i];
            m_start = std::min(m_start, s.start);
            m_end = std::max(m_end, s.end());
            std::uint32_t depth = 0;
            if (t.kind == TrackKind::Async) {
                // Rows: the first whose last slice has ended.
                while (depth < open.size() && open[depth] > s.start)
                    ++depth;
                if (depth == open.size())
                    open.push_back(s.end());
                else
                    open[depth] = s.end();
            } else {
                while (!open.empty() && open.back() <= s.start)
                    open.pop_back();
                if (!open.empty() && s.end() > open.back())
                    ++improper; // overlaps its enclosing slice without nesting: drawn one row deeper
                depth = static_cast<std::uint32_t>(open.size());
                if (s.duration > 0)
                    open.push_back(s.end());
            }
            s.trackAndDepth = track.value << 8 | std::min<std::uint32_t>(depth, 255);
            t.maxDepth = std::max(t.maxDepth, std::min<std::uint32_t>(depth, 255));
        }
        t.sliceCount = i - t.firstSlice;
    }
    if (improper > 0)
        addRepair(RepairKind::Nesting, improper,
                  "slices overlap the slice they start in without ending inside it; each is drawn one row "
                  "below it");

    std::stable_sort(counters.begin(), counters.end(),
                     cancel.polling([](const CounterSample& a, const CounterSample& b) {
                         return a.track != b.track ? a.track < b.track : a.time < b.time;
                     }));
    for (const CounterSample& c : counters) {
        m_start = std::min(m_start, c.time);
        m_end = std::max(m_end, c.time);
    }
    if (m_start > m_end)
        m_start = m_end = 0;
    // The importers grew these by doubling: give the slack back.
    shrinkIfWasteful(slices);
    shrinkIfWasteful(counters);
    shrinkIfWasteful(flows);
    shrinkIfWasteful(sliceArgs);
    return newIndex;
}

SliceRow Profile::sliceAt(TrackId track, Ticks time, int depth) const
{
    if (track.value >= tracks.size())
        return {};
    const Track& t = tracks[track.value];
    const auto first = slices.begin() + t.firstSlice, last = first + t.sliceCount;
    auto it = std::upper_bound(first, last, time, [](Ticks v, const Slice& s) { return v < s.start; });
    while (it != first) {
        --it;
        const Slice& s = *it;
        const bool contains = s.start <= time && (time < s.end() || (s.duration == 0 && time == s.start));
        if (depth < 0 ? contains : static_cast<int>(s.depth()) == depth)
            return contains ? SliceRow(static_cast<std::uint32_t>(it - slices.begin())) : SliceRow();
        if (s.depth() == 0 && t.kind != TrackKind::Async)
            return {}; // nothing that starts earlier reaches past a top-level slice that has ended
    }
    return {};
}

std::string Profile::argsOf(SliceRow row) const
{
    const Slice& s = slice(row);
    std::string out = s.args ? m_argSets[s.args] : std::string("{}");
    auto it = std::lower_bound(sliceArgs.begin(), sliceArgs.end(), row,
                               [](const SliceArg& a, SliceRow v) { return a.slice < v; });
    for (; it != sliceArgs.end() && it->slice == row; ++it) {
        std::string member = out.size() > 2 ? "," : "";
        member += '"';
        for (const char c : m_strings[it->key]) {
            if (c == '"' || c == '\\')
                member += '\\';
            member += c;
        }
        member += "\":" + std::to_string(it->value);
        out.insert(out.size() - 1, member);
    }
    return out;
}

std::size_t Profile::residentBytes() const
{
    std::size_t bytes = slices.capacity() * sizeof(Slice) + counters.capacity() * sizeof(CounterSample) +
                        flows.capacity() * sizeof(Flow) + sliceArgs.capacity() * sizeof(SliceArg) +
                        types.capacity() * sizeof(EventType);
    constexpr std::size_t kHashNode = 32; // a node of an unordered_map<string_view, uint32_t>, and its bucket
    for (const std::string& s : m_strings)
        bytes += sizeof(std::string) + (s.capacity() > 15 ? s.capacity() + 1 : 0) + kHashNode;
    for (const std::string& s : m_argSets)
        bytes += sizeof(std::string) + (s.capacity() > 15 ? s.capacity() + 1 : 0) + kHashNode;
    bytes += m_typeIds.size() * kHashNode;
    for (const Track& t : tracks)
        bytes += sizeof(Track) + (t.name.capacity() > 15 ? t.name.capacity() + 1 : 0);
    if (exactCriticalPath)
        bytes += sizeof(CriticalPath) + exactCriticalPath->segments.capacity() * sizeof(PathSegment);
    return bytes;
}

} // namespace xps::profile

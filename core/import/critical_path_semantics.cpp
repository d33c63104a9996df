#include "import/critical_path_semantics.h"

#include "profile/critical_path.h"
#include "util/cancel.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace xps::importing {

using profile::PathSegment;
using profile::PathSegmentKind;
using profile::Ticks;

namespace {

constexpr std::size_t kFields = 6; // kind, start, end, track, slice start, slice duration

} // namespace

void writeCriticalPathMember(const profile::Profile& p, std::FILE* f, std::stop_token stop)
{
    if (!p.exactCriticalPath)
        return;
    CancelPoint cancel(std::move(stop));
    nlohmann::json kinds = nlohmann::json::array();
    for (int k = 0; k < profile::kPathSegmentKindCount; ++k)
        kinds.push_back(std::string(profile::pathSegmentName(static_cast<PathSegmentKind>(k))));
    std::map<profile::TrackId, std::int64_t> trackIndex;
    nlohmann::json tracks = nlohmann::json::array();
    std::string segments; // flushed to `f` in blocks: tracks are known only at the end, so they go last
    const auto flush = [&] {
        std::fwrite(segments.data(), 1, segments.size(), f);
        segments.clear();
    };
    std::fputs(
        (",\"" + std::string(kCriticalPathKey) + "\":{\"kinds\":" + kinds.dump() + ",\"segments\":[").c_str(),
        f);
    bool first = true;
    for (const PathSegment& s : p.exactCriticalPath->segments) {
        cancel();
        std::int64_t track = -1;
        Ticks sliceStart = 0, sliceDuration = 0;
        if (s.slice.valid()) {
            const profile::Slice& slice = p.slice(s.slice);
            const profile::Track& t = p.track(slice.track());
            const auto [it, added] =
                trackIndex.try_emplace(slice.track(), static_cast<std::int64_t>(tracks.size()));
            if (added)
                tracks.push_back({t.pid, t.tid});
            track = it->second;
            sliceStart = slice.start;
            sliceDuration = slice.duration;
        }
        for (const std::int64_t v :
             {static_cast<std::int64_t>(s.kind), s.start, s.end, track, sliceStart, sliceDuration}) {
            if (!first)
                segments += ',';
            first = false;
            segments += std::to_string(v);
        }
        if (segments.size() >= (1u << 16))
            flush();
    }
    flush();
    std::fputs(("],\"tracks\":" + tracks.dump() + "}").c_str(), f);
}

std::optional<std::string> applyCriticalPathMember(profile::Profile& p, const nlohmann::json& m,
                                                   std::size_t& unplaced)
{
    unplaced = 0;
    const std::string at = "$." + std::string(kCriticalPathKey);
    if (!m.is_object())
        return at + ": expected an object";
    const auto kindsIt = m.find("kinds"), tracksIt = m.find("tracks"), segmentsIt = m.find("segments");
    if (kindsIt == m.end() || !kindsIt->is_array())
        return at + ".kinds: expected an array of segment kind names";
    if (tracksIt == m.end() || !tracksIt->is_array())
        return at + ".tracks: expected an array of [pid, tid]";
    if (segmentsIt == m.end() || !segmentsIt->is_array() || segmentsIt->size() % kFields != 0)
        return at + ".segments: expected an array of integers, six a segment";

    std::vector<PathSegmentKind> kinds;
    for (std::size_t k = 0; k < kindsIt->size(); ++k) {
        const nlohmann::json& name = (*kindsIt)[k];
        std::optional<PathSegmentKind> kind;
        for (int c = 0; c < profile::kPathSegmentKindCount && name.is_string(); ++c)
            if (profile::pathSegmentName(static_cast<PathSegmentKind>(c)) == name.get<std::string>())
                kind = static_cast<PathSegmentKind>(c);
        if (!kind)
            return at + ".kinds[" + std::to_string(k) +
                   "]: expected a segment kind name (such as \"kernel\")";
        kinds.push_back(*kind);
    }
    // The file's thread rows by (pid, tid); a row the file does not have leaves its segments on no slice.
    std::map<std::pair<std::int64_t, std::int64_t>, profile::TrackId> threads;
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t)
        if (p.tracks[t].kind == profile::TrackKind::Thread)
            threads.try_emplace({p.tracks[t].pid, p.tracks[t].tid}, profile::TrackId(t));
    std::vector<profile::TrackId> tracks;
    for (std::size_t k = 0; k < tracksIt->size(); ++k) {
        const nlohmann::json& t = (*tracksIt)[k];
        if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_number_integer())
            return at + ".tracks[" + std::to_string(k) + "]: expected [pid, tid]";
        const auto it = threads.find({t[0].get<std::int64_t>(), t[1].get<std::int64_t>()});
        tracks.push_back(it == threads.end() ? profile::TrackId() : it->second);
    }

    auto path = std::make_shared<profile::CriticalPath>();
    const nlohmann::json& flat = *segmentsIt;
    path->segments.reserve(flat.size() / kFields);
    std::int64_t previousEnd = INT64_MIN;
    for (std::size_t i = 0; i < flat.size(); i += kFields) {
        std::int64_t v[kFields];
        for (std::size_t f = 0; f < kFields; ++f) {
            if (!flat[i + f].is_number_integer())
                return at + ".segments[" + std::to_string(i + f) + "]: expected an integer";
            v[f] = flat[i + f].get<std::int64_t>();
        }
        const std::string where = at + ".segments[" + std::to_string(i) + "]";
        if (v[0] < 0 || static_cast<std::uint64_t>(v[0]) >= kinds.size())
            return where + ": expected an index into kinds";
        // Within the profile's time limit, so that no length or sum of lengths overflows (segments do not
        // overlap: their lengths add up to at most the limit's span).
        const auto outside = [](std::int64_t t) {
            return t < -profile::kTimeLimit || t > profile::kTimeLimit;
        };
        if (outside(v[1]) || outside(v[2]))
            return where + ": expected times within +-2^62 ticks";
        if (v[2] < v[1] || v[1] < previousEnd)
            return where +
                   ": expected a segment that starts after the one before it and ends after it starts";
        previousEnd = v[2];
        if (v[3] < -1 || v[3] >= static_cast<std::int64_t>(tracks.size()))
            return where + ": expected -1 or an index into tracks";
        PathSegment s;
        s.kind = kinds[static_cast<std::size_t>(v[0])];
        s.start = v[1];
        s.end = v[2];
        if (v[3] >= 0) {
            // The slice with that start and duration on its row (a row's slices are sorted by start).
            if (const profile::TrackId track = tracks[static_cast<std::size_t>(v[3])]; track.valid()) {
                const profile::Track& t = p.track(track);
                const auto first = p.slices.begin() + t.firstSlice, last = first + t.sliceCount;
                const Ticks start = v[4], duration = v[5];
                // In the row's order (profile.h: by start, the longer first): one binary search, however
                // many slices share a start.
                const auto it = std::lower_bound(
                    first, last, std::pair{start, duration},
                    [](const profile::Slice& x, const std::pair<Ticks, Ticks>& key) {
                        return x.start != key.first ? x.start < key.first : x.duration > key.second;
                    });
                if (it != last && it->start == start && it->duration == duration)
                    s.slice = profile::SliceRow(static_cast<std::uint32_t>(it - p.slices.begin()));
            }
            unplaced += s.slice.valid() ? 0 : 1;
        }
        path->byKind[static_cast<std::size_t>(s.kind)] += s.end - s.start;
        path->length += s.end - s.start;
        path->segments.push_back(s);
    }
    path->windowStart = INT64_MIN; // over the whole run, as the exporter's path was
    path->windowEnd = INT64_MAX;
    p.exactCriticalPath = std::move(path);
    return std::nullopt;
}

} // namespace xps::importing

#pragma once
// A profile imported from another tool (Chrome/Perfetto JSON, PyTorch/Kineto, ...): the part of the event
// model that is not specific to xpu-v1, in the shape every tracing tool shares. A hierarchy of tracks
// (process > thread, GPU stream, async group, counter), slices on tracks nested by time containment
// (depth), instants (slices of no duration), counter samples, and flows from one slice to another (a CPU
// launch to its kernel, forward to backward). Times are ticks of the source's clock (`timebase`):
// nanoseconds for every import, cycles for a replay.
//
// Memory: a slice is 32 bytes. Names and categories are interned once per (name, category) pair as an
// EventType; arguments are interned as whole sets (compact JSON), so the thousands of launches of one
// kernel with the same grid share one set. The per-event counters Kineto writes into every event's args
// (correlation, External id) are the one number a slice keeps for itself: `link`.

#include "profile/import_repair.h"
#include "profile/timebase.h"
#include "profile/track_id.h"
#include "util/strong_id.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xps::profile {

struct CriticalPath; // profile/critical_path.h

inline constexpr std::uint32_t kNone = UINT32_MAX;
// A slice's row in a finished profile's `slices` (Perfetto's slice table row): what a selection, a note or a
// bookmark names. The builder's SliceId is another thing, a place in arrival order, gone at finish().
using SliceRow = StrongId<struct SliceRowTag>;
static_assert(SliceRow::kInvalid == kNone);
// Profile::finish holds every time within +-kTimeLimit, so that the difference of any two fits in Ticks.
inline constexpr Ticks kTimeLimit = (Ticks{1} << 62) - 1;

// What a slice is, for the analyses: decided once per EventType from its category and name.
enum class SliceClass : std::uint8_t {
    Other,
    CpuOp,         // framework operator (aten::mm), Python function, user annotation on a host thread
    Runtime,       // host-side runtime / driver call (cudaLaunchKernel, hipMemcpyAsync)
    RuntimeSync,   // a host call that blocks until the device catches up (cudaDeviceSynchronize)
    Kernel,        // device compute kernel
    Communication, // device collective / send / receive (NCCL, RCCL kernels)
    Memcpy,        // device memory copy (host<->device, device<->device)
    Memset,
    DeviceAnnotation, // a range the framework drew over device work (gpu_user_annotation)
    Count_
};
inline constexpr int kSliceClassCount = static_cast<int>(SliceClass::Count_);
std::string_view sliceClassName(SliceClass c);

// Device work: what occupies a GPU stream.
inline bool isDeviceWork(SliceClass c)
{
    return c == SliceClass::Kernel || c == SliceClass::Communication || c == SliceClass::Memcpy ||
           c == SliceClass::Memset;
}

// Profile::format of a replay of an xpushark trace seen through this model (analysis/replay_profile.h):
// its findings speak of DMAs and the core, not of CUDA streams.
inline constexpr std::string_view kReplayFormat = "xpushark replay (GRM)";

// The flow type (name, category) that joins the start of an asynchronous device op to its done (XProf's
// copy-start -> copy-done): its bytes are counted once and its transfer spans start -> done (transfers.h).
inline constexpr std::string_view kAsyncPairFlow = "async start -> done";
inline constexpr std::string_view kAsyncPairFlowCategory = "async";

enum class TrackKind : std::uint8_t { Process, Thread, Async, Counter };

struct Track
{
    TrackKind kind = TrackKind::Thread;
    bool device = false; // a device stream (or a device process): its slices are device work
    // Rows that break other rows down, drawn but not counted as operations: a replay's bundle issues and
    // stalls in its Chrome export (1,135 "pc 0x..." operations of one cycle each would bury the real ones).
    bool detail = false;
    TrackId parent;       // the process track of a thread, async or counter track
    TrackId describes;    // a counter about one track (a stream's queue length): drawn under it
    std::int64_t pid = 0; // as in the source; string pids are numbered in order of appearance
    std::int64_t tid = 0;
    std::int64_t sortIndex = 0; // process_sort_index / thread_sort_index, else the pid / tid
    std::string name;
    // Filled by Profile::finish(): this track's slices are [firstSlice, firstSlice + sliceCount) of
    // Profile::slices, sorted by start; depths 0..maxDepth.
    std::uint32_t firstSlice = 0;
    std::uint32_t sliceCount = 0;
    std::uint32_t maxDepth = 0;
};

struct EventType
{
    std::uint32_t name = 0;     // string id
    std::uint32_t category = 0; // string id ("" if none)
    SliceClass cls = SliceClass::Other;
};

struct Slice // 32 bytes
{
    Ticks start = 0;
    Ticks duration = 0;              // 0 for an instant
    std::uint32_t trackAndDepth = 0; // track index << 8 | min(depth, 255)
    std::uint32_t type = 0;          // EventType index
    std::uint32_t args = 0;          // argument set id (0: none)
    std::uint32_t link = 0; // correlation id (runtime calls, device work) or External id (CPU ops); 0: none

    TrackId track() const { return TrackId(trackAndDepth >> 8); }
    std::uint32_t depth() const { return trackAndDepth & 0xff; }
    Ticks end() const { return start + duration; } // never overflows: see boundedDuration
};
static_assert(sizeof(Slice) == 32);

struct CounterSample // 24 bytes
{
    Ticks time = 0;
    double value = 0;
    TrackId track{0};
};

// An integer argument unique to one slice (Kineto's "Sequence number", "Python id"): kept beside the slice so
// that its argument set stays shared with the other slices of its kind.
// A duration read from a file, made safe to store: never negative, and start + duration never past
// INT64_MAX (importers clamp here; a file's end of 2^63 ns is hostile, not a profile).
inline Ticks boundedDuration(Ticks start, Ticks duration)
{
    if (duration <= 0)
        return 0;
    if (start > 0 && duration > INT64_MAX - start)
        return INT64_MAX - start;
    return duration;
}

struct SliceArg // 16 bytes
{
    SliceRow slice{0};
    std::uint32_t key = 0; // string id
    std::int64_t value = 0;
};

struct Flow
{
    SliceRow from;
    SliceRow to;
    std::uint32_t type = 0; // EventType of the flow ("ac2g", "fwdbwd", ...)
};

class Profile
{
public:
    std::string source;                // the file it came from
    std::string format;                // "Chrome trace JSON", "PyTorch profiler (Kineto) JSON", ...
    Timebase timebase;                 // what a tick of every time below is: nanoseconds for an import
    std::vector<ImportRepair> repairs; // what was skipped or repaired, in the order first met
    std::vector<std::pair<std::string, std::string>> metadata; // top-level keys other than the events

    std::vector<Track> tracks;
    std::vector<EventType> types;
    std::vector<Slice> slices;           // after finish(): grouped by track, sorted by start within a track
    std::vector<CounterSample> counters; // after finish(): grouped by track, sorted by time
    std::vector<Flow> flows;
    std::vector<SliceArg> sliceArgs; // after finish(): sorted by slice
    // A replay's critical path as its dependency graph found it, in this profile's slices
    // (analysis/replay_critical_path.h): what computeCriticalPath gives for a replay instead of HTA's model
    // of it, so that a run has one critical path on every page. Null for an import.
    std::shared_ptr<const CriticalPath> exactCriticalPath;

    void addRepair(RepairKind kind, std::uint64_t count, std::string what, std::string firstAt = {})
    {
        repairs.push_back({kind, count, std::move(what), std::move(firstAt)});
    }
    // Each repair as one line of text, in order: what `info`, reports and the explorer show as warnings.
    std::vector<std::string> warningLines() const;

    // Interning. String id 0 is "". Argument set 0 is none.
    std::uint32_t intern(std::string_view s);
    const std::string& string(std::uint32_t id) const { return m_strings[id]; }
    // The id of an interned string, or kNone.
    std::uint32_t findString(std::string_view s) const
    {
        const auto it = m_stringIds.find(s);
        return it == m_stringIds.end() ? kNone : it->second;
    }
    std::uint32_t internArgs(std::string_view compactJson);
    // Interned strings and argument sets that held invalid UTF-8 (each invalid sequence replaced by U+FFFD).
    std::uint64_t repairedStrings() const { return m_repairedStrings; }
    const std::string& args(std::uint32_t id) const { return m_argSets[id]; }
    // Slice `index`'s arguments as compact JSON: its set with its own values (SliceArg) added; "{}" if none.
    std::string argsOf(SliceRow row) const;
    std::uint32_t typeOf(std::string_view name, std::string_view category, SliceClass cls);

    const Track& track(TrackId id) const { return tracks[id.value]; }
    // The process (or device) `id` belongs to: its parent, or itself when it has none (a process's own
    // track, or a flat track of an importer that has no processes).
    TrackId processOf(TrackId id) const
    {
        const TrackId parent = tracks[id.value].parent;
        return parent.valid() ? parent : id;
    }
    Track& track(TrackId id) { return tracks[id.value]; }
    const Slice& slice(SliceRow row) const { return slices[row.value]; }
    const std::string& nameOf(const Slice& s) const { return m_strings[types[s.type].name]; }
    const std::string& categoryOf(const Slice& s) const { return m_strings[types[s.type].category]; }
    SliceClass classOf(const Slice& s) const { return types[s.type].cls; }

    // Sorts slices and counter samples by track and time and computes depths (time containment; async
    // tracks pack overlapping slices into rows). Returns the permutation applied: old index -> new index,
    // so an importer can rebind what it kept by slice index. Throws Cancelled (util/cancel.h) once `stop` is
    // requested: on ten million slices it runs for a quarter of a second.
    std::vector<std::uint32_t> finish(std::stop_token stop = {});

    Ticks startTime() const { return m_start; }
    Ticks endTime() const { return m_end; }
    // endTime() - startTime(): finish() holds both within +-kTimeLimit, so it never overflows.
    Ticks span() const { return m_end - m_start; }

    // Bytes held by the model (vectors by capacity, strings, argument sets, indexes) and its events
    // (slices, counter samples, flows): what the README's bytes per event are.
    std::size_t residentBytes() const;
    std::size_t eventCount() const { return slices.size() + counters.size() + flows.size(); }

    // The slice at `time` on `track` at `depth` (the deepest containing `time` if depth < 0), or none.
    SliceRow sliceAt(TrackId track, Ticks time, int depth = -1) const;

private:
    std::deque<std::string> m_strings{std::string()};
    std::unordered_map<std::string_view, std::uint32_t> m_stringIds{{std::string_view(), 0}};
    std::deque<std::string> m_argSets{std::string()};
    std::unordered_map<std::string_view, std::uint32_t> m_argIds{{std::string_view(), 0}};
    std::unordered_map<std::uint64_t, std::uint32_t> m_typeIds; // (name, category) -> type
    Ticks m_start = 0, m_end = 0;
    std::uint64_t m_repairedStrings = 0;
};

} // namespace xps::profile

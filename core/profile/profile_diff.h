#pragma once
// Two imported profiles compared at the level of operations, as HTA's TraceDiff and TraceLens compare
// PyTorch runs: per operation name, on the host or on each device, the count and the total,
// self and device time of both runs with the deltas, the operations only one run has, and per device the
// time breakdown (busy, compute, communication, memcpy, memset, idle, exposed communication and memcpy).
// Every number is one of the two runs' own numbers as `analyze --json` reports them for a profile
// (profile/profile_analysis.h), so the totals are those of the runs.

#include "profile/profile_analysis.h"
#include "util/compared.h"

#include <string>
#include <vector>

namespace xps::profile {

struct OpDelta
{
    std::string name;
    std::string category;
    std::string where; // "host", or the device's name ("GPU 0"): device work is compared device by device
    bool inBaseline = false, inOther = false;
    Compared count, total, self, deviceTime; // times in ns
    // Its earliest instance in each run (none where the run has no such operation): where a view shows it.
    SliceRow baselineFirst, otherFirst;
};

struct DeviceDelta
{
    std::string name; // devices are matched by name
    bool inBaseline = false, inOther = false;
    Compared busy, compute, communication, communicationExposed, memcpy, memcpyExposed, memset, idle;
};

// Time one operation holds on a critical path: the segments attributed to slices of that name, of one kind
// (a kernel's own time and the launch delay before it are two rows).
struct PathOpDelta
{
    std::string name;
    PathSegmentKind kind = PathSegmentKind::Host;
    Compared onPath; // ns
    // Its first segment's slice on each path (none where that path has no such segment).
    SliceRow baselineFirst, otherFirst;
};

struct ProfileDiff
{
    std::string baselineName, otherName;
    Compared span;                    // the profiles' extents, ns
    // When the operations and critical paths are one window's (`diff --window ProfilerStep#N`, HTA's
    // TraceDiff of one iteration): its slice's name and its length in each profile; empty: whole profiles.
    std::string window;
    Compared windowSpan;
    std::vector<DeviceDelta> devices; // the baseline's order, then the other's new ones
    std::vector<OpDelta> ops;         // largest |total delta| first
    // The two critical paths side by side (HTA's model, profile/critical_path.h): their lengths, the time
    // of each kind of segment, and per operation the time it holds on each path, largest |delta| first.
    Compared criticalPathLength;
    Compared criticalPathByKind[kPathSegmentKindCount];
    std::vector<PathOpDelta> criticalPathOps;
    // (other - baseline) / baseline of the span in percent; 0 for an empty baseline.
    double slowdownPercent() const { return span.percent().value_or(0.0); }
};

ProfileDiff diffProfiles(const Profile& baseline, const ProfileAnalysis& baselineAnalysis,
                         const Profile& other, const ProfileAnalysis& otherAnalysis);

} // namespace xps::profile

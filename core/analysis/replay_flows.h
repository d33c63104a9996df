#pragma once
// The dependencies a replay's profile draws between its slices (analysis/replay_profile.h), derived from
// when things ran, not recorded: what lets the profile's graph view step from a DMA to the compute that
// waited for it. Three kinds, linked in this order:
//   program order  each compute run depends on the run the core finished last before it began, on any
//                  unit (the core issues in order)
//   issued         each DMA depends on the compute run finished last before its dma.start issued
//   ends wait      each stalled sync.wait depends on the DMA whose chunk ended it, and so does the first run
//                  on each unit within kIssueWindow cycles after the wait
// The replay's critical path does not come from these (its dependency graph finds it from the replay's own
// events, analysis/replay_critical_path.h); they are what a reader of the profile follows.

#include "profile/profile_builder.h"
#include "util/cancel.h"

#include <cassert>
#include <cstdint>
#include <vector>

namespace xps::analysis {

class ReplayFlows
{
public:
    // Cycles after a wait in which the core's first issue on each unit counts as waiting for it.
    static constexpr profile::Ticks kIssueWindow = 16;

    explicit ReplayFlows(std::size_t chips) : m_byStart(chips), m_byEnd(chips) {}

    void reserveRuns(std::size_t chip, std::size_t runs)
    {
        m_byStart[chip].reserve(runs);
        m_byEnd[chip].reserve(runs);
    }
    // `unit`: the run's unit among the profiled ones (analysis/replay_unit_runs.h), below 32.
    void addComputeRun(std::size_t chip, const profile::Slice& run, profile::SliceId id, std::uint8_t unit)
    {
        assert(unit < 32);
        m_byStart[chip].push_back({run.start, id, unit});
        m_byEnd[chip].push_back({run.end(), id, unit});
    }
    void addDmaIssue(std::size_t chip, profile::Ticks issue, profile::SliceId dma)
    {
        m_issues.push_back({chip, issue, dma});
    }
    // A wait that stalled until `dma`'s chunk ended it, in each chip's time order.
    void addEndedWait(std::size_t chip, profile::Ticks end, profile::SliceId wait, profile::SliceId dma)
    {
        m_waits.push_back({chip, end, wait, dma});
    }

    // The flows' types, made by the profile's writer where it makes its other types (type ids are in the
    // order they were first asked for).
    struct Types
    {
        std::uint32_t programOrder = 0, issued = 0, endsWait = 0;
    };
    // Adds the flows to `builder`, and lets go of what it kept.
    void link(profile::ProfileBuilder& builder, const Types& types, CancelPoint& cancel);

    // One compute run as the passes look it up: by its start or its end.
    struct ComputeRun
    {
        profile::Ticks time;
        profile::SliceId slice;
        std::uint8_t unit;
        bool operator<(const ComputeRun& o) const
        {
            return time != o.time ? time < o.time : slice.value < o.slice.value;
        }
    };

private:
    struct Issue
    {
        std::size_t chip;
        profile::Ticks time;
        profile::SliceId dma;
        bool operator<(const Issue& o) const
        {
            return chip != o.chip ? chip < o.chip : time != o.time ? time < o.time : dma.value < o.dma.value;
        }
    };
    struct Wait
    {
        std::size_t chip;
        profile::Ticks end;
        profile::SliceId wait, dma;
    };
    void linkProgramOrder(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel);
    void linkIssues(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel);
    void linkWaits(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel);

    std::vector<std::vector<ComputeRun>> m_byStart, m_byEnd; // per chip
    std::vector<Issue> m_issues;
    std::vector<Wait> m_waits;
};

} // namespace xps::analysis

#include "analysis/replay_flows.h"

#include "util/release_memory.h"
#include "util/sort_runs.h"

#include <functional>

namespace xps::analysis {

using profile::SliceId;
using profile::Ticks;

namespace {

using ComputeRun = ReplayFlows::ComputeRun;

// One chip's compute runs (by start or by end) looked up at times that only grow, as the queries of one
// pass do: the cursor sweeps the list once. A binary search per query over millions of runs costs a cache
// miss per step, 1-2 us a query.
class RunCursor
{
public:
    explicit RunCursor(const std::vector<ComputeRun>& runs) : m_runs(runs) {}
    // By end: the run that ended last at or before `time`, or none.
    SliceId endedBy(Ticks time)
    {
        while (m_next < m_runs.size() && m_runs[m_next].time <= time)
            ++m_next;
        return m_next == 0 ? SliceId() : m_runs[m_next - 1].slice;
    }
    // By start: the runs that started in [from, to], as [first, last) of the list.
    std::pair<std::size_t, std::size_t> startedIn(Ticks from, Ticks to)
    {
        while (m_next < m_runs.size() && m_runs[m_next].time < from)
            ++m_next;
        std::size_t last = m_next;
        while (last < m_runs.size() && m_runs[last].time <= to)
            ++last;
        return {m_next, last};
    }
    const ComputeRun& operator[](std::size_t i) const { return m_runs[i]; }

private:
    const std::vector<ComputeRun>& m_runs;
    std::size_t m_next = 0;
};

} // namespace

void ReplayFlows::link(profile::ProfileBuilder& builder, const Types& types, CancelPoint& cancel)
{
    // Each unit's runs are in time order already, the units' interleaved: merge rather than sort.
    for (auto& runs : m_byStart)
        sortRuns(runs, cancel.polling(std::less<>()));
    for (auto& runs : m_byEnd)
        sortRuns(runs, cancel.polling(std::less<>()));
    linkProgramOrder(builder, types.programOrder, cancel);
    linkIssues(builder, types.issued, cancel);
    linkWaits(builder, types.endsWait, cancel);
    releaseMemory(m_byStart);
    releaseMemory(m_byEnd);
}

void ReplayFlows::linkProgramOrder(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel)
{
    // Each run after the one that ended last before it began, on any unit: what lets a walk of the
    // profile's dependencies (HTA's model of a re-imported export without its path, the graph view) step
    // from the MXU to the vector unit.
    for (std::size_t c = 0; c < m_byStart.size(); ++c) {
        RunCursor ended(m_byEnd[c]);
        for (const ComputeRun& run : m_byStart[c]) {
            cancel();
            if (const SliceId before = ended.endedBy(run.time); before.valid())
                builder.addFlow(before, run.slice, type);
        }
    }
}

void ReplayFlows::linkIssues(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel)
{
    // Looked up in issue order, chip by chip: what the DMA's start waited on.
    sortRuns(m_issues, cancel.polling(std::less<>()));
    for (std::size_t i = 0; i < m_issues.size();) {
        const std::size_t chip = m_issues[i].chip;
        RunCursor ended(m_byEnd[chip]);
        for (; i < m_issues.size() && m_issues[i].chip == chip; ++i) {
            cancel();
            if (const SliceId before = ended.endedBy(m_issues[i].time); before.valid())
                builder.addFlow(before, m_issues[i].dma, type);
        }
    }
    releaseMemory(m_issues);
}

void ReplayFlows::linkWaits(profile::ProfileBuilder& builder, std::uint32_t type, CancelPoint& cancel)
{
    std::vector<RunCursor> resumed;
    resumed.reserve(m_byStart.size());
    for (const auto& runs : m_byStart)
        resumed.emplace_back(runs);
    for (const Wait& w : m_waits) {
        cancel();
        // The DMA ended the wait, and what the core then issued on each unit waited for the DMA. (A run that
        // starts later depends on the runs before it, not on their issue: the model of dependencies is
        // "after the end of", so the wait's successors on every unit are linked.)
        builder.addFlow(w.dma, w.wait, type);
        std::uint32_t linked = 0; // units already linked, a bit each
        RunCursor& cursor = resumed[w.chip];
        const auto [first, last] = cursor.startedIn(w.end, w.end + kIssueWindow);
        for (std::size_t k = first; k < last; ++k) {
            const ComputeRun& after = cursor[k];
            const std::uint32_t bit = std::uint32_t{1} << after.unit;
            if (linked & bit)
                continue;
            linked |= bit;
            builder.addFlow(w.dma, after.slice, type);
        }
    }
    releaseMemory(m_waits);
}

} // namespace xps::analysis

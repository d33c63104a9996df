#include "what_if.h"

#include "suggest/group.h"
#include "suggest/transform.h"
#include "util/physical_memory.h"
#include "work_pool.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace xps::sim {

using suggest::Measurement;

std::optional<std::string> compareOutputs(const trace::Trace& trace, const std::vector<ChipState>& a,
                                          const std::vector<ChipState>& b, std::stop_token stop)
{
    if (a.size() != b.size() || a.size() != trace.chips.size())
        return "the replays ended with different chip counts";
    constexpr std::size_t kBlock = 64 * 1024;
    std::vector<std::uint8_t> x(kBlock), y(kBlock);
    for (const trace::ChipTrace& chip : trace.chips) {
        for (const std::string& name : chip.outputs) {
            const trace::Buffer* buffer = chip.symbols.findBuffer(name);
            if (!buffer)
                return "chip " + std::to_string(chip.chip.value) + ": output " + name + " is not a buffer";
            const ChipState& sa = a[chip.chip.value];
            const ChipState& sb = b[chip.chip.value];
            for (std::uint64_t offset = 0; offset < buffer->size; offset += kBlock) {
                if (stop.stop_requested())
                    return std::nullopt;
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, buffer->size - offset));
                sa.memory(buffer->space).peek(buffer->address + offset, {x.data(), n});
                sb.memory(buffer->space).peek(buffer->address + offset, {y.data(), n});
                if (std::memcmp(x.data(), y.data(), n) == 0)
                    continue;
                std::size_t i = 0;
                while (x[i] == y[i])
                    ++i;
                return "chip " + std::to_string(chip.chip.value) + ": output " + name + " differs at byte " +
                       std::to_string(offset + i) + " of " + std::to_string(buffer->size);
            }
        }
    }
    return std::nullopt;
}

namespace {
// A what-if's replay may run this many times the baseline's cycles and bundles (plus the slack, for tiny
// baselines) before it is stopped as no fix.
constexpr std::uint64_t kWhatIfSlowdownLimit = 4;
constexpr std::uint64_t kWhatIfSlack = 1'000'000;
} // namespace

namespace {

// Replays `changed` (the baseline's trace with one or more changes applied, or why it could not be made) and
// measures it against the baseline.
Measurement measureChangedTrace(const trace::Trace& trace, ReplayResult& baseline,
                                Result<trace::Trace> changed, std::stop_token stop, ChangedRun* keep,
                                const std::function<void(double fraction)>& replayProgress)
{
    ChangedRun local;
    ChangedRun& run = keep ? *keep : local;
    Measurement m;
    m.baselineCycles = baseline.totalCycles;
    if (!changed.ok()) {
        m.verdict = Measurement::Verdict::Failed;
        m.detail = changed.error().toString();
        return m;
    }
    run.trace = std::move(changed).value();
    // A change that makes the run several times slower is not a fix: bound its replay by the baseline's
    // size, so a what-if never costs much more than the replay it improves on.
    ReplayOptions options{ReplayMode::Full};
    std::uint64_t baselineBundles = 0;
    for (const ChipStats& c : baseline.chips)
        baselineBundles += c.bundles;
    const auto bound = [](std::uint64_t baselineCount) -> std::uint64_t { // 0 (none) rather than wrap
        return baselineCount > (UINT64_MAX - kWhatIfSlack) / kWhatIfSlowdownLimit
                   ? 0
                   : kWhatIfSlowdownLimit * baselineCount + kWhatIfSlack;
    };
    options.maxCycles = bound(baseline.totalCycles);
    options.maxBundles = bound(baselineBundles);
    // A measurement reads the changed run's cycles and final state, never its events: unless the caller
    // keeps the run (Apply and compare shows it), the store keeps none. Keeping them cost each what-if what
    // the baseline's store costs (465 MiB at 10 M bundles) and the time to write it.
    if (!keep)
        run.store.discardEvents();
    Replayer replayer(run.trace, options, run.store);
    const double baselineCycles = static_cast<double>(std::max<std::uint64_t>(baseline.totalCycles, 1));
    run.result = replayer.run(stop, [&](const ReplayProgress& p) {
        if (replayProgress) // a changed program may run longer than the baseline: hold below 1 until it ends
            replayProgress(std::min(0.99, static_cast<double>(p.cycle) / baselineCycles));
    });
    ReplayResult& r = run.result;
    m.newCycles = r.totalCycles;
    if (r.status == ReplayResult::Status::Cancelled) {
        m.verdict = Measurement::Verdict::Cancelled;
        return m;
    }
    if (r.status != ReplayResult::Status::Completed) {
        m.verdict = Measurement::Verdict::Failed;
        m.detail = r.fault ? r.fault->toString()
                   : r.status == ReplayResult::Status::LimitReached
                       ? "the changed program ran " + std::to_string(kWhatIfSlowdownLimit) +
                             "x the baseline's cycles or bundles without finishing: stopped at " + r.limitMessage
                       : "the replay did not complete";
        return m;
    }
    m.gainPercent = baseline.totalCycles
                        ? 100.0 * (static_cast<double>(baseline.totalCycles) - static_cast<double>(r.totalCycles)) /
                              static_cast<double>(baseline.totalCycles)
                        : 0.0;
    // Outputs are compared against the original trace's buffer table: no change moves a buffer.
    std::optional<std::string> diff = compareOutputs(trace, baseline.finalState, r.finalState, stop);
    if (stop.stop_requested()) {
        m.verdict = Measurement::Verdict::Cancelled;
        return m;
    }
    if (diff) {
        m.verdict = Measurement::Verdict::OutputsDiffer;
        m.detail = *diff;
        return m;
    }
    m.verdict = r.totalCycles < baseline.totalCycles ? Measurement::Verdict::Improves : Measurement::Verdict::NoGain;
    return m;
}

// The progress of items measured on several workers, told to the caller as one status, one call at a
// time.
class ProgressBoard
{
public:
    ProgressBoard(std::size_t items, const WhatIfProgress& progress)
        : m_progress(progress), m_fraction(items, 0.0), m_startedAs(items, kNotStarted)
    {
    }
    void start(std::size_t item)
    {
        std::lock_guard lock(m_mutex);
        m_startedAs[item] = m_started++;
        publish();
    }
    void update(std::size_t item, double fraction)
    {
        std::lock_guard lock(m_mutex);
        m_fraction[item] = fraction;
        publish();
    }
    void finish(std::size_t item)
    {
        std::lock_guard lock(m_mutex);
        m_startedAs[item] = kFinished;
        ++m_done;
        publish();
    }
    // After the workers: every item measured (or skipped on cancel).
    void end()
    {
        if (!m_progress)
            return;
        WhatIfStatus s;
        s.done = s.total = s.oldest = m_fraction.size();
        m_progress(s);
    }

private:
    static constexpr std::size_t kNotStarted = SIZE_MAX, kFinished = SIZE_MAX - 1;
    void publish()
    {
        if (!m_progress)
            return;
        WhatIfStatus s;
        s.total = s.oldest = m_fraction.size();
        s.done = m_done;
        std::size_t oldestStart = kFinished;
        for (std::size_t i = 0; i < m_fraction.size(); ++i) {
            if (m_startedAs[i] >= kFinished)
                continue;
            s.current += m_fraction[i];
            ++s.inFlight;
            if (m_startedAs[i] < oldestStart) {
                oldestStart = m_startedAs[i];
                s.oldest = i;
            }
        }
        m_progress(s);
    }

    const WhatIfProgress& m_progress;
    std::mutex m_mutex;
    std::vector<double> m_fraction;
    std::vector<std::size_t> m_startedAs; // the order items started in; kNotStarted, kFinished
    std::size_t m_started = 0;
    std::size_t m_done = 0;
};

} // namespace

Measurement measureChange(const trace::Trace& trace, ReplayResult& baseline, const suggest::Change& change,
                          std::stop_token stop, ChangedRun* keep,
                          const std::function<void(double fraction)>& replayProgress)
{
    return measureChangedTrace(trace, baseline, suggest::applyChange(trace, change), stop, keep,
                               replayProgress);
}

unsigned whatIfWorkers(const trace::Trace& trace, const ReplayResult& baseline, std::size_t items,
                       unsigned requested)
{
    unsigned workers = requested ? requested : hardwareThreads();
    workers = static_cast<unsigned>(std::min<std::size_t>(workers, std::max<std::size_t>(items, 1)));
    // Each what-if holds a copy of the trace (its snapshots' bytes) and, as it ends, a machine state about
    // the size of the baseline's final one.
    std::uint64_t perWhatIf = 0;
    for (const trace::ChipTrace& chip : trace.chips)
        for (const trace::MemoryInit& init : chip.initial.memory)
            perWhatIf += init.payload.bytes.size();
    for (const ChipState& chip : baseline.finalState)
        perWhatIf += (chip.hbm.materialisedPages() + chip.vmem.materialisedPages() +
                      chip.smem.materialisedPages()) *
                     SparseMemory::kPageBytes;
    const std::uint64_t available = availableMemoryBytes();
    if (available > 0 && perWhatIf > 0)
        workers = static_cast<unsigned>(
            std::clamp<std::uint64_t>(available / 2 / perWhatIf, 1, workers));
    return std::max(1u, workers);
}

std::vector<suggest::SuggestionGroup> measureGroups(const std::vector<suggest::Suggestion>& suggestions,
                                                    const trace::Trace& trace, ReplayResult& baseline,
                                                    std::stop_token stop, const WhatIfProgress& progress,
                                                    unsigned workers)
{
    std::vector<suggest::SuggestionGroup> groups = suggest::groupSuggestions(suggestions);
    ProgressBoard board(groups.size(), progress);
    // A group not started when `stop` is requested stays unmeasured: the report shows the members' own
    // gains only.
    forEachOnWorkers(groups.size(), whatIfWorkers(trace, baseline, groups.size(), workers), stop,
                     [&](std::size_t g) {
                         board.start(g);
                         suggest::SuggestionGroup& group = groups[g];
                         std::vector<suggest::Change> changes;
                         for (const std::string& id : group.members)
                             for (const suggest::Suggestion& s : suggestions)
                                 if (s.id == id)
                                     changes.push_back(s.change);
                         std::vector<std::size_t> applied;
                         Result<trace::Trace> changed = suggest::applyChanges(trace, changes, &applied);
                         for (std::size_t i : applied)
                             group.applied.push_back(group.members[i]);
                         Measurement m = measureChangedTrace(trace, baseline, std::move(changed), stop, nullptr,
                                                             [&](double fraction) { board.update(g, fraction); });
                         if (m.verdict != Measurement::Verdict::Cancelled)
                             group.combined = std::move(m);
                         board.finish(g);
                     });
    board.end();
    return groups;
}

void measureSuggestions(std::vector<suggest::Suggestion>& suggestions, const trace::Trace& trace,
                        ReplayResult& baseline, std::stop_token stop, const WhatIfProgress& progress,
                        unsigned workers)
{
    // What is left when `stop` is requested before a suggestion's turn.
    for (suggest::Suggestion& s : suggestions) {
        Measurement cancelled;
        cancelled.verdict = Measurement::Verdict::Cancelled;
        cancelled.baselineCycles = baseline.totalCycles;
        s.measured = cancelled;
    }
    ProgressBoard board(suggestions.size(), progress);
    forEachOnWorkers(suggestions.size(), whatIfWorkers(trace, baseline, suggestions.size(), workers), stop,
                     [&](std::size_t i) {
                         board.start(i);
                         suggest::Suggestion& s = suggestions[i];
                         s.measured = measureChange(trace, baseline, s.change, stop, nullptr,
                                                    [&](double fraction) { board.update(i, fraction); });
                         // Severity follows what was measured, not what the analysis estimated.
                         const Measurement& m = *s.measured;
                         const double gain = m.verdict == Measurement::Verdict::Improves ? m.gainPercent : 0.0;
                         s.severity = gain >= 10.0  ? suggest::Severity::High
                                      : gain >= 2.0 ? suggest::Severity::Medium
                                                    : suggest::Severity::Low;
                         board.finish(i);
                     });
    board.end();
    const auto rank = [](const suggest::Suggestion& s) {
        const bool improves = s.measured && s.measured->verdict == Measurement::Verdict::Improves;
        return improves ? (s.whatIf ? 1 : 0) : 2;
    };
    std::stable_sort(suggestions.begin(), suggestions.end(), [&](const auto& a, const auto& b) {
        if (rank(a) != rank(b))
            return rank(a) < rank(b);
        return (a.measured ? a.measured->gainPercent : 0.0) > (b.measured ? b.measured->gainPercent : 0.0);
    });
}

} // namespace xps::sim

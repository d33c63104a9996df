#include "what_if.h"

#include "suggest/group.h"
#include "suggest/transform.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace xps::sim {

using suggest::Measurement;

std::optional<std::string> compareOutputs(const trace::Trace& trace, std::vector<ChipState>& a,
                                          std::vector<ChipState>& b, std::stop_token stop)
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
            ChipState& sa = a[chip.chip.value];
            ChipState& sb = b[chip.chip.value];
            for (std::uint64_t offset = 0; offset < buffer->size; offset += kBlock) {
                if (stop.stop_requested())
                    return std::nullopt;
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, buffer->size - offset));
                sa.memory(buffer->space).read(buffer->address + offset, {x.data(), n});
                sb.memory(buffer->space).read(buffer->address + offset, {y.data(), n});
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

} // namespace

Measurement measureChange(const trace::Trace& trace, ReplayResult& baseline, const suggest::Change& change,
                          std::stop_token stop, ChangedRun* keep,
                          const std::function<void(double fraction)>& replayProgress)
{
    return measureChangedTrace(trace, baseline, suggest::applyChange(trace, change), stop, keep,
                               replayProgress);
}

std::vector<suggest::SuggestionGroup> measureGroups(const std::vector<suggest::Suggestion>& suggestions,
                                                    const trace::Trace& trace, ReplayResult& baseline,
                                                    std::stop_token stop, const WhatIfProgress& progress)
{
    std::vector<suggest::SuggestionGroup> groups = suggest::groupSuggestions(suggestions);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (progress)
            progress(g, groups.size(), 0.0);
        suggest::SuggestionGroup& group = groups[g];
        if (stop.stop_requested())
            break; // unmeasured: the report shows the members' own gains only
        std::vector<suggest::Change> changes;
        for (const std::string& id : group.members)
            for (const suggest::Suggestion& s : suggestions)
                if (s.id == id)
                    changes.push_back(s.change);
        std::vector<std::size_t> applied;
        Result<trace::Trace> changed = suggest::applyChanges(trace, changes, &applied);
        for (std::size_t i : applied)
            group.applied.push_back(group.members[i]);
        Measurement m =
            measureChangedTrace(trace, baseline, std::move(changed), stop, nullptr, [&](double fraction) {
                if (progress)
                    progress(g, groups.size(), fraction);
            });
        if (m.verdict != Measurement::Verdict::Cancelled)
            group.combined = std::move(m);
    }
    if (progress)
        progress(groups.size(), groups.size(), 0.0);
    return groups;
}

void measureSuggestions(std::vector<suggest::Suggestion>& suggestions, const trace::Trace& trace,
                        ReplayResult& baseline, std::stop_token stop, const WhatIfProgress& progress)
{
    for (std::size_t i = 0; i < suggestions.size(); ++i) {
        if (progress)
            progress(i, suggestions.size(), 0.0);
        if (stop.stop_requested()) {
            Measurement m;
            m.verdict = Measurement::Verdict::Cancelled;
            m.baselineCycles = baseline.totalCycles;
            suggestions[i].measured = m;
            continue;
        }
        suggestions[i].measured =
            measureChange(trace, baseline, suggestions[i].change, stop, nullptr, [&](double fraction) {
                if (progress)
                    progress(i, suggestions.size(), fraction);
            });
        // Severity follows what was measured, not what the analysis estimated.
        const Measurement& m = *suggestions[i].measured;
        const double gain = m.verdict == Measurement::Verdict::Improves ? m.gainPercent : 0.0;
        suggestions[i].severity = gain >= 10.0  ? suggest::Severity::High
                                  : gain >= 2.0 ? suggest::Severity::Medium
                                                : suggest::Severity::Low;
    }
    if (progress)
        progress(suggestions.size(), suggestions.size(), 0.0);
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

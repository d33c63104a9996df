#include "analysis/residuals.h"

#include "util/cancel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

namespace xps::analysis {

double RegionResidual::relativeError() const
{
    if (!replayed || recorded == 0)
        return 0.0;
    return (static_cast<double>(*replayed) - static_cast<double>(recorded)) / static_cast<double>(recorded);
}

Residuals computeResiduals(const trace::Trace& trace, const events::EventStore& store,
                           const std::stop_token& stop)
{
    Residuals out;
    if (!trace.recorded)
        return out;

    // Region instances in the order they completed per (chip, region): instance n is the n-th exit.
    std::map<std::pair<ChipId, std::uint32_t>, std::vector<events::StoreSlice>> durations;
    for (const ChipId chip : idsBelow<ChipId>(trace.chips.size()))
        for (const events::StoreSlice& r : store.slices(store.regionTrack(chip)))
            durations[{chip, events::regionOf(r)}].push_back(r);
    for (const trace::RecordedRegion& rec : trace.recorded->regions) {
        RegionResidual res{rec.chip, rec.region, rec.instance, rec.cycles, std::nullopt};
        const int id = trace.chips[rec.chip.value].symbols.findRegion(rec.region);
        const auto it = durations.find({rec.chip, static_cast<std::uint32_t>(id)});
        if (it != durations.end() && rec.instance < it->second.size()) {
            const events::StoreSlice& r = it->second[rec.instance];
            res.replayed = r.duration;
            res.replayedEnter = r.start;
        }
        out.regions.push_back(std::move(res));
    }

    // The k-th recorded sample of a (chip, pc) against the k-th issue of that pc.
    std::map<std::pair<ChipId, std::uint32_t>, std::vector<std::size_t>>
        wanted; // -> indices into out.samples
    for (const trace::RecordedSample& s : trace.recorded->samples) {
        wanted[{s.chip, s.pc}].push_back(out.samples.size());
        out.samples.push_back({s.chip, s.pc, s.cycle, std::nullopt});
    }
    std::map<std::pair<ChipId, std::uint32_t>, std::size_t> seen;
    const events::BundleSnapshot bundles = store.bundles();
    throwIfStopped(stop);
    CancelPoint poll(stop);
    for (std::size_t i = 0; i < bundles.size() && !wanted.empty(); ++i) {
        poll();
        const events::BundleIssue e = bundles[i];
        const auto key = std::make_pair(e.chip, e.pc);
        const auto it = wanted.find(key);
        if (it == wanted.end())
            continue;
        const std::size_t k = seen[key]++;
        if (k < it->second.size())
            out.samples[it->second[k]].replayed = e.cycle;
    }
    return out;
}

RegionErrorStats regionErrorStats(const Residuals& residuals)
{
    RegionErrorStats stats;
    stats.recorded = residuals.regions.size();
    std::vector<double> errors;
    for (std::size_t i = 0; i < residuals.regions.size(); ++i) {
        const RegionResidual& r = residuals.regions[i];
        if (!r.replayed || r.recorded == 0)
            continue;
        const double e = 100.0 * r.relativeError();
        if (errors.empty() || std::abs(e) > std::abs(stats.worstPercent)) {
            stats.worstPercent = e;
            stats.worst = i;
        }
        errors.push_back(std::abs(e));
    }
    stats.matched = errors.size();
    if (errors.empty())
        return stats;
    double sum = 0;
    for (double e : errors)
        sum += e;
    stats.meanAbsPercent = sum / static_cast<double>(errors.size());
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    stats.medianAbsPercent = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    return stats;
}

SampleErrorStats sampleErrorStats(const Residuals& residuals)
{
    SampleErrorStats stats;
    stats.recorded = residuals.samples.size();
    double sumAbs = 0.0;
    for (const SampleResidual& s : residuals.samples) {
        if (!s.replayed)
            continue;
        ++stats.matched;
        sumAbs += std::abs(static_cast<double>(*s.replayed) - static_cast<double>(s.recorded));
    }
    stats.meanAbsCycles = stats.matched ? sumAbs / static_cast<double>(stats.matched) : 0.0;
    return stats;
}

std::vector<std::size_t> worstFirst(const Residuals& residuals)
{
    std::vector<std::size_t> order(residuals.regions.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const auto error = [&](std::size_t i) {
        const RegionResidual& x = residuals.regions[i];
        return x.replayed ? std::abs(x.relativeError()) : std::numeric_limits<double>::infinity();
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return error(a) > error(b); });
    return order;
}

std::string describeRegionErrors(const Residuals& residuals, const RegionErrorStats& stats)
{
    std::string text = std::to_string(stats.matched) + " of " + std::to_string(stats.recorded) +
                       " recorded region instances replayed";
    if (stats.matched == 0)
        return text;
    const RegionResidual& worst = residuals.regions[stats.worst];
    char b[96];
    std::snprintf(b, sizeof b, "; mean |error| %.1f%%, median %.1f%%, worst %+.1f%% (", stats.meanAbsPercent,
                  stats.medianAbsPercent, stats.worstPercent);
    return text + b + worst.region + " #" + std::to_string(worst.instance) + ")";
}

} // namespace xps::analysis

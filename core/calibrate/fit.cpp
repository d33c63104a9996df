#include "calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace xps::calibrate {

namespace {

// Position u in [0, 1] <-> parameter value: logarithmic when the range spans more than a decade above 0.
bool logScale(const FreeParameter& p)
{
    return p.lower > 0.0 && p.upper / p.lower > 10.0;
}

double toValue(const FreeParameter& p, double u)
{
    u = std::clamp(u, 0.0, 1.0);
    double v = logScale(p) ? p.lower * std::pow(p.upper / p.lower, u) : p.lower + u * (p.upper - p.lower);
    if (p.integer)
        v = std::round(v);
    return std::clamp(v, p.lower, p.upper);
}

double toPosition(const FreeParameter& p, double v)
{
    v = std::clamp(v, p.lower, p.upper);
    if (p.upper <= p.lower)
        return 0.0;
    return logScale(p) ? std::log(v / p.lower) / std::log(p.upper / p.lower)
                       : (v - p.lower) / (p.upper - p.lower);
}

} // namespace

namespace {

// One Nelder-Mead descent from `best` (positions in [0, 1]^n), in two rounds: a wide simplex, then a
// narrower one around the best point found. Stops at `budgetEnd` evaluations.
void descend(std::vector<double>& best, double& bestValue, int budgetEnd, int& evaluations,
             const std::function<double(const std::vector<double>&)>& evaluate, std::stop_token stop,
             bool& cancelled)
{
    const std::size_t n = best.size();
    for (const double step : {0.25, 0.08}) {
        std::vector<std::vector<double>> simplex(n + 1, best);
        std::vector<double> f(n + 1, bestValue);
        for (std::size_t i = 0; i < n && evaluations < budgetEnd; ++i) {
            simplex[i + 1][i] += best[i] + step <= 1.0 ? step : -step;
            f[i + 1] = evaluate(simplex[i + 1]);
        }
        while (evaluations < budgetEnd) {
            if (stop.stop_requested()) {
                cancelled = true;
                break;
            }
            std::vector<std::size_t> order(n + 1);
            std::iota(order.begin(), order.end(), 0);
            std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return f[x] < f[y]; });
            const std::size_t lo = order.front(), hi = order.back(), second = order[n - 1];
            double spread = 0.0;
            for (std::size_t i = 0; i <= n; ++i)
                for (std::size_t d = 0; d < n; ++d)
                    spread = std::max(spread, std::abs(simplex[i][d] - simplex[lo][d]));
            if (spread < 1e-3 || f[hi] - f[lo] < 1e-9 * std::max(1.0, std::abs(f[lo])))
                break;
            std::vector<double> centroid(n, 0.0);
            for (std::size_t i = 0; i <= n; ++i)
                if (i != hi)
                    for (std::size_t d = 0; d < n; ++d)
                        centroid[d] += simplex[i][d] / static_cast<double>(n);
            const auto along = [&](double t) {
                std::vector<double> p(n);
                for (std::size_t d = 0; d < n; ++d)
                    p[d] = std::clamp(centroid[d] + t * (simplex[hi][d] - centroid[d]), 0.0, 1.0);
                return p;
            };
            const auto reflected = along(-1.0);
            const double fr = evaluate(reflected);
            if (fr < f[lo]) {
                const auto expanded = along(-2.0);
                const double fe = evaluate(expanded);
                simplex[hi] = fe < fr ? expanded : reflected;
                f[hi] = std::min(fe, fr);
            } else if (fr < f[second]) {
                simplex[hi] = reflected;
                f[hi] = fr;
            } else {
                const auto contracted = along(fr < f[hi] ? -0.5 : 0.5);
                const double fc = evaluate(contracted);
                if (fc < std::min(fr, f[hi])) {
                    simplex[hi] = contracted;
                    f[hi] = fc;
                } else { // shrink towards the best vertex
                    for (std::size_t i = 0; i <= n; ++i) {
                        if (i == lo)
                            continue;
                        for (std::size_t d = 0; d < n; ++d)
                            simplex[i][d] = simplex[lo][d] + 0.5 * (simplex[i][d] - simplex[lo][d]);
                        f[i] = evaluate(simplex[i]);
                    }
                }
            }
        }
        const auto lo = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
        if (f[lo] < bestValue) {
            bestValue = f[lo];
            best = simplex[lo];
        }
        if (cancelled)
            return;
    }
}

} // namespace

FitResult fitNelderMead(const std::vector<FreeParameter>& parameters, const std::vector<double>& start,
                        const std::function<double(const std::vector<double>&)>& objective,
                        int maxEvaluations, std::stop_token stop)
{
    const std::size_t n = parameters.size();
    FitResult result;
    const auto values = [&](const std::vector<double>& u) {
        std::vector<double> v(n);
        for (std::size_t i = 0; i < n; ++i)
            v[i] = toValue(parameters[i], u[i]);
        return v;
    };
    // Past the budget a point costs nothing and is worse than any evaluated one, so no step takes it.
    const std::function<double(const std::vector<double>&)> evaluate = [&](const std::vector<double>& u) {
        if (result.evaluations >= maxEvaluations)
            return std::numeric_limits<double>::infinity();
        ++result.evaluations;
        return objective(values(u));
    };
    // Candidate starts: the base machine and a Latin hypercube of 6 points per parameter (fixed seed), for
    // a quarter of the budget. A simplex from the base alone settles in the nearest dip: fitted from
    // xpu-v1's defaults, a DMA completion latency at its bound of 0 stayed there while the setup cost
    // took its place, which holds the engines and mispredicts every op with many DMAs.
    std::vector<std::pair<double, std::vector<double>>> candidates;
    std::vector<double> base(n);
    for (std::size_t i = 0; i < n; ++i)
        base[i] = toPosition(parameters[i], start[i]);
    candidates.emplace_back(evaluate(base), base);
    const std::size_t samples = 6 * n;
    std::mt19937_64 random(0x5eed);
    std::vector<std::vector<double>> strata(n);
    for (std::size_t d = 0; d < n; ++d) {
        for (std::size_t k = 0; k < samples; ++k)
            strata[d].push_back((static_cast<double>(k) + 0.5) / static_cast<double>(samples));
        for (std::size_t k = samples; k > 1; --k)
            std::swap(strata[d][k - 1], strata[d][random() % k]);
    }
    for (std::size_t k = 0; k < samples && result.evaluations < maxEvaluations / 4; ++k) {
        if (stop.stop_requested()) {
            result.cancelled = true;
            break;
        }
        std::vector<double> u(n);
        for (std::size_t d = 0; d < n; ++d)
            u[d] = strata[d][k];
        candidates.emplace_back(evaluate(u), std::move(u));
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    // A descent from each of the best three, sharing what is left of the budget.
    std::vector<double> best = candidates.front().second;
    double bestValue = candidates.front().first;
    const std::size_t starts = std::min<std::size_t>(3, candidates.size());
    const int left = std::max(maxEvaluations - result.evaluations, 0);
    for (std::size_t k = 0; k < starts && !result.cancelled; ++k) {
        std::vector<double> point = candidates[k].second;
        double value = candidates[k].first;
        const int budgetEnd = result.evaluations + left / static_cast<int>(starts);
        descend(point, value, budgetEnd, result.evaluations, evaluate, stop, result.cancelled);
        if (value < bestValue) {
            bestValue = value;
            best = point;
        }
    }
    result.values = values(best);
    result.objective = bestValue;
    return result;
}

ErrorStats errorStats(const std::vector<double>& predicted, const std::vector<double>& measured)
{
    ErrorStats s;
    s.rows = std::min(predicted.size(), measured.size());
    if (s.rows == 0)
        return s;
    std::vector<double> ape(s.rows);
    double mean = 0.0;
    for (std::size_t i = 0; i < s.rows; ++i) {
        ape[i] = 100.0 * std::abs(predicted[i] - measured[i]) / measured[i];
        mean += measured[i] / static_cast<double>(s.rows);
    }
    s.mape = std::accumulate(ape.begin(), ape.end(), 0.0) / static_cast<double>(s.rows);
    std::vector<double> sorted = ape;
    std::sort(sorted.begin(), sorted.end());
    // Percentiles by linear interpolation between closest ranks (numpy's default).
    const auto percentile = [&](double q) {
        const double rank = q * static_cast<double>(s.rows - 1);
        const auto below = static_cast<std::size_t>(std::floor(rank));
        const std::size_t above = std::min(below + 1, s.rows - 1);
        return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
    };
    s.median = percentile(0.5);
    s.p90 = percentile(0.9);
    s.worst = sorted.back();
    double residual = 0.0, total = 0.0;
    for (std::size_t i = 0; i < s.rows; ++i) {
        residual += (measured[i] - predicted[i]) * (measured[i] - predicted[i]);
        total += (measured[i] - mean) * (measured[i] - mean);
    }
    s.r2 = total > 0.0 ? 1.0 - residual / total : 0.0;
    return s;
}

void splitRows(std::size_t n, double trainFraction, std::uint64_t seed, std::vector<std::size_t>& train,
               std::vector<std::size_t>& test)
{
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    // A Fisher-Yates shuffle with a fixed generator, so a seed gives the same split on every platform
    // (std::shuffle's use of the generator is unspecified).
    std::mt19937_64 random(seed);
    for (std::size_t i = n; i > 1; --i)
        std::swap(order[i - 1], order[random() % i]);
    const auto cut = static_cast<std::size_t>(std::llround(trainFraction * static_cast<double>(n)));
    train.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(cut, n)));
    test.assign(order.begin() + static_cast<std::ptrdiff_t>(std::min(cut, n)), order.end());
    std::sort(train.begin(), train.end());
    std::sort(test.begin(), test.end());
}

} // namespace xps::calibrate

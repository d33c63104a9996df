#pragma once
// Fitting a few bounded parameters to measurements: Nelder-Mead's simplex search (no derivatives: a
// replayed cycle count is a step function of integer latencies) over each parameter mapped to [0, 1] on a
// log scale where its range spans decades, so a bandwidth and a latency move in comparable steps.

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace xps::calibrate {

struct FreeParameter
{
    std::string key; // a machine parameter (docs/isa.md)
    double lower = 0.0;
    double upper = 1.0;
    bool integer = false;
    std::string why; // what the parameter stands for on the real chip
};

struct FitResult
{
    std::vector<double> values;
    double objective = 0.0;
    int evaluations = 0;
    bool cancelled = false;
};

// Minimises `objective` with at most `maxEvaluations` calls: `start` (within bounds) and a Latin hypercube
// of 6 points per parameter, then a simplex descent from each of the best three (each restarted once
// around its best point, which escapes the flat steps integer parameters make).
FitResult fitNelderMead(const std::vector<FreeParameter>& parameters, const std::vector<double>& start,
                        const std::function<double(const std::vector<double>&)>& objective,
                        int maxEvaluations, std::stop_token stop = {});

// Error statistics of predictions against measurements (absolute percentage errors, |p - m| / m).
struct ErrorStats
{
    std::size_t rows = 0;
    double mape = 0.0;   // mean, %
    double median = 0.0; // %
    double p90 = 0.0;    // %
    double worst = 0.0;  // %
    double r2 = 0.0;     // of the predicted against the measured times
};
ErrorStats errorStats(const std::vector<double>& predicted, const std::vector<double>& measured);

// A deterministic split: `trainFraction` of the indices 0..n-1 (shuffled by `seed`) and the rest.
void splitRows(std::size_t n, double trainFraction, std::uint64_t seed, std::vector<std::size_t>& train,
               std::vector<std::size_t>& test);

} // namespace xps::calibrate

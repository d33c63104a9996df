#pragma once
// What a calibration found (sim/calibration.h runs it): the rows, the free parameters before and after,
// each row's predicted time, and the split into training and held-out rows; and its presentations: the
// text `xpushark-cli calibrate` prints, the JSON it writes (docs/calibration.md) and the HTML page with
// the scatter plot.

#include "calibrate/fit.h"
#include "calibrate/measurements.h"
#include "isa/machine_config.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace xps::calibrate {

struct CalibrationResult
{
    std::vector<Measurement> rows;
    std::vector<FreeParameter> parameters;
    std::vector<double> startValues;                   // the base machine's
    std::vector<double> fittedValues;                  // fitted on the training rows
    std::vector<double> startPredictedUs, predictedUs; // per row, before and after
    std::vector<bool> training;                        // per row: in the training split
    isa::MachineConfig fitted;
    std::uint64_t seed = 1;
    double trainFraction = 0.7;
    std::string holdOut; // the rule that held rows out (HoldOut::text), or empty: the random split
    int evaluations = 0;
    double seconds = 0.0;
    unsigned threads = 1;
};

// Statistics of one group of rows: an op class (or "all") and a size bucket (or "all"), over the
// held-out rows, the training rows or every row.
struct GroupStats
{
    std::string op;
    std::string bucket;
    std::string split; // "held-out", "training", "all"
    ErrorStats fitted;
    ErrorStats start;
};
std::vector<GroupStats> groupStats(const CalibrationResult& r);

std::string calibrationText(const CalibrationResult& r);
nlohmann::json calibrationJson(const CalibrationResult& r);
std::string calibrationHtml(const CalibrationResult& r);
// The scatter plot, predicted against measured on log axes, as standalone SVG.
std::string scatterSvg(const CalibrationResult& r);

} // namespace xps::calibrate

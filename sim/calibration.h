#pragma once
// Calibration of the GRM against measured op latencies: every measurement becomes a StableHLO module,
// compiled once with the lowering a user's model gets; the free machine parameters (timing only: none of
// them changes the compiled code) are fitted by replaying the training rows in timing mode on several
// threads, and the held-out rows say how well the fitted machine predicts ops it has not seen.

#include "calibrate/calibration.h"
#include "trace/trace.h"
#include "util/result.h"

#include <functional>
#include <optional>
#include <stop_token>

namespace xps::sim {

// The parameters `calibrate` fits unless told otherwise, with their bounds and what each stands for.
std::vector<calibrate::FreeParameter> defaultFreeParameters();

// Whether a machine parameter affects only timing (latencies, occupancies, DMA costs, bandwidths, the
// clock), never the code compiled for the machine or what a program may address.
bool isTimingParameter(std::string_view key);

struct CalibrationOptions
{
    isa::MachineConfig base;
    std::vector<calibrate::FreeParameter> parameters = defaultFreeParameters();
    double trainFraction = 0.7;
    std::uint64_t seed = 1;
    // Instead of the seeded random split: the rows this rule picks are held out, the rest fitted on
    // (calibrate --hold-out): shapes outside the fitted range, or an op class the fit never saw.
    std::optional<calibrate::HoldOut> holdOut;
    int maxEvaluations = 800;
    unsigned threads = 0; // 0: one per core
};

// `stage` names what runs ("compiling", "fitting"); `fraction` is 0..1.
using CalibrationProgress = std::function<void(const std::string& stage, double fraction)>;

// Errors: a row whose module does not compile, or a parameter that is not a timing parameter of the
// machine. Cancelled through `stop` (between replays): then the error says so.
Result<calibrate::CalibrationResult> calibrateMachine(std::vector<calibrate::Measurement> rows,
                                                      const CalibrationOptions& options,
                                                      std::stop_token stop = {},
                                                      const CalibrationProgress& progress = {});

// A compiled trace's predicted duration on its machine, in microseconds: the timing-mode replay's cycles
// at the machine's clock. Per region too (`estimate`): the time between a region's begin and end on chip 0.
struct Estimate
{
    double totalUs = 0.0;
    std::uint64_t cycles = 0;
    struct Region
    {
        std::string name;
        std::string level;
        double us = 0.0;
        std::uint64_t executions = 0;
    };
    std::vector<Region> regions; // in program order of first entry
};
Result<Estimate> estimateTrace(const trace::Trace& trace, std::stop_token stop = {});

} // namespace xps::sim

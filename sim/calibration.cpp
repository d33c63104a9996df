#include "calibration.h"

#include "replayer.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"
#include "work_pool.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

namespace xps::sim {

using calibrate::CalibrationResult;
using calibrate::FreeParameter;

std::vector<FreeParameter> defaultFreeParameters()
{
    return {
        {"dma_completion_cycles", 0, 4000, true,
         "from a DMA's last byte to its flag (a completion's round trip): with the DMA in and the DMA out of "
         "every kernel, the fixed cost of about 1 us that the smallest ops show"},
        {"dma_setup_cycles", 0, 2000, true,
         "from a descriptor's setup starting to its first byte; holds the engine unless prefetched"},
        {"dma_prefetch_descriptors", 0, 15, true,
         "descriptors behind an engine's head whose setup overlaps the head's bytes"},
        {"dma_engine_peak_gbs", 10, 1200, false, "the rate of one DMA engine"},
        {"hbm_bandwidth_gbs", 50, 1200, false,
         "HBM bandwidth shared by every transfer (datasheet: 1,200 GB/s); f16 tensors are packed in 2 bytes"},
        {"convert_gbs", 10, 2400, false,
         "the rate a chip widens f16 to f32 or narrows it back (2-byte bytes a second), shared by every "
         "converting copy: the conversion work a TPU does on its vector unit (f16 is not one of its native "
         "types)"},
        {"occ_mxu_matmul", 1, 64, true,
         "cycles an mxu.mm of 8 rows holds the MXU's input: 8 for one 128 x 128 MXU; a TensorCore's 4 MXUs "
         "working on one matmul read as 2"},
        {"lat_mxu_matmul", 8, 1024, true, "cycles from an mxu.mm to its 8 x 128 result in the FIFO"},
        {"occ_mxu_wpush", 1, 64, true, "cycles a push of 8 weight rows holds the weight path"},
        {"lat_vector_load", 1, 64, true, "cycles from a VMEM load to its register"},
        {"occ_mxu_wcommit", 1, 256, true, "cycles a weight commit holds the weight path"},
    };
}

bool isTimingParameter(std::string_view key)
{
    static constexpr std::string_view kKeys[] = {
        "dma_setup_cycles",    "dma_prefetch_descriptors", "dma_completion_cycles",
        "dma_engine_peak_gbs", "hbm_bandwidth_gbs",        "vmem_dma_bandwidth_gbs",
        "ici_link_gbs",        "ici_latency_cycles",       "clock_mhz",
        "convert_gbs",         "convert_bf16_gbs"};
    if (key.starts_with("lat_") || key.starts_with("occ_"))
        return true;
    return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

namespace {

std::string valueText(double v, bool integer)
{
    if (integer)
        return std::to_string(std::llround(v));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
}

Status applyParameters(isa::MachineConfig& machine, const std::vector<FreeParameter>& parameters,
                       const std::vector<double>& values)
{
    for (std::size_t i = 0; i < parameters.size(); ++i)
        if (Status s =
                isa::setMachineParam(machine, parameters[i].key, valueText(values[i], parameters[i].integer));
            !s)
            return s;
    return Ok{};
}

double parameterValue(const isa::MachineConfig& machine, const FreeParameter& p)
{
    return std::stod(isa::machineParamText(machine, p.key));
}

// Predicts every row in `rows` (indices into `traces`) on `threads` threads; NaN where a replay failed.
class Predictor
{
public:
    Predictor(std::vector<trace::Trace>& traces, unsigned threads) : m_traces(traces), m_threads(threads) {}

    std::vector<double> predict(const std::vector<std::size_t>& rows,
                                const std::vector<FreeParameter>& parameters,
                                const std::vector<double>& values, std::stop_token stop)
    {
        std::vector<double> us(rows.size(), std::nan(""));
        forEachOnWorkers(rows.size(), m_threads, stop, [&](std::size_t i) {
            trace::Trace& t = m_traces[rows[i]];
            if (!applyParameters(t.machine, parameters, values))
                return;
            events::EventStore store;
            store.discardEvents();
            ReplayOptions options;
            options.mode = ReplayMode::TimingOnly;
            const ReplayResult r = replay(t, options, store);
            if (r.status == ReplayResult::Status::Completed)
                us[i] = static_cast<double>(r.totalCycles) / t.machine.clockMhz;
        });
        return us;
    }

private:
    std::vector<trace::Trace>& m_traces;
    unsigned m_threads;
};

double mape(const std::vector<double>& predicted, const std::vector<calibrate::Measurement>& rows,
            const std::vector<std::size_t>& which)
{
    double sum = 0.0;
    for (std::size_t i = 0; i < which.size(); ++i) {
        const double measured = rows[which[i]].averageUs;
        if (!std::isfinite(predicted[i]))
            return 1e9; // a machine on which a row does not run is no candidate
        sum += std::abs(predicted[i] - measured) / measured;
    }
    return which.empty() ? 0.0 : 100.0 * sum / static_cast<double>(which.size());
}

} // namespace

Result<CalibrationResult> calibrateMachine(std::vector<calibrate::Measurement> rows,
                                           const CalibrationOptions& options, std::stop_token stop,
                                           const CalibrationProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    CalibrationResult r;
    r.parameters = options.parameters;
    r.seed = options.seed;
    r.trainFraction = options.trainFraction;
    r.threads = options.threads ? options.threads : hardwareThreads();
    for (const FreeParameter& p : r.parameters) {
        if (!isTimingParameter(p.key))
            return Error(p.key,
                         "not a timing parameter of the machine: calibrate fits latencies, occupancies, "
                         "bandwidths and DMA costs, which leave the compiled code unchanged");
        if (!(p.lower <= p.upper))
            return Error(p.key, "its lower bound is above its upper bound");
        r.startValues.push_back(std::clamp(parameterValue(options.base, p), p.lower, p.upper));
    }

    std::vector<trace::Trace> traces;
    traces.reserve(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (stop.stop_requested())
            return Error("calibrate", "cancelled");
        if (progress && i % 32 == 0)
            progress("compiling", static_cast<double>(i) / static_cast<double>(rows.size()));
        auto module = shlo::parseModule(calibrate::moduleText(rows[i]), rows[i].location);
        if (!module)
            return module.error();
        // As a user's model is compiled (`estimate`): what a prediction is held to is what a user gets.
        auto compiled = shlo::compileModule(*module, shlo::CompileOptions::asXla(options.base));
        if (!compiled)
            return Error(rows[i].location,
                         rows[i].label() + " does not compile: " + compiled.error().message());
        traces.push_back(std::move(compiled->trace));
    }

    std::vector<std::size_t> train, test, all(rows.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    if (options.holdOut) {
        for (std::size_t i = 0; i < rows.size(); ++i)
            (options.holdOut->holds(rows[i]) ? test : train).push_back(i);
        if (train.empty() || test.empty())
            return Error("calibrate", "--hold-out " + options.holdOut->text() + " leaves " +
                                          (train.empty() ? "nothing to fit on" : "nothing held out"));
        r.holdOut = options.holdOut->text();
    } else {
        calibrate::splitRows(rows.size(), options.trainFraction, options.seed, train, test);
    }
    Predictor predictor(traces, r.threads);

    int evaluations = 0;
    const auto objective = [&](const std::vector<double>& values) {
        if (progress)
            progress("fitting", std::min(1.0, static_cast<double>(++evaluations) / options.maxEvaluations));
        return mape(predictor.predict(train, r.parameters, values, stop), rows, train);
    };
    const calibrate::FitResult fit =
        calibrate::fitNelderMead(r.parameters, r.startValues, objective, options.maxEvaluations, stop);
    if (fit.cancelled || stop.stop_requested())
        return Error("calibrate", "cancelled");
    r.fittedValues = fit.values;
    r.evaluations = fit.evaluations;

    r.startPredictedUs = predictor.predict(all, r.parameters, r.startValues, stop);
    r.predictedUs = predictor.predict(all, r.parameters, r.fittedValues, stop);
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (!std::isfinite(r.predictedUs[i]) || !std::isfinite(r.startPredictedUs[i]))
            return Error(rows[i].location, rows[i].label() + " did not replay to completion on the machine");
    r.training.assign(rows.size(), false);
    for (const auto i : train)
        r.training[i] = true;
    r.fitted = options.base;
    if (Status s = applyParameters(r.fitted, r.parameters, r.fittedValues); !s)
        return s.error();
    r.rows = std::move(rows);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
}

Result<Estimate> estimateTrace(const trace::Trace& trace, std::stop_token stop)
{
    events::EventStore store;
    store.keepOnlyRegions();
    ReplayOptions options;
    options.mode = ReplayMode::TimingOnly;
    options.perPcStats = false;
    Replayer replayer(trace, options, store);
    const ReplayResult r = replayer.run(stop);
    if (r.status == ReplayResult::Status::Cancelled)
        return Error("estimate", "cancelled");
    if (r.status != ReplayResult::Status::Completed)
        return Error("estimate", r.fault ? r.fault->toString() : r.limitMessage);
    Estimate e;
    e.cycles = r.totalCycles;
    e.totalUs = static_cast<double>(r.totalCycles) / trace.machine.clockMhz;
    if (trace.chips.empty())
        return e;
    const auto& symbols = trace.chips.front().symbols.regions;
    std::map<std::uint32_t, std::size_t> index; // region -> position in e.regions
    // Chip 0's regions in the order they exited, then by entry (two that enter together: the inner first).
    std::vector<events::StoreSlice> records = store.slices(store.regionTrack(ChipId(0)));
    std::stable_sort(
        records.begin(), records.end(),
        [](const events::StoreSlice& a, const events::StoreSlice& b) { return a.start < b.start; });
    for (const events::StoreSlice& rec : records) {
        const std::uint32_t symbol = events::regionOf(rec);
        if (symbol >= symbols.size())
            continue;
        auto [it, added] = index.emplace(symbol, e.regions.size());
        if (added)
            e.regions.push_back({symbols[symbol].name, symbols[symbol].level, 0.0, 0});
        auto& region = e.regions[it->second];
        region.us += static_cast<double>(rec.duration) / trace.machine.clockMhz;
        ++region.executions;
    }
    return e;
}

} // namespace xps::sim

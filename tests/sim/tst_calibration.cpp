// Calibration end to end on the GRM: a machine with known timing parameters is recovered by calibrate
// from measurements that are its own replays; estimate's per-region times add up; what calibrate may not
// fit (a parameter that changes the compiled code) is refused; cancel stops it.
#include "test_support.h"

#include "calibration.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"

#include <cmath>

using namespace xps;
using calibrate::Measurement;
using calibrate::OpClass;

namespace {

Measurement row(OpClass op, std::vector<std::int64_t> shape)
{
    Measurement m;
    m.op = op;
    m.shape = std::move(shape);
    m.dtype = "f16";
    m.location = "synthetic:" + m.label();
    return m;
}

// What the GRM predicts for the row on `machine`, running the code compiled for `compiledFor`: the
// "measurement" of a synthetic chip. calibrate compiles each row once, for its base machine, and replays
// that code on every candidate (the packer places instructions by the latencies it compiles for, so code
// compiled for the truth itself would differ in placement from anything the fit can replay).
double replayedUs(const Measurement& m, const isa::MachineConfig& machine,
                  const isa::MachineConfig& compiledFor)
{
    auto module = shlo::parseModule(calibrate::moduleText(m), "row.mlir");
    if (!module)
        qFatal("%s", module.error().toString().c_str());
    shlo::CompileOptions options;
    options.machine = compiledFor;
    auto compiled = shlo::compileModule(*module, options);
    if (!compiled)
        qFatal("%s", compiled.error().toString().c_str());
    compiled->trace.machine = machine;
    auto estimate = sim::estimateTrace(compiled->trace);
    if (!estimate)
        qFatal("%s", estimate.error().toString().c_str());
    return estimate->totalUs;
}

std::vector<Measurement> syntheticRows()
{
    std::vector<Measurement> rows;
    for (const std::int64_t n : {32, 96, 128, 256})
        for (const std::int64_t k : {64, 256})
            rows.push_back(row(OpClass::Matmul, {n, 128, k}));
    // Tall matmuls of a short K, which the MXU's occupancy paces (6% a cycle of it at this machine's): with
    // packed f16 operands the rows above move so few bytes that an occupancy off by one is hidden by a
    // slightly different completion cost or HBM rate. Since a K block's weights arrive in one DMA for all
    // N blocks, two were not enough: the fit settled at occupancy 2 (0.4% training error).
    rows.push_back(row(OpClass::Matmul, {1024, 128, 64}));
    rows.push_back(row(OpClass::Matmul, {1024, 256, 64}));
    rows.push_back(row(OpClass::Matmul, {2048, 128, 64}));
    for (const std::int64_t n : {256, 4096, 65536, 262144})
        rows.push_back(row(OpClass::Add, {n}));
    rows.push_back(row(OpClass::Add, {512, 512}));
    return rows;
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT

private slots:
    void aKnownMachineIsRecoveredFromItsOwnReplays()
    {
        isa::MachineConfig truth;
        truth.dmaCompletionCycles = 300;
        truth.hbmBandwidthGBs = 700.0;
        truth.occMxuMatmul = 3;
        // A short MXU latency, so the occupancy, not the result FIFO's latency over its depth, paces matmuls:
        // at xpu-v1's 136 cycles every occupancy up to 8 gives the same times, and none can be recovered.
        truth.latMxuMatmul = 24;
        sim::CalibrationOptions options; // from xpu-v1's defaults: completion 0, HBM 1200, occupancy 8
        options.base.latMxuMatmul = 24;
        std::vector<Measurement> rows = syntheticRows();
        for (Measurement& m : rows)
            m.averageUs = replayedUs(m, truth, options.base);

        options.parameters = {{"dma_completion_cycles", 0, 2000, true, ""},
                              {"hbm_bandwidth_gbs", 100, 1200, false, ""},
                              {"occ_mxu_matmul", 1, 32, true, ""}};
        options.maxEvaluations = 300; // 150 stopped at HBM 637 GB/s (training 0.9%) once vld.s packed
        options.trainFraction = 0.7;
        options.threads = 2;
        auto result = sim::calibrateMachine(rows, options);
        QVERIFY2(result, result ? "" : result.error().toString().c_str());
        const auto& v = result->fittedValues;
        QVERIFY2(std::abs(v[0] - 300.0) <= 15.0, std::to_string(v[0]).c_str());
        QVERIFY2(std::abs(v[1] / 700.0 - 1.0) <= 0.05, std::to_string(v[1]).c_str());
        QCOMPARE(v[2], 3.0);
        QCOMPARE(result->fitted.dmaCompletionCycles, std::int64_t(std::llround(v[0])));
        for (const calibrate::GroupStats& g : calibrate::groupStats(*result))
            if (g.op == "all" && g.bucket == "all") {
                QVERIFY2(g.fitted.mape < 1.5, (g.split + ": " + std::to_string(g.fitted.mape)).c_str());
                QVERIFY(g.start.mape > 10.0); // the default machine was far off
            }
        QCOMPARE(result->rows.size(), rows.size());
        std::size_t training = 0;
        for (const bool t : result->training)
            training += t ? 1 : 0;
        QCOMPARE(training, std::size_t(std::llround(0.7 * static_cast<double>(rows.size()))));
    }

    void parametersThatChangeTheCodeAreRefused()
    {
        sim::CalibrationOptions options;
        options.parameters = {{"vmem_bytes", 1 << 20, 1 << 25, true, ""}};
        auto result = sim::calibrateMachine(syntheticRows(), options);
        QVERIFY(!result);
        QVERIFY2(result.error().toString().starts_with("vmem_bytes: not a timing parameter"),
                 result.error().toString().c_str());
    }

    void cancelStopsIt()
    {
        std::stop_source stop;
        stop.request_stop();
        const sim::CalibrationOptions options;
        auto result = sim::calibrateMachine(syntheticRows(), options, stop.get_token());
        QVERIFY(!result);
        QCOMPARE(result.error().toString(), std::string("calibrate: cancelled"));
    }

    void estimateTimesEveryRegion()
    {
        auto module = shlo::parseFile(test::sourceDir() + "/resources/samples/transformer_block.mlir");
        QVERIFY(module);
        auto compiled = shlo::compileModule(module->front());
        QVERIFY(compiled);
        auto e = sim::estimateTrace(compiled->trace);
        QVERIFY2(e, e ? "" : e.error().toString().c_str());
        QCOMPARE(e->totalUs, static_cast<double>(e->cycles) / compiled->trace.machine.clockMhz);
        QVERIFY(!e->regions.empty());
        QCOMPARE(e->regions.front().level, std::string("layer")); // the module, around everything
        QVERIFY(e->regions.front().us <= e->totalUs);
        QVERIFY(e->regions.front().us > 0.99 * e->totalUs);
        double ops = 0.0;
        std::size_t opRegions = 0;
        for (const auto& r : e->regions)
            if (r.level == "op") {
                ops += r.us;
                ++opRegions;
            }
        QCOMPARE(opRegions, compiled->kernels);
        QVERIFY(ops <= e->totalUs * 1.0000001);
        QVERIFY(ops > 0.95 * e->totalUs); // the ops are nearly all of the run
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"

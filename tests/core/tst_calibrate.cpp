// Calibration's pure parts: measurement CSV files (both layouts the shared TPU data uses, and precise
// errors for bad ones), the StableHLO module each row becomes, the error statistics, the seeded split,
// the fit on a function with a known minimum, and the JSON / HTML / SVG presentations.
#include "test_support.h"

#include <QFile>

#include "calibrate/calibration.h"
#include "stablehlo/parser.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <stop_token>

using namespace xps;
using namespace xps::calibrate;

namespace {

std::string errorOf(const std::string& text)
{
    auto r = parseMeasurements(text, "m.csv");
    return r ? std::string("(parsed)") : r.error().toString();
}

constexpr const char* kMatmuls =
    "op,m,n,k,dtype,measured_us_avg,measured_us_min,measured_us_max,measured_us_stddev\n"
    "matmul,128,256,64,f16,1.5,1.4,1.7,0.05\n"
    "matmul,32,32,32,bf16,1.09,1.02,1.28,0.06\n";
constexpr const char* kAdds =
    "op,shape,dtype,measured_us_avg,measured_us_min,measured_us_max,measured_us_stddev\r\n"
    "add,1024x512,f16,10.5,10.1,10.9,0.1\r\n"
    "\r\n"
    "add, 4096 ,f32,0.9,0.85,1.0,0.02\r\n";

} // namespace

class TestCalibrate : public QObject
{
    Q_OBJECT

private slots:
    void readsBothLayouts()
    {
        auto mm = parseMeasurements(kMatmuls, "mm.csv");
        QVERIFY2(mm, mm ? "" : mm.error().toString().c_str());
        QCOMPARE(mm->size(), std::size_t(2));
        QCOMPARE((*mm)[0].op, OpClass::Matmul);
        QCOMPARE((*mm)[0].shape, (std::vector<std::int64_t>{128, 256, 64}));
        QCOMPARE((*mm)[0].label(), std::string("matmul 128x256x64 f16"));
        QCOMPARE((*mm)[0].location, std::string("mm.csv:2"));
        QCOMPARE((*mm)[0].averageUs, 1.5);
        QCOMPARE((*mm)[0].stddevUs, 0.05);
        QCOMPARE((*mm)[0].work(), 128.0 * 256 * 64);
        QCOMPARE((*mm)[0].sizeBucket(), std::string("1e6-1e7 MACs"));
        QCOMPARE((*mm)[1].dtype, std::string("bf16"));

        auto add = parseMeasurements(kAdds, "add.csv"); // CRLF, a blank line, spaces around a field
        QVERIFY2(add, add ? "" : add.error().toString().c_str());
        QCOMPARE(add->size(), std::size_t(2));
        QCOMPARE((*add)[0].shape, (std::vector<std::int64_t>{1024, 512}));
        QCOMPARE((*add)[1].shape, (std::vector<std::int64_t>{4096}));
        QCOMPARE((*add)[1].location, std::string("add.csv:4"));
        QCOMPARE((*add)[1].sizeBucket(), std::string("1e3-1e4 elements"));
    }

    void readsScaleSimsGemmTable()
    {
        // gemm_fusion_master.csv's columns (CRLF): each row a bf16 matmul at its device time; a row whose
        // status is not ok is left out; a bad side names its line and column.
        const std::string text = "M,N,K,shape_class,dtype,latency_us_wallclock,latency_us_device,program_us,"
                                 "host_us,cycles_compute,"
                                 "status\r\n"
                                 "2112,64,64,tall,bf16,108.2000,1.6390,11.5127,96.6873,2493,ok\r\n"
                                 "16,257,768,grid,bf16,104.5100,1.5522,13.7323,90.7777,7163,failed\r\n"
                                 "4096,1536,256,grid,bf16,123.6200,17.3425,29.0351,94.5849,107471,ok\r\n";
        auto rows = parseMeasurements(text, "gemm.csv");
        QVERIFY2(rows.ok(), rows.ok() ? "" : rows.error().toString().c_str());
        QCOMPARE(rows->size(), std::size_t{2});
        QCOMPARE((*rows)[0].op, OpClass::Matmul);
        QCOMPARE((*rows)[0].shape, (std::vector<std::int64_t>{2112, 64, 64}));
        QCOMPARE((*rows)[0].dtype, std::string("bf16"));
        QCOMPARE((*rows)[0].averageUs, 1.6390);
        QCOMPARE((*rows)[1].location, std::string("gemm.csv:4"));
        QCOMPARE((*rows)[1].averageUs, 17.3425);
        auto bad = parseMeasurements("M,N,K,dtype,latency_us_device,status\n12,x,3,bf16,1.0,ok\n", "g.csv");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().toString(),
                 std::string("g.csv:2:4: expected N as an integer in 1..65536, found 'x'"));
        // A real copy in ../shared: 250 rows, every one ok.
        const std::string shared = test::sharedDir() + "/calibration/scalesim/gemm_fusion_master.csv";
        if (!QFile::exists(QString::fromStdString(shared)))
            QSKIP("../shared/calibration/scalesim is absent");
        auto real = readMeasurements(shared);
        QVERIFY2(real.ok(), real.ok() ? "" : real.error().toString().c_str());
        QCOMPARE(real->size(), std::size_t{250});
    }

    void readsScaleSimValidationKernelTables()
    {
        // kernel_statistics_filtered.csv of SCALE-Sim-validation's runs: quoted kernel names with commas,
        // one file per op family, every input float16.
        const std::string text =
            "kernel_name,operation_name,dim_0,dim_1,avg_duration_us,min_duration_us,max_duration_us,"
            "stddev_duration_us,event_count,tuple_product\n"
            "\"sigmoid_(1024,896)\",sigmoid_,1024,896.0,13.633714,13.568571,13.83,0.100332,10,917504\n"
            "\"leaky_relu_(128,)\",leaky_relu_,128,,0.86229,0.84,0.9,0.01,10,128\n"
            "\"div_(896, 1024)\",div_,896,1024.0,19.915857,19.795625,20.105714,0.082985,10,917504\n"
            "\"batch_norm_inference_(64,64,32,32)\",bn,64,64,54.9,54.8,55.0,0.05,5,4194304\n";
        auto rows = parseMeasurements(text, "k.csv");
        QVERIFY2(rows.ok(), rows.ok() ? "" : rows.error().toString().c_str());
        QCOMPARE(rows->size(), std::size_t{4});
        QCOMPARE((*rows)[0].op, OpClass::Sigmoid);
        QCOMPARE((*rows)[0].shape, (std::vector<std::int64_t>{1024, 896}));
        QCOMPARE((*rows)[0].dtype, std::string("f16"));
        QCOMPARE((*rows)[0].averageUs, 13.633714);
        QCOMPARE((*rows)[0].maximumUs, 13.83);
        QCOMPARE((*rows)[1].op, OpClass::LeakyRelu);
        QCOMPARE((*rows)[1].shape, (std::vector<std::int64_t>{128}));
        QCOMPARE((*rows)[2].op, OpClass::Divide);
        QCOMPARE((*rows)[2].shape, (std::vector<std::int64_t>{896, 1024}));
        QCOMPARE(opFamily((*rows)[2].op), OpFamily::Elementwise);
        QCOMPARE((*rows)[3].op, OpClass::BatchNormInference);
        QCOMPARE((*rows)[3].label(), std::string("batch_norm_inference 64x64x32x32 f16"));
        QCOMPARE((*rows)[3].location, std::string("k.csv:5"));
        // The real runs in ../shared: every activation, element-wise and batch norm table reads whole.
        const std::string data = test::sharedDir() + "/calibration/scalesim/SCALE-Sim-validation/data/";
        if (!QFile::exists(QString::fromStdString(data)))
            QSKIP("../shared/calibration/scalesim/SCALE-Sim-validation is absent");
        for (const auto& [file, count] : std::vector<std::pair<const char*, std::size_t>>{
                 {"data_act1/kernel_statistics_filtered.csv", 1746},
                 {"data_act2/kernel_statistics_filtered.csv", 1152},
                 {"data_add1/kernel_statistics_filtered.csv", 194},
                 {"data_mul1/kernel_statistics_filtered_mul.csv", 194},
                 {"data_relu1/kernel_statistics_filtered.csv", 194},
                 {"data_ele/kernel_statistics_filtered.csv", 384},
                 {"data_batch_norm/kernel_statistics_filtered.csv", 85}}) {
            auto real = readMeasurements(data + file);
            QVERIFY2(real.ok(), real.ok() ? file : real.error().toString().c_str());
            QCOMPARE(real->size(), count);
        }
    }

    void holdOutRulesPickTheirRows()
    {
        Measurement small, large, add;
        small.op = OpClass::Matmul;
        small.shape = {512, 128, 512};
        large.op = OpClass::Matmul;
        large.shape = {16, 513, 64};
        add.op = OpClass::Add;
        add.shape = {1024, 4};
        auto larger = parseHoldOut("larger:512");
        QVERIFY(larger.ok());
        QVERIFY(!larger->holds(small) && larger->holds(large) && larger->holds(add));
        auto smaller = parseHoldOut("smaller:512");
        QVERIFY(smaller.ok());
        QVERIFY(smaller->holds(small) && !smaller->holds(large));
        auto op = parseHoldOut("op:add");
        QVERIFY(op.ok());
        QVERIFY(op->holds(add) && !op->holds(small));
        QCOMPARE(op->text(), std::string("op:add"));
        QCOMPARE(larger->text(), std::string("larger:512"));
        Measurement sigmoid;
        sigmoid.op = OpClass::Sigmoid;
        sigmoid.shape = {1024};
        auto family = parseHoldOut("family:activation");
        QVERIFY(family.ok());
        QVERIFY(family->holds(sigmoid) && !family->holds(add) && !family->holds(small));
        QCOMPARE(family->text(), std::string("family:activation"));
        QVERIFY(parseHoldOut("op:sigmoid")->holds(sigmoid));
        for (const char* bad : {"larger", "larger:0", "op:conv", "family:conv", "bigger:5", ""})
            QVERIFY2(!parseHoldOut(bad).ok(), bad);
        QVERIFY(parseHoldOut("op:conv").error().message().starts_with(
            "expected op:NAME with an op class's name"));
        QVERIFY(parseHoldOut("family:relu").error().message().starts_with("expected family:matmul,"));
    }

    void badFilesNameTheLineAndColumn_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        const QString h = QStringLiteral("op,shape,dtype,measured_us_avg\n");
        QTest::newRow("empty") << QString() << QStringLiteral("m.csv: empty: expected a header row");
        QTest::newRow("no avg column")
            << QStringLiteral("op,shape,dtype\nadd,4,f16\n")
            << QStringLiteral("m.csv:1:1: the header has no 'measured_us_avg' column");
        QTest::newRow("no shape") << QStringLiteral("op,dtype,measured_us_avg\nadd,f16,1\n")
                                  << QStringLiteral("m.csv:1:1: the header has neither a 'shape' column");
        QTest::newRow("unknown op") << h + QStringLiteral("conv,4,f16,1\n")
                                    << QStringLiteral(
                                           "m.csv:2:1: unknown op 'conv': expected matmul, add, sub");
        QTest::newRow("dtype") << h + QStringLiteral("add,4,f64,1\n")
                               << QStringLiteral("m.csv:2:7: unknown dtype 'f64': expected f16, bf16 or f32");
        QTest::newRow("shape") << h + QStringLiteral("add,4xq,f16,1\n")
                               << QStringLiteral("m.csv:2:7: expected a shape like 1024x1024");
        QTest::newRow("zero side") << h + QStringLiteral("add,0,f16,1\n")
                                   << QStringLiteral("m.csv:2:5: expected a shape like 1024x1024");
        QTest::newRow("huge") << h + QStringLiteral("add,65536x65536,f16,1\n")
                              << QStringLiteral("m.csv:2:5: more than 2^26 elements in one op");
        QTest::newRow("batch norm of 2 sides")
            << h + QStringLiteral("batch_norm_inference,4x4,f16,1\n")
            << QStringLiteral("m.csv:2:22: a batch norm's shape is NxCxHxW");
        const QString k = QStringLiteral("kernel_name,avg_duration_us,min_duration_us,max_duration_us,"
                                         "stddev_duration_us,event_count,tuple_product\n");
        QTest::newRow("kernel not read")
            << k + QStringLiteral("\"layer_norm_(2,3,128,128)\",4.6,4.6,4.7,0.03,10,98304\n")
            << QStringLiteral("m.csv:2:2: kernel 'layer_norm_(2,3,128,128)' is not an op calibration reads");
        QTest::newRow("kernel shape") << k + QStringLiteral("\"relu_(8, x)\",1.3,1.3,1.5,0.08,20,8192\n")
                                      << QStringLiteral("m.csv:2:11: expected a shape of 1 to 4 sides");
        QTest::newRow("kernel time")
            << k + QStringLiteral("\"relu_(8,8)\",-1,1.3,1.5,0.08,20,64\n")
            << QStringLiteral("m.csv:2:14: expected avg_duration_us as a positive number of microseconds");
        QTest::newRow("fields") << h + QStringLiteral("add,4,f16\n")
                                << QStringLiteral("m.csv:2:1: expected 4 fields as in the header, found 3");
        QTest::newRow("number") << h + QStringLiteral("add,4,f16,fast\n")
                                << QStringLiteral(
                                       "m.csv:2:11: expected measured_us_avg as a positive number");
        QTest::newRow("zero time")
            << h + QStringLiteral("add,4,f16,0\n")
            << QStringLiteral(
                   "m.csv:2:11: expected measured_us_avg as a positive number of microseconds, found '0'");
        QTest::newRow("nan") << h + QStringLiteral("add,4,f16,nan\n")
                             << QStringLiteral("m.csv:2:11: expected measured_us_avg as a positive number");
        QTest::newRow("matmul without mnk")
            << h + QStringLiteral("matmul,4,f16,1\n")
            << QStringLiteral("m.csv:2:1: a matmul needs the m, n and k columns");
        QTest::newRow("header only") << h << QStringLiteral("m.csv: no measurements after the header");
    }

    void badFilesNameTheLineAndColumn()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        const std::string got = errorOf(text.toStdString());
        QVERIFY2(got.starts_with(error.toStdString()), got.c_str());
    }

    void invalidUtf8IsRefused()
    {
        QVERIFY(errorOf("op,shape,dtype,measured_us_avg\nadd,4,f16,1\xff\n")
                    .starts_with("m.csv: not UTF-8 text"));
    }

    void everyRowBecomesAModuleThatParses()
    {
        auto rows = parseMeasurements(std::string(kMatmuls), "mm.csv");
        QVERIFY(rows);
        auto adds = parseMeasurements(std::string(kAdds), "add.csv");
        QVERIFY(adds);
        rows->insert(rows->end(), adds->begin(), adds->end());
        for (const Measurement& m : *rows) {
            auto module = shlo::parseModule(moduleText(m), "row.mlir");
            QVERIFY2(module, module ? "" : module.error().toString().c_str());
            const auto& ops = module->functions.front().body.operations;
            QCOMPARE(ops.front().kind,
                     m.op == OpClass::Matmul ? shlo::OpKind::DotGeneral : shlo::OpKind::Add);
        }
        // Every other op class as JAX writes it, and the op each one's StableHLO is built around.
        const std::vector<std::pair<OpClass, shlo::OpKind>> classes = {
            {OpClass::Subtract, shlo::OpKind::Subtract},
            {OpClass::Multiply, shlo::OpKind::Multiply},
            {OpClass::Divide, shlo::OpKind::Divide},
            {OpClass::Relu, shlo::OpKind::Maximum},
            {OpClass::LeakyRelu, shlo::OpKind::Maximum},
            {OpClass::ParametricRelu, shlo::OpKind::Select},
            {OpClass::Elu, shlo::OpKind::Select},
            {OpClass::Selu, shlo::OpKind::Select},
            {OpClass::Sigmoid, shlo::OpKind::Exponential},
            {OpClass::Tanh, shlo::OpKind::Tanh},
            {OpClass::BinaryStep, shlo::OpKind::Select},
            {OpClass::Linear, shlo::OpKind::Multiply},
            {OpClass::BatchNormInference, shlo::OpKind::Sqrt}};
        for (const auto& entry : classes) {
            const OpClass op = entry.first;
            const shlo::OpKind kind = entry.second; // a copy: lambdas may not capture a structured binding
            Measurement m;
            m.op = op;
            m.shape = op == OpClass::BatchNormInference ? std::vector<std::int64_t>{2, 8, 4, 128}
                                                        : std::vector<std::int64_t>{16, 256};
            m.dtype = "f16";
            auto module = shlo::parseModule(moduleText(m), "row.mlir");
            QVERIFY2(module, module ? m.label().c_str() : module.error().toString().c_str());
            const auto& ops = module->functions.front().body.operations;
            QVERIFY2(
                std::any_of(ops.begin(), ops.end(), [&](const shlo::Operation& o) { return o.kind == kind; }),
                m.label().c_str());
        }
        // C[m, n] = A[m, k] x B[k, n]
        const std::string text = moduleText(rows->front());
        QVERIFY2(text.find("(tensor<128x64xf16>, tensor<64x256xf16>) -> tensor<128x256xf16>") !=
                     std::string::npos,
                 text.c_str());
    }

    void errorStatisticsMatchTheirDefinitions()
    {
        // Errors of 10%, 20%, 0%, 50% and 5%.
        const std::vector<double> measured{10, 10, 10, 10, 20};
        const std::vector<double> predicted{11, 8, 10, 15, 21};
        const ErrorStats s = errorStats(predicted, measured);
        QCOMPARE(s.rows, std::size_t(5));
        QCOMPARE(s.mape, 17.0);
        QCOMPARE(s.median, 10.0);
        QVERIFY(std::abs(s.p90 - 38.0) < 1e-9); // between 20% and 50% at rank 3.6
        QCOMPARE(s.worst, 50.0);
        // R^2 = 1 - SS_res / SS_tot = 1 - (1 + 4 + 0 + 25 + 1) / 80
        QVERIFY(std::abs(s.r2 - (1.0 - 31.0 / 80.0)) < 1e-12);
        QCOMPARE(errorStats({}, {}).rows, std::size_t(0));
    }

    void theSplitIsSeededAndPartitions()
    {
        std::vector<std::size_t> train, test, train2, test2;
        splitRows(100, 0.7, 42, train, test);
        splitRows(100, 0.7, 42, train2, test2);
        QCOMPARE(train, train2);
        QCOMPARE(train.size(), std::size_t(70));
        QCOMPARE(test.size(), std::size_t(30));
        std::set<std::size_t> all(train.begin(), train.end());
        all.insert(test.begin(), test.end());
        QCOMPARE(all.size(), std::size_t(100));
        splitRows(100, 0.7, 43, train2, test2);
        QVERIFY(train != train2);
    }

    void theFitFindsAKnownMinimum()
    {
        // Three parameters on different scales, one an integer, the minimum inside the bounds.
        const std::vector<FreeParameter> p{
            {"a", 1, 10000, true, ""}, {"b", 0.001, 1, false, ""}, {"c", 0, 1, false, ""}};
        const auto objective = [](const std::vector<double>& v) {
            return std::abs(std::log(v[0] / 420.0)) + std::abs(std::log(v[1] / 0.05)) + std::abs(v[2] - 0.3);
        };
        const FitResult r = fitNelderMead(p, {10, 0.5, 0.9}, objective, 600);
        QVERIFY(!r.cancelled);
        QVERIFY(r.evaluations <= 600);
        QVERIFY2(std::abs(r.values[0] - 420.0) <= 4.0, std::to_string(r.values[0]).c_str());
        QCOMPARE(r.values[0], std::round(r.values[0]));
        QVERIFY2(std::abs(r.values[1] / 0.05 - 1.0) < 0.02, std::to_string(r.values[1]).c_str());
        QVERIFY2(std::abs(r.values[2] - 0.3) < 0.01, std::to_string(r.values[2]).c_str());
    }

    void theFitStopsWhenCancelled()
    {
        std::stop_source stop;
        int calls = 0;
        const std::vector<FreeParameter> p{{"a", 1, 100, false, ""}};
        const FitResult r = fitNelderMead(
            p, {50},
            [&](const std::vector<double>& v) {
                if (++calls == 5)
                    stop.request_stop();
                return v[0];
            },
            1000, stop.get_token());
        QVERIFY(r.cancelled);
        QVERIFY(calls <= 6);
    }

    void presentationsCarryEveryRowEscaped()
    {
        CalibrationResult r;
        auto rows = parseMeasurements(std::string(kMatmuls), "<odd>&.csv");
        QVERIFY(rows);
        r.rows = *rows;
        r.parameters = {{"hbm_bandwidth_gbs", 50, 1200, false, "HBM"}};
        r.startValues = {1200};
        r.fittedValues = {600};
        r.startPredictedUs = {3.0, 2.0};
        r.predictedUs = {1.65, 1.09};
        r.training = {true, false};
        const nlohmann::json j = calibrationJson(r);
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-calibration"));
        QCOMPARE(j["rows"].size(), std::size_t(2));
        QCOMPARE(j["rows"][0]["split"].get<std::string>(), std::string("training"));
        QVERIFY(std::abs(j["rows"][0]["error_pct"].get<double>() - 10.0) < 1e-9);
        QCOMPARE(j["parameters"][0]["fitted"].get<double>(), 600.0);
        QCOMPARE(j["machine"]["hbm_bandwidth_gbs"].get<double>(), 1200.0); // r.fitted is the default machine
        bool heldOutAll = false;
        for (const auto& e : j["errors"])
            if (e["split"] == "held-out" && e["op"] == "all") {
                heldOutAll = true;
                QCOMPARE(e["fitted"]["rows"].get<std::size_t>(), std::size_t(1));
                QCOMPARE(e["fitted"]["mape_pct"].get<double>(), 0.0);
            }
        QVERIFY(heldOutAll);
        const std::string html = calibrationHtml(r);
        QVERIFY(html.find("&lt;odd&gt;&amp;.csv:2") != std::string::npos);
        QVERIFY(html.find("<odd>") == std::string::npos);
        const std::string svg = scatterSvg(r);
        QVERIFY(svg.starts_with("<svg"));
        QCOMPARE(static_cast<int>(std::count(svg.begin(), svg.end(), '\n') > 0), 1);
        std::size_t circles = 0;
        for (std::size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1))
            ++circles;
        QCOMPARE(circles, std::size_t(2));
        QVERIFY(calibrationText(r).find("hbm_bandwidth_gbs [50, 1200]: 1200 -> 600") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCalibrate)
#include "tst_calibrate.moc"

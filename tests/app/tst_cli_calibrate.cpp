// `xpushark-cli estimate` and `calibrate` as a user runs them: estimate's JSON on a bundled model against
// its golden file, a calibration from a measurements file to the fitted machine, its page and its reuse as
// a --machine, and the errors for bad files and wrong arguments.
#include "cli_test_support.h"
#include "core/xprof_ops_fixture.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace xps;
using test::cli;
using test::Run;

namespace {

QString source(const std::string& relative)
{
    return QString::fromStdString(test::sourceDir() + "/" + relative);
}

// Made-up latencies in the shared data's layouts: calibrate fits whatever it is given.
constexpr const char* kMeasurements = "op,m,n,k,dtype,measured_us_avg\n"
                                      "matmul,64,128,128,f16,1.2\n"
                                      "matmul,128,128,256,f16,1.6\n"
                                      "matmul,256,256,128,f16,2.4\n";
constexpr const char* kAdds = "op,shape,dtype,measured_us_avg\n"
                              "add,4096,f16,0.9\n"
                              "add,256x256,f16,1.3\n"
                              "add,512x512,f16,3.1\n";

} // namespace

class TestCliCalibrate : public QObject
{
    Q_OBJECT
private slots:
    void estimateJsonIsStable()
    {
        const Run r = cli({QStringLiteral("estimate"), source("tests/data/stablehlo/mlp_relu.mlir"),
                           QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-estimate"));
        j["source"] = "mlp_relu.mlir"; // the path differs between checkouts
        const std::string golden =
            test::readFile(test::sourceDir() + "/tests/data/calibration/estimate_mlp_relu.json");
        QVERIFY2(!golden.empty(), "tests/data/calibration/estimate_mlp_relu.json is missing");
        QVERIFY2(
            j == nlohmann::json::parse(golden),
            ("estimate's JSON changed; if the lowering or the GRM changed on purpose, regenerate the golden "
             "file with `xpushark-cli estimate tests/data/stablehlo/mlp_relu.mlir --json` (source: "
             "mlp_relu.mlir). Now:\n" +
             j.dump(2))
                .c_str());
        QVERIFY(j["total_us"].get<double>() > 0.0);
        QVERIFY(j["regions"].size() >= 6);
        for (const auto& region : j["regions"])
            QVERIFY(region["us"].get<double>() <= j["total_us"].get<double>());
    }

    void estimateTakesAMachine()
    {
        const Run base = cli({QStringLiteral("estimate"), source("tests/data/stablehlo/mlp_relu.mlir")});
        QCOMPARE(base.exitCode, 0);
        QVERIFY2(base.out.find(" us predicted (") != std::string::npos, base.out.c_str());
        const Run tpu = cli({QStringLiteral("estimate"), source("tests/data/stablehlo/mlp_relu.mlir"),
                             QStringLiteral("--machine"), source("resources/machines/tpu_v4.json"),
                             QStringLiteral("--json")});
        QCOMPARE(tpu.exitCode, 0);
        const Run baseJson = cli({QStringLiteral("estimate"), source("tests/data/stablehlo/mlp_relu.mlir"),
                                  QStringLiteral("--json")});
        QVERIFY(nlohmann::json::parse(tpu.out)["cycles"] != nlohmann::json::parse(baseJson.out)["cycles"]);
    }

    void estimateRunsAModelAsBf16()
    {
        // The transformer sample is f32: as bf16 its tensors are half the bytes and its matmuls the MXU's
        // bf16 ones, so it is predicted faster; a value other than bf16, f16 or f32 is a usage error.
        const QString model = source("resources/samples/transformer_block.mlir");
        const QString machine = source("resources/machines/tpu_v4.json");
        const Run f32 = cli({QStringLiteral("estimate"), model, QStringLiteral("--machine"), machine,
                             QStringLiteral("--json")});
        const Run bf16 = cli({QStringLiteral("estimate"), model, QStringLiteral("--machine"), machine,
                              QStringLiteral("--dtype"), QStringLiteral("bf16"), QStringLiteral("--json")});
        QCOMPARE(f32.exitCode, 0);
        QCOMPARE(bf16.exitCode, 0);
        QVERIFY(nlohmann::json::parse(bf16.out)["cycles"].get<std::uint64_t>() <
                nlohmann::json::parse(f32.out)["cycles"].get<std::uint64_t>());
        const Run bad =
            cli({QStringLiteral("estimate"), model, QStringLiteral("--dtype"), QStringLiteral("f64")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.find("--dtype takes bf16, f16 or f32, not 'f64'") != std::string::npos,
                 bad.err.c_str());
        const Run missing = cli({QStringLiteral("compile"), model, QStringLiteral("--dtype")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.find("--dtype needs bf16, f16 or f32") != std::string::npos,
                 missing.err.c_str());
        // compile writes the bf16 program: its buffers are declared bf16.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("bf16.xtrace.json"));
        const Run compiled = cli({QStringLiteral("compile"), model, QStringLiteral("--dtype"),
                                  QStringLiteral("bf16"), QStringLiteral("-o"), out});
        QCOMPARE(compiled.exitCode, 0);
        const std::string text = test::readFile(out.toStdString());
        QVERIFY(text.find("\"bf16\"") != std::string::npos && text.find("\"f32\"") == std::string::npos);
    }

    void calibrateWritesTheFittedMachineAndItsPage()
    {
        QTemporaryDir dir;
        const QString mm = dir.filePath(QStringLiteral("mm.csv")),
                      add = dir.filePath(QStringLiteral("add.csv"));
        test::writeFile(mm.toStdString(), kMeasurements);
        test::writeFile(add.toStdString(), kAdds);
        const QString fitted = dir.filePath(QStringLiteral("fitted.json")),
                      page = dir.filePath(QStringLiteral("fit.html"));
        // --fix: the MXU's occupancy keeps the base machine's value (8: a row a cycle) and is not fitted.
        const Run r = cli({QStringLiteral("calibrate"), mm, add, QStringLiteral("-o"), fitted,
                           QStringLiteral("--html"), page, QStringLiteral("--evaluations"),
                           QStringLiteral("60"), QStringLiteral("--seed"), QStringLiteral("7"),
                           QStringLiteral("--fix"), QStringLiteral("occ_mxu_matmul,lat_vector_load")});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.out.find("calibrated on 4 of 6 measurements (seed 7)") != std::string::npos,
                 r.out.c_str());
        QVERIFY(r.out.find("dma_completion_cycles [0, 4000]: ") != std::string::npos);
        QVERIFY(r.out.find("  held-out  all ") != std::string::npos);
        QVERIFY(r.err.find("fitting dma_completion_cycles") !=
                std::string::npos); // the free parameters named
        QVERIFY2(r.err.find("occ_mxu_matmul") == std::string::npos, r.err.c_str());
        QVERIFY(r.out.find("occ_mxu_matmul [") == std::string::npos);
        const auto j = nlohmann::json::parse(test::readFile(fitted.toStdString()));
        QCOMPARE(j["format"].get<std::string>(), std::string("xpushark-calibration"));
        QCOMPARE(j["machine"]["occ_mxu_matmul"].get<int>(), 8);
        QCOMPARE(j["rows"].size(), std::size_t(6));
        QCOMPARE(j["evaluations"].get<int>(), 60);
        const std::string html = test::readFile(page.toStdString());
        QVERIFY(html.find("<svg") != std::string::npos && html.find("Residual per row") != std::string::npos);

        // The fitted file is a machine for the next run.
        const Run e = cli({QStringLiteral("estimate"), source("tests/data/stablehlo/mlp_relu.mlir"),
                           QStringLiteral("--machine"), fitted});
        QVERIFY2(e.exitCode == 0, e.err.c_str());
    }

    // resources/machines/tpu_v4.json against every measured TPU v4 row it was fitted with (the f16 ops of
    // ../shared/calibration/tpu_v4 and SCALE-Sim's 250 bf16 GEMMs): the errors docs/calibration.md states
    // (adds 3.1%, the f16 matmuls 7.6%, the GEMMs with every side over 128 8.2%) hold, within a point, so
    // a change to the lowering or the GRM that moves them must say so.
    void tpuV4MachineHoldsItsStatedErrors()
    {
        const std::string shared = test::sharedDir() + "/calibration/";
        if (!QFileInfo::exists(QString::fromStdString(shared + "tpu_v4/add_1d.csv")) ||
            !QFileInfo::exists(QString::fromStdString(shared + "scalesim/gemm_fusion_master.csv")))
            QSKIP("../shared/calibration (tpu_v4/ and scalesim/) is absent");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("v4.json"));
        QStringList args{QStringLiteral("calibrate")};
        for (const char* f : {"tpu_v4/add_1d.csv", "tpu_v4/add_2d.csv", "tpu_v4/matmul_32_to_128.csv",
                              "tpu_v4/matmul_128_to_512.csv", "scalesim/gemm_fusion_master.csv"})
            args << QString::fromStdString(shared + f);
        args << QStringLiteral("--machine") << source("resources/machines/tpu_v4.json")
             << QStringLiteral("--evaluations") << QStringLiteral("1") << QStringLiteral("-o") << out;
        const Run r = cli(args);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto j = nlohmann::json::parse(test::readFile(out.toStdString()));
        double adds = 0, matmuls = 0, large = 0;
        int addRows = 0, matmulRows = 0, largeRows = 0;
        for (const auto& row : j["rows"]) {
            const double error =
                std::abs(row["predicted_us"].get<double>() - row["measured_us"].get<double>()) /
                row["measured_us"].get<double>();
            const std::string file = row["source"].get<std::string>();
            const std::vector<int> shape = row["shape"].get<std::vector<int>>();
            if (row["op"] == "add") {
                adds += error;
                ++addRows;
            } else if (file.find("tpu_v4") != std::string::npos) {
                matmuls += error;
                ++matmulRows;
            } else if (*std::min_element(shape.begin(), shape.end()) > 128) {
                large += error;
                ++largeRows;
            }
        }
        QCOMPARE(addRows, 512);
        QCOMPARE(matmulRows, 686);
        QCOMPARE(largeRows, 39);
        const auto mape = [](double sum, int rows) { return 100.0 * sum / rows; };
        QVERIFY2(mape(adds, addRows) <= 4.1, std::to_string(mape(adds, addRows)).c_str());
        QVERIFY2(mape(matmuls, matmulRows) <= 8.6, std::to_string(mape(matmuls, matmulRows)).c_str());
        QVERIFY2(mape(large, largeRows) <= 9.2, std::to_string(mape(large, largeRows)).c_str());
    }

    // Measurements from an XProf profile of the ops on the chip, beside a CSV file: its XLA ops are
    // matched by op name and shape, and what it leaves out is said.
    void calibrateReadsAnXProfProfileOfTheOps()
    {
        QTemporaryDir dir;
        const QString profile = dir.filePath(QStringLiteral("ops.xplane.pb")),
                      add = dir.filePath(QStringLiteral("add.csv")),
                      fitted = dir.filePath(QStringLiteral("fitted.json"));
        test::writeFile(profile.toStdString(), test::singleOpsOnTpu().SerializeAsString());
        test::writeFile(add.toStdString(), kAdds);
        const Run r = cli({QStringLiteral("calibrate"), profile, add, QStringLiteral("-o"), fitted,
                           QStringLiteral("--evaluations"), QStringLiteral("30"), QStringLiteral("--seed"),
                           QStringLiteral("7")});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.err.find("ops.xplane.pb: 3 measurements from 7 device op runs; 2 runs of other ops left "
                            "out, e.g. copy.1: a copy, not a matmul or an add; fusion.9: its HLO text does "
                            "not print operand shapes") != std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.out.find("of 6 measurements (seed 7)") != std::string::npos, r.out.c_str());
        const auto j = nlohmann::json::parse(test::readFile(fitted.toStdString()));
        bool fromProfile = false;
        for (const auto& row : j["rows"])
            fromProfile |= row.dump().find("fusion.7 on /device:TPU:0, 4 runs") != std::string::npos;
        QVERIFY2(fromProfile, j["rows"].dump().c_str());

        // Our own trace is not a profile of measured ops.
        const Run wrong = cli({QStringLiteral("calibrate"), source("resources/samples/vector_add.xasm"),
                               QStringLiteral("-o"), fitted});
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY2(wrong.err.find("vector_add.xasm: expected a CSV file of measurements (.csv) or a profile") !=
                     std::string::npos,
                 wrong.err.c_str());
    }

    void badInputAndArguments()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.csv"));
        test::writeFile(bad.toStdString(), "op,shape,dtype,measured_us_avg\nadd,4,f16,quick\n");
        const QString out = dir.filePath(QStringLiteral("o.json"));
        Run r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("bad.csv:2:11: expected measured_us_avg as a positive number") !=
                     std::string::npos,
                 r.err.c_str());
        QVERIFY(!QFile::exists(out)); // nothing written

        r = cli({QStringLiteral("calibrate"), bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("calibrate: usage: calibrate MEASUREMENTS.csv|PROFILE.xplane.pb...") !=
                     std::string::npos,
                 r.err.c_str());
        r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out, QStringLiteral("--seed"),
                 QStringLiteral("x")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--seed expects an integer") != std::string::npos, r.err.c_str());
        r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out, QStringLiteral("--fast")});
        QCOMPARE(r.exitCode, 2);
        r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out, QStringLiteral("--hold-out"),
                 QStringLiteral("larger:x")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("calibrate: --hold-out expected a side in 1..65536 after 'larger:', not 'x'") !=
                     std::string::npos,
                 r.err.c_str());
        // A rule that holds out every row (or none) leaves nothing to fit on (or to measure): said, not run.
        const QString adds = dir.filePath(QStringLiteral("adds.csv"));
        test::writeFile(adds.toStdString(),
                        "op,shape,dtype,measured_us_avg\nadd,256,f32,0.9\nadd,512,f32,1.0\n");
        r = cli({QStringLiteral("calibrate"), adds, QStringLiteral("-o"), out, QStringLiteral("--hold-out"),
                 QStringLiteral("larger:4096")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("--hold-out larger:4096 leaves nothing held out") != std::string::npos,
                 r.err.c_str());
        QVERIFY(!QFile::exists(out));
        r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out, QStringLiteral("--fix"),
                 QStringLiteral("vmem_bytes")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--fix: 'vmem_bytes' is not a free parameter; they are dma_completion_cycles,") !=
                     std::string::npos,
                 r.err.c_str());
        r = cli({QStringLiteral("calibrate"), bad, QStringLiteral("-o"), out, QStringLiteral("--machine"),
                 source("README.md")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("README.md: not JSON") != std::string::npos, r.err.c_str());
        r = cli({QStringLiteral("estimate")});
        QCOMPARE(r.exitCode, 2);
        r = cli({QStringLiteral("estimate"), dir.filePath(QStringLiteral("missing.mlir"))});
        QCOMPARE(r.exitCode, 1);
        r = cli({QStringLiteral("estimat")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.find("did you mean 'estimate'?") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrate)
#include "tst_cli_calibrate.moc"

// `xpushark-cli check` and `info` on StableHLO modules, as a user runs them: exit codes, what a passing and
// a failing check print, the JSON form, and the errors for bad files and wrong arguments.
#include "cli_test_support.h"

#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace xps;
using test::cli;
using test::Run;

namespace {

QString model(const char* name)
{
    return QString::fromStdString(test::sourceDir() + "/tests/data/stablehlo/") + QString::fromLatin1(name);
}

QString writeModel(QTemporaryDir& dir, const char* name, const std::string& text)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    test::writeFile(path.toStdString(), text);
    return path;
}

} // namespace

class TestCliStableHlo : public QObject
{
    Q_OBJECT
private slots:
    void checkPassesTheBundledModules()
    {
        // Compiled, replayed on the GRM, the checks evaluated on the replayed tensors.
        Run r = cli({QStringLiteral("check"), model("mlp_relu.mlir")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("  3 kernels, 1 op fused into them, ") != std::string::npos &&
                     r.out.find(" cycles on the GRM\n") != std::string::npos,
                 r.out.c_str());
        QVERIFY(r.out.find("mlp_relu.mlir: 1 of 1 checks hold\n") != std::string::npos);
        QVERIFY(r.err.empty());
        // Every part of a split file is compiled and replayed on its own.
        r = cli({QStringLiteral("check"), model("ops_interpret.mlir")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("ops_interpret.mlir: 15 of 15 checks hold\n") != std::string::npos,
                 r.out.c_str());
        // What has no lowering says where; the reference interpreter still evaluates it.
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("cos.mlir"));
        test::writeFile(path.toStdString(),
                        "func.func @main() {\n  %a = stablehlo.constant dense<1> : tensor<4xi32>\n"
                        "  %c = stablehlo.divide %a, %a : tensor<4xi32>\n"
                        "  check.expect_eq_const %c, dense<1> : tensor<4xi32>\n  func.return\n}\n");
        r = cli({QStringLiteral("check"), path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("cos.mlir:3:8: stablehlo.divide: stablehlo.divide on i32 has no lowering "
                            "to xpu-v1 yet") != std::string::npos,
                 r.err.c_str());
        r = cli({QStringLiteral("check"), QStringLiteral("--engine"), QStringLiteral("reference"), path});
        QCOMPARE(r.exitCode, 0);
        r = cli({QStringLiteral("check"), QStringLiteral("--engine"), QStringLiteral("reference"),
                 model("mlp_relu.mlir"), model("softmax_generic.mlir"), model("ops_interpret.mlir")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("ops_interpret.mlir: 15 of 15 checks hold\n") != std::string::npos);
        QVERIFY(r.out.find("3 of 3 files pass (evaluated by the reference interpreter)\n") !=
                std::string::npos);
    }

    void aFailingCheckExitsOneWithItsWorstElement()
    {
        QTemporaryDir dir;
        const auto path = writeModel(dir, "wrong.mlir", R"(module @jit_f {
  func.func public @main() -> tensor<2xf32> {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %e = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
    %0 = stablehlo.add %a, %a : tensor<2xf32>
    %1 = stablehlo.multiply %0, %a : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%1, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %1 : tensor<2xf32>
  }
}
)");
        const Run r = cli({QStringLiteral("check"), path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.find("  FAIL check.expect_close  " + path.toStdString() +
                            ":7:5  2 of 2 elements outside 0..3 ulp; worst [1]: actual 8, expected 2.5 (") !=
                     std::string::npos,
                 r.out.c_str());
        QVERIFY(r.out.find("wrong.mlir: 0 of 1 checks hold  FAILED\n") != std::string::npos);

        const Run j = cli({QStringLiteral("check"), path, QStringLiteral("--json")});
        QCOMPARE(j.exitCode, 1);
        const auto doc = nlohmann::json::parse(j.out);
        QCOMPARE(doc["engine"].get<std::string>(), std::string("replay"));
        QCOMPARE(doc["files_passing"].get<int>(), 0);
        const auto& check = doc["files"][0]["checks"][0];
        QCOMPARE(check["passed"].get<bool>(), false);
        QCOMPARE(check["failing"].get<int>(), 2);
        QCOMPARE(check["function"].get<std::string>(), std::string("main"));
        QCOMPARE(check["tolerance"].get<std::string>(), std::string("0..3 ulp"));
    }

    void badFilesAndArguments()
    {
        QTemporaryDir dir;
        const auto unsupported =
            writeModel(dir, "sort.mlir", "func.func @main() {\n  %0 = stablehlo.rng_bit_generator\n}\n");
        Run r = cli({QStringLiteral("check"), unsupported});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.rfind(unsupported.toStdString() +
                                 ":2:8: unsupported op 'stablehlo.rng_bit_generator'; the "
                                 "StableHLO subset xpushark compiles has: abs, acos, acosh, add,",
                             0) == 0,
                 r.err.c_str());
        const auto noChecks = writeModel(dir, "plain.mlir", "func.func @main() {\n  func.return\n}\n");
        r = cli({QStringLiteral("check"), noChecks});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.find("the module has no checks") != std::string::npos);
        r = cli({QStringLiteral("check"), dir.filePath(QStringLiteral("missing.mlir"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.find("missing.mlir: cannot open: not a readable file") != std::string::npos);
        r = cli({QStringLiteral("check")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: check: expected one or more MODEL.mlir files"));
        r = cli({QStringLiteral("check"), QStringLiteral("--engine"), QStringLiteral("fpga"), noChecks});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string(
                     "xpushark-cli: check: --engine: unknown engine 'fpga'; expected replay or reference"));
        r = cli({QStringLiteral("check"), QStringLiteral("--fast"), noChecks});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: check: unknown option '--fast'"));
    }

    void compileWritesATraceTheOtherCommandsOpen()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("mlp.xtrace.json"));
        Run r = cli({QStringLiteral("compile"), model("mlp_relu.mlir"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("wrote " + out.toStdString() + ": 3 kernels, 1 op fused into them, ") !=
                     std::string::npos,
                 r.out.c_str());
        r = cli({QStringLiteral("info"), out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("dot_general %0 \u00b7 mlp.py:7(op)") != std::string::npos, r.out.c_str());
        r = cli({QStringLiteral("replay"), out, QStringLiteral("--summary")});
        QCOMPARE(r.exitCode, 0);
        r = cli({QStringLiteral("compile"), model("mlp_relu.mlir")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: compile: usage: compile MODEL.mlir [--machine M.json] [--dtype "
                             "bf16|f16|f32] [--loops auto|always|never] [--fusion on|off] -o OUT.xtrace.json"));
        // A missing or wrong --fusion says what it takes; off compiles a kernel per op.
        r = cli({QStringLiteral("compile"), model("mlp_relu.mlir"), QStringLiteral("--fusion")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("compile: --fusion needs on or off") != std::string::npos, r.err.c_str());
        r = cli({QStringLiteral("compile"), model("mlp_relu.mlir"), QStringLiteral("--fusion"),
                 QStringLiteral("no"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("compile: --fusion takes on or off, not 'no'") != std::string::npos,
                 r.err.c_str());
        r = cli({QStringLiteral("compile"), model("mlp_relu.mlir"), QStringLiteral("--fusion"),
                 QStringLiteral("off"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find(": 6 kernels, ") != std::string::npos && r.out.find("fused") == std::string::npos,
                 r.out.c_str());
        // Loops forced on: the transformer's long matmul rows and element-wise tiles as counted loops, said
        // in the output.
        r = cli({QStringLiteral("compile"),
                 QString::fromStdString(test::sourceDir() + "/resources/samples/transformer_block.mlir"),
                 QStringLiteral("--loops"), QStringLiteral("always"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("25 kernels, 24 ops fused into them, ") != std::string::npos &&
                     r.out.find(" loops), ") != std::string::npos,
                 r.out.c_str());
        // check holds the looped code to the module's checks as well.
        r = cli({QStringLiteral("check"),
                 QString::fromStdString(test::sourceDir() + "/resources/samples/transformer_block.mlir"),
                 QStringLiteral("--loops"), QStringLiteral("always")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("25 kernels, 24 ops fused into them, long kernels as ") != std::string::npos &&
                     r.out.find("1 of 1 checks hold") != std::string::npos,
                 r.out.c_str());
        r = cli({QStringLiteral("compile"), model("mlp_relu.mlir"), QStringLiteral("--loops"),
                 QStringLiteral("sometimes"), QStringLiteral("-o"), out});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: compile: --loops takes auto, always or never, not 'sometimes'"));
        r = cli({QStringLiteral("check"), model("mlp_relu.mlir"), QStringLiteral("--loops")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: check: --loops needs auto, always or never"));
        // check folds ops on constants only when asked (--fold on), and says what --fold takes.
        r = cli({QStringLiteral("check"), model("mlp_relu.mlir"), QStringLiteral("--fold"),
                 QStringLiteral("yes")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.substr(0, r.err.find('\n')),
                 std::string("xpushark-cli: check: --fold takes on or off, not 'yes'"));
        r = cli({QStringLiteral("check"), model("mlp_relu.mlir"), QStringLiteral("--fold"),
                 QStringLiteral("on")});
        QVERIFY2(r.exitCode == 0 && r.out.find("1 of 1 checks hold") != std::string::npos, r.out.c_str());
    }

    void infoDescribesAModule()
    {
        const Run r = cli({QStringLiteral("info"), model("mlp_relu.mlir")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.find("StableHLO module @jit_mlp\n  replicas 1, partitions 1\n  functions 4, ops 21\n") !=
                std::string::npos,
            r.out.c_str());
        QVERIFY(r.out.find("  @mlp (private) at line 22: 3 arguments, 1 results, 8 ops: func.return x1 "
                           "stablehlo.add x1 stablehlo.broadcast_in_dim x2 stablehlo.constant x1 "
                           "stablehlo.dot_general x1 stablehlo.maximum x1 stablehlo.reduce x1\n") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliStableHlo)
#include "tst_cli_stablehlo.moc"

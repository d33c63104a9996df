// What real exported models use (../shared/models: GPT-2 and a transformer from torch_xla and JAX): integers
// of every width held in 32-bit words, gather as DMAs addressed by the scalar unit, the batch norms torch_xla
// writes LayerNorm as, erf (chlo.erf and torch_xla's custom_call @mhlo.erf) and constant folding. Every
// replay is compared with the reference interpreter; the real models are read from the shared folder where
// it is present (StableHLO's own test modules for these ops run in tst_stablehlo_project).
#include "stablehlo_lowering_support.h"

#include <algorithm>
#include <filesystem>

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

// Compiles `text` (its arguments filled by the compiled program's generators), replays it in full mode and
// compares every result with the reference interpreter on the same arguments.
sim::ReplayedModuleCheck replayAgainstReference(const std::string& text, CompileOptions options = {},
                                                CompiledModule* compiledOut = nullptr)
{
    auto run = compileAndReplayOrFail(text, options, true);
    if (compiledOut)
        *compiledOut = std::move(run.compiled);
    return std::move(run.replayed);
}

std::string failures(const sim::ReplayedModuleCheck& r)
{
    std::string out;
    for (const auto& c : r.check.checks)
        if (!c.passed)
            out += c.function + ": " + c.worst + " (" + c.tolerance + ")\n";
    return out;
}

std::string elementwiseModule(const std::string& type, const std::string& a, const std::string& b,
                              const std::string& op, const std::string& resultType)
{
    std::string text = "func.func public @main() -> " + resultType + " {\n  %a = stablehlo.constant dense<" +
                       a + "> : " + type + "\n";
    if (!b.empty())
        text += "  %b = stablehlo.constant dense<" + b + "> : " + type + "\n";
    return text + "  %r = " + op + "\n  return %r : " + resultType + "\n}\n";
}

const char* kEmbedding =
    R"(func.func public @main(%table: tensor<64x96xf16>, %ids: tensor<1x24xi64>) -> tensor<24x96xf16> {
  %0 = stablehlo.reshape %ids : (tensor<1x24xi64>) -> tensor<24xi64>
  %1 = stablehlo.convert %0 : (tensor<24xi64>) -> tensor<24xui32>
  %2 = "stablehlo.gather"(%table, %1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 96>}> : (tensor<64x96xf16>, tensor<24xui32>) -> tensor<24x96xf16>
  return %2 : tensor<24x96xf16>
}
)";

} // namespace

class TestStablehloModels : public QObject
{
    Q_OBJECT

private slots:
    // Each integer type is computed in 32-bit words and brought back to its width where it wraps: the
    // interpreter gives the spec's values, and the replay the interpreter's exactly.
    void integerTypes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<double>>("expected");
        const auto row = [](const char* name, const std::string& type, const std::string& a,
                            const std::string& b, const std::string& op, const std::string& resultType,
                            const QList<double>& expected) {
            QTest::newRow(name) << QString::fromStdString(elementwiseModule(type, a, b, op, resultType))
                                << expected;
        };
        row("ui8 add wraps at 256", "tensor<4xui8>", "[200, 255, 3, 0]", "[100, 1, 4, 0]",
            "stablehlo.add %a, %b : tensor<4xui8>", "tensor<4xui8>", {44, 0, 7, 0});
        row("i8 multiply wraps into -128..127", "tensor<3xi8>", "[100, -128, 7]", "[3, -1, -20]",
            "stablehlo.multiply %a, %b : tensor<3xi8>", "tensor<3xi8>", {44, -128, 116});
        row("i16 subtract wraps", "tensor<2xi16>", "[-32768, 5]", "[1, 10]",
            "stablehlo.subtract %a, %b : tensor<2xi16>", "tensor<2xi16>", {32767, -5});
        row("i8 abs of -128 wraps", "tensor<3xi8>", "[-128, 5, -7]", "", "stablehlo.abs %a : tensor<3xi8>",
            "tensor<3xi8>", {-128, 5, 7});
        row("ui32 compares unsigned", "tensor<3xui32>", "[2147483648, 1, 4294967295]", "[1, 2147483648, 0]",
            "stablehlo.compare GT, %a, %b : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>", "tensor<3xi1>",
            {1, 0, 1});
        row("i8 compared as unsigned", "tensor<2xi8>", "[-1, 1]", "[1, -1]",
            "stablehlo.compare LT, %a, %b, UNSIGNED : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>",
            "tensor<2xi1>", {0, 1});
        row("ui32 maximum", "tensor<3xui32>", "[2147483648, 1, 4294967295]", "[1, 2147483648, 0]",
            "stablehlo.maximum %a, %b : tensor<3xui32>", "tensor<3xui32>",
            {2147483648.0, 2147483648.0, 4294967295.0});
        row("ui32 to f32 rounds once", "tensor<4xui32>", "[4294967295, 2147483648, 12345, 16777217]", "",
            "stablehlo.convert %a : (tensor<4xui32>) -> tensor<4xf32>", "tensor<4xf32>",
            {4294967296.0, 2147483648.0, 12345, 16777216});
        row("i64 compare within 32 bits", "tensor<3xi64>", "[-5, 2000000000, 7]", "[7, 100000000, -9]",
            "stablehlo.compare LT, %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>", "tensor<3xi1>",
            {1, 0, 0});
        row("f32 to ui8 saturates, NaN to 0", "tensor<4xf32>", "[-3.5, 300.7, 17.9, 0x7FC00000]", "",
            "stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xui8>", "tensor<4xui8>", {0, 255, 17, 0});
        row("ui8 to i8 wraps", "tensor<3xui8>", "[200, 127, 128]", "",
            "stablehlo.convert %a : (tensor<3xui8>) -> tensor<3xi8>", "tensor<3xi8>", {-56, 127, -128});
        row("ui8 and", "tensor<3xui8>", "[255, 1, 6]", "[15, 3, 1]", "stablehlo.and %a, %b : tensor<3xui8>",
            "tensor<3xui8>", {15, 1, 0});
        row("ui16 sign", "tensor<3xui16>", "[0, 65535, 7]", "", "stablehlo.sign %a : tensor<3xui16>",
            "tensor<3xui16>", {0, 1, 1});
    }
    void integerTypes()
    {
        QFETCH(QString, text);
        QFETCH(QList<double>, expected);
        auto m = parseModule(text.toStdString(), "case.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        Interpreter interpreter(*m);
        auto reference = interpreter.run(*m->entry(), {});
        QVERIFY2(reference.ok(), reference.ok() ? "" : reference.error().toString().c_str());
        QCOMPARE(QList<double>(reference->front().data.begin(), reference->front().data.end()), expected);
        std::string failure;
        QCOMPARE(worstUlp(text.toStdString(), &failure), std::uint64_t{0});
    }

    // StableHLO's own gather cases: offset dimensions, clamped starts ([0, 9] starts at the last column
    // that fits), index vectors of two i64 components; slices fetched by DMA from computed addresses.
    void gatherOfIndexVectors()
    {
        const std::string text = R"(func.func public @main() -> tensor<2x3x2x2xi64> {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]], [[17, 18], [19, 20], [21, 22], [23, 24]]]> : tensor<3x4x2xi64>
  %start_indices = stablehlo.constant dense<[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]]> : tensor<2x3x2xi64>
  %r = "stablehlo.gather"(%operand, %start_indices) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>, indices_are_sorted = false} : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  return %r : tensor<2x3x2x2xi64>
}
)";
        auto m = parseModule(text, "gather.mlir");
        QVERIFY(m.ok());
        Interpreter interpreter(*m);
        auto expected = interpreter.run(*m->entry(), {});
        QVERIFY(expected.ok());
        const std::vector<double> want = {1, 2,  3,  4,  3,  4,  5,  6,  13, 14, 15, 16,
                                          9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20};
        QCOMPARE(expected->front().data, want);
        std::string failure;
        QCOMPARE(worstUlp(text, &failure), std::uint64_t{0});
    }

    // An embedding lookup as torch_xla writes it: i64 token ids converted to ui32, one row each. The ids are
    // drawn within the table, and each row is one DMA whose address the scalar unit computed.
    void embeddingLookup()
    {
        CompiledModule compiled;
        const auto r = replayAgainstReference(kEmbedding, {}, &compiled);
        QVERIFY2(failures(r).empty(), failures(r).c_str());
        QCOMPARE(r.check.checks.size(), std::size_t{1});
        const auto& inits = compiled.trace.chips.front().initial.memory;
        const auto ids = std::find_if(inits.begin(), inits.end(), [&](const trace::MemoryInit& init) {
            return init.address == compiled.arguments.at(1).address;
        });
        QVERIFY(ids != inits.end());
        QCOMPARE(ids->payload.generator.kind, trace::Generator::Kind::RandomS32);
        QCOMPARE(ids->payload.generator.a, 0.0);
        QCOMPARE(ids->payload.generator.b, 63.0); // the table's last row
        std::size_t dmas = 0;
        for (const auto& bundle : compiled.trace.chips.front().program.bundles)
            for (const auto& insn : bundle.instructions)
                dmas += insn.opcode == isa::Opcode::DmaStart ? 1 : 0;
        QVERIFY2(dmas >= 24, "one DMA per token");
    }

    // Token ids computed by an earlier kernel are not known to a timing-only replay: the rows' DMAs move
    // the same bytes from the table's start, and the replay completes.
    void gatherOfComputedIdsInTimingMode()
    {
        std::string text = kEmbedding;
        text.replace(text.find("  %2 = "), 0,
                     "  %one = stablehlo.constant dense<1> : tensor<24xui32>\n"
                     "  %shifted = stablehlo.add %1, %one : tensor<24xui32>\n");
        text.replace(text.find("(%table, %1)"), 12, "(%table, %shifted)");
        auto m = parseModule(text, "computed.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        auto compiled = compileModule(*m);
        QVERIFY(compiled.ok());
        events::EventStore store;
        sim::ReplayOptions options;
        options.mode = sim::ReplayMode::TimingOnly;
        const auto result = sim::replay(compiled->trace, options, store);
        QVERIFY2(result.status == sim::ReplayResult::Status::Completed,
                 result.fault ? result.fault->toString().c_str() : "not completed");
        const auto full = replayAgainstReference(text);
        QVERIFY2(failures(full).empty(), failures(full).c_str());
    }

    // LayerNorm as torch_xla exports it (feature_index 1 of a 1 x tokens x width tensor: every token its own
    // feature), and batch norms over the last dimension, f32 and f16, training and inference.
    void batchNorms_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("training, f16, torch_xla's LayerNorm") << QStringLiteral(
            "func.func public @main(%x: tensor<1x16x96xf16>) -> (tensor<1x16x96xf16>, tensor<16xf16>, "
            "tensor<16xf16>) {\n"
            "  %one = stablehlo.constant dense<1.0> : tensor<16xf16>\n"
            "  %zero = stablehlo.constant dense<0.0> : tensor<16xf16>\n"
            "  %o, %m, %v = \"stablehlo.batch_norm_training\"(%x, %one, %zero) <{epsilon = 9.99999974E-6 : "
            "f32, "
            "feature_index = 1 : i64}> : (tensor<1x16x96xf16>, tensor<16xf16>, tensor<16xf16>) -> "
            "(tensor<1x16x96xf16>, tensor<16xf16>, tensor<16xf16>)\n"
            "  return %o, %m, %v : tensor<1x16x96xf16>, tensor<16xf16>, tensor<16xf16>\n}\n");
        QTest::newRow("training, f32, last dimension") << QStringLiteral(
            "func.func public @main(%x: tensor<8x6x32xf32>, %s: tensor<32xf32>, %b: tensor<32xf32>) -> "
            "(tensor<8x6x32xf32>, tensor<32xf32>, tensor<32xf32>) {\n"
            "  %o, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %b) <{epsilon = 1.0E-3 : f32, "
            "feature_index = 2 : i64}> : (tensor<8x6x32xf32>, tensor<32xf32>, tensor<32xf32>) -> "
            "(tensor<8x6x32xf32>, tensor<32xf32>, tensor<32xf32>)\n"
            "  return %o, %m, %v : tensor<8x6x32xf32>, tensor<32xf32>, tensor<32xf32>\n}\n");
        QTest::newRow("inference, f32") << QStringLiteral(
            "func.func public @main(%x: tensor<4x24x5xf32>, %s: tensor<24xf32>, %b: tensor<24xf32>, "
            "%m: tensor<24xf32>) -> tensor<4x24x5xf32> {\n"
            "  %v = stablehlo.multiply %m, %m : tensor<24xf32>\n"
            "  %o = \"stablehlo.batch_norm_inference\"(%x, %s, %b, %m, %v) <{epsilon = 1.0E-3 : f32, "
            "feature_index = 1 : i64}> : (tensor<4x24x5xf32>, tensor<24xf32>, tensor<24xf32>, "
            "tensor<24xf32>, "
            "tensor<24xf32>) -> tensor<4x24x5xf32>\n"
            "  return %o : tensor<4x24x5xf32>\n}\n");
    }
    void batchNorms()
    {
        QFETCH(QString, text);
        const auto r = replayAgainstReference(text.toStdString());
        QVERIFY2(failures(r).empty(), failures(r).c_str());
        QVERIFY(!r.check.checks.empty());
    }

    // erf by XLA's rational approximation, within 4 ulp of the interpreter over its whole range, with
    // zeros, infinities and NaN; torch_xla's custom_call @mhlo.erf is the same op.
    void erf()
    {
        std::string values;
        for (int i = -60; i <= 60; ++i)
            values += std::to_string(i / 12.0) + ", ";
        values += "0.0, -0.0, 0x7F800000, 0xFF800000, 0x7FC00000, 1.0e-6, -3.0e-30";
        const std::string text =
            elementwiseModule("tensor<128xf32>", "[" + values + "]", "",
                              "chlo.erf %a : tensor<128xf32> -> tensor<128xf32>", "tensor<128xf32>");
        std::string failure;
        const auto worst = worstUlp(text, &failure);
        QVERIFY2(worst <= 4, (std::to_string(worst) + " ulp " + failure).c_str());
        const std::string custom =
            "func.func public @main(%x: tensor<4x256xf16>) -> tensor<4x256xf16> {\n"
            "  %r = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : "
            "(tensor<4x256xf16>) -> tensor<4x256xf16>\n  return %r : tensor<4x256xf16>\n}\n";
        auto m = parseModule(custom, "erf.mlir");
        QVERIFY(m.ok());
        QCOMPARE(m->entry()->body.operations.front().kind, OpKind::Erf);
        const auto r = replayAgainstReference(custom);
        QVERIFY2(failures(r).empty(), failures(r).c_str());
    }

    // GPT-2's causal mask as torch_xla writes it: a reduce_window over ui8 constants, gathered by constant
    // index vectors. Folded when compiling, as XLA does; kept as kernels (the ui8 reduce_window runs its
    // reducer's integer code), the same result.
    void constantFolding()
    {
        const std::string text = R"(func.func public @main(%keep: tensor<i1>) -> tensor<1x8xui8> {
  %z = stablehlo.constant dense<0> : tensor<1x8xui8>
  %init = stablehlo.constant dense<0> : tensor<ui8>
  %idx = stablehlo.constant dense<[[[0, 7]], [[0, 3]], [[0, 0]], [[0, 1]], [[0, 2]], [[0, 4]], [[0, 5]], [[0, 6]]]> : tensor<8x1x2xi64>
  %w = "stablehlo.reduce_window"(%z, %init) <{padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 8>, window_strides = array<i64: 1, 1>}> ({
  ^bb0(%p: tensor<ui8>, %q: tensor<ui8>):
    %s = stablehlo.add %p, %q : tensor<ui8>
    stablehlo.return %s : tensor<ui8>
  }) : (tensor<1x8xui8>, tensor<ui8>) -> tensor<1x8xui8>
  %g = "stablehlo.gather"(%w, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<1x8xui8>, tensor<8x1x2xi64>) -> tensor<8x1xui8>
  %g2 = stablehlo.reshape %g : (tensor<8x1xui8>) -> tensor<1x8xui8>
  %k = stablehlo.convert %keep : (tensor<i1>) -> tensor<ui8>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<ui8>) -> tensor<1x8xui8>
  %r = stablehlo.add %g2, %kb : tensor<1x8xui8>
  return %r : tensor<1x8xui8>
}
)";
        auto m = parseModule(text, "mask.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        CompiledModule unfolded;
        const auto kernels = replayAgainstReference(text, {}, &unfolded);
        QVERIFY2(failures(kernels).empty(), failures(kernels).c_str());
        QCOMPARE(unfolded.foldedOps, std::size_t{0});
        CompileOptions fold;
        fold.foldConstants = true;
        CompiledModule compiled;
        const auto r = replayAgainstReference(text, fold, &compiled);
        QVERIFY2(failures(r).empty(), failures(r).c_str());
        QCOMPARE(compiled.foldedOps, std::size_t{3});     // reduce_window, gather, reshape
        QCOMPARE(compiled.kernels + 2, unfolded.kernels); // the reshape was never a kernel
    }

    // A folded 64-bit value the program cannot hold in 32 bits is refused at the op that computed it.
    void foldedValueOutside32Bits()
    {
        const std::string text = "func.func public @main(%x: tensor<2xi64>) -> tensor<2xi64> {\n"
                                 "  %a = stablehlo.constant dense<2000000000> : tensor<2xi64>\n"
                                 "  %b = stablehlo.add %a, %a : tensor<2xi64>\n"
                                 "  %r = stablehlo.add %x, %b : tensor<2xi64>\n"
                                 "  return %r : tensor<2xi64>\n}\n";
        auto m = parseModule(text, "wide.mlir");
        QVERIFY(m.ok());
        CompileOptions fold;
        fold.foldConstants = true;
        auto compiled = compileModule(*m, fold);
        QVERIFY(!compiled.ok());
        QCOMPARE(
            compiled.error().toString(),
            std::string("wide.mlir:3:8: stablehlo.add: the constant's element [0] = 4000000000 does not fit "
                        "32 bits: 64-bit integers are computed in 32"));
    }

    // Every real exported model compiles as XLA would compile it (constants folded), on a machine whose
    // instruction memory holds a whole model's program.
    void realModelsCompile()
    {
        const std::string dir = sharedDir() + "/models";
        if (!std::filesystem::exists(dir))
            QSKIP(qPrintable(QString::fromStdString("the shared folder has no models/ (" + dir + ")")));
        CompileOptions options;
        options.foldConstants = true;
        options.machine.imemBundles = std::int64_t{1} << 22;
        int models = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".mlir")
                continue;
            auto m = parseFile(entry.path().string());
            QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
            auto compiled = compileModule(m->front(), options);
            QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
            QVERIFY(compiled->kernels > 0);
            ++models;
        }
        QVERIFY(models >= 6);
    }
};

QTEST_GUILESS_MAIN(TestStablehloModels)
#include "tst_stablehlo_models.moc"

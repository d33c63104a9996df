// XLA's algebraic identities where a model is compiled as XLA compiles it (core/stablehlo/lower_simplify.h):
// ops that leave a value unchanged (x + 0, x * 1, ...) are not run, a division by one value everywhere is a
// multiplication by its reciprocal, x^2 is x * x, a broadcast adding dimensions of size 1 is a reshape, and
// what nothing reads is dropped; a returned result is still written.
// Held to the reference interpreter, which evaluates every op as written.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

std::vector<std::string> opRegions(const CompiledModule& m)
{
    std::vector<std::string> names;
    for (const auto& region : m.trace.chips.front().symbols.regions)
        if (region.level == "op")
            names.push_back(region.name);
    return names;
}

bool anyStartsWith(const std::vector<std::string>& names, const std::string& prefix)
{
    return std::any_of(names.begin(), names.end(), [&](const auto& n) { return n.rfind(prefix, 0) == 0; });
}

} // namespace

class TestStableHloSimplify : public QObject
{
    Q_OBJECT
private slots:
    void aBatchNormOfRunningZerosAndOnesIsAConvertAndAMultiply()
    {
        // SCALE-Sim's batch_norm_simple_inference as JAX writes it: mean 0, variance 1, scale 1, shift 0
        // per channel (float32), the f16 input promoted. XLA runs it as convert_multiply_fusion.
        const std::string t = "tensor<2x16x8x128xf32>", h = "tensor<2x16x8x128xf16>",
                          c = "tensor<1x16x1x1xf32>", v = "tensor<16xf32>";
        const auto perChannel = [&](const std::string& name, const char* literal) {
            return "  %" + name + "k = stablehlo.constant dense<" + literal + "> : tensor<f32>\n  %" + name +
                   "v = stablehlo.broadcast_in_dim %" + name + "k, dims = [] : (tensor<f32>) -> " + v +
                   "\n  %" + name + " = stablehlo.reshape %" + name + "v : (" + v + ") -> " + c + "\n";
        };
        const auto spread = [&](const std::string& name) {
            return "  %" + name + "b = stablehlo.broadcast_in_dim %" + name + ", dims = [0, 1, 2, 3] : (" +
                   c + ") -> " + t + "\n";
        };
        const std::string text =
            "func.func public @main() -> " + t + " {\n" + "  %i = stablehlo.iota dim = 3 : " + h + "\n" +
            perChannel("mean", "0.0") + perChannel("var", "1.0") + perChannel("gamma", "1.0") +
            perChannel("beta", "0.0") + "  %x = stablehlo.convert %i : (" + h + ") -> " + t + "\n" +
            spread("mean") + "  %d = stablehlo.subtract %x, %meanb : " + t + "\n" +
            "  %epsk = stablehlo.constant dense<9.99999974E-6> : tensor<f32>\n" +
            "  %eps = stablehlo.broadcast_in_dim %epsk, dims = [] : (tensor<f32>) -> " + c + "\n" +
            "  %ve = stablehlo.add %var, %eps : " + c + "\n" + "  %s = stablehlo.sqrt %ve : " + c + "\n" +
            spread("s") + "  %n = stablehlo.divide %d, %sb : " + t + "\n" + spread("gamma") +
            "  %g = stablehlo.multiply %gammab, %n : " + t + "\n" + spread("beta") +
            "  %r = stablehlo.add %g, %betab : " + t + "\n" + "  return %r : " + t + "\n}\n";
        std::string failure;
        CompileOptions options = CompileOptions::asXla();
        std::vector<std::string> regions;
        const auto worst = worstUlp(text, &failure, options, nullptr,
                                    [&](const CompiledModule& m, std::uint64_t) { regions = opRegions(m); });
        // x / sqrt(1 + eps) as x * (1 / sqrt(1 + eps)): within an ulp of the division.
        QVERIFY2(worst <= 1, failure.c_str());
        QVERIFY(!anyStartsWith(regions, "divide"));
        QVERIFY(!anyStartsWith(regions, "subtract"));
        QVERIFY(!anyStartsWith(regions, "sqrt"));
        // The returned add is kept (its result buffer is written), the multiply and convert fused into it.
        QVERIFY2(anyStartsWith(regions, "add %r \u00b7 fused %x %n"),
                 regions.empty() ? "" : regions.back().c_str());
        // Compiled as written (no folding, as `check` compiles), every op runs.
        CompileOptions asWritten;
        regions.clear();
        QVERIFY2(worstUlp(text, &failure, asWritten, nullptr,
                          [&](const CompiledModule& m, std::uint64_t) { regions = opRegions(m); }) <= 1,
                 failure.c_str());
        QVERIFY(anyStartsWith(regions, "sqrt"));
    }

    void identitiesOfAnIntermediateAreNotRun()
    {
        // (x * 1 + 0) / 4: the multiply and the add leave x as it is; the divide by 4 is a multiply by 0.25
        // (exact); the result is written by the one kernel left.
        const std::string t = type({64, 256});
        const std::string text =
            "func.func public @main() -> " + t + " {\n  %a = stablehlo.iota dim = 1 : " + t +
            "\n  %one = stablehlo.constant dense<1.0> : " + t +
            "\n  %zero = stablehlo.constant dense<0.0> : " + t +
            "\n  %four = stablehlo.constant dense<4.0> : " + t +
            "\n  %m = stablehlo.multiply %a, %one : " + t + "\n  %s = stablehlo.add %zero, %m : " + t +
            "\n  %r = stablehlo.divide %s, %four : " + t + "\n  return %r : " + t + "\n}\n";
        std::string failure;
        std::vector<std::string> regions;
        const auto worst = worstUlp(text, &failure, CompileOptions::asXla(), nullptr,
                                    [&](const CompiledModule& m, std::uint64_t) { regions = opRegions(m); });
        QVERIFY2(worst == 0, failure.c_str());
        QCOMPARE(regions.size(), std::size_t{1});
        QVERIFY2(regions.front().rfind("multiply %r", 0) == 0, regions.front().c_str());
    }

    void aDivisionByABf16ConstantIsAMultiplyInBf16()
    {
        // x / 3 in bf16: 1/3 rounded to bf16, as XLA inverts the constant in its own type.
        const std::string t = "tensor<64x256xbf16>";
        const std::string text =
            "func.func public @main() -> " + t + " {\n  %a = stablehlo.iota dim = 1 : " + t +
            "\n  %three = stablehlo.constant dense<3.0> : " + t +
            "\n  %r = stablehlo.divide %a, %three : " + t + "\n  return %r : " + t + "\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m, CompileOptions::asXla());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        const auto regions = opRegions(*compiled);
        QVERIFY2(anyStartsWith(regions, "multiply %r") && !anyStartsWith(regions, "divide"),
                 regions.empty() ? "" : regions.front().c_str());
        auto replayed = sim::replayAndCheck(*m, *compiled);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        // 255 * bf16(1/3) = 255 * 0.333984375, rounded to bf16: 85.0 (255 / 3 is 85 exactly too).
        QCOMPARE(replayed->results.front().data.back(), 85.0);
    }

    void unreadResultsUnitBroadcastsAndSquaresCostNoKernel()
    {
        // torch_xla's LayerNorm: batch_norm_training's mean and variance, which nothing reads, are not
        // written; a row's sums broadcast to [64, 1] is a reshape (no kernel), and x^2 is x * x (a multiply,
        // exact, where the power's e^(2 ln |x|) is not). Held to the interpreter bit for bit.
        const std::string t = type({64, 256});
        const std::string text =
            "func.func public @main() -> " + t + " {\n  %i = stablehlo.iota dim = 1 : " + t +
            "\n  %j = stablehlo.iota dim = 0 : " + t + "\n  %a = stablehlo.add %i, %j : " + t +
            "\n  %s = stablehlo.constant dense<1.0> : tensor<64xf32>" +
            "\n  %b = stablehlo.constant dense<0.0> : tensor<64xf32>" +
            "\n  %o, %mean, %var = \"stablehlo.batch_norm_training\"(%a, %s, %b) <{epsilon = 1.0E-5 : f32, "
            "feature_index = 0 : i64}> : (" +
            t + ", tensor<64xf32>, tensor<64xf32>) -> (" + t + ", tensor<64xf32>, tensor<64xf32>)" +
            "\n  %z = stablehlo.constant dense<0.0> : tensor<f32>" +
            "\n  %sum = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (" + t +
            ", tensor<f32>) -> tensor<64xf32>" +
            "\n  %col = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>" +
            "\n  %two = stablehlo.constant dense<2.0> : tensor<64x1xf32>" +
            "\n  %sq = stablehlo.power %col, %two : tensor<64x1xf32>" +
            "\n  %sqb = stablehlo.broadcast_in_dim %sq, dims = [0, 1] : (tensor<64x1xf32>) -> " + t +
            "\n  %r = stablehlo.add %o, %sqb : " + t + "\n  return %r : " + t + "\n}\n";
        std::string failure;
        std::vector<std::string> regions;
        const auto worst = worstUlp(text, &failure, CompileOptions::asXla(), nullptr,
                                    [&](const CompiledModule& m, std::uint64_t) { regions = opRegions(m); });
        QVERIFY2(worst <= 4, failure.c_str());
        QVERIFY(!anyStartsWith(regions, "broadcast_in_dim %col"));
        QVERIFY(!anyStartsWith(regions, "power"));
        QVERIFY(anyStartsWith(regions, "multiply %sq"));
        // In f16 the statistics would each be a conversion of its own; unread, neither is.
        std::string half = text;
        for (std::size_t at = half.find("f32"); at != std::string::npos; at = half.find("f32", at))
            half.replace(at, 3, "f16");
        auto m = parseModule(half, "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m, CompileOptions::asXla());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        QVERIFY(!anyStartsWith(opRegions(*compiled), "convert %o.batch_mean"));
        QVERIFY(!anyStartsWith(opRegions(*compiled), "convert %o.batch_var"));
        auto kept = compileModule(*m, CompileOptions{}); // no simplification: both are written
        QVERIFY2(kept.ok(), kept.ok() ? "" : kept.error().toString().c_str());
        QVERIFY(anyStartsWith(opRegions(*kept), "convert %o.batch_mean"));
    }

    void aReturnedIdentityIsStillWritten()
    {
        // x * 1 returned: XLA copies the parameter into the result buffer; so does this, as the multiply.
        const std::string text = "func.func public @main(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {\n"
                                 "  %one = stablehlo.constant dense<1.0> : tensor<8x128xf32>\n"
                                 "  %r = stablehlo.multiply %x, %one : tensor<8x128xf32>\n"
                                 "  return %r : tensor<8x128xf32>\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m, CompileOptions::asXla());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        QVERIFY(anyStartsWith(opRegions(*compiled), "multiply %r"));
    }
};

QTEST_GUILESS_MAIN(TestStableHloSimplify)
#include "tst_stablehlo_simplify.moc"

// Loop fusion of element-wise ops (core/stablehlo/lower_fusion.h): a chain becomes one kernel whose
// intermediates stay in registers, with the results of the kernels it replaces bit for bit; what must go
// through HBM (a value read twice, an f16/bf16 intermediate, a non-element-wise reader) is not fused, and a
// chain longer than the registers is split. Compared with `--fusion off` and the reference interpreter.
#include "stablehlo_lowering_support.h"

#include <array>
#include <cmath>
#include <optional>

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

struct Compiled
{
    std::size_t kernels = 0, fusedOps = 0, dmas = 0;
    std::uint64_t cycles = 0;
    std::vector<std::string> opRegions;
};

// Compiles and replays `text` with fusion on or off; fails the test unless the replay holds to the
// interpreter within `ulps`.
Compiled compileAndReplay(const std::string& text, bool fuse, std::uint64_t ulps = 0)
{
    CompileOptions options;
    options.fuse = fuse;
    Compiled c;
    std::string failure;
    const auto worst =
        worstUlp(text, &failure, options, &c.dmas, [&](const CompiledModule& m, std::uint64_t cycles) {
            c.kernels = m.kernels;
            c.fusedOps = m.fusedOps;
            c.cycles = cycles;
            for (const auto& region : m.trace.chips.front().symbols.regions)
                if (region.level == "op")
                    c.opRegions.push_back(region.name);
        });
    if (worst > ulps)
        qWarning("%s: %llu ulp %s", fuse ? "fused" : "unfused", static_cast<unsigned long long>(worst),
                 failure.c_str());
    return worst <= ulps ? c : Compiled{};
}

const std::string kGelu = // JAX's tanh GELU of %a, its constants splats of the full shape
    "  %x3a = stablehlo.multiply %a, %a : tensor<96x512xf32>\n"
    "  %x3 = stablehlo.multiply %x3a, %a : tensor<96x512xf32>\n"
    "  %c1 = stablehlo.constant dense<4.471500e-02> : tensor<96x512xf32>\n"
    "  %t1 = stablehlo.multiply %c1, %x3 : tensor<96x512xf32>\n"
    "  %t2 = stablehlo.add %a, %t1 : tensor<96x512xf32>\n"
    "  %c2 = stablehlo.constant dense<0.797884583> : tensor<96x512xf32>\n"
    "  %t3 = stablehlo.multiply %c2, %t2 : tensor<96x512xf32>\n"
    "  %t4 = stablehlo.tanh %t3 : tensor<96x512xf32>\n"
    "  %c3 = stablehlo.constant dense<1.000000e+00> : tensor<96x512xf32>\n"
    "  %t5 = stablehlo.add %c3, %t4 : tensor<96x512xf32>\n"
    "  %c4 = stablehlo.constant dense<5.000000e-01> : tensor<96x512xf32>\n"
    "  %h = stablehlo.multiply %c4, %a : tensor<96x512xf32>\n"
    "  %r = stablehlo.multiply %h, %t5 : tensor<96x512xf32>\n";

// Every element within 1e-5 x max(1, |b|) of the other.
bool closeTo(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::fabs(a[i] - b[i]) > 1e-5 * std::max(1.0, std::fabs(b[i]))) {
            qWarning("element %zu: %.9g against %.9g", i, a[i], b[i]);
            return false;
        }
    return true;
}

} // namespace

class TestStableHloFusion : public QObject
{
    Q_OBJECT
private slots:
    void aChainIsOneKernelWithTheSameResults()
    {
        const std::string text = moduleText({96, 512}, {}, kGelu, type({96, 512}));
        const Compiled fused = compileAndReplay(text, true, 64), apart = compileAndReplay(text, false, 64);
        QVERIFY(fused.kernels > 0 && apart.kernels > 0);
        // Nine ops, one kernel: x is read once and the result written once (3 tiles of 64 KiB each way),
        // where the nine kernels read 15 tensors (the splats among them) and wrote 9.
        QCOMPARE(fused.kernels, std::size_t{1});
        QCOMPARE(fused.fusedOps, std::size_t{8});
        QCOMPARE(apart.kernels, std::size_t{9});
        QCOMPARE(fused.dmas, std::size_t{3 + 3});
        QVERIFY2(fused.cycles * 3 < apart.cycles,
                 qPrintable(QStringLiteral("%1 cycles fused, %2 apart").arg(fused.cycles).arg(apart.cycles)));
        // The kernel's region is its root's, naming the ops computed in it.
        QCOMPARE(fused.opRegions,
                 (std::vector<std::string>{"multiply %r \u00b7 fused %x3a %x3 %t1 %t2 %t3 %t4 %t5 %h"}));
    }

    void fusedResultsAreTheUnfusedOnesBitForBit()
    {
        // Every op the planner may fuse, on values where rounding shows: the fused kernel computes each op
        // with the same instructions on the same f32 values, only without the trips through HBM.
        const std::string body =
            "  %s = stablehlo.subtract %a, %b : tensor<64x256xf32>\n"
            "  %e = stablehlo.exponential %s : tensor<64x256xf32>\n"
            "  %d = stablehlo.divide %e, %b : tensor<64x256xf32>\n"
            "  %m = stablehlo.maximum %d, %a : tensor<64x256xf32>\n"
            "  %q = stablehlo.rsqrt %m : tensor<64x256xf32>\n"
            "  %f = stablehlo.floor %q : tensor<64x256xf32>\n"
            "  %l = stablehlo.logistic %f : tensor<64x256xf32>\n"
            "  %c = stablehlo.compare GT, %l, %a : (tensor<64x256xf32>, tensor<64x256xf32>) "
            "-> tensor<64x256xi1>\n"
            "  %r = stablehlo.select %c, %a, %b : tensor<64x256xi1>, tensor<64x256xf32>\n";
        const std::string text = moduleText({64, 256}, {64, 256}, body, type({64, 256}), "f32", true);
        auto m = parseModule(text, "case.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        std::string failure;
        const auto both = fusedAndApart(*m, &failure);
        QVERIFY2(both, failure.c_str());
        QCOMPARE((*both)[0].kernels, std::size_t{1});
        QCOMPARE((*both)[1].kernels, std::size_t{9});
        QCOMPARE((*both)[0].results.size(), std::size_t{64 * 256});
        QVERIFY((*both)[0].results == (*both)[1].results);
    }

    void theTransformerSampleFusedIsBitForBitAndFaster()
    {
        // resources/samples/transformer_block.mlir: GELU, the layer norms' tails and softmax's exp fused.
        auto modules = parseFile(test::sourceDir() + "/resources/samples/transformer_block.mlir");
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        std::string failure;
        const auto both = fusedAndApart(modules->front(), &failure);
        QVERIFY2(both, failure.c_str());
        // 2 into the layer norms' reduces, 5 producers written by their consumers' kernels (the centred
        // values by the variances' sums, softmax's scores by their maximum, its exponential by its sum).
        QCOMPARE((*both)[0].fusedOps, std::size_t{24});
        QCOMPARE((*both)[1].fusedOps, std::size_t{0});
        // A fused reduction sums in the row layout's order, not the interpreter's: close, not the same bits.
        QVERIFY(closeTo((*both)[0].results, (*both)[1].results));
        QVERIFY2(
            (*both)[0].cycles * 10 < (*both)[1].cycles * 9, // at least 10% fewer
            qPrintable(
                QStringLiteral("%1 cycles fused, %2 apart").arg((*both)[0].cycles).arg((*both)[1].cycles)));
    }

    void whatMustGoThroughHbmIsNotFused()
    {
        // A value two fusions read is computed by the first and written by its kernel for the second (%t,
        // read by %u and %v: XLA's multi-output fusion); a bf16 intermediate is rounded on its way through
        // HBM, so %n stays a kernel's result; the reduce computes its operand (%w) itself.
        const std::string body =
            "  %t = stablehlo.add %a, %b : tensor<16x128xf32>\n"
            "  %u = stablehlo.multiply %t, %a : tensor<16x128xf32>\n"
            "  %v = stablehlo.subtract %t, %b : tensor<16x128xf32>\n"
            "  %n = stablehlo.convert %u : (tensor<16x128xf32>) -> tensor<16x128xbf16>\n"
            "  %nw = stablehlo.convert %n : (tensor<16x128xbf16>) -> tensor<16x128xf32>\n"
            "  %w = stablehlo.add %nw, %v : tensor<16x128xf32>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %s = stablehlo.reduce(%w init: %z) applies stablehlo.add across dimensions = [1] : "
            "(tensor<16x128xf32>, tensor<f32>) -> tensor<16xf32>\n"
            "  %r = stablehlo.negate %s : tensor<16xf32>\n";
        const std::string text = moduleText({16, 128}, {16, 128}, body, type({16}));
        const Compiled fused = compileAndReplay(text, true);
        QVERIFY(fused.kernels > 0);
        std::vector<std::string> roots;
        for (const auto& region : fused.opRegions)
            roots.push_back(region.substr(0, region.find(" \u00b7")));
        QCOMPARE(roots, (std::vector<std::string>{"convert %n", "reduce %s", "negate %r"}));
        QCOMPARE(fused.opRegions[0], std::string("convert %n \u00b7 fused %t %u"));
        QCOMPARE(fused.opRegions[1], std::string("reduce %s \u00b7 fused %v %nw %w"));
    }

    // A value several members of one fusion read is computed once inside it (%s, read by %p, %q and %r;
    // %p by %q and %r): one kernel, bit for bit the kernels-per-op result.
    void aValueReadSeveralTimesInOneFusionJoinsIt()
    {
        const std::string body = "  %s = stablehlo.multiply %a, %a : tensor<16x128xf32>\n"
                                 "  %p = stablehlo.add %s, %b : tensor<16x128xf32>\n"
                                 "  %q = stablehlo.subtract %s, %p : tensor<16x128xf32>\n"
                                 "  %m = stablehlo.multiply %q, %p : tensor<16x128xf32>\n"
                                 "  %r = stablehlo.maximum %m, %s : tensor<16x128xf32>\n";
        auto m = parseModule(moduleText({16, 128}, {16, 128}, body, type({16, 128})), "shared.mlir");
        QVERIFY(m.ok());
        std::string failure;
        const auto both = fusedAndApart(*m, &failure);
        QVERIFY2(both, failure.c_str());
        QCOMPARE((*both)[0].kernels, std::size_t{1});
        QCOMPARE((*both)[0].fusedOps, std::size_t{4});
        QCOMPARE((*both)[0].results, (*both)[1].results);
    }

    void broadcastsElementWiseKernelsReadAreRegisters()
    {
        // A bias row repeated over the rows (period 512, a divisor of a register's 1024 elements) and a
        // scalar's broadcast are registers of the one kernel computing max(x + bias, 0): never written to
        // HBM. The bias is read by one DMA and doubled in VMEM by a second (2 KiB -> 4 KiB).
        const std::string body =
            "  %bias = stablehlo.slice %b [0:1, 0:512] : (tensor<96x512xf32>) -> tensor<1x512xf32>\n"
            "  %row = stablehlo.reshape %bias : (tensor<1x512xf32>) -> tensor<512xf32>\n"
            "  %bb = stablehlo.broadcast_in_dim %row, dims = [1] : (tensor<512xf32>) -> tensor<96x512xf32>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<96x512xf32>\n"
            "  %y = stablehlo.add %a, %bb : tensor<96x512xf32>\n"
            "  %r = stablehlo.maximum %y, %zb : tensor<96x512xf32>\n";
        const std::string text = moduleText({96, 512}, {96, 512}, body, type({96, 512}));
        const Compiled fused = compileAndReplay(text, true), apart = compileAndReplay(text, false);
        QVERIFY(fused.kernels > 0 && apart.kernels > 0);
        QCOMPARE(fused.opRegions, (std::vector<std::string>{"slice %bias", "maximum %r \u00b7 fused %y"}));
        QCOMPARE(apart.kernels, std::size_t{5}); // slice, two broadcasts, add, maximum
        // The slice's own (1 in, 1 out), then x in 3 tiles, the bias and its doubling, 3 tiles out.
        QCOMPARE(fused.dmas, std::size_t{2 + 3 + 2 + 3});
        QVERIFY(fused.cycles * 2 < apart.cycles);
    }

    void broadcastsOthersReadOrThatVaryByRowAreWritten()
    {
        // A column broadcast (each row its own value) is one value per row of the row layout's registers,
        // held in registers like the row broadcasts; a broadcast a dot_general reads must be in HBM: it alone
        // is a kernel, and the results hold.
        const std::string body =
            "  %col = stablehlo.slice %b [0:16, 0:1] : (tensor<16x128xf32>) -> tensor<16x1xf32>\n"
            "  %c = stablehlo.reshape %col : (tensor<16x1xf32>) -> tensor<16xf32>\n"
            "  %cb = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<16xf32>) -> tensor<16x128xf32>\n"
            "  %t = stablehlo.slice %b [0:1, 0:3] : (tensor<16x128xf32>) -> tensor<1x3xf32>\n"
            "  %t3 = stablehlo.reshape %t : (tensor<1x3xf32>) -> tensor<3xf32>\n"
            "  %tb = stablehlo.broadcast_in_dim %t3, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>\n"
            "  %w = stablehlo.slice %b [0:3, 0:128] : (tensor<16x128xf32>) -> tensor<3x128xf32>\n"
            "  %p = stablehlo.dot_general %tb, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, "
            "tensor<3x128xf32>) -> tensor<4x128xf32>\n"
            "  %row = stablehlo.slice %a [0:1, 0:128] : (tensor<16x128xf32>) -> tensor<1x128xf32>\n"
            "  %rr = stablehlo.reshape %row : (tensor<1x128xf32>) -> tensor<128xf32>\n"
            "  %rb = stablehlo.broadcast_in_dim %rr, dims = [1] : (tensor<128xf32>) -> tensor<16x128xf32>\n"
            "  %pp = stablehlo.slice %p [0:1, 0:128] : (tensor<4x128xf32>) -> tensor<1x128xf32>\n"
            "  %pr = stablehlo.reshape %pp : (tensor<1x128xf32>) -> tensor<128xf32>\n"
            "  %pb = stablehlo.broadcast_in_dim %pr, dims = [1] : (tensor<128xf32>) -> tensor<16x128xf32>\n"
            "  %s = stablehlo.add %a, %cb : tensor<16x128xf32>\n"
            "  %u = stablehlo.multiply %s, %rb : tensor<16x128xf32>\n"
            "  %r = stablehlo.subtract %u, %pb : tensor<16x128xf32>\n";
        const std::string text = moduleText({16, 128}, {16, 128}, body, type({16, 128}));
        const Compiled fused = compileAndReplay(text, true);
        QVERIFY(fused.kernels > 0);
        std::vector<std::string> broadcasts;
        for (const auto& region : fused.opRegions)
            if (region.rfind("broadcast_in_dim", 0) == 0)
                broadcasts.push_back(region);
        QCOMPARE(broadcasts, (std::vector<std::string>{"broadcast_in_dim %tb"}));
        QCOMPARE(fused.opRegions.back(), std::string("subtract %r \u00b7 fused %s %u"));
    }

    void normsAndSoftmaxesReadTheirBroadcastsInRegisters_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("loops");
        // A layer norm over rows of 256: the mean and 1/sqrt(variance) one value per row, the scale and bias
        // one row for every row; none of the four broadcasts is written to HBM.
        const std::string norm =
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [2] : "
            "(tensor<2x64x256xf32>, tensor<f32>) -> tensor<2x64xf32>\n"
            "  %n = stablehlo.constant dense<256.0> : tensor<2x64xf32>\n"
            "  %m = stablehlo.divide %s, %n : tensor<2x64xf32>\n"
            "  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<2x64xf32>) -> "
            "tensor<2x64x256xf32>\n"
            "  %d = stablehlo.subtract %a, %mb : tensor<2x64x256xf32>\n"
            "  %q = stablehlo.multiply %d, %d : tensor<2x64x256xf32>\n"
            "  %v = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [2] : "
            "(tensor<2x64x256xf32>, tensor<f32>) -> tensor<2x64xf32>\n"
            "  %vn = stablehlo.divide %v, %n : tensor<2x64xf32>\n"
            "  %e = stablehlo.constant dense<1.0e-5> : tensor<2x64xf32>\n"
            "  %ve = stablehlo.add %vn, %e : tensor<2x64xf32>\n"
            "  %rs = stablehlo.rsqrt %ve : tensor<2x64xf32>\n"
            "  %rb = stablehlo.broadcast_in_dim %rs, dims = [0, 1] : (tensor<2x64xf32>) -> "
            "tensor<2x64x256xf32>\n"
            "  %y = stablehlo.multiply %d, %rb : tensor<2x64x256xf32>\n"
            "  %g = stablehlo.slice %b [0:1, 0:256] : (tensor<2x256xf32>) -> tensor<1x256xf32>\n"
            "  %gb = stablehlo.broadcast_in_dim %g, dims = [1, 2] : (tensor<1x256xf32>) -> "
            "tensor<2x64x256xf32>\n"
            "  %k = stablehlo.slice %b [1:2, 0:256] : (tensor<2x256xf32>) -> tensor<1x256xf32>\n"
            "  %kr = stablehlo.reshape %k : (tensor<1x256xf32>) -> tensor<256xf32>\n"
            "  %k3 = stablehlo.broadcast_in_dim %kr, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>\n"
            "  %kb = stablehlo.broadcast_in_dim %k3, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> "
            "tensor<2x64x256xf32>\n"
            "  %ys = stablehlo.multiply %y, %gb : tensor<2x64x256xf32>\n"
            "  %r = stablehlo.add %ys, %kb : tensor<2x64x256xf32>\n";
        // A masked softmax over rows of 128: the mask [16, 128] repeats over batch and heads (its rows wrap
        // every 16), the row maximum and the row sum one value per row.
        const std::string softmax =
            "  %mask = stablehlo.slice %b [0:16, 0:128] : (tensor<32x128xf32>) -> tensor<16x128xf32>\n"
            "  %mk = stablehlo.broadcast_in_dim %mask, dims = [2, 3] : (tensor<16x128xf32>) -> "
            "tensor<2x4x16x128xf32>\n"
            "  %x = stablehlo.add %a, %mk : tensor<2x4x16x128xf32>\n"
            "  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            "  %mx = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [3] : "
            "(tensor<2x4x16x128xf32>, tensor<f32>) -> tensor<2x4x16xf32>\n"
            "  %mxb = stablehlo.broadcast_in_dim %mx, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> "
            "tensor<2x4x16x128xf32>\n"
            "  %sh = stablehlo.subtract %x, %mxb : tensor<2x4x16x128xf32>\n"
            "  %ex = stablehlo.exponential %sh : tensor<2x4x16x128xf32>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %sm = stablehlo.reduce(%ex init: %z) applies stablehlo.add across dimensions = [3] : "
            "(tensor<2x4x16x128xf32>, tensor<f32>) -> tensor<2x4x16xf32>\n"
            "  %smb = stablehlo.broadcast_in_dim %sm, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> "
            "tensor<2x4x16x128xf32>\n"
            "  %r = stablehlo.divide %ex, %smb : tensor<2x4x16x128xf32>\n";
        for (const bool loops : {false, true}) {
            const char* how = loops ? ", counted loops" : "";
            QTest::addRow("layer norm%s", how)
                << QString::fromStdString(moduleText({2, 64, 256}, {2, 256}, norm, type({2, 64, 256})))
                << loops;
            QTest::addRow("masked softmax%s", how)
                << QString::fromStdString(
                       moduleText({2, 4, 16, 128}, {32, 128}, softmax, type({2, 4, 16, 128})))
                << loops;
        }
    }
    void normsAndSoftmaxesReadTheirBroadcastsInRegisters()
    {
        QFETCH(QString, text);
        QFETCH(bool, loops);
        auto m = parseModule(text.toStdString(), "case.mlir");
        QVERIFY(m.ok());
        std::array<std::vector<double>, 2> results;
        std::array<std::uint64_t, 2> cycles{};
        for (const bool fuse : {true, false}) {
            CompileOptions options;
            options.fuse = fuse;
            options.loops = loops ? CompileOptions::Loops::Always : CompileOptions::Loops::Never;
            auto compiled = compileModule(*m, options);
            QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
            const auto& regions = compiled->trace.chips.front().symbols.regions;
            const bool written = std::any_of(regions.begin(), regions.end(), [](const auto& r) {
                return r.name.find("broadcast_in_dim") != std::string::npos;
            });
            QCOMPARE(written, !fuse);
            // The variance's reduce computes its operand (a reduction fusion); the softmax's exponential,
            // read by its sum and by the division, is computed by the sum's kernel, which writes it too.
            const bool reductionFused = std::any_of(regions.begin(), regions.end(), [](const auto& r) {
                return r.name.rfind("reduce", 0) == 0 && r.name.find("\u00b7 fused") != std::string::npos;
            });
            QCOMPARE(reductionFused, fuse);
            // Held to the interpreter (f32: 1e-4 x max(1, |reference|); rsqrt, exponential and divide are
            // the vector unit's approximations).
            auto replayed = sim::replayAndCheck(*m, *compiled, true);
            QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
            const auto& held = replayed->check.checks.front();
            QVERIFY2(held.passed, held.worst.c_str());
            results[fuse ? 0 : 1] = replayed->results.front().data;
            cycles[fuse ? 0 : 1] = replayed->cycles;
        }
        // Fused or not, the same operations on the same values, the fused reductions summing in another
        // order: close, in fewer cycles.
        QVERIFY(closeTo(results[0], results[1]));
        QVERIFY(cycles[0] < cycles[1]);
    }

    void longChainsFuseWhileTheirLiveValuesFitTheRegisters()
    {
        // 24 steps, one of them a conversion that keeps the bytes (an alias alone): more ops than the 18
        // registers, but only one intermediate is live at a time, so the kernel reuses registers and the
        // whole chain is one kernel, with the results of a kernel per op.
        std::string body = "  %c = stablehlo.constant dense<0.75> : tensor<64x256xf32>\n";
        std::string previous = "%a";
        for (int i = 0; i < 24; ++i) {
            const std::string name = i == 23 ? "%r" : "%t" + std::to_string(i);
            if (i == 11)
                body += "  " + name + " = stablehlo.convert " + previous +
                        " : (tensor<64x256xf32>) -> tensor<64x256xf32>\n";
            else
                body += "  " + name + " = stablehlo." + (i % 2 == 0 ? "add " : "multiply ") + previous +
                        ", %c : tensor<64x256xf32>\n";
            previous = name;
        }
        const std::string text = moduleText({64, 256}, {}, body, type({64, 256}));
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        std::string failure;
        const auto both = fusedAndApart(*m, &failure);
        QVERIFY2(both.has_value(), failure.c_str());
        QCOMPARE((*both)[0].kernels, std::size_t{1});
        QCOMPARE((*both)[0].fusedOps, std::size_t{23});
        QCOMPARE((*both)[0].results, (*both)[1].results);
        QVERIFY((*both)[0].cycles * 4 < (*both)[1].cycles);
    }

    void aBatchNormIsExpandedIntoOpsThatFuse()
    {
        // torch_xla's LayerNorm: batch_norm_training over the tokens of [1, 64, 256] (feature_index 1). Its
        // expansion is ops of the module, so the sum of squares is a reduction fusion computing x^2 that the
        // sum of x joins (one pass over x for both), the broadcasts stay in registers, and the result holds
        // to the interpreter's batch norm.
        const std::string text =
            "func.func public @main() -> tensor<1x64x256xf32> {\n"
            "  %x0 = stablehlo.iota dim = 2 : tensor<1x64x256xf32>\n"
            "  %x1 = stablehlo.iota dim = 1 : tensor<1x64x256xf32>\n"
            "  %x = stablehlo.multiply %x0, %x1 : tensor<1x64x256xf32>\n"
            "  %s = stablehlo.constant dense<2.0> : tensor<64xf32>\n"
            "  %b = stablehlo.constant dense<0.5> : tensor<64xf32>\n"
            "  %o, %m, %v = \"stablehlo.batch_norm_training\"(%x, %s, %b) <{epsilon = 1.0E-5 : f32, "
            "feature_index = 1 : i64}> : (tensor<1x64x256xf32>, tensor<64xf32>, tensor<64xf32>) -> "
            "(tensor<1x64x256xf32>, tensor<64xf32>, tensor<64xf32>)\n"
            "  return %o : tensor<1x64x256xf32>\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m);
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        QVERIFY(compiled->expanded != nullptr);
        std::vector<std::string> names;
        for (const auto& r : compiled->trace.chips.front().symbols.regions)
            names.push_back(r.name);
        const auto has = [&](const std::string& prefix) {
            return std::any_of(names.begin(), names.end(),
                               [&](const auto& n) { return n.rfind(prefix, 0) == 0; });
        };
        // (x in f32: no conversion; x itself, a multiply the normalisation reads too, computed and written
        // by the sums' kernel)
        QVERIFY(has("reduce %o.sum \u00b7 fused %x %o.square %o.sum_of_squares"));
        QVERIFY(!has("broadcast_in_dim"));
        auto replayed = sim::replayAndCheck(*m, *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        QVERIFY2(replayed->check.checks.front().passed, replayed->check.checks.front().worst.c_str());
    }

    void siblingReductionsShareOnePass()
    {
        // A layer norm's statistics as JAX writes them: the sums of x and of x^2 over the same rows are one
        // kernel with two results (XLA's multi-output fusion), reading x once where two kernels read it
        // twice; both hold to the interpreter. The mean's own kernel reads the first sum in between.
        const auto statsOf = [](int rows) {
            const std::string x = "tensor<" + std::to_string(rows) + "x512xf32>",
                              row = "tensor<" + std::to_string(rows) + "xf32>";
            return "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                   "  %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (" +
                   x + ", tensor<f32>) -> " + row +
                   "\n  %n = stablehlo.constant dense<0.001953125> : " + row +
                   "\n  %m = stablehlo.multiply %s, %n : " + row +
                   "\n  %q = stablehlo.multiply %a, %a : " + x +
                   "\n  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
                   "  %s2 = stablehlo.reduce(%q init: %one) applies stablehlo.add across dimensions = [1] : "
                   "(" +
                   x + ", tensor<f32>) -> " + row + "\n  %r = stablehlo.subtract %s2, %m : " + row + "\n";
        };
        const std::string text = moduleText({64, 512}, {64, 512}, statsOf(64), type({64}));
        const Compiled fused = compileAndReplay(text, true, 64);
        const Compiled unfused = compileAndReplay(text, false, 64);
        // 16 tiles of a machine with 1 MiB of VMEM as a counted loop: both sums leave through its offset.
        CompileOptions looped;
        looped.loops = CompileOptions::Loops::Always;
        looped.machine.vmemBytes = 1 << 20;
        std::string failure;
        std::vector<std::string> loopedRegions;
        const auto worst = worstUlp(moduleText({256, 512}, {256, 512}, statsOf(256), type({256})), &failure,
                                    looped, nullptr, [&](const CompiledModule& m, std::uint64_t) {
                                        for (const auto& r : m.trace.chips.front().symbols.regions)
                                            loopedRegions.push_back(r.name);
                                    });
        QVERIFY2(worst <= 64, failure.c_str());
        QVERIFY(std::find(loopedRegions.begin(), loopedRegions.end(), "reduce %s \u00b7 fused %q %s2") !=
                loopedRegions.end());
        QVERIFY(fused.kernels > 0 && unfused.kernels > 0);
        const auto reduces = [](const Compiled& c) {
            return std::count_if(c.opRegions.begin(), c.opRegions.end(),
                                 [](const std::string& r) { return r.rfind("reduce", 0) == 0; });
        };
        QCOMPARE(reduces(fused), 1);
        QCOMPARE(reduces(unfused), 2);
        QVERIFY(std::find(fused.opRegions.begin(), fused.opRegions.end(), "reduce %s \u00b7 fused %q %s2") !=
                fused.opRegions.end());
        QVERIFY(fused.cycles < unfused.cycles);
    }

    void aMaximumReductionComputesItsOperandAndPropagatesNan()
    {
        // A softmax's row maximum of masked scores: the reduce's kernel computes x * x and the mask, and a
        // row holding a NaN gives NaN, as StableHLO's maximum does (the vector unit's vmax would give the
        // other operand). Exactly the interpreter's.
        const std::string body =
            "  %x = stablehlo.multiply %a, %a : tensor<16x256xf32>\n"
            "  %i0 = stablehlo.iota dim = 0 : tensor<16x256xf32>\n"
            "  %i1 = stablehlo.iota dim = 1 : tensor<16x256xf32>\n"
            "  %three = stablehlo.constant dense<3.0> : tensor<16x256xf32>\n"
            "  %five = stablehlo.constant dense<200.0> : tensor<16x256xf32>\n"
            "  %c0 = stablehlo.compare EQ, %i0, %three : (tensor<16x256xf32>, tensor<16x256xf32>) -> "
            "tensor<16x256xi1>\n"
            "  %c1 = stablehlo.compare EQ, %i1, %five : (tensor<16x256xf32>, tensor<16x256xf32>) -> "
            "tensor<16x256xi1>\n"
            "  %c = stablehlo.and %c0, %c1 : tensor<16x256xi1>\n"
            "  %nan = stablehlo.constant dense<0x7FC00000> : tensor<16x256xf32>\n"
            "  %y = stablehlo.select %c, %nan, %x : tensor<16x256xi1>, tensor<16x256xf32>\n"
            "  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            "  %r = stablehlo.reduce(%y init: %lo) applies stablehlo.maximum across dimensions = [1] : "
            "(tensor<16x256xf32>, tensor<f32>) -> tensor<16xf32>\n";
        const auto regions =
            compileAndReplay(moduleText({16, 256}, {16, 256}, body, type({16})), true).opRegions;
        QVERIFY(std::any_of(regions.begin(), regions.end(), [](const std::string& r) {
            return r.rfind("reduce %r \u00b7 fused %x %c0 %c1 %c %y", 0) == 0;
        }));
    }

    void aBiasIsAddedByTheDotComputingIt_data()
    {
        QTest::addColumn<int>("vmemKiB");
        QTest::addColumn<bool>("inTiles");
        QTest::addRow("one tile: added to the sums in registers") << 0 << true;
        QTest::addRow("tiles: an element-wise pass after the matmul") << 512 << false;
    }
    void aBiasIsAddedByTheDotComputingIt()
    {
        // A dense layer's bias and the skip connection after it (XLA's output fusion): the add of a vector
        // broadcast along the dot's rows, then of a tensor, are computed by the dot_general's kernel, the
        // same f32 sums as the adds' own kernels, bit for bit; two kernels fewer and the result written
        // once. A dot cut into tiles adds them after the matmul instead.
        QFETCH(int, vmemKiB);
        QFETCH(bool, inTiles);
        const std::string dense =
            "  %row = stablehlo.slice %b [7:8, 0:384] : (tensor<256x384xf32>) -> tensor<1x384xf32>\n"
            "  %skip = stablehlo.slice %b [0:64, 0:384] : (tensor<256x384xf32>) -> tensor<64x384xf32>\n"
            "  %v = stablehlo.reshape %row : (tensor<1x384xf32>) -> tensor<384xf32>\n"
            "  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
            "(tensor<64x256xf32>, tensor<256x384xf32>) -> tensor<64x384xf32>\n"
            "  %vb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<384xf32>) -> tensor<64x384xf32>\n"
            "  %biased = stablehlo.add %vb, %d : tensor<64x384xf32>\n"
            "  %r = stablehlo.add %skip, %biased : tensor<64x384xf32>\n";
        std::array<std::vector<double>, 2> results; // fused, apart
        std::array<std::uint64_t, 2> cycles{};
        auto m = parseModule(moduleText({64, 256}, {256, 384}, dense, type({64, 384})), "case.mlir");
        QVERIFY(m.ok());
        for (const bool fuse : {true, false}) {
            CompileOptions options;
            options.fuse = fuse;
            if (vmemKiB > 0)
                options.machine.vmemBytes = static_cast<std::uint64_t>(vmemKiB) << 10;
            auto compiled = compileModule(*m, options);
            QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
            std::vector<std::string> ops;
            for (const auto& r : compiled->trace.chips.front().symbols.regions)
                if (r.level == "op")
                    ops.push_back(r.name);
            const bool fused =
                std::find(ops.begin(), ops.end(), "dot_general %d \u00b7 fused %biased %r") != ops.end();
            const bool ownAdd = std::any_of(ops.begin(), ops.end(),
                                            [](const std::string& r) { return r.rfind("add", 0) == 0; });
            QCOMPARE(fused, fuse);
            QCOMPARE(ownAdd, !fuse);
            // In the tiles: an add per register of sums; else the add's own pass over the result's tiles.
            const auto& regions = compiled->trace.chips.front().symbols.regions;
            const bool pass = std::any_of(regions.begin(), regions.end(),
                                          [](const auto& r) { return r.name == "add %r tiles"; });
            QCOMPARE(pass, !fuse || !inTiles);
            auto replayed = sim::replayAndCheck(*m, *compiled, true);
            QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
            QVERIFY2(replayed->check.checks.front().passed, replayed->check.checks.front().worst.c_str());
            results[fuse ? 0 : 1] = replayed->results.front().data;
            cycles[fuse ? 0 : 1] = replayed->cycles;
        }
        QVERIFY(results[0] == results[1]);
        QVERIFY(cycles[0] < cycles[1]);
    }

    void perChannelValuesOfNchwAreReadAlongRowsOfHw()
    {
        // An NCHW batch norm's per-channel mean and scale over rows of W = 32 (narrower than the 128 lanes):
        // the kernel reads them along rows of H x W instead of writing the broadcasts out, and its result
        // holds to the interpreter.
        const std::string t = "tensor<4x16x8x32xf32>", c = "tensor<1x16x1x1xf32>";
        const std::string text = "func.func public @main() -> " + t +
                                 " {\n"
                                 "  %x0 = stablehlo.iota dim = 3 : " +
                                 t +
                                 "\n"
                                 "  %x1 = stablehlo.iota dim = 1 : " +
                                 t +
                                 "\n"
                                 "  %x = stablehlo.add %x0, %x1 : " +
                                 t +
                                 "\n"
                                 "  %m0 = stablehlo.iota dim = 1 : " +
                                 c +
                                 "\n"
                                 "  %m = stablehlo.multiply %m0, %m0 : " +
                                 c +
                                 "\n"
                                 "  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2, 3] : (" +
                                 c + ") -> " + t +
                                 "\n"
                                 "  %d = stablehlo.subtract %x, %mb : " +
                                 t +
                                 "\n"
                                 "  %sb = stablehlo.broadcast_in_dim %m0, dims = [0, 1, 2, 3] : (" +
                                 c + ") -> " + t +
                                 "\n"
                                 "  %q = stablehlo.add %sb, %mb : " +
                                 t +
                                 "\n"
                                 "  %r = stablehlo.divide %d, %q : " +
                                 t +
                                 "\n"
                                 "  return %r : " +
                                 t + "\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m);
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        for (const auto& r : compiled->trace.chips.front().symbols.regions)
            QVERIFY2(r.name != "broadcast_in_dim written out", r.name.c_str());
        auto replayed = sim::replayAndCheck(*m, *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        QVERIFY2(replayed->check.checks.front().passed, replayed->check.checks.front().worst.c_str());
    }

    void transposesADotReadsAreFoldedIntoIt()
    {
        // Attention's queries and keys as exporters write them: transposed (and reshaped past a leading 1)
        // before a batched dot_general. Neither transpose runs: the dot reads their operands through strides.
        const std::string text =
            "func.func public @main() -> tensor<4x16x32xf32> {\n"
            "  %q0 = stablehlo.iota dim = 1 : tensor<1x16x4x8xf32>\n"
            "  %q1 = stablehlo.iota dim = 3 : tensor<1x16x4x8xf32>\n"
            "  %q = stablehlo.subtract %q0, %q1 : tensor<1x16x4x8xf32>\n"
            "  %k0 = stablehlo.iota dim = 2 : tensor<1x32x4x8xf32>\n"
            "  %k1 = stablehlo.iota dim = 1 : tensor<1x32x4x8xf32>\n"
            "  %k = stablehlo.multiply %k0, %k1 : tensor<1x32x4x8xf32>\n"
            "  %qt = stablehlo.transpose %q, dims = [0, 2, 1, 3] : (tensor<1x16x4x8xf32>) -> "
            "tensor<1x4x16x8xf32>\n"
            "  %qr = stablehlo.reshape %qt : (tensor<1x4x16x8xf32>) -> tensor<4x16x8xf32>\n"
            "  %kt = stablehlo.transpose %k, dims = [0, 2, 3, 1] : (tensor<1x32x4x8xf32>) -> "
            "tensor<1x4x8x32xf32>\n"
            "  %r = stablehlo.dot_general %qr, %kt, batching_dims = [0] x [1], contracting_dims = [2] x [2] "
            ": "
            "(tensor<4x16x8xf32>, tensor<1x4x8x32xf32>) -> tensor<4x16x1x32xf32>\n"
            "  %o = stablehlo.reshape %r : (tensor<4x16x1x32xf32>) -> tensor<4x16x32xf32>\n"
            "  return %o : tensor<4x16x32xf32>\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        std::string failure;
        const auto both = fusedAndApart(*m, &failure);
        QVERIFY2(both.has_value(), failure.c_str());
        QCOMPARE((*both)[0].kernels, std::size_t{3}); // q, k and the dot: no transpose
        QCOMPARE((*both)[1].kernels, std::size_t{5});
        // The same products summed in the same order as with the transposes run: the same bits.
        QCOMPARE((*both)[0].results, (*both)[1].results);
        QVERIFY((*both)[0].cycles < (*both)[1].cycles);
    }

    void columnBroadcastsHoldInEveryLayout_data()
    {
        QTest::addColumn<QString>("text");
        // Runs of 384 elements: each value's second 4 KiB store overlaps the next value's first.
        QTest::newRow("runs of 384") << QString::fromStdString(moduleText(
            {24, 384}, {},
            "  %m = stablehlo.slice %a [0:24, 0:1] : (tensor<24x384xf32>) -> tensor<24x1xf32>\n"
            "  %c = stablehlo.reshape %m : (tensor<24x1xf32>) -> tensor<24xf32>\n"
            "  %r = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<24xf32>) -> tensor<24x384xf32>\n",
            type({24, 384})));
        // Two leading dimensions, runs of 128, a bf16 operand widened into SMEM and a bf16 result narrowed.
        QTest::newRow("bf16, two leading dimensions") << QString::fromStdString(moduleText(
            {2, 3, 128}, {},
            "  %m = stablehlo.slice %a [0:2, 0:3, 5:6] : (tensor<2x3x128xf32>) -> tensor<2x3x1xf32>\n"
            "  %c = stablehlo.reshape %m : (tensor<2x3x1xf32>) -> tensor<2x3xf32>\n"
            "  %h = stablehlo.convert %c : (tensor<2x3xf32>) -> tensor<2x3xbf16>\n"
            "  %w = stablehlo.broadcast_in_dim %h, dims = [0, 1] : (tensor<2x3xbf16>) -> "
            "tensor<2x3x256xbf16>\n"
            "  %r = stablehlo.convert %w : (tensor<2x3x256xbf16>) -> tensor<2x3x256xf32>\n",
            type({2, 3, 256})));
    }
    void columnBroadcastsHoldInEveryLayout()
    {
        QFETCH(QString, text);
        std::string failure;
        std::vector<std::string> regions;
        std::uint64_t fullCycles = 0;
        int broadcasts = 0; // vbcast of a scalar register: one a value on the vector unit's path (24, 6 here)
        const auto worst = worstUlp(
            text.toStdString(), &failure, {}, nullptr, [&](const CompiledModule& m, std::uint64_t cycles) {
                fullCycles = cycles;
                for (const auto& region : m.trace.chips.front().symbols.regions)
                    regions.push_back(region.name);
                for (const auto& bundle : m.trace.chips.front().program.bundles)
                    for (const auto& insn : bundle.instructions)
                        broadcasts += insn.opcode == isa::Opcode::VBcast &&
                                              insn.operands[1].form != isa::Operand::Form::Imm
                                          ? 1
                                          : 0;
            });
        QVERIFY2(worst == 0, failure.c_str());
        QVERIFY2(broadcasts >= 6, qPrintable(QString::number(broadcasts)));
        QVERIFY(std::any_of(regions.begin(), regions.end(),
                            [](const std::string& r) { return r.rfind("broadcast_in_dim", 0) == 0; }));
        // Timing-only mode broadcasts the computed values without knowing them, in the same cycles.
        auto m = parseModule(text.toStdString(), "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m);
        QVERIFY(compiled.ok());
        events::EventStore store;
        const auto timing = sim::replay(compiled->trace, {sim::ReplayMode::TimingOnly}, store);
        QVERIFY2(!timing.fault, timing.fault ? timing.fault->message.c_str() : "");
        QCOMPARE(timing.totalCycles, fullCycles);
    }

    void aChainLongerThanTheRegistersIsSplit()
    {
        // r = c0 + c1 + ... + c23: 24 inputs of their own cannot all be in registers at once; the chain is
        // cut where they run out, each part a kernel, the sum the same.
        std::string text = "func.func public @main() -> " + type({1024}) + " {\n";
        for (int i = 0; i < 24; ++i)
            text += "  %c" + std::to_string(i) + " = stablehlo.constant " +
                    literal({1024}, static_cast<std::uint32_t>(i + 1)) + " : " + type({1024}) + "\n";
        std::string last = "%c0";
        for (int i = 1; i < 24; ++i) {
            const std::string name = i == 23 ? "%r" : "%s" + std::to_string(i);
            text += "  " + name + " = stablehlo.add " + last + ", %c" + std::to_string(i) + " : " +
                    type({1024}) + "\n";
            last = name;
        }
        text += "  return %r : " + type({1024}) + "\n}\n";
        const Compiled fused = compileAndReplay(text, true);
        QVERIFY(fused.kernels > 1 && fused.kernels < 23);
        QCOMPARE(fused.kernels + fused.fusedOps, std::size_t{23});
    }
};

QTEST_MAIN(TestStableHloFusion)
#include "tst_stablehlo_fusion.moc"

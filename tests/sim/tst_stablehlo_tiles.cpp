// Tiles come from the machine: element-wise kernels stream in tiles sized by VMEM, a dot_general larger than
// VMEM runs as tiles that fit, and so do a data movement, a pad, a reduce and a convolution's patch matrix
// (in slabs); either way the replay matches the reference interpreter as the untiled kernel does.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

class TestStableHloTiles : public QObject
{
    Q_OBJECT
private slots:
    // Tiles come from the machine: with 1 MiB of VMEM an element-wise op streams in smaller tiles (more
    // DMAs), with the same result.
    void tilesFitTheMachinesVmem()
    {
        const std::string text = moduleText(
            {96, 512}, {96, 512}, "  %r = stablehlo.add %a, %b : tensor<96x512xf32>\n", type({96, 512}));
        std::string failure;
        std::size_t roomy = 0, tight = 0;
        QCOMPARE(worstUlp(text, &failure, {}, &roomy), std::uint64_t(0));
        CompileOptions small;
        small.machine.vmemBytes = 1 << 20;
        QCOMPARE(worstUlp(text, &failure, small, &tight), std::uint64_t(0));
        // 192 KiB a tensor: 3 tiles of 64 KiB with 32 MiB; 21 KiB tiles (5 registers) with 1 MiB.
        QCOMPARE(roomy, std::size_t(3 * 3));
        QCOMPARE(tight, std::size_t(10 * 3));
    }

    // A dot_general whose working set is larger than VMEM runs as tiles that fit (one batch at a time, N
    // blocks and rows of M halved), each summing all of K: the replay still matches the interpreter exactly.
    void dotTilesFitTheMachinesVmem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("vmem");
        QTest::addColumn<int>("dmasAtLeast"); // more DMAs than the untiled kernel: operands come per tile
        // 908 KiB untiled; in 256 KiB: one N block and 24 rows at a time (8 tiles, the last of 16 rows).
        QTest::newRow("2-D, N and M split")
            << dotModule({40, 300}, {300, 500}, "contracting_dims = [1] x [0]", {40, 500})
            << qint64(256 << 10) << 16;
        // Two batch dimensions: one batch at a time, its offset from both.
        QTest::newRow("two batch dimensions, one at a time")
            << dotModule({2, 3, 5, 7}, {2, 3, 7, 300},
                         "batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2]", {2, 3, 5, 300})
            << qint64(200 << 10) << 6;
        // 1 MiB untiled; in 512 KiB two batches' tiles (128 KiB each) fit: pipelined, each batch loading
        // while the MXU multiplies the one before, in two sets of buffers taken in turn.
        QTest::newRow("batches pipelined in two sets of buffers")
            << dotModule({8, 64, 96}, {8, 96, 80}, "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
                         {8, 64, 80})
            << qint64(512 << 10) << 0; // a DMA per batch and operand either way
        // M over two lhs dimensions cannot be cut into rows by one move: N blocks alone are split.
        QTest::newRow("M over two dimensions, N split")
            << dotModule({4, 10, 200}, {200, 600}, "contracting_dims = [2] x [0]", {4, 10, 600})
            << qint64(300 << 10) << 10;
    }
    void dotTilesFitTheMachinesVmem()
    {
        QFETCH(QString, text);
        QFETCH(qint64, vmem);
        QFETCH(int, dmasAtLeast);
        std::string failure;
        std::size_t roomy = 0, tight = 0;
        QCOMPARE(worstUlp(text.toStdString(), &failure, {}, &roomy), std::uint64_t(0));
        CompileOptions small;
        small.machine.vmemBytes = vmem;
        QVERIFY2(worstUlp(text.toStdString(), &failure, small, &tight) == 0, failure.c_str());
        QVERIFY2(tight >= roomy + static_cast<std::size_t>(dmasAtLeast),
                 (std::to_string(roomy) + " DMAs untiled, " + std::to_string(tight) + " tiled").c_str());
    }

    // Weights far larger than the lhs: halving cuts M into tiles of 64 rows, each reading all the weights
    // again; the tile that reads fewest elements (all of M, a group of N blocks at a time) is taken instead.
    // Its results are those of the op untiled, bit for bit.
    void aWideMatmulReadsItsWeightsOnce()
    {
        const std::string text =
            dotModule({256, 128}, {128, 8192}, "contracting_dims = [1] x [0]", {256, 8192}).toStdString();
        auto module = parseModule(text, "case.mlir");
        QVERIFY(module.ok());
        CompileOptions small;
        small.machine.vmemBytes = 512 << 10;
        auto tiled = compileModule(*module, small);
        auto whole = compileModule(*module, {});
        QVERIFY(tiled.ok() && whole.ok());
        auto t = sim::replayAndCheck(*module, *tiled);
        auto w = sim::replayAndCheck(*module, *whole);
        QVERIFY(t.ok() && w.ok());
        QVERIFY(t->results.front().data == w->results.front().data);
        // The weights (4 MiB) once, the results (8 MiB), the lhs (128 KiB) once per N block: 16 MiB. Tiles of
        // 64 rows read 26 MiB (the weights four times) and took 92,679 cycles against 47,879.
        auto r = test::replayTrace(tiled->trace, sim::ReplayMode::TimingOnly);
        QVERIFY2(r->result.dma.at(0).hbmBytes <= std::uint64_t{16} << 20,
                 std::to_string(r->result.dma.at(0).hbmBytes).c_str());
    }

    // Two batches' tiles fit VMEM: the second batch's operands are on their way before the first batch's
    // first matmul (pipelined), and the replay is faster than with room for one tile only; both exact.
    void theNextBatchLoadsWhileTheMxuMultiplies()
    {
        const std::string text =
            dotModule({8, 64, 96}, {8, 96, 80}, "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
                      {8, 64, 80})
                .toStdString();
        const auto compiled = [&](std::int64_t vmem) {
            CompileOptions o;
            o.machine.vmemBytes = vmem;
            auto module = parseModule(text, "case.mlir");
            return compileModule(*module, o);
        };
        const auto loadsBeforeTheFirstMatmul = [](const CompiledModule& m) {
            std::size_t loads = 0;
            for (const auto& bundle : m.trace.chips.front().program.bundles)
                for (const auto& insn : bundle.instructions) {
                    if (insn.opcode == isa::Opcode::MxuMm)
                        return loads;
                    loads += insn.opcode == isa::Opcode::DmaStart ? 1 : 0;
                }
            return loads;
        };
        auto two = compiled(512 << 10), one = compiled(200 << 10); // tiles of 128 KiB
        QVERIFY(two.ok() && one.ok());
        QCOMPARE(loadsBeforeTheFirstMatmul(*one), std::size_t(2)); // its lhs rows and weights
        QCOMPARE(loadsBeforeTheFirstMatmul(*two), std::size_t(4)); // and the next batch's
        std::string failure;
        CompileOptions roomy;
        roomy.machine.vmemBytes = 512 << 10;
        QVERIFY2(worstUlp(text, &failure, roomy) == 0, failure.c_str());
        auto module = parseModule(text, "case.mlir");
        const auto cycles = [&](const CompiledModule& m) {
            auto r = sim::replayAndCheck(*module, m, false);
            return r.ok() ? r->cycles : 0;
        };
        const auto pipelined = cycles(*two), serial = cycles(*one);
        QVERIFY2(pipelined > 0 && pipelined < serial, (std::to_string(pipelined) + " cycles pipelined, " +
                                                       std::to_string(serial) + " one at a time")
                                                          .c_str());
    }

    // Too little VMEM even for one tile: a located error that says what the smallest tile needs.
    void aDotWhoseSmallestTileDoesNotFitSaysWhy()
    {
        const std::string text = moduleText({8, 4096}, {4096, 128},
                                            "  %r = stablehlo.dot_general %a, %b, "
                                            "contracting_dims = [1] x [0] : (tensor<8x4096xf32>, "
                                            "tensor<4096x128xf32>) -> tensor<8x128xf32>\n",
                                            type({8, 128}));
        std::string failure;
        CompileOptions small;
        small.machine.vmemBytes = 1 << 20; // K = 4096: 32 weight blocks of 64 KiB = 2 MiB
        QCOMPARE(worstUlp(text, &failure, small), UINT64_MAX);
        QVERIFY2(failure.find("dot_general: even its smallest tile (8 rows, one 128-wide N block, all of K = "
                              "4096) needs") != std::string::npos,
                 failure.c_str());
    }

    // Broadcast, transpose, slice and reverse larger than VMEM leave in slabs of the outermost dimension
    // one index of which fits (whole rows below it), each slab contiguous in the result.
    void movementsLeaveInSlabsThatFit_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("slabsAtLeast"); // DMAs back to HBM beyond the untiled kernel's one
        const auto op = [](const std::vector<std::int64_t>& a, const std::string& body,
                           const std::vector<std::int64_t>& out) {
            return QString::fromStdString(moduleText(a, {}, body, type(out)));
        };
        // 48,000 B in 16 KiB: 102 rows of 160 B a slab.
        QTest::newRow("transpose")
            << op({40, 300},
                  "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<40x300xf32>) -> "
                  "tensor<300x40xf32>\n",
                  {300, 40})
            << 2;
        QTest::newRow("broadcast of a row") << op({300},
                                                  "  %r = stablehlo.broadcast_in_dim %a, dims = [1] : "
                                                  "(tensor<300xf32>) -> tensor<50x300xf32>\n",
                                                  {50, 300})
                                            << 3;
        // One index of dimension 0 (60,000 B) does not fit: slabs of dimension 1 at each index of 0.
        QTest::newRow("reverse, slabs of the second dimension")
            << op({3, 50, 300}, "  %r = stablehlo.reverse %a, dims = [0, 2] : tensor<3x50x300xf32>\n",
                  {3, 50, 300})
            << 11;
        QTest::newRow("strided slice") << op({100, 300},
                                             "  %r = stablehlo.slice %a [5:95:2, 7:299:3] : "
                                             "(tensor<100x300xf32>) -> tensor<45x98xf32>\n",
                                             {45, 98})
                                       << 1;
        // Each input in slabs of its own, inside the concatenated dimension's part of each row.
        QTest::newRow("concatenate along the second dimension")
            << op({100, 60},
                  "  %c = stablehlo.reverse %a, dims = [1] : tensor<100x60xf32>\n  %r = "
                  "stablehlo.concatenate %a, %c, %a, dim = "
                  "1 : (tensor<100x60xf32>, tensor<100x60xf32>, tensor<100x60xf32>) -> tensor<100x180xf32>\n",
                  {100, 180})
            << 3;
        QTest::newRow("concatenate along the first dimension")
            << op({100, 60},
                  "  %r = stablehlo.concatenate %a, %a, dim = 0 : (tensor<100x60xf32>, tensor<100x60xf32>) "
                  "-> "
                  "tensor<200x60xf32>\n",
                  {200, 60})
            << 2;
        // A pad larger than VMEM fills and assembles one slab of its result at a time: slabs that are all
        // padding (a negative or interior pad), cropped edges, and slabs inside the second dimension when one
        // index of the first does not fit.

        const auto pad = [](const std::vector<std::int64_t>& a, const std::string& widths,
                            const std::vector<std::int64_t>& out) {
            return QString::fromStdString(moduleText(a, {},
                                                     "  %z = stablehlo.constant dense<7.5> : tensor<f32>\n"
                                                     "  %r = stablehlo.pad %a, %z, " +
                                                         widths + " : (" + type(a) + ", tensor<f32>) -> " +
                                                         type(out) + "\n",
                                                     type(out)));
        };
        // 207 x 180 x 4 = 149,040 B in 16 KiB: 22 rows of 720 B a slab.
        QTest::newRow("interior, negative and edge padding")
            << pad({100, 60}, "low = [3, -2], high = [5, 4], interior = [1, 2]", {207, 180}) << 6;
        // One index of the first dimension is 102 x 43 x 4 = 17,544 B: slabs of rows of the second; the
        // first index is all padding.
        QTest::newRow("slabs of the second dimension, some all padding")
            << pad({3, 50, 40}, "low = [1, 2, 0], high = [0, 1, 3], interior = [0, 1, 0]", {4, 102, 43}) << 6;
        QTest::newRow("cropped on both sides")
            << pad({90, 70}, "low = [-5, -3], high = [-4, 2], interior = [0, 0]", {81, 69}) << 2;
    }
    void movementsLeaveInSlabsThatFit()
    {
        QFETCH(QString, text);
        QFETCH(int, slabsAtLeast);
        std::string failure;
        std::size_t roomy = 0, tight = 0;
        QVERIFY2(worstUlp(text.toStdString(), &failure, {}, &roomy) == 0, failure.c_str());
        CompileOptions small;
        small.machine.vmemBytes = 16 << 10;
        QVERIFY2(worstUlp(text.toStdString(), &failure, small, &tight) == 0, failure.c_str());
        QVERIFY2(tight >= roomy + static_cast<std::size_t>(slabsAtLeast),
                 (std::to_string(roomy) + " DMAs whole, " + std::to_string(tight) + " in slabs").c_str());
    }

    // A convolution whose patch matrix does not fit VMEM builds it in slabs of rows (a run of batches, or
    // of output rows of one image), each zeroed, gathered and sent to HBM, and gathers its kernel matrix
    // HBM to HBM; the MXU product is the same, so the replay equals the interpreter as the untiled one does.
    void convolutionsBuildTheirPatchesInSlabs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("vmem");
        const auto conv = [](const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                             const std::string& spec, const std::vector<std::int64_t>& out, int groups = 1) {
            return QString::fromStdString(moduleText(
                a, b,
                "  %r = stablehlo.convolution(%a, %b) " + spec +
                    " {batch_group_count = 1 : i64, feature_group_count = " + std::to_string(groups) +
                    " : i64} : (" + type(a) + ", " + type(b) + ") -> " + type(out) + "\n",
                type(out)));
        };
        const std::string nhwc = "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], ";
        // 800 rows x 144 columns = 460,800 B of patches; one image's 230,400 B fit 256 KiB: two slabs.
        QTest::newRow("NHWC 3x3 same, a batch a slab")
            << conv({2, 20, 20, 16}, {3, 3, 16, 8},
                    nhwc + "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}", {2, 20, 20, 8})
            << qint64(256 << 10);
        // One image (460,800 B) does not fit: slabs of its output rows.
        QTest::newRow("one image in slabs of rows")
            << conv({1, 40, 20, 16}, {3, 3, 16, 8},
                    nhwc + "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}", {1, 40, 20, 8})
            << qint64(256 << 10);
        QTest::newRow("strides, dilations, reversal, uneven padding")
            << conv(
                   {1, 45, 24, 8}, {3, 2, 8, 4},
                   nhwc +
                       "window = {stride = [2, 1], pad = [[2, 0], [0, 3]], lhs_dilate = [2, 1], rhs_dilate = "
                       "[1, 2], reverse = [true, false]}",
                   {1, 45, 25, 4})
            << qint64(160 << 10);
        // Two feature groups, NCHW: each group's patches in slabs, its product moved into its features.
        QTest::newRow("two groups, NCHW x OIHW")
            << conv({2, 8, 30, 30}, {6, 4, 3, 3},
                    "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = "
                    "[[1, 1], [1, 1]]}",
                    {2, 6, 30, 30}, 2)
            << qint64(192 << 10);
    }
    void convolutionsBuildTheirPatchesInSlabs()
    {
        QFETCH(QString, text);
        QFETCH(qint64, vmem);
        std::string failure;
        std::size_t roomy = 0, tight = 0;
        const auto whole = worstUlp(text.toStdString(), &failure, {}, &roomy);
        QVERIFY2(whole <= 2, failure.c_str());
        CompileOptions small;
        small.machine.vmemBytes = vmem;
        QCOMPARE(worstUlp(text.toStdString(), &failure, small, &tight), whole);
        QVERIFY2(tight > roomy,
                 (std::to_string(roomy) + " DMAs whole, " + std::to_string(tight) + " in slabs").c_str());
    }

    // A reduce_window whose windows, one row per output, do not fit VMEM runs in slabs of outputs, each
    // gathered into the same rows (back to the identity first when the window reads padding) and combined
    // into its part of the result.
    void reduceWindowsRunInSlabsOfOutputs_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("vmem");
        // 3,200 outputs of 512-byte rows: 3.3 MB against 256 KiB, slabs of rows of one image.
        QTest::newRow("max pool 3x3, stride 2, padded")
            << windowModule(
                   "stablehlo.maximum", "0xFF800000", {2, 40, 40, 4},
                   "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, "
                   "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>",
                   {2, 20, 20, 4})
            << qint64(256 << 10);
        QTest::newRow("sum pool 2x2 with window dilation, unpadded")
            << windowModule(
                   "stablehlo.add", "0.0", {1, 50, 60, 4},
                   "window_dimensions = array<i64: 1, 2, 2, 1>, window_dilations = array<i64: 1, 2, 3, 1>",
                   {1, 48, 57, 4})
            << qint64(192 << 10);
        QTest::newRow("min with base dilation and padding, slabs inside a row")
            << windowModule("stablehlo.minimum", "0x7F800000", {3, 30, 200},
                            "window_dimensions = array<i64: 1, 2, 3>, base_dilations = array<i64: 1, 2, 1>, "
                            "padding = dense<[[0, 0], [1, 0], [1, 1]]> : tensor<3x2xi64>",
                            {3, 59, 200})
            << qint64(128 << 10);
    }
    void reduceWindowsRunInSlabsOfOutputs()
    {
        QFETCH(QString, text);
        QFETCH(qint64, vmem);
        std::string failure;
        std::size_t roomy = 0, tight = 0;
        QVERIFY2(worstUlp(text.toStdString(), &failure, {}, &roomy) == 0, failure.c_str());
        CompileOptions small;
        small.machine.vmemBytes = vmem;
        QVERIFY2(worstUlp(text.toStdString(), &failure, small, &tight) == 0, failure.c_str());
        QVERIFY2(tight > roomy,
                 (std::to_string(roomy) + " DMAs whole, " + std::to_string(tight) + " in slabs").c_str());
    }

    // A reduce whose rows (one per result, its reduced elements along the lanes) do not fit VMEM runs in
    // slabs of rows; the sums of 1/64 steps are exact, so the replay equals the interpreter.
    void reductionsRunInSlabsOfRows_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("vmem");
        const auto reduce = [](const std::vector<std::int64_t>& a, const char* reducer,
                               const std::string& dims, const std::vector<std::int64_t>& out) {
            const std::string init = std::string(reducer) == "add" ? "0.000000e+00" : "-1.000000e+03";
            return QString::fromStdString(
                moduleText(a, {},
                           "  %z = stablehlo.constant dense<" + init +
                               "> : tensor<f32>\n  %r = stablehlo.reduce(%a init: %z) "
                               "applies stablehlo." +
                               reducer + " across dimensions = " + dims + " : (" + type(a) +
                               ", tensor<f32>) -> " + type(out) + "\n",
                           type(out)));
        };
        QTest::newRow("sum of rows, 64 KiB") << reduce({300, 200}, "add", "[1]", {300}) << qint64(64 << 10);
        QTest::newRow("sum of rows, one row a slab")
            << reduce({30, 200}, "add", "[1]", {30}) << qint64(16 << 10);
        // 50 slabs of 8 rows: more slabs than sync flags, so every slab's results leave on one stream.
        QTest::newRow("sum of rows, more slabs than flags")
            << reduce({400, 200}, "add", "[1]", {400}) << qint64(16 << 10);
        QTest::newRow("max over the last of three, slabs of the middle")
            << reduce({3, 40, 200}, "maximum", "[2]", {3, 40}) << qint64(48 << 10);
        QTest::newRow("sum over the first dimension (strided lanes)")
            << reduce({200, 90}, "add", "[0]", {90}) << qint64(32 << 10);
        // Rows longer than VMEM holds (in 64 KiB, 896 lanes): two passes, partial results in HBM. A sum of
        // everything (the leading reduced dimension becomes rows of the first pass, the last is cut into 4
        // runs of 750).
        QTest::newRow("sum of everything, two passes")
            << reduce({50, 3000}, "add", "[0, 1]", {}) << qint64(64 << 10);
        QTest::newRow("max of long rows, each cut into 16 runs of 625")
            << reduce({6, 10000}, "maximum", "[1]", {6}) << qint64(64 << 10);
        QTest::newRow("max over a long first dimension (strided lanes), two passes")
            << reduce({5000, 3}, "maximum", "[0]", {3}) << qint64(64 << 10);
        QTest::newRow("sum over two of three dimensions, two passes")
            << reduce({40, 3, 1200}, "add", "[0, 2]", {3}) << qint64(64 << 10);
    }
    void reductionsRunInSlabsOfRows()
    {
        QFETCH(QString, text);
        QFETCH(qint64, vmem);
        std::string failure;
        CompileOptions small;
        small.machine.vmemBytes = vmem;
        QVERIFY2(worstUlp(text.toStdString(), &failure, {}) == 0, failure.c_str());
        QVERIFY2(worstUlp(text.toStdString(), &failure, small) == 0, failure.c_str());
    }

    // A row too long for VMEM along one dimension whose size has no divisor that fits: a located refusal
    // that says why, not a crash or a silent truncation.
    void aReductionThatCannotBeCutSaysWhy()
    {
        const std::string text =
            moduleText({7919}, {},
                       "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                       "  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across "
                       "dimensions = [0] : (tensor<7919xf32>, tensor<f32>) -> tensor<f32>\n",
                       "tensor<f32>");
        std::string failure;
        QCOMPARE(worstUlp(text, &failure), std::uint64_t(0));
        CompileOptions small;
        small.machine.vmemBytes = 64 << 10;
        QCOMPARE(worstUlp(text, &failure, small), UINT64_MAX);
        QVERIFY2(failure.find("case.mlir:5:8: stablehlo.reduce: a reduction of 7919 elements along one "
                              "dimension whose size has no divisor that fits VMEM") != std::string::npos,
                 failure.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStableHloTiles)
#include "tst_stablehlo_tiles.moc"

// Programs longer than instruction memory: kernels written as counted loops (the lowering's second attempt
// when the unrolled program does not fit; dot_general's row tiles are tst_stablehlo_dot_loops). Each
// looped kernel is compiled with loops forced on and replayed against the reference interpreter, and a
// model whose unrolled code outgrows instruction memory compiles with loops when needed.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

class TestStableHloLoops : public QObject
{
    Q_OBJECT
private slots:
    // Element-wise kernels: the steady-state tiles in a loop of four tiles an iteration; the first and the
    // last tiles (and a partial one) unrolled around it.
    void elementwiseTilesLoop_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("loops");
        const auto binary = [](const std::vector<std::int64_t>& shape, const char* op) {
            return QString::fromStdString(moduleText(
                shape, shape, std::string("  %r = stablehlo.") + op + " %a, %b : " + type(shape) + "\n",
                type(shape)));
        };
        // With 1 MiB of VMEM, tiles of 5 registers (20 KiB). 640 KiB: 32 tiles, 6 iterations of 4 in the
        // loop.
        QTest::newRow("add, 32 tiles") << binary({160, 1024}, "add") << 1;
        // A partial last tile after the loop.
        QTest::newRow("maximum, 41 tiles and a part") << binary({107, 2000}, "maximum") << 1;
        QTest::newRow("too few tiles for a loop") << binary({96, 512}, "multiply") << 0;
    }
    void elementwiseTilesLoop()
    {
        QFETCH(QString, text);
        QFETCH(int, loops);
        std::string failure;
        auto options = looped();
        options.machine.vmemBytes = 1 << 20;
        auto unrolledOptions = options;
        unrolledOptions.loops = CompileOptions::Loops::Never;
        QVERIFY2(worstUlp(text.toStdString(), &failure, options) == 0, failure.c_str());
        const auto [unrolled, none] = programShape(text.toStdString(), unrolledOptions);
        const auto [bundles, branches] = programShape(text.toStdString(), options);
        QCOMPARE(none, std::size_t(0));
        QCOMPARE(branches, std::size_t(loops));
        if (loops > 0)
            QVERIFY2(bundles < unrolled / 2,
                     (std::to_string(bundles) + " bundles looped, " + std::to_string(unrolled) + " unrolled")
                         .c_str());
    }

    // The rows of M are a loop over tiles when the op does not fit VMEM, batches are a loop, and so are
    // groups of N blocks when the weights do not fit: four times as many of any is no longer, and exact. And
    // the matmuls of a large model (4096 x 4096 x 4096, or 8192 x 1024 x 8192) fit instruction memory on the
    // default machine, where unrolled tiles did not.
    void aMatmulsCodeDoesNotGrowWithItsRowsBatchesOrColumns()
    {
        auto options = looped();
        options.machine.vmemBytes = 512 << 10;
        const auto tall = [](std::int64_t m) {
            return dotModule({m, 256}, {256, 128}, "contracting_dims = [1] x [0]", {m, 128}).toStdString();
        };
        std::string failure;
        QVERIFY2(worstUlp(tall(4000), &failure, options) == 0, failure.c_str());
        const auto [shorter, loops] = programShape(tall(1000), options);
        const auto [taller, loops4] = programShape(tall(4000), options);
        QVERIFY2(
            loops > 0 && loops4 == loops && taller <= shorter + 64,
            (std::to_string(shorter) + " bundles for 1,000 rows, " + std::to_string(taller) + " for 4,000")
                .c_str());
        // Four times the batches, or (when the weights do not fit with all of M) four times N: no longer.
        const auto batched = [](std::int64_t b) {
            return dotModule({b, 64, 96}, {b, 96, 80},
                             "batching_dims = [0] x [0], contracting_dims = [2] x [1]", {b, 64, 80})
                .toStdString();
        };
        const auto wide = [](std::int64_t n) {
            return dotModule({64, 256}, {256, n}, "contracting_dims = [1] x [0]", {64, n}).toStdString();
        };
        QVERIFY2(worstUlp(batched(16), &failure, looped()) == 0, failure.c_str());
        QVERIFY2(worstUlp(wide(4000), &failure, options) == 0, failure.c_str());
        for (const auto& [few, many, machine] :
             {std::tuple{batched(4), batched(16), looped()}, std::tuple{wide(1000), wide(4000), options}}) {
            const auto [fewBundles, fewLoops] = programShape(few, machine);
            const auto [manyBundles, manyLoops] = programShape(many, machine);
            QVERIFY2(fewLoops > 0 && manyLoops == fewLoops && manyBundles <= fewBundles + 64,
                     (std::to_string(fewBundles) + " bundles, " + std::to_string(manyBundles) + " for 4x")
                         .c_str());
        }
        // And a language model's vocabulary projection (2048 x 2048 x 32768) and a wide 4096 x 8192 x 16384,
        // whose tiles of rows loop inside a loop over groups of N blocks (before: "longer than instruction
        // memory").
        for (const auto& [m, k, n] : {std::tuple{4096, 4096, 4096},
                                      {8192, 1024, 8192},
                                      {1024, 8192, 1024},
                                      {2048, 2048, 32768},
                                      {4096, 8192, 16384}}) {
            const std::string text =
                "module @m {\n  func.func public @main(%a: tensor<" + std::to_string(m) + "x" +
                std::to_string(k) + "xbf16>, %b: tensor<" + std::to_string(k) + "x" + std::to_string(n) +
                "xbf16>) -> tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                "xbf16> {\n    %0 = stablehlo.dot_general %a, %b, "
                "contracting_dims = [1] x [0] : (tensor<" +
                std::to_string(m) + "x" + std::to_string(k) + "xbf16>, tensor<" + std::to_string(k) + "x" +
                std::to_string(n) + "xbf16>) -> tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                "xbf16>\n    return %0 : tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                "xbf16>\n  }\n}\n";
            auto module = parseModule(text, "large.mlir");
            QVERIFY(module.ok());
            auto compiled = compileModule(*module, CompileOptions{});
            QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
            QVERIFY(compiled->trace.chips.front().program.bundles.size() <=
                    static_cast<std::size_t>(CompileOptions{}.machine.imemBundles));
        }
    }

    // Data movements of many descriptors: loops over their largest dimension whose strides are not
    // negative, a DMA per engine an iteration, one loop per index of the other dimensions. Reductions: the
    // combination of the gathered elements in loops.
    void longKernelsLoop_data()
    {
        QTest::addColumn<QString>("text");
        const auto op = [](const std::vector<std::int64_t>& a, const std::string& body,
                           const std::vector<std::int64_t>& out) {
            return QString::fromStdString(moduleText(a, {}, body, type(out)));
        };
        QTest::newRow("transpose") << op(
            {64, 300},
            "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<64x300xf32>) -> "
            "tensor<300x64xf32>\n",
            {300, 64});
        QTest::newRow("transpose of three dimensions")
            << op({6, 40, 50},
                  "  %r = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<6x40x50xf32>) -> "
                  "tensor<50x6x40xf32>\n",
                  {50, 6, 40});
        QTest::newRow("broadcast of a column (source stride 0)") << op(
            {200},
            "  %r = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<200xf32>) -> tensor<200x77xf32>\n",
            {200, 77});
        // Reductions: the combination of the gathered elements, a register of results (or a group of 8 rows)
        // an iteration, for each of the three layouts.

        const auto reduce = [](const std::vector<std::int64_t>& a, const char* reducer, const char* init,
                               const std::string& dims, const std::vector<std::int64_t>& out) {
            return QString::fromStdString(
                moduleText(a, {},
                           std::string("  %z = stablehlo.constant dense<") + init +
                               "> : tensor<f32>\n  %r = stablehlo.reduce(%a init: %z) applies stablehlo." +
                               reducer + " across dimensions = " + dims + " : (" + type(a) +
                               ", tensor<f32>) -> " + type(out) + "\n",
                           type(out), "f32", std::string(reducer) == "multiply"));
        };
        // 9,000 outputs of 3 elements: the register-block layout, 9 registers of results.
        QTest::newRow("columns: sums of 3") << reduce({9000, 3}, "add", "0.0", "[1]", {9000});
        // Any other reducer goes through the region's code, the same layout.
        QTest::newRow("columns: products of 2 (a region)")
            << reduce({9000, 2}, "multiply", "1.0", "[1]", {9000});
        // Rows of 5,000 lanes: the row layout, 100 rows in 13 groups of 8.
        QTest::newRow("rows: maxima of 5,000") << reduce({100, 5000}, "maximum", "-1000.0", "[1]", {100});
    }
    void longKernelsLoop()
    {
        QFETCH(QString, text);
        std::string failure;
        QVERIFY2(worstUlp(text.toStdString(), &failure, looped()) == 0, failure.c_str());
        auto never = looped();
        never.loops = CompileOptions::Loops::Never;
        const auto [unrolled, none] = programShape(text.toStdString(), never);
        const auto [bundles, branches] = programShape(text.toStdString(), looped());
        QVERIFY2(
            branches >= 1 && bundles < unrolled,
            (std::to_string(bundles) + " bundles looped, " + std::to_string(unrolled) + " unrolled").c_str());
    }

    // Padded convolutions (im2col: the patch matrix zeroed by a fill loop, the MXU rows in loops) and the
    // ReLU between them, as a ResNet block has them, all written with loops.
    void aConvolutionBlockWithLoops()
    {
        const std::string conv = "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = "
                                 "[1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
                                 "feature_group_count = 1 : i64}";
        const std::string text =
            moduleText({2, 24, 24, 16}, {3, 3, 16, 16},
                       "  %c = stablehlo.convolution(%a, %b) " + conv + " : (" + type({2, 24, 24, 16}) +
                           ", " + type({3, 3, 16, 16}) + ") -> " + type({2, 24, 24, 16}) +
                           "\n  %z = stablehlo.constant dense<0.0> : " + type({2, 24, 24, 16}) +
                           "\n  %r = stablehlo.maximum %c, %z : " + type({2, 24, 24, 16}) + "\n",
                       type({2, 24, 24, 16}));
        std::string failure;
        const auto unrolled = worstUlp(text, &failure);
        QVERIFY2(unrolled <= 2, failure.c_str());
        QCOMPARE(worstUlp(text, &failure, looped()), unrolled);
        const auto [bundles, branches] = programShape(text, looped());
        QVERIFY2(branches >= 3, std::to_string(branches).c_str());
    }

    // The bundled transformer block with every long kernel looped still matches the interpreter.
    void theTransformerSampleLoopedMatchesTheInterpreter()
    {
        auto modules = parseFile(test::sourceDir() + "/resources/samples/transformer_block.mlir");
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        auto compiled = compileModule(modules->front(), looped());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        std::size_t branches = 0;
        for (const auto& bundle : compiled->trace.chips.front().program.bundles)
            for (const auto& insn : bundle.instructions)
                branches += insn.opcode == isa::Opcode::Brnz ? 1 : 0;
        QVERIFY2(branches >= 4, std::to_string(branches).c_str());
        auto replayed = sim::replayAndCheck(modules->front(), *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        const auto& c = replayed->check.checks.back();
        QCOMPARE(c.check, std::string("reference.results"));
        QVERIFY2(c.passed, c.worst.c_str());
    }

    // A program that does not fit instruction memory unrolled is compiled again with loops (the default);
    // with loops refused, or when even the looped program does not fit, a located error says so.
    void loopsWhenTheUnrolledProgramDoesNotFit()
    {
        const std::string text =
            moduleText({160, 1024}, {160, 1024}, "  %r = stablehlo.add %a, %b : " + type({160, 1024}) + "\n",
                       type({160, 1024}));
        CompileOptions small;
        small.machine.vmemBytes = 1 << 20; // 32 tiles of 20 KiB
        small.machine.imemBundles = 300;
        const auto [bundles, branches] = programShape(text, small);
        QVERIFY2(bundles > 0 && bundles <= 300, std::to_string(bundles).c_str());
        QCOMPARE(branches, std::size_t(1));
        std::string failure;
        QVERIFY2(worstUlp(text, &failure, small) == 0, failure.c_str());

        auto never = small;
        never.loops = CompileOptions::Loops::Never;
        QCOMPARE(worstUlp(text, &failure, never), UINT64_MAX);
        QCOMPARE(failure,
                 std::string("case.mlir:6:8: stablehlo.add: the program is longer than the machine's "
                             "instruction memory (300 bundles)"));
        auto tiny = small;
        tiny.machine.imemBundles = 60;
        QCOMPARE(worstUlp(text, &failure, tiny), UINT64_MAX);
        QVERIFY2(failure.find("even with its long kernels as loops") != std::string::npos, failure.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStableHloLoops)
#include "tst_stablehlo_loops.moc"

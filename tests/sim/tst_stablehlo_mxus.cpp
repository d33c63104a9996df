// Several MXUs (mxu_count): a dot_general spreads its N blocks over them, each MXU with its own weights,
// result FIFO and partial sums, or, with few N blocks, its tiles of rows (each MXU holding the same weights);
// the replay matches the reference interpreter exactly whatever the count, in unrolled and in looped code,
// and more MXUs make a matmul with several N blocks faster. Packed operands (mxu_bf16, mxu_f16): a bf16 or
// f16 matmul's operands stay 2 bytes in VMEM and reach the MXU 16 rows a register, with the same results.
#include "stablehlo_lowering_support.h"

#include "asm/disassembler.h"
// The lowering's ProgramWriter has a member named as Qt's `emit` keyword macro, which this test never uses.
#undef emit
#include "stablehlo/lower_dot_tile.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

struct Lowered
{
    std::uint64_t cycles = 0;
    int highestMxu = -1; // the highest mxu= operand in the code (0: every instruction on MXU 0)
};

// The highest MXU the compiled code names.
int highestMxu(const CompiledModule& compiled)
{
    int highest = -1;
    for (const auto& bundle : compiled.trace.chips.front().program.bundles)
        for (const auto& insn : bundle.instructions)
            highest = std::max(highest, static_cast<int>(isa::mxuIndex(insn)));
    return highest;
}

struct PackedRun
{
    std::vector<TensorValue> results;
    std::uint64_t cycles = 0;
    std::string code;
};

PackedRun compileAndReplay(const std::string& text, const CompileOptions& options)
{
    auto run = compileAndReplayOrFail(text, options);
    return {std::move(run.replayed.results), run.replayed.cycles,
            assembly::disassembleTrace(run.compiled.trace)};
}

} // namespace

class TestStableHloMxus : public QObject
{
    Q_OBJECT
private slots:
    void aMatmulSpreadsItsNBlocksOverTheMxus_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("looped");
        // The highest MXU the code names with 1, 2, 3, 4 and 8 MXUs (a TPU v4 chip's two TensorCores as one
        // device).
        QTest::addColumn<QList<int>>("highest");
        // 5 N blocks: on 4 MXUs a group of 4 and a group of 1; 3 K blocks, so partial sums are carried.
        QTest::newRow("96 x 300 x 640, uneven groups")
            << dotModule({96, 300}, {300, 640}, "contracting_dims = [1] x [0]", {96, 640}) << false
            << QList<int>{0, 1, 2, 3, 4};
        // Attention's scores against keys [N, K] (pushed transposed), batched: 3 N blocks a batch.
        QTest::newRow("4 x 72 x 64 x 300, keys transposed")
            << dotModule({4, 72, 64}, {4, 300, 64}, "batching_dims = [0] x [0], contracting_dims = [2] x [2]",
                         {4, 72, 300})
            << false << QList<int>{0, 1, 2, 2, 2};
        // Loop mode: the K blocks' loop and each block's steady loop of 8 / lanes tiles an iteration; with 4
        // MXUs its 2 N blocks would leave two idle, so the tiles of rows take turns on all four (on 8, each
        // N block's rows on four).
        QTest::newRow("256 x 640 x 256, looped")
            << dotModule({256, 640}, {640, 256}, "contracting_dims = [1] x [0]", {256, 256}) << true
            << QList<int>{0, 1, 1, 3, 7};
        // 4 N blocks on 8 MXUs: 4 lanes, each with its rows taking turns on 2 MXUs.
        QTest::newRow("128 x 256 x 512, lanes and turns")
            << dotModule({128, 256}, {256, 512}, "contracting_dims = [1] x [0]", {128, 512}) << false
            << QList<int>{0, 1, 2, 3, 7};
        QTest::newRow("128 x 256 x 512, lanes and turns, looped")
            << dotModule({128, 256}, {256, 512}, "contracting_dims = [1] x [0]", {128, 512}) << true
            << QList<int>{0, 1, 2, 3, 7};
        // One N block of 1,000 rows, 125 tiles: padded to 1,024 rows (128 tiles), which divide evenly among
        // the MXUs taking turns (125 ran on one MXU however many the machine had).
        QTest::newRow("1000 x 130 x 4, rows padded to take turns")
            << dotModule({1000, 130}, {130, 4}, "contracting_dims = [1] x [0]", {1000, 4}) << false
            << QList<int>{0, 1, 1, 3, 7};
        // One N block: tiles of rows on 2 MXUs (3 round down to a power of two), or 4.
        QTest::newRow("256 x 192 x 128, tiles of rows")
            << dotModule({256, 192}, {192, 128}, "contracting_dims = [1] x [0]", {256, 128}) << false
            << QList<int>{0, 1, 1, 3, 7};
    }
    void aMatmulSpreadsItsNBlocksOverTheMxus()
    {
        QFETCH(QString, text);
        QFETCH(bool, looped);
        QFETCH(QList<int>, highest);
        const auto loops = looped ? CompileOptions::Loops::Always : CompileOptions::Loops::Never;
        std::uint64_t oneMxu = 0;
        const std::int64_t counts[] = {1, 2, 3, 4, 8};
        for (std::size_t i = 0; i < std::size(counts); ++i) {
            const std::int64_t mxus = counts[i];
            const std::string label = std::to_string(mxus) + " MXU(s): ";
            std::string failure;
            CompileOptions options;
            options.machine.mxuCount = mxus;
            options.loops = loops;
            // Exact: the literals' products and their sums are exact in f32, in any order.
            Lowered l;
            QVERIFY2(worstUlp(text.toStdString(), &failure, options, nullptr,
                              [&](const CompiledModule& compiled, std::uint64_t cycles) {
                                  l = {cycles, highestMxu(compiled)};
                              }) == 0,
                     (label + failure).c_str());
            QCOMPARE(l.highestMxu, highest[static_cast<qsizetype>(i)]);
            if (mxus == 1)
                oneMxu = l.cycles;
            else
                QVERIFY2(l.cycles < oneMxu,
                         (label + std::to_string(l.cycles) + " cycles, one MXU " + std::to_string(oneMxu))
                             .c_str());
        }
    }

    // The same bf16 or f16 matmul compiled for a machine whose MXU takes the type and for one whose does
    // not: the results are identical bit for bit (the MXU multiplies the same values, widened exactly, and
    // sums in f32), on 1 and 4 MXUs, unrolled and looped, whole or in tiles that VMEM holds two of; the
    // packed code says fmt= on its pushes and matmuls, and is faster. (MXU latency 28: results come back
    // soon enough that the lhs rows are packed too: lowerDot.)
    void packedOperandsGiveTheWidenedResults_data()
    {
        QTest::addColumn<QString>("element");
        QTest::addColumn<QList<qint64>>("shape"); // M, K, N
        QTest::addColumn<bool>("transposed");     // the rhs is [N, K] (attention's keys)
        QTest::addColumn<bool>("looped");
        QTest::addColumn<qint64>("vmem"); // 0: the default machine's
        QTest::newRow("bf16 96 x 300 x 640")
            << "bf16" << QList<qint64>{96, 300, 640} << false << false << 0ll;
        QTest::newRow("f16 40 x 200 x 300") << "f16" << QList<qint64>{40, 200, 300} << false << false << 0ll;
        QTest::newRow("bf16 72 x 192 x 320, keys")
            << "bf16" << QList<qint64>{72, 192, 320} << true << false << 0ll;
        QTest::newRow("bf16 512 x 640 x 256, looped")
            << "bf16" << QList<qint64>{512, 640, 256} << false << true << 0ll;
        QTest::newRow("bf16 512 x 384 x 512, tiles")
            << "bf16" << QList<qint64>{512, 384, 512} << false << false << 1ll * 1024 * 1024;
        QTest::newRow("bf16 512 x 384 x 512, tiles looped")
            << "bf16" << QList<qint64>{512, 384, 512} << false << true << 1ll * 1024 * 1024;
    }
    void packedOperandsGiveTheWidenedResults()
    {
        QFETCH(QString, element);
        QFETCH(QList<qint64>, shape);
        QFETCH(bool, transposed);
        QFETCH(bool, looped);
        QFETCH(qint64, vmem);
        const std::string e = element.toStdString();
        const std::int64_t M = shape[0], K = shape[1], N = shape[2];
        const std::vector<std::int64_t> b =
            transposed ? std::vector<std::int64_t>{N, K} : std::vector<std::int64_t>{K, N};
        const std::string text =
            moduleText({M, K}, b,
                       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [" +
                           std::string(transposed ? "1" : "0") + "] : (" + type({M, K}, e.c_str()) + ", " +
                           type(b, e.c_str()) + ") -> " + type({M, N}, e.c_str()) + "\n",
                       type({M, N}, e.c_str()), e.c_str());
        for (const std::int64_t mxus : {1, 4, 8}) {
            CompileOptions widened;
            widened.machine.mxuCount = mxus;
            widened.machine.latMxuMatmul = 28;
            if (vmem > 0)
                widened.machine.vmemBytes = vmem;
            widened.loops = looped ? CompileOptions::Loops::Always : CompileOptions::Loops::Never;
            CompileOptions packed = widened;
            packed.machine.mxuBf16 = 1;
            packed.machine.mxuF16 = 1;
            const PackedRun w = compileAndReplay(text, widened), p = compileAndReplay(text, packed);
            const std::string label = std::to_string(mxus) + " MXU(s): ";
            QVERIFY2(w.code.find("fmt=") == std::string::npos, label.c_str());
            const std::string format = e == "bf16" ? ", fmt=2" : ", fmt=1";
            QVERIFY2(p.code.find("mxu.mm v") != std::string::npos && p.code.find(format) != std::string::npos,
                     label.c_str());
            QCOMPARE(p.results.size(), std::size_t(1));
            QVERIFY2(p.results.front().data == w.results.front().data, (label + "results differ").c_str());
            QVERIFY2(p.cycles < w.cycles, (label + std::to_string(p.cycles) + " cycles packed, " +
                                           std::to_string(w.cycles) + " widened")
                                              .c_str());
        }
    }

    // A tall matmul whose weights are small beside its rows runs as tiles of rows: its first tile's results
    // leave for HBM while the MXUs still multiply the later tiles, where the whole op at once wrote every
    // result after its last matmul. The results are the interpreter's, unrolled and looped.
    void aTallMatmulWritesResultsWhileItMultiplies()
    {
        const std::int64_t M = 2048, K = 128, N = 512;
        const std::string text =
            moduleText({M, K}, {K, N},
                       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" +
                           type({M, K}) + ", " + type({K, N}) + ") -> " + type({M, N}) + "\n",
                       type({M, N}));
        for (const bool looped : {false, true}) {
            CompileOptions options;
            options.machine.mxuCount = 8;
            options.loops = looped ? CompileOptions::Loops::Always : CompileOptions::Loops::Never;
            std::string failure;
            QVERIFY2(worstUlp(text, &failure, options) == 0, failure.c_str());
            const std::string code = compileAndReplay(text, options).code;
            const std::size_t firstMatmul = code.find("mxu.mm "), lastMatmul = code.rfind("mxu.mm ");
            QVERIFY(firstMatmul != std::string::npos);
            const std::size_t firstResultOut = code.find("dma.start hbm[", firstMatmul);
            QVERIFY(firstResultOut != std::string::npos);
            QVERIFY2(firstResultOut < lastMatmul, looped ? "looped" : "unrolled");
        }
    }

    // A matmul of many N and K blocks on 8 MXUs whose partial sums through VMEM would keep the vector load
    // slot busier than the MXUs (a step of 16 rows on 8 lanes loads 16 partials, a row register and
    // weights in the 16 cycles the MXUs take): each lane's MXUs take consecutive K blocks, and their
    // products of the same rows are summed in registers before the partial sum in VMEM is read and written
    // once for all of them, so half as many stores as pops. The results are the interpreter's exactly
    // (384 x 1024 x 1024), and the MXUs are kept busy: a 768 x 2048 x 1024 one, replayed for its timing,
    // within 25% of their bound (16 packed rows in 16 cycles on each of 8 MXUs).
    void aKSplitSumsProductsInRegisters()
    {
        const auto module = [](std::int64_t M, std::int64_t K, std::int64_t N) {
            return moduleText({M, K}, {K, N},
                              "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" +
                                  type({M, K}, "bf16") + ", " + type({K, N}, "bf16") + ") -> " +
                                  type({M, N}, "bf16") + "\n",
                              type({M, N}, "bf16"), "bf16");
        };
        CompileOptions options;
        options.machine.mxuCount = 8;
        options.machine.mxuBf16 = 1;
        options.machine.latMxuMatmul = 20;
        options.machine.occMxuWpush = 3;
        options.loops = CompileOptions::Loops::Never;
        const std::string exact = module(384, 1024, 1024);
        std::string failure;
        QVERIFY2(worstUlp(exact, &failure, options) == 0, failure.c_str());
        auto parsed = parseModule(exact, "case.mlir");
        QVERIFY(parsed.ok());
        auto compiled = compileModule(*parsed, options);
        QVERIFY(compiled.ok());
        std::size_t pops = 0, stores = 0;
        for (const auto& bundle : compiled->trace.chips.front().program.bundles)
            for (const auto& insn : bundle.instructions) {
                pops += insn.opcode == isa::Opcode::MxuPop ? 1 : 0;
                stores += insn.opcode == isa::Opcode::VSt || insn.opcode == isa::Opcode::VStS ? 1 : 0;
            }
        QVERIFY2(pops > 0 && 2 * stores <= pops + 64,
                 (std::to_string(pops) + " pops, " + std::to_string(stores) + " stores").c_str());

        const std::int64_t M = 768, K = 2048, N = 1024;
        auto large = parseModule(module(M, K, N), "case.mlir");
        QVERIFY(large.ok());
        auto timed = compileModule(*large, options);
        QVERIFY(timed.ok());
        events::EventStore store;
        const sim::ReplayResult r = sim::replay(timed->trace, {sim::ReplayMode::TimingOnly}, store);
        QCOMPARE(r.status, sim::ReplayResult::Status::Completed);
        const std::uint64_t bound = M * K * N / (8 * 128 * 128);
        QVERIFY2(r.totalCycles * 4 <= bound * 5,
                 (std::to_string(r.totalCycles) + " cycles, MXU bound " + std::to_string(bound)).c_str());
    }

    // Only K's padding is zeroed before a matmul: its padding rows of M and columns of N read whatever
    // VMEM held, here the infinities and NaNs of the kernel before it, and the results are still the
    // interpreter's exactly (those rows and columns are never written back).
    void paddingOfMAndNReadsWhateverVmemHeld()
    {
        const std::int64_t M = 37, K = 200, N = 72;
        const std::string text =
            "func.func public @main() -> (" + type({M, N}) + ", " + type({M, K}) + ") {\n" +
            "  %fa = stablehlo.constant " + literal({M, K}, 1, false, false) + " : " + type({M * K}) + "\n" +
            "  %a = stablehlo.reshape %fa : (" + type({M * K}) + ") -> " + type({M, K}) + "\n" +
            "  %fb = stablehlo.constant " + literal({K, N}, 2, false, false) + " : " + type({K * N}) + "\n" +
            "  %b = stablehlo.reshape %fb : (" + type({K * N}) + ") -> " + type({K, N}) + "\n" +
            "  %z = stablehlo.subtract %a, %a : " + type({M, K}) + "\n" +
            "  %q = stablehlo.divide %a, %z : " + type({M, K}) + "\n" +
            "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + type({M, K}) + ", " +
            type({K, N}) + ") -> " + type({M, N}) + "\n" + "  return %r, %q : " + type({M, N}) + ", " +
            type({M, K}) + "\n}\n";
        for (const std::int64_t mxus : {1, 8}) {
            CompileOptions options;
            options.machine.mxuCount = mxus;
            std::string failure;
            QVERIFY2(worstUlp(text, &failure, options) == 0,
                     (std::to_string(mxus) + " MXU(s): " + failure).c_str());
        }
    }

    // A whole matmul's operands come on streams whose shares grow to the middle one and fall after it:
    // the first holds the first K group's moves, the last about as few, every stream at least one move,
    // in order; with as many streams as moves, one each.
    void streamsStartSmallAndEndSmall()
    {
        using lower::dot::streamStarts;
        const auto starts = streamStarts(160, 16, 2);
        QCOMPARE(starts.size(), std::size_t(17));
        QCOMPARE(starts.front(), std::int64_t(0));
        QCOMPARE(starts.back(), std::int64_t(160));
        std::vector<std::int64_t> shares;
        for (std::size_t s = 1; s < starts.size(); ++s)
            shares.push_back(starts[s] - starts[s - 1]);
        QVERIFY(std::all_of(shares.begin(), shares.end(), [](std::int64_t n) { return n >= 1; }));
        QVERIFY2(shares.front() <= 3 && shares.back() <= 3,
                 (std::to_string(shares.front()) + " and " + std::to_string(shares.back())).c_str());
        QVERIFY(shares[7] >= 4 * shares.front());
        QCOMPARE(streamStarts(5, 5, 1), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(streamStarts(7, 1, 1), (std::vector<std::int64_t>{0, 7}));
        // A first share as large as an even split: equal shares.
        QCOMPARE(streamStarts(16, 4, 4), (std::vector<std::int64_t>{0, 4, 8, 12, 16}));
    }

    // Code for one MXU names none (mxu= is left out): what a one-MXU machine ran before is unchanged.
    void oneMxusCodeNamesNone()
    {
        auto module = parseModule(
            dotModule({64, 128}, {128, 384}, "contracting_dims = [1] x [0]", {64, 384}).toStdString(),
            "case.mlir");
        QVERIFY(module.ok());
        auto compiled = compileModule(*module, {});
        QVERIFY(compiled.ok());
        const std::string text = assembly::disassembleTrace(compiled->trace);
        QVERIFY(text.find("mxu.mm") != std::string::npos);
        QVERIFY(text.find("mxu=") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestStableHloMxus)
#include "tst_stablehlo_mxus.moc"

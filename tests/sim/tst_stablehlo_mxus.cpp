// Several MXUs (mxu_count): a dot_general spreads its N blocks over them, each MXU with its own weights,
// result FIFO and partial sums, or, with few N blocks, its tiles of rows (each MXU holding the same weights);
// the replay matches the reference interpreter exactly whatever the count, in unrolled and in looped code,
// and more MXUs make a matmul with several N blocks faster.
#include "stablehlo_lowering_support.h"

#include "asm/disassembler.h"

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

} // namespace

class TestStableHloMxus : public QObject
{
    Q_OBJECT
private slots:
    void aMatmulSpreadsItsNBlocksOverTheMxus_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("looped");
        // The highest MXU the code names with 1, 2, 3 and 4 MXUs.
        QTest::addColumn<QList<int>>("highest");
        // 5 N blocks: on 4 MXUs a group of 4 and a group of 1; 3 K blocks, so partial sums are carried.
        QTest::newRow("96 x 300 x 640, uneven groups")
            << dotModule({96, 300}, {300, 640}, "contracting_dims = [1] x [0]", {96, 640}) << false
            << QList<int>{0, 1, 2, 3};
        // Attention's scores against keys [N, K] (pushed transposed), batched: 3 N blocks a batch.
        QTest::newRow("4 x 72 x 64 x 300, keys transposed")
            << dotModule({4, 72, 64}, {4, 300, 64}, "batching_dims = [0] x [0], contracting_dims = [2] x [2]",
                         {4, 72, 300})
            << false << QList<int>{0, 1, 2, 2};
        // Loop mode: the K blocks' loop and each block's steady loop of 8 / lanes tiles an iteration; with 4
        // MXUs its 2 N blocks would leave two idle, so the tiles of rows take turns on all four.
        QTest::newRow("256 x 640 x 256, looped")
            << dotModule({256, 640}, {640, 256}, "contracting_dims = [1] x [0]", {256, 256}) << true
            << QList<int>{0, 1, 1, 3};
        // One N block: tiles of rows on 2 MXUs (3 round down to a power of two), or 4.
        QTest::newRow("256 x 192 x 128, tiles of rows")
            << dotModule({256, 192}, {192, 128}, "contracting_dims = [1] x [0]", {256, 128}) << false
            << QList<int>{0, 1, 1, 3};
    }
    void aMatmulSpreadsItsNBlocksOverTheMxus()
    {
        QFETCH(QString, text);
        QFETCH(bool, looped);
        QFETCH(QList<int>, highest);
        const auto loops = looped ? CompileOptions::Loops::Always : CompileOptions::Loops::Never;
        std::uint64_t oneMxu = 0;
        for (const std::int64_t mxus : {1, 2, 3, 4}) {
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
            QCOMPARE(l.highestMxu, highest[static_cast<int>(mxus - 1)]);
            if (mxus == 1)
                oneMxu = l.cycles;
            else
                QVERIFY2(l.cycles < oneMxu,
                         (label + std::to_string(l.cycles) + " cycles, one MXU " + std::to_string(oneMxu))
                             .c_str());
        }
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

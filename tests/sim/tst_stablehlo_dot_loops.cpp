// dot_general's row tiles as counted loops (the lowering's second attempt when the unrolled program does not
// fit), each case compiled with loops forced on and replayed against the reference interpreter. Apart from
// tst_stablehlo_loops so that the sanitizer stage, two suites at a time, does not wait on one long suite
// (129 s under ASan together on the 2-vCPU VM).
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

class TestStableHloDotLoops : public QObject
{
    Q_OBJECT
private slots:
    // dot_general: each block's tiles of 8 rows from the 16th on run in a loop of 8 an iteration; the
    // first 16 (which stage the next block's weights) and the rest unrolled. Sums of 1/64 steps are exact.
    void dotRowTilesLoop_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("vmem");
        QTest::addColumn<int>("loops");
        // 400 rows: 50 tiles, 3 iterations in each of the 3 K blocks (16 tiles before, at least 8 after).
        QTest::newRow("K in 3 blocks, 400 rows")
            << dotModule({400, 300}, {300, 100}, "contracting_dims = [1] x [0]", {400, 100}) << qint64(0)
            << 3;
        // K in 8 blocks: the middle five (the third to the seventh) are a loop around the tiles' loop.
        QTest::newRow("K in 8 blocks, the middle ones looped")
            << dotModule({400, 1024}, {1024, 64}, "contracting_dims = [1] x [0]", {400, 64}) << qint64(0)
            << 4;
        // 16 tiles of rows, too few for the rows' loop: the middle K blocks are a loop all the same, in runs
        // of the blocks some input streams bring (three runs of 12 blocks' streams).
        QTest::newRow("K in 12 blocks of 16 tiles, the middle ones looped")
            << dotModule({128, 1536}, {1536, 64}, "contracting_dims = [1] x [0]", {128, 64}) << qint64(0)
            << 3;
        // Two batches and two N blocks: a loop over the batches around one batch's code, with a rows' loop
        // in each of its N blocks.
        QTest::newRow("batched, two N blocks")
            << dotModule({2, 400, 64}, {2, 64, 200},
                         "batching_dims = [0] x [0], contracting_dims = [2] x [1]", {2, 400, 200})
            << qint64(0) << 3;
        // Tiled for a small VMEM too: the full row tiles of M are a loop around one tile's code (32 tiles of
        // rows: too few for a rows' loop inside), the last partial tile after it.
        QTest::newRow("tiled rows of M in 512 KiB")
            << dotModule({1000, 256}, {256, 128}, "contracting_dims = [1] x [0]", {1000, 128})
            << qint64(512 << 10) << 1;
        // Tiles of rows and of N blocks, K in 8 blocks: the tiles' loop, the K blocks' loop inside it and the
        // rows' loop inside that, three deep.
        QTest::newRow("tiles of rows and N blocks, K blocks looped inside")
            << dotModule({640, 1024}, {1024, 256}, "contracting_dims = [1] x [0]", {640, 256})
            << qint64(3 << 20) << 3;
        // Many batches: a loop over one batch's code, the DMAs moving through the three operands; two
        // batches an iteration, each loading while the other multiplies, one or two batches after it.
        QTest::newRow("batches as a loop, an even count")
            << dotModule({6, 64, 96}, {6, 96, 80}, "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
                         {6, 64, 80})
            << qint64(0) << 1;
        QTest::newRow("batches as a loop, an odd count")
            << dotModule({7, 64, 96}, {7, 96, 80}, "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
                         {7, 64, 80})
            << qint64(0) << 1;
        QTest::newRow("two batch dimensions that nest, as one loop")
            << dotModule({2, 3, 64, 96}, {2, 3, 96, 80},
                         "batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2]", {2, 3, 64, 80})
            << qint64(0) << 1;
        // Batch dimensions apart in the lhs (batch b is not b times a stride): unrolled, still exact.
        QTest::newRow("batch dimensions that do not nest, unrolled")
            << dotModule({2, 64, 3, 96}, {2, 3, 96, 80},
                         "batching_dims = [0, 2] x [0, 1], contracting_dims = [3] x [2]", {2, 3, 64, 80})
            << qint64(0) << 0;
        // Tiles of rows and more groups of N blocks than tiles: the groups are the loop, a group's tiles of
        // rows its body (their 5 K blocks, each its own stream's, too few for a K blocks' loop).
        QTest::newRow("groups of N blocks as a loop around tiles of rows")
            << dotModule({128, 640}, {640, 1024}, "contracting_dims = [1] x [0]", {128, 1024})
            << qint64(512 << 10) << 1;
        // Weights too large for VMEM with all of M: the groups of N blocks are a loop (the last narrower).
        QTest::newRow("groups of N blocks as a loop")
            << dotModule({64, 256}, {256, 1000}, "contracting_dims = [1] x [0]", {64, 1000})
            << qint64(512 << 10) << 1;
    }
    void dotRowTilesLoop()
    {
        QFETCH(QString, text);
        QFETCH(qint64, vmem);
        QFETCH(int, loops);
        auto options = looped();
        if (vmem > 0)
            options.machine.vmemBytes = vmem;
        std::string failure;
        QVERIFY2(worstUlp(text.toStdString(), &failure, options) == 0, failure.c_str());
        const auto [bundles, branches] = programShape(text.toStdString(), options);
        QVERIFY2(branches >= static_cast<std::size_t>(loops), std::to_string(branches).c_str());
    }
};

QTEST_GUILESS_MAIN(TestStableHloDotLoops)
#include "tst_stablehlo_dot_loops.moc"

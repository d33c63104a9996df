// The GRM's functional model: results of vector, cross-lane and matrix ops against independent reference
// computations, the sample kernel's output, and every fault class stopping with pc, cycle and text.
#include "sim/sim_support.h"

#include "trace/trace_io.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cmath>

using namespace xps;

namespace {

trace::Generator randomF32(std::uint64_t seed)
{
    trace::Generator g;
    g.kind = trace::Generator::Kind::RandomF32;
    g.seed = seed;
    g.a = -1.0;
    g.b = 1.0;
    return g;
}

} // namespace

class TestGrmFunctional : public QObject
{
    Q_OBJECT
private slots:
    void vectorAddSampleComputesTheSum()
    {
        auto t = trace::loadTrace(test::sourceDir() + "/resources/samples/vector_add.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        sim::ReplayResult r = sim::replay(*t, {}, store);
        QVERIFY2(!r.fault, r.fault ? r.fault->toString().c_str() : "");
        QCOMPARE(r.status, sim::ReplayResult::Status::Completed);
        constexpr std::size_t n = 16 * 1024;
        const auto a = test::generated(randomF32(1), n);
        const auto b = test::generated(randomF32(2), n);
        const auto c = test::readFloats(r.finalState[0], isa::Space::Hbm, 0x200000, n);
        for (std::size_t i = 0; i < n; ++i)
            QCOMPARE(c[i], a[i] + b[i]);
    }

    void vmemTrafficIsRecorded()
    {
        auto t = trace::loadTrace(test::sourceDir() + "/resources/samples/vector_add.xasm");
        QVERIFY(t.ok());
        events::EventStore store;
        const sim::ReplayResult r = sim::replay(*t, {}, store);
        QVERIFY(!r.fault);
        // 16 tiles: 2 vld + 1 vst each; DMAs write 2 x 4 KiB into VMEM and read 4 KiB back out per tile.
        std::size_t loads = 0, stores = 0;
        std::uint64_t dmaWritten = 0, dmaRead = 0;
        const events::VmemSnapshot accesses = store.vmemAccesses();
        for (std::size_t i = 0; i < accesses.size(); ++i) {
            const events::VmemAccess a = accesses[i];
            if (!a.byDma())
                (a.isWrite() ? stores : loads)++;
            else
                (a.isWrite() ? dmaWritten : dmaRead) += a.bytes;
        }
        QCOMPARE(loads, std::size_t(32));
        QCOMPARE(stores, std::size_t(16));
        QCOMPARE(dmaWritten, std::uint64_t(32 * 4096));
        QCOMPARE(dmaRead, std::uint64_t(16 * 4096));
        const events::VmemHeatmap heat = store.vmemHeatmap(ChipId(0));
        QCOMPARE(heat.totalWritten(), std::uint64_t(48 * 4096));
        QCOMPARE(heat.totalRead(), std::uint64_t(48 * 4096));
        // All traffic is in the first 24 KiB of VMEM: address bin 0 (256 KiB per bin).
        std::uint64_t elsewhere = 0;
        for (int tb = 0; tb < heat.usedTimeBins(); ++tb)
            for (int a = 1; a < events::VmemHeatmap::kAddressBins; ++a)
                elsewhere += heat.readBytes(tb, a) + heat.writeBytes(tb, a);
        QCOMPARE(elsewhere, std::uint64_t(0));
    }

    void allGatherGathersEveryShard_data()
    {
        QTest::addColumn<QByteArray>("variant");
        QTest::addColumn<int>("chips");
        QTest::newRow("naive, 4 chips") << QByteArray("naive") << 4;
        QTest::newRow("tuned, 4 chips") << QByteArray("tuned") << 4;
        QTest::newRow("naive, 3 chips") << QByteArray("naive") << 3;
        QTest::newRow("tuned, 5 chips") << QByteArray("tuned") << 5;
        QTest::newRow("tuned, 2 chips") << QByteArray("tuned") << 2;
    }
    void allGatherGathersEveryShard()
    {
        QFETCH(QByteArray, variant);
        QFETCH(int, chips);
        constexpr std::int64_t shard = 8192;
        auto t = workloads::generate("allgather", variant.toStdString(),
                                     {{"chips", chips}, {"shard_bytes", shard}, {"chunk_bytes", 1024}});
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        events::EventStore store;
        sim::ReplayResult r = sim::replay(*t, {}, store);
        QVERIFY2(!r.fault, r.fault ? r.fault->toString().c_str() : "");
        // The reference: the concatenation of every chip's shard, as each chip's generator defines it.
        std::vector<float> expected;
        for (int c = 0; c < chips; ++c) {
            trace::Generator g = randomF32(static_cast<std::uint64_t>(1000 + c));
            const auto part = test::generated(g, shard / 4);
            expected.insert(expected.end(), part.begin(), part.end());
        }
        for (int c = 0; c < chips; ++c) {
            const auto got = test::readFloats(r.finalState[static_cast<std::size_t>(c)], isa::Space::Hbm, 0,
                                              expected.size());
            QVERIFY2(got == expected, qPrintable(QStringLiteral("chip %1").arg(c)));
        }
    }

    void matmulEqualsAReferenceGemm_data()
    {
        QTest::addColumn<QByteArray>("variant");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("n");
        QTest::newRow("tuned 128x256x384") << QByteArray("tuned") << 128 << 256 << 384;
        QTest::newRow("naive 160x128x256") << QByteArray("naive") << 160 << 128 << 256;
        QTest::newRow("tuned 128x128x128") << QByteArray("tuned") << 128 << 128 << 128;
    }
    void matmulEqualsAReferenceGemm()
    {
        // C = A x B from the generated kernel against a straightforward triple loop in double precision.
        QFETCH(QByteArray, variant);
        QFETCH(int, m);
        QFETCH(int, k);
        QFETCH(int, n);
        auto t = workloads::generate("matmul", variant.toStdString(), {{"m", m}, {"k", k}, {"n", n}});
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        events::EventStore store;
        sim::ReplayResult r = sim::replay(*t, {}, store);
        QVERIFY2(!r.fault, r.fault ? r.fault->toString().c_str() : "");
        const auto a = test::generated(randomF32(11), static_cast<std::size_t>(m) * k);
        const auto b = test::generated(randomF32(12), static_cast<std::size_t>(k) * n);
        const std::uint64_t cAddress =
            (static_cast<std::uint64_t>(m) * k + static_cast<std::uint64_t>(k) * n) * 4;
        const auto c =
            test::readFloats(r.finalState[0], isa::Space::Hbm, cAddress, static_cast<std::size_t>(m) * n);
        double worst = 0.0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double ref = 0.0, magnitude = 0.0;
                for (int x = 0; x < k; ++x) {
                    const double p = double(a[std::size_t(i) * k + x]) * double(b[std::size_t(x) * n + j]);
                    ref += p;
                    magnitude += std::abs(p);
                }
                // f32 accumulation over k terms: a few ulps of the sum of magnitudes.
                const double error =
                    std::abs(double(c[std::size_t(i) * n + j]) - ref) / (magnitude * 1e-6 + 1e-30);
                worst = std::max(worst, error);
            }
        QVERIFY2(worst < 1.0, std::to_string(worst).c_str());
    }

    void decodeLayerEqualsAReferenceImplementation_data()
    {
        QTest::addColumn<QByteArray>("variant");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("heads");
        QTest::newRow("naive, batch 2") << QByteArray("naive") << 2 << 256 << 1;
        QTest::newRow("tuned, batch 3, 2 heads") << QByteArray("tuned") << 3 << 128 << 2;
        QTest::newRow("tuned, batch 8") << QByteArray("tuned") << 8 << 128 << 1;
    }
    void decodeLayerEqualsAReferenceImplementation()
    {
        // The layer computed straightforwardly in double precision from the same generated inputs, read
        // through the kernel's documented HBM layouts (core/workloads/decode.cpp).
        QFETCH(QByteArray, variant);
        QFETCH(int, batch);
        QFETCH(int, seq);
        QFETCH(int, heads);
        auto t = workloads::generate("decode", variant.toStdString(),
                                     {{"batch", batch}, {"seq", seq}, {"heads", heads}});
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        events::EventStore store;
        sim::ReplayResult replayed = sim::replay(*t, {}, store);
        QVERIFY2(!replayed.fault, replayed.fault ? replayed.fault->toString().c_str() : "");
        const int d = 128 * heads, tb = seq / 128;
        const auto uniform = [](std::uint64_t seed, std::size_t count, double bound) {
            trace::Generator g = randomF32(seed);
            g.a = -bound;
            g.b = bound;
            return test::generated(g, count);
        };
        using Matrix = std::vector<std::vector<double>>;
        const auto matrix = [](int rows, int cols) {
            return Matrix(std::size_t(rows), std::vector<double>(std::size_t(cols), 0.0));
        };
        // Tiles: element (r, c) of an 8-row activation is tile c / 128, offset r x 128 + c % 128.
        const auto fromTiles = [&](const std::vector<float>& v, int cols) {
            Matrix m = matrix(8, cols);
            for (int r = 0; r < 8; ++r)
                for (int c = 0; c < cols; ++c)
                    m[r][c] = v[std::size_t(c / 128) * 1024 + std::size_t(r) * 128 + std::size_t(c % 128)];
            return m;
        };
        // Weights W[K, N] as 128 x 128 blocks (n, k), k innermost, each row-major.
        std::uint64_t seed = 22;
        const auto weights = [&](int rows, int cols) {
            const auto v = uniform(seed++, std::size_t(rows) * cols, 0.0625);
            Matrix w = matrix(rows, cols);
            const int kb = rows / 128;
            for (int k = 0; k < rows; ++k)
                for (int n = 0; n < cols; ++n)
                    w[k][n] = v[(std::size_t(n / 128) * kb + std::size_t(k / 128)) * 16384 +
                                std::size_t(k % 128) * 128 + std::size_t(n % 128)];
            return w;
        };
        const auto multiply = [&](const Matrix& a, const Matrix& w) {
            Matrix y = matrix(8, int(w[0].size()));
            for (int r = 0; r < 8; ++r)
                for (std::size_t k = 0; k < w.size(); ++k)
                    for (std::size_t n = 0; n < w[0].size(); ++n)
                        y[r][n] += a[r][k] * w[k][n];
            return y;
        };
        const Matrix x = fromTiles(uniform(21, std::size_t(d) * 8, 1.0), d);
        const Matrix wqkv = weights(d, 3 * d);
        const Matrix qkv = multiply(x, wqkv);
        Matrix attn = matrix(8, d);
        std::vector<std::vector<float>> caches;
        for (int b = 0; b < batch; ++b)
            for (int h = 0; h < heads; ++h) {
                caches.push_back(uniform(seed++, std::size_t(tb) * 16384, 1.0)); // K^T blocks
                caches.push_back(uniform(seed++, std::size_t(tb) * 16384, 1.0)); // V rows
            }
        for (int b = 0; b < batch; ++b)
            for (int h = 0; h < heads; ++h) {
                const auto& kt = caches[std::size_t(2 * (b * heads + h))];
                const auto& v = caches[std::size_t(2 * (b * heads + h) + 1)];
                std::vector<double> score(static_cast<std::size_t>(seq));
                for (int s = 0; s < seq; ++s) {
                    for (int i = 0; i < 128; ++i)
                        score[s] +=
                            qkv[b][h * 128 + i] *
                            kt[std::size_t(s / 128) * 16384 + std::size_t(i) * 128 + std::size_t(s % 128)];
                    score[s] *= 0.08838834764831845;
                }
                const double top = *std::max_element(score.begin(), score.end());
                double sum = 0.0;
                for (double& e : score)
                    sum += (e = std::exp(e - top));
                for (int s = 0; s < seq; ++s)
                    for (int i = 0; i < 128; ++i)
                        attn[b][h * 128 + i] += score[s] / sum * v[std::size_t(s) * 128 + std::size_t(i)];
            }
        const Matrix wo = weights(d, d), wup = weights(d, 4 * d), wdown = weights(4 * d, d);
        Matrix h1 = multiply(attn, wo);
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < d; ++c)
                h1[r][c] += x[r][c];
        Matrix up = multiply(h1, wup);
        for (auto& row : up)
            for (double& e : row)
                e = std::max(e, 0.0);
        Matrix out = multiply(up, wdown);
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < d; ++c)
                out[r][c] += h1[r][c];

        const auto buffer = [&](const char* name) {
            for (const trace::Buffer& b : t->chips[0].symbols.buffers)
                if (b.name == name)
                    return b;
            qFatal("no buffer %s", name);
        };
        const trace::Buffer outBuffer = buffer("out"), kvBuffer = buffer("kv_new");
        const Matrix got = fromTiles(
            test::readFloats(replayed.finalState[0], isa::Space::Hbm, outBuffer.address, std::size_t(d) * 8),
            d);
        const Matrix kv = fromTiles(
            test::readFloats(replayed.finalState[0], isa::Space::Hbm, kvBuffer.address, std::size_t(d) * 16),
            2 * d);
        double worst = 0.0;
        for (int r = 0; r < batch; ++r)
            for (int c = 0; c < d; ++c)
                worst = std::max(worst, std::abs(got[r][c] - out[r][c]) / (1.0 + std::abs(out[r][c])));
        for (int r = 0; r < 8; ++r)
            for (int c = 0; c < 2 * d; ++c)
                worst = std::max(worst, std::abs(kv[r][c] - qkv[r][d + c]) / (1.0 + std::abs(qkv[r][d + c])));
        QVERIFY2(worst < 1e-5, std::to_string(worst).c_str()); // measured: 1.5e-7
    }

    void smallTileScaleAddIsExactForEveryTile_data()
    {
        QTest::addColumn<QByteArray>("variant");
        QTest::addColumn<int>("tile");
        QTest::newRow("naive 8 KiB") << QByteArray("naive") << 8192;
        QTest::newRow("naive 16 KiB") << QByteArray("naive") << 16384;
        QTest::newRow("tuned") << QByteArray("tuned") << 8192;
    }
    void smallTileScaleAddIsExactForEveryTile()
    {
        // y = fma(x, 1.5, 0.25) element by element, bit for bit, whatever the tiling.
        QFETCH(QByteArray, variant);
        QFETCH(int, tile);
        constexpr int total = 256 << 10;
        auto t = workloads::generate("smalltile", variant.toStdString(),
                                     {{"total_bytes", total}, {"tile_bytes", tile}});
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        events::EventStore store;
        sim::ReplayResult r = sim::replay(*t, {}, store);
        QVERIFY2(!r.fault, r.fault ? r.fault->toString().c_str() : "");
        trace::Generator g = randomF32(31);
        g.a = -4.0;
        g.b = 4.0;
        const auto x = test::generated(g, total / 4);
        const auto y = test::readFloats(r.finalState[0], isa::Space::Hbm, total, total / 4);
        for (std::size_t i = 0; i < x.size(); ++i)
            QVERIFY2(y[i] == std::fma(x[i], 1.5f, 0.25f), qPrintable(QStringLiteral("element %1").arg(i)));
    }

    void elementwiseAndCrossLaneOps()
    {
        auto r = test::replaySource(R"(
.vmem in, 0, 4096
.vmem out, 0x1000, 0x7000
.init in, random_f32, seed=5, lo=-2.0, hi=2.0
    vld v1, [in] ; smov s1, 3
    vbcast v2, 0.5 ; viota v3
    vfma.f32 v4, v1, v1, v2 ; xlu.rsum.f32 v5, v1
    vcvt.f32.s32 v6, v3 ; xlu.tpose v7, v1
    xlu.rot v8, v1, s1 ; vexp.f32 v9, v1
    vst v4, [0x1000]
    vst v5, [0x2000]
    vst v6, [0x3000]
    vst v7, [0x4000]
    vst v8, [0x5000]
    vst v9, [0x6000]
    halt
)");
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        trace::Generator g = randomF32(5);
        g.a = -2.0;
        g.b = 2.0;
        const auto x = test::generated(g, 1024);
        auto& st = r->result.finalState[0];
        const auto fma = test::readFloats(st, isa::Space::Vmem, 0x1000, 1024);
        const auto rsum = test::readFloats(st, isa::Space::Vmem, 0x2000, 1024);
        const auto iota = test::readFloats(st, isa::Space::Vmem, 0x3000, 1024);
        const auto tpose = test::readFloats(st, isa::Space::Vmem, 0x4000, 1024);
        const auto rot = test::readFloats(st, isa::Space::Vmem, 0x5000, 1024);
        const auto ex = test::readFloats(st, isa::Space::Vmem, 0x6000, 1024);
        for (int r0 = 0; r0 < 8; ++r0) {
            double rowSum = 0;
            for (int l = 0; l < 128; ++l)
                rowSum += x[r0 * 128 + l];
            for (int l = 0; l < 128; ++l) {
                const int i = r0 * 128 + l;
                QCOMPARE(fma[i], std::fma(x[i], x[i], 0.5f));
                QVERIFY(std::abs(rsum[i] - rowSum) < 1e-4);
                QCOMPARE(iota[i], static_cast<float>(i));
                const int block = l / 8, c = l % 8;
                QCOMPARE(tpose[i], x[c * 128 + block * 8 + r0]);
                QCOMPARE(rot[i], x[r0 * 128 + (l + 128 - 3) % 128]);
                QVERIFY(std::abs(ex[i] - std::exp(static_cast<double>(x[i]))) < 1e-5 * std::exp(2.0));
            }
        }
    }

    void matmulMatchesReferenceGemm_data()
    {
        QTest::addColumn<bool>("transposed");
        QTest::newRow("weights pushed by rows (mxu.wpush)") << false;
        // The same memory pushed by columns: it holds W's transpose, [N, K] as attention's keys lie.
        QTest::newRow("weights pushed by columns (mxu.wpush.t)") << true;
    }
    void matmulMatchesReferenceGemm()
    {
        QFETCH(bool, transposed);
        // W (128 x 128) from HBM via 16 pushes, LHS 8 x 128; result = LHS x W, where memory holds W
        // (row k at k * 512) or, pushed transposed, its transpose (row n at n * 512).
        std::string source = R"(
.hbm  w_hbm, 0, 65536
.vmem w, 0, 65536
.vmem lhs, 0x10000, 4096
.vmem out, 0x11000, 4096
.init w_hbm, random_f32, seed=11, lo=-1.0, hi=1.0
.init lhs, random_f32, seed=12, lo=-1.0, hi=1.0
    dma.start vmem[w], hbm[w_hbm], 65536, 0, engine=0
    sync.wait 0, 8
)";
        for (int i = 0; i < 16; ++i)
            source += "    vld v" + std::to_string(i) + ", [" + std::to_string(i * 4096) + "]\n";
        for (int i = 0; i < 16; ++i)
            source += (transposed ? "    mxu.wpush.t v" : "    mxu.wpush v") + std::to_string(i) + "\n";
        source += "    mxu.wcommit\n    vld v20, [lhs]\n    mxu.mm v20\n    mxu.pop v21\n    vst v21, "
                  "[out]\n    halt\n";
        auto r = test::replaySource(source);
        QVERIFY2(!r->result.fault, test::faultText(*r).c_str());
        const auto w = test::generated(randomF32(11), 128 * 128);
        const auto a = test::generated(randomF32(12), 1024);
        const auto c = test::readFloats(r->result.finalState[0], isa::Space::Vmem, 0x11000, 1024);
        for (int i = 0; i < 8; ++i) {
            for (int j = 0; j < 128; ++j) {
                double ref = 0;
                for (int k = 0; k < 128; ++k)
                    ref +=
                        static_cast<double>(a[i * 128 + k]) * (transposed ? w[j * 128 + k] : w[k * 128 + j]);
                QVERIFY2(std::abs(c[i * 128 + j] - ref) < 1e-4,
                         qPrintable(QString::number(c[i * 128 + j]) + QStringLiteral(" vs ") +
                                    QString::number(ref)));
            }
        }
    }

    void faults_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<QByteArray>("fault");
        QTest::newRow("out of bounds")
            << QByteArray("smov s1, 0x2000000\nvld v1, [s1]\nhalt")
            << QByteArray("chip 0, pc 0x1, cycle 1 (`vld v1, [s1]`): out-of-bounds vmem access [0x2000000, "
                          "0x2000200): vmem has 32 MiB");
        QTest::newRow("misaligned") << QByteArray("smov s1, 100\nvld v1, [s1]\nhalt")
                                    << QByteArray("chip 0, pc 0x1, cycle 1 (`vld v1, [s1]`): misaligned vmem "
                                                  "access at 0x64: must be a multiple of 512");
        QTest::newRow("uninitialised scalar")
            << QByteArray("sadd s1, s2, 1\nhalt")
            << QByteArray(
                   "chip 0, pc 0x0, cycle 0 (`sadd s1, s2, 1`): reads uninitialised scalar register s2");
        QTest::newRow("uninitialised vector")
            << QByteArray("vadd.f32 v1, v2, v3\nhalt")
            << QByteArray(
                   "chip 0, pc 0x0, cycle 0 (`vadd.f32 v1, v2, v3`): reads uninitialised vector register v2");
        QTest::newRow("invalid dma")
            << QByteArray("smov s1, 0x1fff000\ndma.start vmem[s1], hbm[0], 8192, 0\nhalt")
            << QByteArray("chip 0, pc 0x1, cycle 1 (`dma.start vmem[s1], hbm[0x0], 8192, 0`): invalid DMA "
                          "descriptor: destination vmem[0x1fff000, +8192) is outside vmem (32 MiB)");
        // A chip number from a register is checked before it names a chip: 65537 would wrap to chip 1 in the
        // 16-bit chip ids the records keep.
        QTest::newRow("dma to a chip that does not exist")
            << QByteArray(".machine chips=2\n.chip 0\nsmov s2, 65537\ndma.start hbm[0], hbm[0], 512, 0, "
                          "chip=s2\nhalt\n.chip 1\nhalt")
            << QByteArray(
                   "chip 0, pc 0x1, cycle 1 (`dma.start hbm[0x0], hbm[0x0], 512, 0, chip=s2`): invalid "
                   "DMA descriptor: chip 65537 does not exist");
        QTest::newRow("sync.add to a chip that does not exist")
            << QByteArray(".machine chips=2\n.chip 0\nsmov s2, 65537\nsync.add 3, 1, chip=s2\nhalt\n.chip "
                          "1\nhalt")
            << QByteArray("chip 0, pc 0x1, cycle 1 (`sync.add 3, 1, chip=s2`): sync.add to chip 65537, which "
                          "does not exist");
        QTest::newRow("past the end")
            << QByteArray("smov s1, 1")
            << QByteArray(
                   "chip 0, pc 0x1, cycle 1 (``): ran past the end of the program (1 bundles) without halt");
        QTest::newRow("pop empty") << QByteArray("mxu.pop v1\nhalt")
                                   << QByteArray("chip 0, pc 0x0, cycle 0 (`mxu.pop v1`): mxu.pop with an "
                                                 "empty result FIFO and no mxu.mm in flight");
        QTest::newRow("region end")
            << QByteArray("region.end\nhalt")
            << QByteArray("chip 0, pc 0x0, cycle 0 (`region.end`): region.end with no open region");
        QTest::newRow("deadlock")
            << QByteArray(".machine chips=2\n.chip 0\nsync.wait 5, 1\nhalt\n.chip 1\nsmov s1, 2\nsync.wait "
                          "7, 3\nhalt")
            << QByteArray("chip 0, pc 0x0, cycle 1 (`sync.wait 5, 1`): deadlock: every running chip waits on "
                          "something nothing in flight can change; chip 0 at pc 0x0 waits for flag 5 >= 1, "
                          "flag is 0; chip 1 at pc 0x1 waits for flag 7 >= 3, flag is 0");
    }
    void faults()
    {
        QFETCH(QByteArray, source);
        QFETCH(QByteArray, fault);
        auto r = test::replaySource(source.toStdString());
        QCOMPARE(r->result.status, sim::ReplayResult::Status::Faulted);
        QCOMPARE(test::faultText(*r), fault.toStdString());
    }

    // A trace built in code skips the readers' checks; the replayer refuses it before the first cycle with
    // the validator's finding, where the machine state or a bundle's pending writes would have been
    // indexed out of range.
    void aTraceBuiltInCodeIsValidatedBeforeItRuns_data()
    {
        QTest::addColumn<int>("damage");
        QTest::addColumn<QByteArray>("fault");
        QTest::newRow("three scalar instructions in a bundle")
            << 0
            << QByteArray("chip 0, pc 0x0, cycle 0 (`sadd s1, s1, 1 ; sadd s1, s1, 1 ; sadd s1, s1, 1`): the "
                          "trace is not valid for its machine: $.chips[0].program[0]: the bundle holds 3 "
                          "scalar instructions; a bundle has 2 scalar slots");
        QTest::newRow("nine scalar instructions in a bundle")
            << 1 << QByteArray("the bundle holds 9 scalar instructions; a bundle has 2 scalar slots");
        QTest::newRow("initial scalar register past the file")
            << 2 << QByteArray("$.chips[0].initial.sregs.s4096: scalar register s4096 does not exist");
    }
    void aTraceBuiltInCodeIsValidatedBeforeItRuns()
    {
        QFETCH(int, damage);
        QFETCH(QByteArray, fault);
        auto t = assembly::assemble("sadd s1, s1, 1\nhalt", "test.xasm");
        QVERIFY(t.ok());
        trace::Trace trace = std::move(t).value();
        std::vector<isa::Instruction>& first = trace.chips[0].program.bundles[0].instructions;
        if (damage == 0)
            first.insert(first.end(), 2, first[0]);
        else if (damage == 1) // past PendingWrites' 8 scalar writes a bundle
            first.insert(first.end(), 8, first[0]);
        else
            trace.chips[0].initial.scalarRegisters[4096] = 1;
        auto r = test::replayTrace(std::move(trace));
        QCOMPARE(r->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(test::faultText(*r).find(fault.toStdString()) != std::string::npos,
                 test::faultText(*r).c_str());
        QCOMPARE(r->result.totalCycles, std::uint64_t{0});
        QCOMPARE(r->store.bundles().size(), std::size_t{0});
        QVERIFY(r->result.finalState.empty());
    }
};

QTEST_GUILESS_MAIN(TestGrmFunctional)
#include "tst_grm_functional.moc"

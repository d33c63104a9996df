// f16 and bf16 held in 2 bytes: the conversions (core/util/half_float.h) against the interpreter's rounding,
// the GRM's converting DMAs (dma.start cvt=), and compiled StableHLO whose f16/bf16 tensors are packed in
// HBM: results exact against the reference interpreter, half the HBM bytes of the f32 module.
#include "stablehlo_lowering_support.h"

#include "stablehlo/tensor_value.h"
#include "util/half_float.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

std::uint32_t bitsOfFloat(float f)
{
    return std::bit_cast<std::uint32_t>(f);
}

// f32 bit patterns that probe every rounding case: a stride over all of them, plus, for every value of the
// narrow format, the value itself, its midpoints to both neighbours and one f32 step either side of them.
std::vector<std::uint32_t> probes(bool bf16)
{
    std::vector<std::uint32_t> out;
    for (std::uint64_t b = 0; b <= 0xFFFFFFFFull; b += 65521)
        out.push_back(static_cast<std::uint32_t>(b));
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const double v =
            bf16 ? bfloat16Value(static_cast<std::uint16_t>(h)) : halfValue(static_cast<std::uint16_t>(h));
        if (!std::isfinite(v))
            continue;
        const double step = bf16 ? std::ldexp(1.0, std::max(std::ilogb(v == 0 ? 1e-40 : v), -126) - 7)
                                 : std::ldexp(1.0, std::max(std::ilogb(v == 0 ? 1e-10 : v), -14) - 10);
        for (const double m : {v, v + step / 2, v - step / 2}) {
            const float f = static_cast<float>(m);
            out.push_back(bitsOfFloat(f));
            out.push_back(bitsOfFloat(std::nextafter(f, INFINITY)));
            out.push_back(bitsOfFloat(std::nextafter(f, -INFINITY)));
        }
    }
    return out;
}

struct HbmTraffic
{
    std::uint64_t cycles = 0, hbmBytes = 0;
};

HbmTraffic replayTraffic(const std::string& text)
{
    auto m = parseModule(text, "case.mlir");
    if (!m)
        qFatal("%s", m.error().toString().c_str());
    auto compiled = compileModule(*m, {});
    if (!compiled)
        qFatal("%s", compiled.error().toString().c_str());
    auto r = replayTrace(compiled->trace, sim::ReplayMode::TimingOnly);
    return {r->result.totalCycles, r->result.dma.at(0).hbmBytes};
}

} // namespace

class TestPackedFloats : public QObject
{
    Q_OBJECT
private slots:
    void narrowingRoundsAsTheInterpreter()
    {
        for (const bool bf16 : {false, true}) {
            std::size_t checked = 0;
            for (const std::uint32_t bits : probes(bf16)) {
                const float f = std::bit_cast<float>(bits);
                const std::uint16_t got = bf16 ? half::f32ToBf16(bits) : half::f32ToF16(bits);
                if (std::isnan(f)) { // NaN stays NaN, sign kept
                    const double back = bf16 ? bfloat16Value(got) : halfValue(got);
                    QVERIFY(std::isnan(back));
                    QCOMPARE(got >> 15, bits >> 31);
                    continue;
                }
                const std::uint16_t want = bf16 ? bfloat16Bits(f) : halfBits(f);
                if (got != want)
                    QFAIL(qPrintable(QStringLiteral("%1 of %2 (0x%3): 0x%4, the interpreter 0x%5")
                                         .arg(bf16 ? QStringLiteral("bf16") : QStringLiteral("f16"))
                                         .arg(static_cast<double>(f), 0, 'g', 9)
                                         .arg(bits, 8, 16, QLatin1Char('0'))
                                         .arg(got, 4, 16, QLatin1Char('0'))
                                         .arg(want, 4, 16, QLatin1Char('0'))));
                ++checked;
            }
            QVERIFY(checked > 300000);
        }
    }

    void wideningIsExactForEveryValue()
    {
        for (std::uint32_t h = 0; h < 0x10000; ++h) {
            const auto bits = static_cast<std::uint16_t>(h);
            const float f16 = std::bit_cast<float>(half::f16ToF32(bits));
            const float bf16 = std::bit_cast<float>(half::bf16ToF32(bits));
            if (std::isnan(halfValue(bits))) {
                QVERIFY(std::isnan(f16));
            } else {
                QCOMPARE(static_cast<double>(f16), halfValue(bits));
                QCOMPARE(half::f32ToF16(half::f16ToF32(bits)), bits); // and back, bit for bit
            }
            if (std::isnan(bfloat16Value(bits)))
                QVERIFY(std::isnan(bf16));
            else
                QCOMPARE(static_cast<double>(bf16), bfloat16Value(bits));
        }
    }

    // Rows of f16 widened into VMEM with strides on both sides, then narrowed back into another layout.
    void convertingDmasMoveElements()
    {
        auto r = replaySource(R"(
            .hbm src, 0, 4096
            .hbm back, 8192, 4096
            .init src, random_f16, seed=3, lo=-100.0, hi=100.0
            .output back
                dma.start vmem[0], hbm[0], 20, 0, rows=3, sstride=64, dstride=512, cvt=1
                sync.wait 0, 1
                dma.start hbm[8192], vmem[0], 40, 1, rows=3, sstride=512, dstride=32, cvt=3
                sync.wait 1, 1
                halt
        )");
        QVERIFY2(r->result.status == sim::ReplayResult::Status::Completed, faultText(*r).c_str());
        auto& chip = r->result.finalState.at(0);
        std::vector<std::uint8_t> source(4096), back(4096);
        chip.hbm.read(0, source);
        chip.hbm.read(8192, back);
        for (int row = 0; row < 3; ++row)
            for (int e = 0; e < 10; ++e) {
                std::uint16_t h = 0, out = 0;
                std::memcpy(&h, source.data() + row * 64 + e * 2, 2);
                std::memcpy(&out, back.data() + row * 32 + e * 2, 2);
                const float wide =
                    readFloats(chip, isa::Space::Vmem, static_cast<std::uint64_t>(row * 512 + e * 4), 1)[0];
                QCOMPARE(static_cast<double>(wide), halfValue(h));
                QCOMPARE(out, h); // widened and narrowed: the same bits
            }
        // Each side is charged its own bytes: 60 read from HBM, 60 written back.
        QCOMPARE(r->result.dma.at(0).hbmBytes, std::uint64_t{120});
        const auto dmas = r->store.dmas();
        QCOMPARE(dmas.size(), std::size_t{2});
        QCOMPARE(dmas[0].bytes, std::uint64_t{60}); // the 2-byte side
        QCOMPARE(events::dmaDestinationBytes(dmas[0]), std::uint64_t{120});
        QCOMPARE(events::dmaSourceBytes(dmas[1]), std::uint64_t{120});
    }

    // A converting copy moves no faster than the engine converts (convert_gbs for f16, convert_bf16_gbs for
    // bf16, in 2-byte-side bytes).
    void conversionRateLimitsConvertingCopies()
    {
        const auto cycles = [](const char* cvt) {
            auto r = replaySource(std::string(".machine convert_gbs=52.5, convert_bf16_gbs=105, "
                                              "dma_setup_cycles=0\n"
                                              ".hbm a, 0, 65536\n"
                                              "    dma.start vmem[0], hbm[0], 32768, 0") +
                                  cvt + "\n    sync.wait 0, 4\n    halt\n");
            if (r->result.status != sim::ReplayResult::Status::Completed)
                qFatal("%s", faultText(*r).c_str());
            const auto d = r->store.dmas().at(0);
            return d.end - d.start;
        };
        // 32 KiB of f16 at 50 bytes a cycle (52.5 GB/s at 1,050 MHz): 655.36 cycles; a plain copy at the
        // engine's 600 GB/s: 57.3.
        // (Start and end are whole cycles around fractional times: either neighbour.)
        // bf16 (cvt=2) at convert_bf16_gbs, twice the rate: 327.68.
        const auto converting = cycles(", cvt=1"), plain = cycles("");
        QVERIFY2(converting == 655 || converting == 656, std::to_string(converting).c_str());
        const auto bf16 = cycles(", cvt=2");
        QVERIFY2(bf16 == 327 || bf16 == 328, std::to_string(bf16).c_str());
        QVERIFY2(plain == 57 || plain == 58, std::to_string(plain).c_str());
    }

    // The chip converts on one unit: two converting copies on two engines share convert_gbs; a plain copy
    // beside them does not.
    void convertingCopiesShareTheChipsRate()
    {
        auto r = replaySource(".machine convert_gbs=52.5, dma_setup_cycles=0\n"
                              ".hbm a, 0, 131072\n"
                              "    dma.start vmem[0], hbm[0], 32768, 0, engine=0, cvt=1\n"
                              "    dma.start vmem[65536], hbm[32768], 32768, 1, engine=1, cvt=1\n"
                              "    dma.start vmem[131072], hbm[65536], 32768, 2, engine=2\n"
                              "    sync.wait 0, 4\n    sync.wait 1, 4\n    sync.wait 2, 4\n    halt\n");
        QCOMPARE(r->result.status, sim::ReplayResult::Status::Completed);
        auto dmas = r->store.dmas();
        std::sort(dmas.begin(), dmas.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        QCOMPARE(dmas.size(), std::size_t(3));
        // 32 KiB each at 25 bytes a cycle (half of 52.5 GB/s at 1,050 MHz): 1,310.72 cycles, the second
        // converting copy issued a cycle after the first.
        for (int i = 0; i < 2; ++i) {
            const auto cycles =
                dmas[static_cast<std::size_t>(i)].end - dmas[static_cast<std::size_t>(i)].start;
            QVERIFY2(cycles >= 1309 && cycles <= 1312, std::to_string(cycles).c_str());
        }
        const auto plain = dmas[2].end - dmas[2].start;
        QVERIFY2(plain < 120, std::to_string(plain).c_str()); // at the engine's and HBM's rates
    }

    void badConversionsAreFaults()
    {
        auto unknown = replaySource(".hbm a, 0, 64\n dma.start vmem[0], hbm[0], 16, 0, cvt=5\n halt\n");
        QCOMPARE(unknown->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(faultText(*unknown).find("cvt=5 is not a conversion") != std::string::npos,
                 faultText(*unknown).c_str());
        auto negative = replaySource(".hbm a, 0, 64\n dma.start vmem[0], hbm[0], 16, 0, cvt=-1\n halt\n");
        QCOMPARE(negative->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(faultText(*negative).find("cvt=255 is not a conversion") != std::string::npos,
                 faultText(*negative).c_str());
        auto odd = replaySource(".hbm a, 0, 64\n dma.start hbm[32], vmem[0], 6, 0, cvt=3\n halt\n");
        QCOMPARE(odd->result.status, sim::ReplayResult::Status::Faulted);
        QVERIFY2(faultText(*odd).find("not a multiple of 4") != std::string::npos, faultText(*odd).c_str());
    }

    // Packed tensors through every kind of kernel: element-wise and dot_general read and write them
    // themselves, the rest through widened copies. Every single op rounds its result as the interpreter
    // does, so the results are exact.
    void packedModulesMatchTheInterpreter_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("ulps");
        for (const char* element : {"f16", "bf16"}) {
            const std::string e = element;
            const auto binary = [&](const char* op) {
                return QString::fromStdString(
                    moduleText({3, 700}, {3, 700},
                               std::string("  %r = ") + op + " %a, %b : " + type({3, 700}, element) + "\n",
                               type({3, 700}, element), element));
            };
            QTest::newRow((e + " add").c_str()) << binary("stablehlo.add") << 0;
            QTest::newRow((e + " multiply").c_str()) << binary("stablehlo.multiply") << 0;
            QTest::newRow((e + " maximum").c_str()) << binary("stablehlo.maximum") << 0;
            QTest::newRow((e + " exponential").c_str())
                << QString::fromStdString(moduleText(
                       {5, 300}, {}, "  %r = stablehlo.exponential %a : " + type({5, 300}, element) + "\n",
                       type({5, 300}, element), element))
                << 1;
            const auto unaryOp = [&](const std::vector<std::int64_t>& in, const std::string& op,
                                     const std::vector<std::int64_t>& out) {
                return QString::fromStdString(moduleText(
                    in, {}, "  %r = " + op + " : (" + type(in, element) + ") -> " + type(out, element) + "\n",
                    type(out, element), element));
            };
            QTest::newRow((e + " slice").c_str())
                << unaryOp({37, 130}, "stablehlo.slice %a [3:35:2, 1:129:3]", {16, 43}) << 0;
            QTest::newRow((e + " reverse").c_str())
                << unaryOp({37, 130}, "stablehlo.reverse %a, dims = [0, 1]", {37, 130}) << 0;
            QTest::newRow((e + " broadcast_in_dim").c_str())
                << unaryOp({130}, "stablehlo.broadcast_in_dim %a, dims = [1]", {9, 130}) << 0;
            QTest::newRow((e + " concatenate").c_str())
                << QString::fromStdString(moduleText(
                       {7, 130}, {5, 130},
                       "  %r = stablehlo.concatenate %a, %b, dim = 0 : (" + type({7, 130}, element) + ", " +
                           type({5, 130}, element) + ") -> " + type({12, 130}, element) + "\n",
                       type({12, 130}, element), element))
                << 0;
            QTest::newRow((e + " pad").c_str())
                << QString::fromStdString(
                       moduleText({7, 30}, {},
                                  "  %p = stablehlo.constant dense<1.5> : " + type({}, element) +
                                      "\n  %r = stablehlo.pad %a, %p, low = [1, -2], high = [2, 3], "
                                      "interior = [1, 0] : (" +
                                      type({7, 30}, element) + ", " + type({}, element) + ") -> " +
                                      type({16, 31}, element) + "\n",
                                  type({16, 31}, element), element))
                << 0;
            // reduce and reduce_window read and write packed tensors themselves (widening DMAs in, narrowing
            // ones out), in each of their layouts. Maximum and minimum are exact in any order.
            const auto reduce = [&](const char* op, const char* init, const std::vector<std::int64_t>& in,
                                    const char* dims, const std::vector<std::int64_t>& out) {
                return QString::fromStdString(moduleText(
                    in, {},
                    std::string("  %z = stablehlo.constant dense<") + init + "> : " + type({}, element) +
                        "\n  %r = stablehlo.reduce(%a init: %z) applies " + op +
                        " across dimensions = " + dims + " : (" + type(in, element) + ", " +
                        type({}, element) + ") -> " + type(out, element) + "\n",
                    type(out, element), element));
            };
            QTest::newRow((e + " reduce maximum, register blocks").c_str())
                << reduce("stablehlo.maximum", "0.0", {37, 130}, "[1]", {37}) << 0;
            QTest::newRow((e + " reduce minimum over the outer dimension").c_str())
                << reduce("stablehlo.minimum", "1.0", {37, 130}, "[0]", {130}) << 0;
            // 5,000 elements a row: past what the register blocks hold in VMEM, so rows along the lanes.
            QTest::newRow((e + " reduce maximum, lane layout").c_str())
                << reduce("stablehlo.maximum", "-5.0", {3, 5000}, "[1]", {3}) << 0;
            QTest::newRow((e + " reduce, a compare-and-select reducer").c_str())
                << QString::fromStdString(moduleText(
                       {6, 40}, {},
                       "  %z = stablehlo.constant dense<-8.0> : " + type({}, element) +
                           "\n  %r = stablehlo.reduce(%a init: %z) across dimensions = [1] : (" +
                           type({6, 40}, element) + ", " + type({}, element) + ") -> " + type({6}, element) +
                           "\n   reducer(%x: " + type({}, element) + ", %y: " + type({}, element) +
                           ")  {\n    %gt = stablehlo.compare  GT, %x, %y,  FLOAT : (" + type({}, element) +
                           ", " + type({}, element) +
                           ") -> tensor<i1>\n    %v = stablehlo.select %gt, %x, %y "
                           ": tensor<i1>, " +
                           type({}, element) + "\n    stablehlo.return %v : " + type({}, element) + "\n  }\n",
                       type({6}, element), element))
                << 0;
            const auto window = [&](const std::vector<std::int64_t>& in, const std::string& attrs,
                                    const std::vector<std::int64_t>& out) {
                return QString::fromStdString(moduleText(
                    in, {},
                    "  %i = stablehlo.constant dense<0xFF800000> : tensor<f32>\n  %n = stablehlo.convert %i "
                    ": "
                    "(tensor<f32>) -> " +
                        type({}, element) + "\n  %r = \"stablehlo.reduce_window\"(%a, %n) <{" + attrs +
                        "}> ({\n  ^bb0(%x: " + type({}, element) + ", %y: " + type({}, element) +
                        "):\n    %m = stablehlo.maximum %x, %y : " + type({}, element) +
                        "\n    stablehlo.return %m : " + type({}, element) + "\n  }) : (" +
                        type(in, element) + ", " + type({}, element) + ") -> " + type(out, element) + "\n",
                    type(out, element), element));
            };
            QTest::newRow((e + " max pool 3x3, stride 2, padded").c_str())
                << window(
                       {1, 17, 19, 3},
                       "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, "
                       "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>",
                       {1, 9, 10, 3})
                << 0;
            // The convolution gathers its patches and kernel widened, and writes its result narrowed: into
            // the result itself, or into each feature group's part of it.
            const auto conv = [&](const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                                  const std::string& spec, int groups, const std::vector<std::int64_t>& out) {
                return QString::fromStdString(moduleText(
                    a, b,
                    "  %r = stablehlo.convolution(%a, %b) " + spec +
                        " {batch_group_count = 1 : i64, feature_group_count = " + std::to_string(groups) +
                        " : i64} : (" + type(a, element) + ", " + type(b, element) + ") -> " +
                        type(out, element) + "\n",
                    type(out, element), element));
            };
            QTest::newRow((e + " convolution NHWC 3x3, same padding").c_str())
                << conv({2, 6, 6, 3}, {3, 3, 3, 4},
                        "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], "
                        "pad = [[1, 1], [1, 1]]}",
                        1, {2, 6, 6, 4})
                << 0;
            QTest::newRow((e + " convolution, 2 feature groups").c_str())
                << conv({1, 5, 5, 4}, {3, 3, 2, 6},
                        "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], "
                        "pad = [[1, 1], [1, 1]]}",
                        2, {1, 5, 5, 6})
                << 0;
            QTest::newRow((e + " convolution NCHW x OIHW").c_str())
                << conv({1, 2, 5, 5}, {3, 2, 3, 3},
                        "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], "
                        "pad = [[0, 0], [0, 0]]}",
                        1, {1, 3, 3, 3})
                << 0;
            QTest::newRow((e + " transpose").c_str())
                << QString::fromStdString(moduleText({37, 130}, {},
                                                     "  %r = stablehlo.transpose %a, dims = [1, 0] : (" +
                                                         type({37, 130}, element) + ") -> " +
                                                         type({130, 37}, element) + "\n",
                                                     type({130, 37}, element), element))
                << 0;
            QTest::newRow((e + " convert to f32").c_str())
                << QString::fromStdString(moduleText({9, 70}, {},
                                                     "  %r = stablehlo.convert %a : (" +
                                                         type({9, 70}, element) + ") -> " + type({9, 70}) +
                                                         "\n",
                                                     type({9, 70}), element))
                << 0;
            // K = 200: products of 1/64 steps, summed exactly in f32 by the MXU and the vector unit.
            const auto dot = [&](const char* result) {
                return QString::fromStdString(
                    moduleText({40, 200}, {200, 130},
                               "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" +
                                   type({40, 200}, element) + ", " + type({200, 130}, element) + ") -> " +
                                   type({40, 130}, result) + "\n",
                               type({40, 130}, result), element));
            };
            QTest::newRow((e + " dot_general, f32 result").c_str()) << dot("f32") << 0;
            // The interpreter accumulates f16/bf16 in f32 too and rounds once (docs/stablehlo.md).
            QTest::newRow((e + " dot_general, packed result").c_str()) << dot(element) << 0;
        }
        // i32 past 2^24 rounds once to bf16, not through f32: 16,842,753 lies just above the bf16 midpoint
        // 16,842,752 (f32 would round it onto the midpoint, and bf16 then down to 16,777,216).
        QTest::newRow("i32 -> bf16 convert rounds once")
            << QString::fromStdString(
                   "func.func public @main() -> tensor<8xbf16> {\n"
                   "  %a = stablehlo.constant dense<[16842753, -16842753, 33685506, -33685506, "
                   "2147483647, -2147483648, 16777217, 12345]> : tensor<8xi32>\n"
                   "  %r = stablehlo.convert %a : (tensor<8xi32>) -> tensor<8xbf16>\n"
                   "  return %r : tensor<8xbf16>\n}\n")
            << 0;
        QTest::newRow("f32 -> f16 convert rounds to nearest even")
            << QString::fromStdString("func.func public @main() -> tensor<4xf16> {\n"
                                      "  %a = stablehlo.constant dense<[1.00048828125, 1.00146484375, "
                                      "65519.0, 1.0e-7]> : tensor<4xf32>\n"
                                      "  %r = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf16>\n"
                                      "  return %r : tensor<4xf16>\n}\n")
            << 0;
    }

    void packedModulesMatchTheInterpreter()
    {
        QFETCH(QString, text);
        QFETCH(int, ulps);
        std::string failure;
        const auto worst = worstUlp(text.toStdString(), &failure);
        QVERIFY2(worst <= static_cast<std::uint64_t>(ulps), failure.c_str());
    }

    // The same kernels larger than VMEM (reduce rows, reduce_window outputs and the convolution's patch
    // matrix in slabs) read and write packed tensors just as well.
    void packedSlabsMatchTheInterpreter()
    {
        // In 128 KiB none fits whole: the reduce's rows take 466 KiB, the pool's rows 11.8 MiB, the
        // convolution's patch matrix 162 KiB (f32 in VMEM).
        CompileOptions small;
        small.machine.vmemBytes = 128 << 10;
        for (const char* element : {"f16", "bf16"}) {
            const std::string e = element, s = type({}, element);
            const std::string reduce =
                moduleText({300, 200}, {},
                           "  %z = stablehlo.constant dense<-5.0> : " + s +
                               "\n  %r = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across "
                               "dimensions = [1] : "
                               "(" +
                               type({300, 200}, element) + ", " + s + ") -> " + type({300}, element) + "\n",
                           type({300}, element), element);
            const std::string window = moduleText(
                {1, 40, 40, 8}, {},
                "  %z = stablehlo.constant dense<-5.0> : " + s +
                    "\n  %r = \"stablehlo.reduce_window\"(%a, %z) <{window_dimensions = array<i64: 1, 3, 3, "
                    "1>, "
                    "window_strides = array<i64: 1, 1, 1, 1>}> ({\n  ^bb0(%x: " +
                    s + ", %y: " + s + "):\n    %m = stablehlo.maximum %x, %y : " + s +
                    "\n    stablehlo.return %m : " + s + "\n  }) : (" + type({1, 40, 40, 8}, element) + ", " +
                    s + ") -> " + type({1, 38, 38, 8}, element) + "\n",
                type({1, 38, 38, 8}, element), element);
            const std::string conv = moduleText(
                {2, 24, 24, 4}, {3, 3, 4, 8},
                "  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
                "feature_group_count = 1 : i64} : (" +
                    type({2, 24, 24, 4}, element) + ", " + type({3, 3, 4, 8}, element) + ") -> " +
                    type({2, 24, 24, 8}, element) + "\n",
                type({2, 24, 24, 8}, element), element);
            // Rows of 6,000 elements: longer than 128 KiB holds, so two passes (partials in HBM).
            const std::string longRows =
                moduleText({4, 6000}, {},
                           "  %z = stablehlo.constant dense<-5.0> : " + s +
                               "\n  %r = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across "
                               "dimensions = [1] : "
                               "(" +
                               type({4, 6000}, element) + ", " + s + ") -> " + type({4}, element) + "\n",
                           type({4}, element), element);
            for (const auto& [name, text] :
                 {std::pair{"reduce", reduce}, std::pair{"reduce_window", window},
                  std::pair{"convolution", conv}, std::pair{"reduce of long rows", longRows}}) {
                std::string failure;
                QVERIFY2(worstUlp(text, &failure) == 0, (e + " " + name + ": " + failure).c_str());
                QVERIFY2(worstUlp(text, &failure, small) == 0,
                         (e + " " + name + " in slabs: " + failure).c_str());
            }
        }
    }

    // A packed dot_general result is the f32 sum rounded once (the MXU accumulates in f32, as XLA on a TPU
    // does): exactly the f32-result module's values rounded to the packed type. StableHLO's interpreter
    // rounds every partial sum to the packed type instead (docs/stablehlo.md).
    void packedDotRoundsTheF32SumOnce()
    {
        for (const char* element : {"f16", "bf16"}) {
            const auto dot = [&](const char* result) {
                return moduleText({40, 200}, {200, 130},
                                  "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" +
                                      type({40, 200}, element) + ", " + type({200, 130}, element) + ") -> " +
                                      type({40, 130}, result) + "\n",
                                  type({40, 130}, result), element);
            };
            const auto run = [](const std::string& text) {
                auto m = parseModule(text, "case.mlir");
                auto compiled = compileModule(*m, {});
                if (!compiled)
                    qFatal("%s", compiled.error().toString().c_str());
                auto replayed = sim::replayAndCheck(*m, *compiled);
                if (!replayed)
                    qFatal("%s", replayed.error().toString().c_str());
                return replayed->results.front();
            };
            const auto wide = run(dot("f32"));
            const auto packed = run(dot(element));
            QCOMPARE(packed.data.size(), wide.data.size());
            for (std::size_t i = 0; i < wide.data.size(); ++i)
                QCOMPARE(packed.data[i], roundTo(packed.type.element, wide.data[i]));
        }
    }

    // What packing is for: an f16 add moves half the HBM bytes of the f32 add, and takes fewer cycles; so do
    // a matmul, a reduce and a max pool.
    void packedTensorsHalveHbmTraffic()
    {
        const auto add = [](const char* element) {
            const std::vector<std::int64_t> shape{512, 1024};
            return "func.func public @main(%a: " + type(shape, element) + ", %b: " + type(shape, element) +
                   ") -> " + type(shape, element) +
                   " {\n  %r = stablehlo.add %a, %b : " + type(shape, element) +
                   "\n  return %r : " + type(shape, element) + "\n}\n";
        };
        const auto f32 = replayTraffic(add("f32"));
        const auto f16 = replayTraffic(add("f16"));
        const auto bf16 = replayTraffic(add("bf16"));
        QCOMPARE(f32.hbmBytes, std::uint64_t{3 * 512 * 1024 * 4});
        QCOMPARE(f16.hbmBytes, f32.hbmBytes / 2);
        QCOMPARE(bf16.hbmBytes, f32.hbmBytes / 2);
        QVERIFY2(f16.cycles * 10 < f32.cycles * 7,
                 qPrintable(QStringLiteral("f16 %1 cycles, f32 %2").arg(f16.cycles).arg(f32.cycles)));
        // A matmul's operands and result are packed too.
        const auto matmul = [](const char* element) {
            return "func.func public @main(%a: " + type({256, 512}, element) +
                   ", %b: " + type({512, 384}, element) + ") -> " + type({256, 384}, element) +
                   " {\n  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" +
                   type({256, 512}, element) + ", " + type({512, 384}, element) + ") -> " +
                   type({256, 384}, element) + "\n  return %r : " + type({256, 384}, element) + "\n}\n";
        };
        const auto m32 = replayTraffic(matmul("f32"));
        const auto m16 = replayTraffic(matmul("f16"));
        QCOMPARE(m16.hbmBytes * 2, m32.hbmBytes);
        QVERIFY(m16.cycles < m32.cycles);
        // So are a reduction's and a pooling's: no widened copies of the input, no narrowed copy of the
        // result (each was a round trip through HBM).
        const auto reduce = [](const char* element) {
            return "func.func public @main(%a: " + type({256, 1024}, element) + ") -> " +
                   type({256}, element) + " {\n  %z = stablehlo.constant dense<0.0> : " + type({}, element) +
                   "\n  %r = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [1] "
                   ": (" +
                   type({256, 1024}, element) + ", " + type({}, element) + ") -> " + type({256}, element) +
                   "\n  return %r : " + type({256}, element) + "\n}\n";
        };
        const auto r32 = replayTraffic(reduce("f32"));
        const auto r16 = replayTraffic(reduce("bf16"));
        QCOMPARE(r32.hbmBytes, std::uint64_t{(256 * 1024 + 256) * 4});
        QCOMPARE(r16.hbmBytes * 2, r32.hbmBytes);
        QVERIFY2(r16.cycles < r32.cycles,
                 qPrintable(QStringLiteral("bf16 %1 cycles, f32 %2").arg(r16.cycles).arg(r32.cycles)));
        const auto pool = [](const char* element) {
            const std::string x = type({4, 64, 64, 32}, element), y = type({4, 32, 32, 32}, element),
                              s = type({}, element);
            return "func.func public @main(%a: " + x + ") -> " + y +
                   " {\n  %z = stablehlo.constant dense<0.0> : " + s +
                   "\n  %r = \"stablehlo.reduce_window\"(%a, %z) <{window_dimensions = array<i64: 1, 2, 2, "
                   "1>, "
                   "window_strides = array<i64: 1, 2, 2, 1>}> ({\n  ^bb0(%x: " +
                   s + ", %y: " + s + "):\n    %m = stablehlo.maximum %x, %y : " + s +
                   "\n    stablehlo.return %m : " + s + "\n  }) : (" + x + ", " + s + ") -> " + y +
                   "\n  return %r : " + y + "\n}\n";
        };
        const auto p32 = replayTraffic(pool("f32"));
        const auto p16 = replayTraffic(pool("bf16"));
        QCOMPARE(p16.hbmBytes * 2, p32.hbmBytes);
        QVERIFY2(p16.cycles < p32.cycles,
                 qPrintable(QStringLiteral("bf16 %1 cycles, f32 %2").arg(p16.cycles).arg(p32.cycles)));
        qInfo("reduce 256x1024: f32 %llu cycles, bf16 %llu; max pool 4x64x64x32: f32 %llu, bf16 %llu",
              static_cast<unsigned long long>(r32.cycles), static_cast<unsigned long long>(r16.cycles),
              static_cast<unsigned long long>(p32.cycles), static_cast<unsigned long long>(p16.cycles));
    }

    // Arguments are packed random values (random_f16), the same ones `check` hands the interpreter.
    void packedArgumentsAreRandomHalfValues()
    {
        auto m = parseModule(
            "func.func public @main(%a: tensor<1000xbf16>) -> tensor<1000xbf16> {\n"
            "  %r = stablehlo.negate %a : tensor<1000xbf16>\n  return %r : tensor<1000xbf16>\n}\n",
            "case.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m, {});
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        const auto& init = compiled->trace.chips.at(0).initial.memory.at(0);
        QCOMPARE(init.size, std::uint64_t{2000});
        QCOMPARE(init.payload.generator.kind, trace::Generator::Kind::RandomBF16);
        auto replayed = sim::replayAndCheck(*m, *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        QVERIFY(!replayed->check.checks.empty());
        for (const auto& c : replayed->check.checks)
            QVERIFY2(c.passed, c.worst.c_str());
        std::set<double> distinct(replayed->results.front().data.begin(),
                                  replayed->results.front().data.end());
        QVERIFY(distinct.size() > 100);
    }
};

QTEST_GUILESS_MAIN(TestPackedFloats)
#include "tst_packed_floats.moc"

// The vector unit's element-wise ops, bit for bit against their definitions in docs/isa.md written out one
// element at a time here: on IEEE special values (signed zeros, infinities, NaNs, subnormals, the extremes)
// paired with each other and with random words. The GRM computes these ops a vector at a time (loops the
// compiler vectorises); a result that depended on how it was compiled, or a word read with the wrong type
// (a signed conversion read as unsigned, a compare written as a float), shows here as the first element
// and operands that differ.
#include "sim/sim_support.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace xps;

namespace {

constexpr int kElements = 1024;

float asFloat(std::uint32_t w)
{
    return std::bit_cast<float>(w);
}
std::uint32_t asWord(float f)
{
    return std::bit_cast<std::uint32_t>(f);
}

// Words every op should meet: the float specials and the integer extremes, then random bits.
std::vector<std::uint32_t> specialWords()
{
    using L = std::numeric_limits<float>;
    return {asWord(0.0f),
            asWord(-0.0f),
            asWord(1.0f),
            asWord(-1.0f),
            asWord(0.5f),
            asWord(3.0f),
            asWord(L::infinity()),
            asWord(-L::infinity()),
            asWord(L::quiet_NaN()),
            0xFFC00001u,
            asWord(L::max()),
            asWord(-L::max()),
            asWord(L::min()),
            asWord(L::denorm_min()),
            0x80000001u,
            0x807FFFFFu,
            0x7FFFFFFFu,
            0x80000000u,
            0x4F000000u /* 2^31 */,
            0xCF000001u,
            asWord(2147483520.0f),
            asWord(-2147483648.0f),
            1u,
            0xFFFFFFFFu,
            7u, // shift amounts about the word's width
            31u,
            32u,
            33u};
}

// Three operand registers: a and b pair every special with every special (a row-major square), then
// random words; c holds a mix of zeros and non-zeros (vsel's mask) and random words.
std::array<std::vector<std::uint32_t>, 3> operands()
{
    const std::vector<std::uint32_t> specials = specialWords();
    std::mt19937 random(20261201);
    std::array<std::vector<std::uint32_t>, 3> v;
    for (auto& r : v)
        r.resize(kElements);
    const std::size_t n = specials.size();
    for (int i = 0; i < kElements; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const bool square = k < n * n;
        v[0][k] = square ? specials[k / n] : static_cast<std::uint32_t>(random());
        v[1][k] = square ? specials[k % n] : static_cast<std::uint32_t>(random());
        v[2][k] = k % 3 == 0 ? 0u : static_cast<std::uint32_t>(random());
    }
    return v;
}

trace::Payload bytesOf(const std::vector<std::uint32_t>& words)
{
    trace::Payload p;
    p.bytes.resize(words.size() * 4);
    std::memcpy(p.bytes.data(), words.data(), p.bytes.size());
    return p;
}

using Definition = std::function<std::uint32_t(std::uint32_t a, std::uint32_t b, std::uint32_t c)>;
std::uint32_t f32(float x)
{
    return asWord(x);
}

// (assembly of the op on v1, v2, v3 into v10, its definition on one element)
struct Op
{
    const char* assembly;
    Definition definition;
    bool floatResult = true; // an f32 result (else s32 or raw bits)
};

std::vector<Op> ops()
{
    const auto saturating = [](float x) -> std::uint32_t {
        if (std::isnan(x))
            return 0;
        if (x >= 2147483648.0f)
            return 0x7FFFFFFFu;
        if (x < -2147483648.0f)
            return 0x80000000u;
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(x));
    };
    // vmax / vmin (docs/isa.md): a NaN operand gives the other; otherwise by value, with -0 below +0.
    const auto isNaN = [](std::uint32_t a) { return std::isnan(asFloat(a)); };
    const auto below = [](std::uint32_t a, std::uint32_t b) {
        const float x = asFloat(a), y = asFloat(b);
        return x < y || (x == y && std::signbit(x) && !std::signbit(y));
    };
    return {
        {"vadd.f32 v10, v1, v2", [](auto a, auto b, auto) { return f32(asFloat(a) + asFloat(b)); }},
        {"vsub.f32 v10, v1, v2", [](auto a, auto b, auto) { return f32(asFloat(a) - asFloat(b)); }},
        {"vmul.f32 v10, v1, v2", [](auto a, auto b, auto) { return f32(asFloat(a) * asFloat(b)); }},
        {"vmax.f32 v10, v1, v2",
         [=](auto a, auto b, auto) { return isNaN(a) || (!isNaN(b) && below(a, b)) ? b : a; }},
        {"vmin.f32 v10, v1, v2",
         [=](auto a, auto b, auto) { return isNaN(a) || (!isNaN(b) && below(b, a)) ? b : a; }},
        {"vfma.f32 v10, v1, v2, v3",
         [](auto a, auto b, auto c) { return f32(std::fma(asFloat(a), asFloat(b), asFloat(c))); }},
        {"vadd.s32 v10, v1, v2", [](auto a, auto b, auto) { return a + b; }, false},
        {"vsub.s32 v10, v1, v2", [](auto a, auto b, auto) { return a - b; }, false},
        {"vmul.s32 v10, v1, v2", [](auto a, auto b, auto) { return a * b; }, false},
        {"vand v10, v1, v2", [](auto a, auto b, auto) { return a & b; }, false},
        {"vor v10, v1, v2", [](auto a, auto b, auto) { return a | b; }, false},
        {"vxor v10, v1, v2", [](auto a, auto b, auto) { return a ^ b; }, false},
        {"vcmp.lt.f32 v10, v1, v2",
         [](auto a, auto b, auto) { return std::uint32_t(asFloat(a) < asFloat(b)); }, false},
        {"vcmp.eq.f32 v10, v1, v2",
         [](auto a, auto b, auto) { return std::uint32_t(asFloat(a) == asFloat(b)); }, false},
        {"vsel v10, v3, v1, v2", [](auto a, auto b, auto c) { return c != 0 ? a : b; }, false},
        {"vcvt.f32.s32 v10, v1",
         [](auto a, auto, auto) { return f32(static_cast<float>(static_cast<std::int32_t>(a))); }},
        {"vcvt.s32.f32 v10, v1", [saturating](auto a, auto, auto) { return saturating(asFloat(a)); }, false},
        {"vshl v10, v1, v2", [](auto a, auto b, auto) { return b >= 32 ? 0u : a << b; }, false},
        {"vshr v10, v1, v2", [](auto a, auto b, auto) { return b >= 32 ? 0u : a >> b; }, false},
        {"vsra v10, v1, v2",
         [](auto a, auto b, auto) {
             return static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> (b >= 31 ? 31 : b));
         },
         false},
        {"vpopcnt v10, v1", [](auto a, auto, auto) { return static_cast<std::uint32_t>(std::popcount(a)); },
         false},
        {"vclz v10, v1", [](auto a, auto, auto) { return static_cast<std::uint32_t>(std::countl_zero(a)); },
         false},
        {"vexp.f32 v10, v1", [](auto a, auto, auto) { return f32(std::exp(asFloat(a))); }},
        {"vlog.f32 v10, v1", [](auto a, auto, auto) { return f32(std::log(asFloat(a))); }},
        {"vrcp.f32 v10, v1", [](auto a, auto, auto) { return f32(1.0f / asFloat(a)); }},
        {"vrsqrt.f32 v10, v1", [](auto a, auto, auto) { return f32(1.0f / std::sqrt(asFloat(a))); }},
        {"vtanh.f32 v10, v1", [](auto a, auto, auto) { return f32(std::tanh(asFloat(a))); }},
    };
}

QString hexWord(std::uint32_t w)
{
    return QStringLiteral("0x%1").arg(w, 8, 16, QLatin1Char('0'));
}

} // namespace

class TestGrmElementwise : public QObject
{
    Q_OBJECT
private slots:
    void everyOpGivesItsDefinitionBitForBit_data()
    {
        QTest::addColumn<int>("op");
        const std::vector<Op> all = ops();
        for (std::size_t i = 0; i < all.size(); ++i)
            QTest::newRow(all[i].assembly) << static_cast<int>(i);
    }
    void everyOpGivesItsDefinitionBitForBit()
    {
        QFETCH(int, op);
        const Op o = ops()[static_cast<std::size_t>(op)];
        auto t = assembly::assemble(std::string(".vmem out, 0, 4096\n    ") + o.assembly +
                                        "\n    vst v10, [out]\n    halt\n",
                                    "elementwise.xasm");
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().toString().c_str());
        const auto in = operands();
        for (int r = 0; r < 3; ++r)
            t->chips[0].initial.vectorRegisters[r + 1] = bytesOf(in[static_cast<std::size_t>(r)]);
        auto replayed = test::replayTrace(std::move(t).value());
        QVERIFY2(!replayed->result.fault, test::faultText(*replayed).c_str());
        std::vector<std::uint32_t> out(kElements);
        replayed->result.finalState[0].vmem.read(
            0, {reinterpret_cast<std::uint8_t*>(out.data()), 4 * kElements});
        for (std::size_t i = 0; i < out.size(); ++i) {
            std::uint32_t expected = o.definition(in[0][i], in[1][i], in[2][i]);
            // An f32 result that is NaN is the default quiet NaN (docs/isa.md), whichever NaN the host made.
            if (o.floatResult && std::isnan(asFloat(expected)))
                expected = 0x7FC00000u;
            QVERIFY2(
                out[i] == expected,
                qPrintable(QStringLiteral("element %1: %2 (a %3, b %4, c %5) gave %6, its definition %7")
                               .arg(i)
                               .arg(QString::fromLatin1(o.assembly), hexWord(in[0][i]), hexWord(in[1][i]),
                                    hexWord(in[2][i]), hexWord(out[i]), hexWord(expected))));
        }
    }
};

QTEST_APPLESS_MAIN(TestGrmElementwise)
#include "tst_grm_elementwise.moc"

// Special values through the StableHLO lowering against the interpreter: `maximum` and `minimum` return
// their first NaN operand bit for bit (llvm::maximum / llvm::minimum, what StableHLO's interpreter
// computes); a maximum or minimum reduction over a NaN is NaN on the GRM as in the interpreter, where the
// vector unit's vmax / vmin / xlu.rmax alone would skip it; every unary function keeps NaN, the
// infinities and the sign of zero where the interpreter does, and stays close near the ends of f32's range
// (docs/stablehlo.md, "Semantics").
#include "sim/stablehlo_lowering_support.h"

#include <bit>
#include <cmath>

using namespace xps;

namespace {

// An element's 32 bits: an f32's encoding, an integer's two's complement.
std::uint32_t elementBits(shlo::ElementType type, double value)
{
    if (type == shlo::ElementType::I32 || type == shlo::ElementType::I1)
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
    return std::bit_cast<std::uint32_t>(static_cast<float>(value));
}

std::string hexOf(std::uint32_t bits)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08X", bits);
    return text;
}

// `text`'s @main compiled and replayed, and interpreted; the bits of every element of every result, one
// result after the other.
struct Both
{
    std::vector<std::uint32_t> replay, interpreter;
    std::string failure;
};

Both run(const std::string& text, const shlo::CompileOptions& options = {})
{
    Both out;
    auto m = shlo::parseModule(text, "nan.mlir");
    if (!m) {
        out.failure = m.error().toString();
        return out;
    }
    shlo::Interpreter interpreter(*m);
    auto expected = interpreter.run(*m->entry(), {});
    auto compiled = shlo::compileModule(*m, options);
    if (!expected || !compiled) {
        out.failure = !expected ? expected.error().toString() : compiled.error().toString();
        return out;
    }
    auto replayed = sim::replayAndCheck(*m, *compiled);
    if (!replayed) {
        out.failure = replayed.error().toString();
        return out;
    }
    for (const shlo::TensorValue& result : replayed->results)
        for (const double v : result.data)
            out.replay.push_back(elementBits(result.type.element, v));
    for (const shlo::TensorValue& result : *expected)
        for (const double v : result.data)
            out.interpreter.push_back(elementBits(result.type.element, v));
    return out;
}

bool isNan(std::uint32_t bits)
{
    return std::isnan(std::bit_cast<float>(bits));
}

// The first element where the replay is not the interpreter's kind of value (NaN, the same infinity, the
// same zero, sign included) or, finite, not within `tolerance` of it relatively; empty if there is none.
std::string firstDifference(const Both& r, float tolerance)
{
    for (std::size_t i = 0; i < r.replay.size(); ++i) {
        const float got = std::bit_cast<float>(r.replay[i]);
        const float want = std::bit_cast<float>(r.interpreter[i]);
        const bool same = std::isnan(want) ? std::isnan(got)
                          : std::isinf(want) || want == 0.0f
                              ? r.replay[i] == r.interpreter[i]
                              : std::isfinite(got) && std::fabs(got - want) <= tolerance * std::fabs(want);
        if (!same)
            return "element " + std::to_string(i) + ": replay " + hexOf(r.replay[i]) + " (" +
                   std::to_string(got) + "), interpreter " + hexOf(r.interpreter[i]) + " (" +
                   std::to_string(want) + ")";
    }
    return {};
}

// Four rows of three: a quiet NaN with a payload among numbers, signed zeros, -inf only, +inf among numbers.
constexpr const char* kRows = "dense<[[1.0, 0x7FC00009, 3.0], [-0.0, -0.0, -0.0], [0xFF800000, 0xFF800000, "
                              "0xFF800000], [5.0, 0x7F800000, 2.0]]> : tensor<4x3xf32>";

std::string reduceModule(const char* op, const char* init, const char* dimensions, const char* resultType)
{
    return std::string("func.func public @main() -> ") + resultType + " {\n  %x = stablehlo.constant " +
           kRows + "\n  %i = stablehlo.constant dense<" + init +
           "> : tensor<f32>\n  %r = stablehlo.reduce(%x init: %i) "
           "applies stablehlo." +
           op + " across dimensions = [" + dimensions + "] : (tensor<4x3xf32>, tensor<f32>) -> " +
           resultType + "\n  return %r : " + resultType + "\n}\n";
}

} // namespace

class TestStableHloNan : public QObject
{
    Q_OBJECT

private slots:
    // The first NaN operand, its payload kept; -0 below +0. The interpreter and the replay agree bit for bit
    // with what llvm::maximum / llvm::minimum give.
    void maximumAndMinimumReturnTheFirstNaN_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QList<std::uint32_t>>("expected");
        QTest::newRow("maximum") << QStringLiteral("maximum")
                                 << QList<std::uint32_t>{0x7FC00003, 0x7FC00001, 0x7FC00002, 0xFFC00005,
                                                         0x00000000, 0x00000000, 0x40000000};
        QTest::newRow("minimum") << QStringLiteral("minimum")
                                 << QList<std::uint32_t>{0x7FC00003, 0x7FC00001, 0x7FC00002, 0xFFC00005,
                                                         0x80000000, 0x80000000, 0x3F800000};
    }
    void maximumAndMinimumReturnTheFirstNaN()
    {
        QFETCH(QString, op);
        QFETCH(QList<std::uint32_t>, expected);
        const std::string text =
            "func.func public @main() -> tensor<7xf32> {\n"
            "  %a = stablehlo.constant dense<[1.0, 0x7FC00001, 0x7FC00002, 2.0, -0.0, 0.0, 1.0]> : "
            "tensor<7xf32>\n"
            "  %b = stablehlo.constant dense<[0x7FC00003, 2.0, 0x7FC00004, 0xFFC00005, 0.0, -0.0, 2.0]> : "
            "tensor<7xf32>\n"
            "  %r = stablehlo." +
            op.toStdString() + " %a, %b : tensor<7xf32>\n  return %r : tensor<7xf32>\n}\n";
        const Both r = run(text);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        QCOMPARE(r.replay.size(), std::size_t{7});
        for (std::size_t i = 0; i < r.replay.size(); ++i) {
            const std::string at = "element " + std::to_string(i) + ": replay " + hexOf(r.replay[i]) +
                                   ", interpreter " + hexOf(r.interpreter[i]) + ", expected " +
                                   hexOf(expected[static_cast<qsizetype>(i)]);
            QVERIFY2(r.replay[i] == expected[static_cast<qsizetype>(i)], at.c_str());
            QVERIFY2(r.interpreter[i] == expected[static_cast<qsizetype>(i)], at.c_str());
        }
    }

    // clamp is min(max(x, lo), hi): a NaN in x, then lo, then hi is the result, its payload kept.
    void clampPropagatesANaNBound()
    {
        const Both r =
            run("func.func public @main() -> tensor<5xf32> {\n"
                "  %x = stablehlo.constant dense<[1.0, 0x7FC00001, 5.0, -3.0, 0x7FC00002]> : tensor<5xf32>\n"
                "  %lo = stablehlo.constant dense<[0x7FC00003, 0.0, 0.0, 0.0, 0x7FC00004]> : tensor<5xf32>\n"
                "  %hi = stablehlo.constant dense<[2.0, 2.0, 0x7FC00005, 2.0, 2.0]> : tensor<5xf32>\n"
                "  %r = stablehlo.clamp %lo, %x, %hi : tensor<5xf32>\n  return %r : tensor<5xf32>\n}\n");
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        const std::vector<std::uint32_t> expected = {0x7FC00003, 0x7FC00001, 0x7FC00005, 0x00000000,
                                                     0x7FC00002};
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const std::string at = "element " + std::to_string(i) + ": replay " + hexOf(r.replay[i]) +
                                   ", interpreter " + hexOf(r.interpreter[i]) + ", expected " +
                                   hexOf(expected[i]);
            QVERIFY2(r.replay[i] == expected[i] && r.interpreter[i] == expected[i], at.c_str());
        }
    }

    // Rows (across lanes, then the cross-lane unit), columns (down a register's lanes), a window, a NaN
    // initial value, each unrolled and as counted loops: NaN where the interpreter has NaN (the default NaN:
    // docs/stablehlo.md), every other element bit for bit, -0 included.
    void reductionsOverANaNAreNaN_data()
    {
        QTest::addColumn<QString>("text");
        const auto row = [](const char* name, const std::string& text) {
            QTest::newRow(name) << QString::fromStdString(text);
        };
        row("maximum across rows", reduceModule("maximum", "0xFF800000", "1", "tensor<4xf32>"));
        row("minimum across rows", reduceModule("minimum", "0x7F800000", "1", "tensor<4xf32>"));
        row("maximum down columns", reduceModule("maximum", "0xFF800000", "0", "tensor<3xf32>"));
        row("minimum down columns", reduceModule("minimum", "0x7F800000", "0", "tensor<3xf32>"));
        row("a NaN initial value", reduceModule("maximum", "0x7FC00000", "1", "tensor<4xf32>"));
        row("a NaN initial value down columns", reduceModule("minimum", "0x7FC00000", "0", "tensor<3xf32>"));
        row("reduce_window maximum", R"(func.func public @main() -> tensor<4x2xf32> {
  %x = stablehlo.constant dense<[[1.0, 0x7FC00009, 3.0], [-0.0, -0.0, -0.0], [0xFF800000, 0xFF800000, 0xFF800000], [5.0, 0x7F800000, 2.0]]> : tensor<4x3xf32>
  %i = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %i) <{window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %m = stablehlo.maximum %p, %q : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
)");
        // 300 rows of 200: two chunks of 128 lanes a row and 38 groups of 8 rows (a loop when forced); one
        // NaN deep inside.
        row("maximum across wide rows", R"(func.func public @main() -> tensor<300xf32> {
  %i = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.iota dim = 1 : tensor<300x200xf32>
  %n = stablehlo.constant dense<0x7FC00000> : tensor<300x200xf32>
  %k = stablehlo.iota dim = 0 : tensor<300x200xi32>
  %j = stablehlo.iota dim = 1 : tensor<300x200xi32>
  %s = stablehlo.add %k, %j : tensor<300x200xi32>
  %t = stablehlo.constant dense<411> : tensor<300x200xi32>
  %c = stablehlo.compare EQ, %s, %t : (tensor<300x200xi32>, tensor<300x200xi32>) -> tensor<300x200xi1>
  %x = stablehlo.select %c, %n, %z : tensor<300x200xi1>, tensor<300x200xf32>
  %r = stablehlo.reduce(%x init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<300x200xf32>, tensor<f32>) -> tensor<300xf32>
  return %r : tensor<300xf32>
}
)");
    }
    void reductionsOverANaNAreNaN()
    {
        QFETCH(QString, text);
        for (const bool loops : {false, true}) {
            shlo::CompileOptions options;
            options.loops = loops ? shlo::CompileOptions::Loops::Always : shlo::CompileOptions::Loops::Never;
            const Both r = run(text.toStdString(), options);
            QVERIFY2(r.failure.empty(), r.failure.c_str());
            QCOMPARE(r.replay.size(), r.interpreter.size());
            std::size_t nans = 0;
            for (std::size_t i = 0; i < r.replay.size(); ++i) {
                const std::string at = std::string(loops ? "looped, " : "") + "element " + std::to_string(i) +
                                       ": replay " + hexOf(r.replay[i]) + ", interpreter " +
                                       hexOf(r.interpreter[i]);
                nans += isNan(r.interpreter[i]) ? 1 : 0;
                if (isNan(r.interpreter[i]))
                    QVERIFY2(r.replay[i] == 0x7FC00000, at.c_str()); // the vector unit's default NaN
                else
                    QVERIFY2(r.replay[i] == r.interpreter[i], at.c_str());
            }
            QVERIFY(nans > 0); // each case reduces over a NaN somewhere
        }
    }

    // Special values through every unary and binary function: the same kind of value as the interpreter
    // (NaN, the same infinity, the same zero, sign included) and finite results within a relative tolerance
    // of its. Unary: NaN, both infinities and zeros, a denormal, numbers near ln FLT_MAX (e^88.5 - 1 is
    // finite), arguments of 10^7; 2e-6 (16 ulp: a denormal's cube root is the least exact), 1e-5 for the
    // trigonometric functions, whose reduction by pi/2 loses bits at 10^7 (2.2e-6 for cos, 4e-6 for tan;
    // before the quadrant was taken from k's integer, cos(-10^7) was -0.34 instead of -0.91). Binary: both
    // zeros and infinities in each order and sign, NaN, a zero or infinite divisor (atan2 of two infinities
    // is +-pi/4 or +-3pi/4, of +-0 and -0 +-pi; remainder by an infinity is the dividend). Left out, as
    // docs/stablehlo.md says: arguments past 10^7, denormal divisors, quotients past 2^31 in remainder.
    void specialValuesMatchTheInterpreter_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<bool>("binary");
        QTest::addColumn<float>("tolerance");
        for (const char* op : {"abs", "negate", "sign", "floor", "ceil", "round_nearest_even",
                               "round_nearest_afz", "exponential", "exponential_minus_one", "log",
                               "log_plus_one", "logistic", "sqrt", "rsqrt", "cbrt", "tanh"})
            QTest::newRow(op) << QString::fromLatin1(op) << false << 2e-6f;
        for (const char* op : {"sine", "cosine", "tan"})
            QTest::newRow(op) << QString::fromLatin1(op) << false << 1e-5f;
        for (const char* op : {"add", "subtract", "multiply", "divide", "power", "atan2", "remainder"})
            QTest::newRow(op) << QString::fromLatin1(op) << true << 2e-6f;
    }
    void specialValuesMatchTheInterpreter()
    {
        QFETCH(QString, op);
        QFETCH(bool, binary);
        QFETCH(float, tolerance);
        const std::string unaryOperand =
            "[0x7FC00000, 0x7F800000, 0xFF800000, -0.0, 0.0, 1.0e-40, -1.0, 3.5, "
            "1.0e7, -1.0e7, 88.5, -88.5, 0.5, -0.5, 2.5, -2.5, 0.0, 0.0]";
        const std::string a =
            "[0x7FC00000, 1.0, 0x7F800000, 0x7F800000, 0xFF800000, 0xFF800000, 0.0, -0.0, 0.0, "
            "-0.0, -1.0, 3.5, -3.5, 2.0, -8.0, 0.5, 7.0, 5.0]";
        const std::string b =
            "[1.0, 0x7FC00000, 0x7F800000, 0xFF800000, 0x7F800000, 0xFF800000, -0.0, -0.0, 0.0, "
            "0.0, 0.0, 0x7F800000, 0xFF800000, 0.5, 0.3333333, -2.0, 2.5, -0.0]";
        std::string text = "func.func public @main() -> tensor<18xf32> {\n  %a = stablehlo.constant dense<";
        text += (binary ? a : unaryOperand) + "> : tensor<18xf32>\n";
        if (binary)
            text += "  %b = stablehlo.constant dense<" + b + "> : tensor<18xf32>\n";
        text += "  %r = stablehlo." + op.toStdString() + (binary ? " %a, %b" : " %a") +
                " : tensor<18xf32>\n  return %r : tensor<18xf32>\n}\n";
        const Both r = run(text);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        const std::string difference = firstDifference(r, tolerance);
        QVERIFY2(difference.empty(), difference.c_str());
    }

    // i32 maximum, minimum, clamp and compare exactly for every value, where the vector unit compares only
    // f32 and integers past 2^24 round together (max(16777217, 16777216) was 16777216); abs (INT_MIN stays)
    // and sign, which had no lowering.
    void integersCompareExactlyPastF32()
    {
        const std::string values =
            "-2147483648, 2147483647, 16777217, 16777216, -16777217, -16777216, 0, -1, 1, "
            "2147483646, 7, -7";
        const std::string others =
            "2147483647, -2147483648, 16777216, 16777217, -16777216, -16777217, 0, 0, 1, "
            "2147483647, -7, 7";
        const std::string t = "tensor<12xi32>", p = "tensor<12xi1>";
        std::string text = "func.func public @main() -> (" + t + ", " + t + ", " + t + ", " + t + ", " + t;
        for (int i = 0; i < 6; ++i)
            text += ", " + p;
        text +=
            ") {\n  %a = stablehlo.constant dense<[" + values + "]> : " + t +
            "\n  %b = stablehlo.constant dense<[" + others + "]> : " + t +
            "\n  %lo = stablehlo.constant dense<[0, 0, 16777217, 16777217, -16777217, -16777216, 0, 0, 2, "
            "2147483647, -8, -6]> : " +
            t +
            "\n  %hi = stablehlo.constant dense<[10, 2147483646, 16777218, 16777218, -16777216, -16777216, "
            "0, 0, "
            "3, 2147483647, -7, 6]> : " +
            t + "\n  %abs = stablehlo.abs %a : " + t + "\n  %sign = stablehlo.sign %a : " + t +
            "\n  %max = stablehlo.maximum %a, %b : " + t + "\n  %min = stablehlo.minimum %a, %b : " + t +
            "\n  %cl = stablehlo.clamp %lo, %a, %hi : " + t + "\n";
        for (const char* d : {"LT", "LE", "GT", "GE", "EQ", "NE"})
            text += std::string("  %") + d + " = stablehlo.compare " + d + ", %a, %b, SIGNED : (" + t + ", " +
                    t + ") -> " + p + "\n";
        text += "  return %abs, %sign, %max, %min, %cl, %LT, %LE, %GT, %GE, %EQ, %NE : " + t + ", " + t +
                ", " + t + ", " + t + ", " + t;
        for (int i = 0; i < 6; ++i)
            text += ", " + p;
        text += "\n}\n";
        const Both r = run(text);
        QVERIFY2(r.failure.empty(), r.failure.c_str());
        QCOMPARE(r.replay.size(), std::size_t{11 * 12});
        for (std::size_t i = 0; i < r.replay.size(); ++i) {
            const std::string at = "result " + std::to_string(i / 12) + ", element " +
                                   std::to_string(i % 12) + ": replay " +
                                   std::to_string(static_cast<std::int32_t>(r.replay[i])) + ", interpreter " +
                                   std::to_string(static_cast<std::int32_t>(r.interpreter[i]));
            QVERIFY2(r.replay[i] == r.interpreter[i], at.c_str());
        }
        QCOMPARE(static_cast<std::int32_t>(r.replay[2 * 12 + 3]), 16777217); // max(16777216, 16777217)
    }
};

QTEST_GUILESS_MAIN(TestStableHloNan)
#include "tst_stablehlo_nan.moc"

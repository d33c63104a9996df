// Shifts and bit counts on every integer type, on the vector unit's vshl / vshr / vsra / vpopcnt / vclz:
// bit for bit against the reference interpreter, with amounts below, at and past each type's width (an
// 8- or 16-bit value is held sign- or zero-extended in its word, so its own bits are shifted and brought
// back to its width), and what a 64-bit value's low half cannot give refused at its line. The StableHLO
// project's shift modules run in tst_stablehlo_project.
#include "stablehlo_lowering_support.h"

#include <cmath>
#include <limits>

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

// %r = op(%a, %b) (or op(%a)) on constants of `element`, 12 elements each.
std::string bitModule(const std::string& op, const char* element, const std::string& a, const std::string& b)
{
    const std::string t = std::string("tensor<12x") + element + ">";
    std::string text =
        "func.func public @main() -> " + t + " {\n  %a = stablehlo.constant dense<[" + a + "]> : " + t + "\n";
    if (!b.empty())
        text += "  %b = stablehlo.constant dense<[" + b + "]> : " + t + "\n  %r = " + op + " %a, %b : " + t +
                "\n";
    else
        text += "  %r = " + op + " %a : " + t + "\n";
    return text + "  return %r : " + t + "\n}\n";
}

} // namespace

class TestStablehloBits : public QObject
{
    Q_OBJECT

private slots:
    void shiftsAndCountsHoldToTheInterpreter_data()
    {
        QTest::addColumn<QString>("element");
        QTest::addColumn<QString>("values");
        QTest::addColumn<QString>("amounts");
        // Values at the type's extremes and around its sign bit; amounts 0, 1, below, at and past the width.
        QTest::newRow("i8") << "i8"
                            << "-128, -1, 127, 5, -77, 0, 64, -64, 3, 100, -2, 1"
                            << "0, 1, 7, 8, 9, 31, 32, 3, -1, 6, 2, 100";
        QTest::newRow("ui8") << "ui8"
                             << "255, 128, 127, 5, 200, 0, 64, 1, 3, 100, 254, 129"
                             << "0, 1, 7, 8, 9, 31, 32, 3, 255, 6, 2, 100";
        QTest::newRow("i16") << "i16"
                             << "-32768, -1, 32767, 5, -1234, 0, 256, -300, 3, 100, -2, 1"
                             << "0, 1, 15, 16, 17, 31, 32, 3, -1, 6, 2, 100";
        QTest::newRow("ui16") << "ui16"
                              << "65535, 32768, 32767, 5, 40000, 0, 256, 1, 3, 100, 65534, 1"
                              << "0, 1, 15, 16, 17, 31, 32, 3, 65535, 6, 2, 100";
        QTest::newRow("i32") << "i32"
                             << "-2147483648, -1, 2147483647, 5, -123456, 0, 65536, -7, 3, 100, -2, 1"
                             << "0, 1, 30, 31, 32, 33, 64, 3, -1, 6, 2, 100";
        QTest::newRow("ui32") << "ui32"
                              << "4294967295, 2147483648, 2147483647, 5, 3000000000, 0, 65536, 1, 3, "
                                 "100, 4294967294, 1"
                              << "0, 1, 30, 31, 32, 33, 64, 3, 4294967295, 6, 2, 100";
    }
    void shiftsAndCountsHoldToTheInterpreter()
    {
        QFETCH(QString, element);
        QFETCH(QString, values);
        QFETCH(QString, amounts);
        const auto e = element.toStdString();
        for (const char* op :
             {"stablehlo.shift_left", "stablehlo.shift_right_logical", "stablehlo.shift_right_arithmetic"}) {
            std::string failure;
            QVERIFY2(worstUlp(bitModule(op, e.c_str(), values.toStdString(), amounts.toStdString()),
                              &failure) == 0,
                     (std::string(op) + ": " + failure).c_str());
        }
        for (const char* op : {"stablehlo.popcnt", "stablehlo.count_leading_zeros"}) {
            std::string failure;
            QVERIFY2(worstUlp(bitModule(op, e.c_str(), values.toStdString(), ""), &failure) == 0,
                     (std::string(op) + ": " + failure).c_str());
        }
    }

    // clamp of unsigned words compares them as unsigned (a bound past 2^31 is above every smaller value).
    void unsignedClamp()
    {
        const std::string t = "tensor<6xui32>";
        const std::string text =
            "func.func public @main() -> " + t +
            " {\n  %lo = stablehlo.constant dense<[1, 5, 2147483648, 0, 7, 3000000000]> : " + t +
            "\n  %x = stablehlo.constant dense<[0, 4294967295, 2147483647, 9, 7, 3000000001]> : " + t +
            "\n  %hi = stablehlo.constant dense<[3, 4000000000, 4294967295, 8, 6, 3000000002]> : " + t +
            "\n  %r = stablehlo.clamp %lo, %x, %hi : " + t + "\n  return %r : " + t + "\n}\n";
        std::string failure;
        QCOMPARE(worstUlp(text, &failure), std::uint64_t{0});
        QVERIFY2(failure.empty(), failure.c_str());
    }

    // reduce_precision to f16's format (e5m10) as XLA computes it: rounded to nearest even at the tenth
    // mantissa bit, past f16's range to infinity and below its smallest normal to zero (XLA's format has no
    // subnormals), a NaN kept; the GRM's bit code and the interpreter agree.
    void reducePrecisionAsXlaDoes()
    {
        const std::string t = "tensor<12xf32>";
        const std::string text =
            "func.func public @main() -> " + t +
            " {\n  %x = stablehlo.constant dense<[1.0, 1.1, 65504.0, 65520.0, 1.0e-5, -3.14159, "
            "0.0, -0.0, 0x7F800000, 0x7FC00000, 6.1035156e-05, 1.0e30]> : " +
            t + "\n  %r = stablehlo.reduce_precision %x, format = e5m10 : " + t + "\n  return %r : " + t +
            "\n}\n";
        auto m = parseModule(text, "case.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        Interpreter interpreter(*m);
        auto r = interpreter.run(*m->entry(), {});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        const double inf = std::numeric_limits<double>::infinity();
        const std::vector<double> want = {1.0, 1.099609375, 65504.0,         inf, 0.0, -3.140625, 0.0, -0.0,
                                          inf, 0.0,         6.103515625e-05, inf};
        for (std::size_t i = 0; i < want.size(); ++i)
            if (i == 9)
                QVERIFY(std::isnan(r->front().data[i]));
            else
                QCOMPARE(r->front().data[i], want[i]);
        QVERIFY(std::signbit(r->front().data[7]));
        std::string failure;
        QCOMPARE(worstUlp(text, &failure), std::uint64_t{0});
        // A format that is not eXmY is refused at the op, saying what it takes.
        auto bad = parseModule("func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                               "  %r = stablehlo.reduce_precision %x, format = e5 : tensor<2xf32>\n"
                               "  return %r : tensor<2xf32>\n}\n",
                               "bad.mlir");
        QVERIFY(bad.ok());
        auto compiled = compileModule(*bad);
        QVERIFY(!compiled.ok());
        QVERIFY2(compiled.error().toString().starts_with(
                     "bad.mlir:2:8: stablehlo.reduce_precision: reduce_precision "
                     "needs its format: format = eXmY (e5m10)"),
                 compiled.error().toString().c_str());
    }

    // A 64-bit value is held as its low half: a left shift and an arithmetic right shift of values that fit
    // 32 bits are exact; a logical right shift of a signed one and a bit count need the high half, and say
    // so.
    void sixtyFourBitsWhereTheLowHalfSuffices()
    {
        std::string failure;
        const char* values = "-5, -1, 2147483647, 5, -123456, 0, 65536, -7, 3, 100, -2, 1";
        const char* amounts = "0, 1, 30, 31, 32, 33, 64, 3, 63, 6, 2, 100";
        // Left shifts whose results fit 32 bits, or are shifted out (64 and more).
        QCOMPARE(worstUlp(bitModule("stablehlo.shift_left", "i64",
                                    "-5, -1, 1000, 5, -123, 0, 7, -7, 3, 100, -2, 1",
                                    "0, 1, 20, 3, 10, 64, 100, 3, 15, 6, 2, 70"),
                          &failure),
                 std::uint64_t{0});
        QCOMPARE(worstUlp(bitModule("stablehlo.shift_right_arithmetic", "i64", values, amounts), &failure),
                 std::uint64_t{0});
        auto m = parseModule(bitModule("stablehlo.shift_right_logical", "i64", values, amounts), "wide.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m);
        QVERIFY(!compiled.ok());
        QCOMPARE(compiled.error().toString(),
                 std::string("wide.mlir:4:8: stablehlo.shift_right_logical: stablehlo.shift_right_logical on "
                             "i64 has no lowering to xpu-v1 yet"));
    }
};

QTEST_GUILESS_MAIN(TestStablehloBits)
#include "tst_stablehlo_bits.moc"

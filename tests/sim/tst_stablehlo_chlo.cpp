// chlo's inverse trigonometric and hyperbolic functions: the reference interpreter computes each exactly
// (libm in double, rounded once); the lowering writes them as StableHLO's chlo legalization does and fuses
// the pieces into one kernel. Held to each other over the regions each formula guards (small arguments,
// near 1, past sqrt(max)), and NaN outside the domain; the StableHLO project's own modules for them (XLA's
// expected values) run in tst_stablehlo_project.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

std::string unaryModule(const std::string& op, const std::string& values, int count,
                        const char* element = "f32")
{
    const std::string t = "tensor<" + std::to_string(count) + "x" + element + ">";
    return "func.func public @main() -> " + t + " {\n  %x = stablehlo.constant dense<[" + values +
           "]> : " + t + "\n  %r = " + op + " %x : " + t + " -> " + t + "\n  return %r : " + t + "\n}\n";
}

} // namespace

class TestStablehloChlo : public QObject
{
    Q_OBJECT

private slots:
    void replayHoldsToTheFunction_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("values");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("ulps");
        // Each formula's regions: the small-argument form, near its poles, the large-argument form.
        const char* bounded = "-0.999, -0.5, -1.0e-3, 0.0, 1.0e-6, 0.25, 0.7, 0.999, 1.0, -1.0, 1.5, -2.0";
        const char* anywhere =
            "-1.0e30, -300.0, -2.0, -0.5, -1.0e-5, 0.0, 1.0e-5, 0.3, 1.0, 7.5, 1.0e19, 3.0e38";
        const char* aboveOne =
            "0.5, 1.0, 1.0000001, 1.001, 1.5, 2.0, 10.0, 1000.0, 1.0e10, 1.0e30, 2.0e38, 3.0e38";
        const char* exponents = "-80.0, -20.0, -3.0, -1.0, -0.99, -1.0e-4, 0.0, 1.0e-4, 0.5, 1.0, 12.0, 80.0";
        QTest::newRow("atan") << "chlo.atan" << anywhere << 12 << 3;
        QTest::newRow("asin") << "chlo.asin" << bounded << 12 << 3;
        QTest::newRow("acos") << "chlo.acos" << bounded << 12 << 3;
        QTest::newRow("atanh") << "chlo.atanh" << bounded << 12 << 3;
        QTest::newRow("asinh") << "chlo.asinh" << anywhere << 12 << 3;
        QTest::newRow("acosh") << "chlo.acosh" << aboveOne << 12 << 3;
        // x + log(1/2) rounds before the exponential (XLA's formula, kept so the replay computes what XLA
        // computes): up to 2^-24 |x| relative error in the argument, 80 x that in the result at |x| = 80.
        QTest::newRow("sinh") << "chlo.sinh" << exponents << 12 << 80;
        QTest::newRow("cosh") << "chlo.cosh" << exponents << 12 << 80;
    }
    void replayHoldsToTheFunction()
    {
        QFETCH(QString, op);
        QFETCH(QString, values);
        QFETCH(int, count);
        QFETCH(int, ulps);
        std::string failure;
        const auto worst = worstUlp(unaryModule(op.toStdString(), values.toStdString(), count), &failure);
        QVERIFY2(worst <= static_cast<std::uint64_t>(ulps), failure.c_str());
    }

    // Outside the domain the result is NaN on both engines; f16 is computed in f32 and rounded once.
    void domainsAndHalfPrecision()
    {
        std::string failure;
        QCOMPARE(worstUlp(unaryModule("chlo.atanh", "1.5, -3.0", 2), &failure), std::uint64_t{0});
        QCOMPARE(worstUlp(unaryModule("chlo.acosh", "0.5, -1.0", 2), &failure), std::uint64_t{0});
        QCOMPARE(worstUlp(unaryModule("chlo.asin", "1.5, -2.0", 2), &failure), std::uint64_t{0});
        QVERIFY2(worstUlp(unaryModule("chlo.asinh", "-3.0, 0.125, 100.0, 60000.0", 4, "f16"), &failure) <= 1,
                 failure.c_str());
        QVERIFY2(worstUlp(unaryModule("chlo.cosh", "-3.0, 0.125, 5.0, 11.0", 4, "bf16"), &failure) <= 1,
                 failure.c_str());
    }

    // The expansion's pieces (constants, compares, selects, exponentials) fuse into one kernel.
    void expansionFusesIntoOneKernel()
    {
        std::string failure;
        std::size_t kernels = 0;
        const auto text = unaryModule("chlo.asinh", "-1.0e30, -2.0, 0.0, 0.3, 7.5, 3.0e38", 6);
        QVERIFY2(worstUlp(text, &failure, {}, nullptr,
                          [&](const CompiledModule& m, std::uint64_t) { kernels = m.kernels; }) <= 3,
                 failure.c_str());
        QCOMPARE(kernels, std::size_t{1});
    }
};

QTEST_GUILESS_MAIN(TestStablehloChlo)
#include "tst_stablehlo_chlo.moc"

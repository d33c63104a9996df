// Element-wise kernels compute several registers of the result side by side, each in a register set of its
// own (inputs, step results and the scratch registers of the op sequences), their code interleaved so the
// packer overlaps their latencies (core/stablehlo/lower_elementwise_kernel.cpp). Sharing a register between
// two sets would corrupt results silently; these chains use the ops whose sequences borrow scratch
// registers, over register counts that do not divide by the number of sets, in both layouts.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

// The fused kernel of `m` and the unfused ones, each replayed: the fused one is one kernel with the same
// results bit for bit (each op's instructions on the same f32 values, whichever registers hold them).
void fusedIsUnfusedBitForBit(const Module& m)
{
    std::string failure;
    const auto both = fusedAndApart(m, &failure);
    QVERIFY2(both, failure.c_str());
    QCOMPARE((*both)[0].kernels, std::size_t{1});
    QVERIFY((*both)[0].results == (*both)[1].results);
}

} // namespace

class TestStableHloRegisterSets : public QObject
{
    Q_OBJECT
private slots:
    void registersComputedSideBySideHoldToTheInterpreter_data()
    {
        QTest::addColumn<QString>("text");
        for (const std::int64_t rows : {8, 24, 40}) {
            const std::vector<std::int64_t> shape{rows, 384};
            const std::string t = type(shape);
            const std::string body = "  %s = stablehlo.subtract %a, %b : " + t +
                                     "\n"
                                     "  %d = stablehlo.divide %s, %b : " +
                                     t +
                                     "\n"
                                     "  %m = stablehlo.maximum %d, %a : " +
                                     t +
                                     "\n"
                                     "  %y = stablehlo.atan2 %m, %b : " +
                                     t +
                                     "\n"
                                     "  %r = chlo.erf %y : " +
                                     t + " -> " + t + "\n";
            QTest::newRow(("flat " + std::to_string(rows)).c_str())
                << QString::fromStdString(moduleText(shape, shape, body, t, "f32", true));
            // A row broadcast puts the kernel in the row layout (8 rows x 128 columns a register).
            const std::string row = "tensor<384xf32>";
            const std::string viewBody = "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (" + row +
                                         ") -> " + t +
                                         "\n"
                                         "  %s = stablehlo.subtract %a, %bb : " +
                                         t +
                                         "\n"
                                         "  %d = stablehlo.divide %s, %bb : " +
                                         t +
                                         "\n"
                                         "  %y = stablehlo.atan2 %d, %a : " +
                                         t +
                                         "\n"
                                         "  %r = chlo.erf %y : " +
                                         t + " -> " + t + "\n";
            QTest::newRow(("rows " + std::to_string(rows)).c_str())
                << QString::fromStdString(moduleText(shape, {384}, viewBody, t, "f32", true));
        }
    }

    void registersComputedSideBySideHoldToTheInterpreter()
    {
        QFETCH(QString, text);
        auto m = parseModule(text.toStdString(), "case.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        fusedIsUnfusedBitForBit(*m);
        if (QTest::currentTestFailed())
            return;
        // And the interpreter's results within the ops' own error (atan2 and erf are polynomials).
        std::string failure;
        const std::uint64_t worst = worstUlp(text.toStdString(), &failure);
        QVERIFY2(worst <= 8, failure.c_str());
    }

    void aLongChainSharesRegistersToComputeSideBySide()
    {
        // JAX's tanh GELU, 12 steps: a register each leaves no room for a second set, so the sets reuse
        // registers whose values are dead. The results stay the unfused kernels' bit for bit.
        const std::vector<std::int64_t> shape{40, 512};
        const std::string t = type(shape);
        std::string body;
        for (const auto& [name, line] :
             std::vector<std::pair<std::string, std::string>>{{"x3a", "multiply %a, %a"},
                                                              {"x3", "multiply %x3a, %a"},
                                                              {"c1", "constant dense<4.471500e-02>"},
                                                              {"t1", "multiply %c1, %x3"},
                                                              {"t2", "add %a, %t1"},
                                                              {"c2", "constant dense<0.797884583>"},
                                                              {"t3", "multiply %c2, %t2"},
                                                              {"t4", "tanh %t3"},
                                                              {"c3", "constant dense<1.000000e+00>"},
                                                              {"t5", "add %c3, %t4"},
                                                              {"c4", "constant dense<5.000000e-01>"},
                                                              {"h", "multiply %c4, %a"},
                                                              {"r", "multiply %h, %t5"}})
            body += "  %" + name + " = stablehlo." + line + " : " + t + "\n";
        auto m = parseModule(moduleText(shape, {}, body, t), "case.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        fusedIsUnfusedBitForBit(*m);
    }

    void aChainOfLatenciesOverlapsAcrossRegisters()
    {
        // JAX's sigmoid, 1 / (1 + e^-x), over 64 registers: an exponential and a reciprocal per register,
        // each waited out in turn by one set, overlapped by several.
        const std::vector<std::int64_t> shape{64, 1024};
        const std::string t = type(shape);
        const std::string body =
            "  %n = stablehlo.negate %a : " + t + "\n  %e = stablehlo.exponential %n : " + t +
            "\n  %one = stablehlo.constant dense<1.0> : " + t + "\n  %s = stablehlo.add %one, %e : " + t +
            "\n  %r = stablehlo.divide %one, %s : " + t + "\n";
        auto m = parseModule(moduleText(shape, {}, body, t), "case.mlir");
        QVERIFY(m.ok());
        std::string failure;
        const auto both = fusedAndApart(*m, &failure);
        QVERIFY2(both, failure.c_str());
        const ReplayedLowering& fused = (*both)[0];
        // The transcendental unit's two ops per register (4 cycles each on the default machine) bound the
        // kernel from below; one set at a time would wait out both latencies and the adds per register.
        const std::uint64_t registers = 64;
        QVERIFY2(fused.cycles < registers * 30,
                 qPrintable(QStringLiteral("%1 cycles for %2 registers").arg(fused.cycles).arg(registers)));
    }
};

QTEST_GUILESS_MAIN(TestStableHloRegisterSets)
#include "tst_stablehlo_register_sets.moc"

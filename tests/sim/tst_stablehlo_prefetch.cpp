// XLA's cross-program prefetch (cross_program_prefetch_bytes): of @main's arguments that only dots read, the
// largest that fits is kept in VMEM for the whole program, initialised as its HBM buffer, and the dots read
// it from there. The results are bit for bit those of the program that reads it from HBM (and the reference
// interpreter's); its kernels' DMAs read it VMEM to VMEM, so a dot bound by HBM finishes sooner; an argument
// any other op reads, or one too large, stays in HBM.
#include "stablehlo_lowering_support.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

// @main(%a, %b [, %c]) = dot_general(%a, %b) [+ %c]: arguments, so the prefetch may take one.
std::string dotOfArguments(std::int64_t m, std::int64_t k, std::int64_t n, bool addC)
{
    const std::string a = type({m, k}), b = type({k, n}), out = type({m, n});
    return "func.func public @main(%a: " + a + ", %b: " + b + (addC ? ", %c: " + out : std::string()) +
           ") -> " + out + " {\n  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + a +
           ", " + b + ") -> " + out + "\n" +
           (addC ? "  %r = stablehlo.add %d, %c : " + out + "\n  return %r : " + out + "\n"
                 : "  return %d : " + out + "\n") +
           "}\n";
}

CompileOptions withPrefetch(std::int64_t bytes)
{
    CompileOptions options;
    options.machine.crossProgramPrefetchBytes = bytes;
    options.machine.hbmBandwidthGBs = 50.0; // the dots wait on HBM: what the prefetch saves shows
    return options;
}

// The VMEM buffers the trace declares (the prefetched argument's copy, if any).
std::vector<trace::Buffer> vmemBuffers(const CompiledModule& compiled)
{
    std::vector<trace::Buffer> out;
    for (const auto& b : compiled.trace.chips.front().symbols.buffers)
        if (b.space == isa::Space::Vmem)
            out.push_back(b);
    return out;
}

// DMAs the program starts from VMEM into VMEM.
std::size_t vmemToVmemDmas(const CompiledModule& compiled)
{
    std::size_t n = 0;
    for (const auto& bundle : compiled.trace.chips.front().program.bundles)
        for (const auto& insn : bundle.instructions)
            if (insn.opcode == isa::Opcode::DmaStart && insn.operands.size() >= 2 &&
                insn.operands[0].form == isa::Operand::Form::Mem &&
                insn.operands[0].space == isa::Space::Vmem && insn.operands[1].space == isa::Space::Vmem)
                ++n;
    return n;
}

bool allChecksPassed(const sim::ReplayedModuleCheck& r)
{
    for (const auto& c : r.check.checks)
        if (!c.passed)
            return false;
    return !r.check.checks.empty();
}

} // namespace

class TestStableHloPrefetch : public QObject
{
    Q_OBJECT
private slots:
    void theLargerDotOperandIsReadFromVmemWithTheSameResults_data()
    {
        QTest::addColumn<qint64>("m");
        QTest::addColumn<qint64>("k");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QString>("kept"); // the argument whose copy is in VMEM
        QTest::newRow("weights larger: %b")
            << qint64(16) << qint64(384) << qint64(640) << QStringLiteral("main_arg1_in_vmem");
        QTest::newRow("lhs larger: %a")
            << qint64(520) << qint64(384) << qint64(8) << QStringLiteral("main_arg0_in_vmem");
    }
    void theLargerDotOperandIsReadFromVmemWithTheSameResults()
    {
        QFETCH(qint64, m);
        QFETCH(qint64, k);
        QFETCH(qint64, n);
        QFETCH(QString, kept);
        const std::string text = dotOfArguments(m, k, n, false);
        const auto inHbm = compileAndReplayOrFail(text, withPrefetch(0), true);
        const auto inVmem = compileAndReplayOrFail(text, withPrefetch(1 << 20), true);
        QVERIFY(vmemBuffers(inHbm.compiled).empty());
        QCOMPARE(vmemToVmemDmas(inHbm.compiled), std::size_t{0});
        const auto buffers = vmemBuffers(inVmem.compiled);
        QCOMPARE(buffers.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(buffers.front().name), kept);
        // At the top of VMEM, 4 KiB aligned, as large as the argument (rounded up).
        const std::int64_t bytes = (kept.contains(QStringLiteral("arg1")) ? k * n : m * k) * 4;
        QCOMPARE(buffers.front().size, static_cast<std::uint64_t>((bytes + 4095) / 4096 * 4096));
        QCOMPARE(buffers.front().address + buffers.front().size,
                 static_cast<std::uint64_t>(inVmem.compiled.trace.machine.vmemBytes));
        QVERIFY(vmemToVmemDmas(inVmem.compiled) > 0);
        // Its copy starts as the argument does: the results are the same bit for bit, and the reference's.
        QVERIFY(allChecksPassed(inHbm.replayed));
        QVERIFY(allChecksPassed(inVmem.replayed));
        QCOMPARE(inVmem.replayed.results.front().data, inHbm.replayed.results.front().data);
        // The dot no longer waits for that operand to come from HBM.
        QVERIFY2(inVmem.replayed.cycles < inHbm.replayed.cycles,
                 (std::to_string(inVmem.replayed.cycles) + " cycles, from HBM " +
                  std::to_string(inHbm.replayed.cycles))
                     .c_str());
    }

    void onlyAnArgumentOnlyDotsReadAndThatFitsIsKept()
    {
        // %b is read by the dot only, %c by an add: only %b may be kept.
        const std::string text = dotOfArguments(64, 256, 128, true);
        const auto run = compileAndReplayOrFail(text, withPrefetch(1 << 20), true);
        const auto buffers = vmemBuffers(run.compiled);
        QCOMPARE(buffers.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(buffers.front().name), QStringLiteral("main_arg1_in_vmem"));
        QVERIFY(allChecksPassed(run.replayed));
        // With a limit below %b's 128 KiB, %a (64 KiB) is the largest that fits.
        const auto smaller = compileAndReplayOrFail(text, withPrefetch(100 << 10), true);
        QCOMPARE(QString::fromStdString(vmemBuffers(smaller.compiled).front().name),
                 QStringLiteral("main_arg0_in_vmem"));
        QCOMPARE(smaller.replayed.results.front().data, run.replayed.results.front().data);
        // Below both, nothing is kept.
        const auto none = compileAndReplayOrFail(text, withPrefetch(32 << 10), true);
        QVERIFY(vmemBuffers(none.compiled).empty());
        QCOMPARE(none.replayed.results.front().data, run.replayed.results.front().data);
    }

    void theKeptCopyLeavesTheKernelsTheRestOfVmem()
    {
        // On a machine of 1 MiB of VMEM a copy is kept only where the dot still fits whole beside it: the
        // 768 KiB %b would leave too little (its dot needs 1.6 MiB with it), so the 12 KiB %a is kept instead;
        // a 384 KiB %b is kept (788 KiB with it).
        CompileOptions options = withPrefetch(1 << 30);
        options.machine.vmemBytes = 1 << 20;
        const auto big = compileAndReplayOrFail(dotOfArguments(8, 384, 512, false), options, true);
        QCOMPARE(vmemBuffers(big.compiled).size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(vmemBuffers(big.compiled).front().name),
                 QStringLiteral("main_arg0_in_vmem"));
        const auto kept = compileAndReplayOrFail(dotOfArguments(8, 384, 256, false), options, true);
        QCOMPARE(vmemBuffers(kept.compiled).size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(vmemBuffers(kept.compiled).front().name),
                 QStringLiteral("main_arg1_in_vmem"));
        QVERIFY(allChecksPassed(kept.replayed));
    }
};

QTEST_GUILESS_MAIN(TestStableHloPrefetch)
#include "tst_stablehlo_prefetch.moc"

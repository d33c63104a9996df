// Calibration's second source: measured op latencies read from an XProf profile of the ops on the chip,
// matched by op name and shape.
#include "calibrate/profile_measurements.h"
#include "import/import.h"
#include "test_support.h"
#include "xprof_ops_fixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace xps;
using calibrate::HloInstruction;
using calibrate::parseHloInstruction;

namespace {

Result<calibrate::ProfileMeasurements> measure(const test::tp::XSpace& space, QTemporaryDir& dir)
{
    const std::string path = dir.filePath(QStringLiteral("ops.xplane.pb")).toStdString();
    test::writeFile(path, space.SerializeAsString());
    auto p = importing::importProfile(path);
    if (!p)
        return p.error();
    return calibrate::measurementsFromProfile(*p, "ops.xplane.pb");
}

bool near(double a, double b)
{
    return std::abs(a - b) < 1e-9;
}

} // namespace

class TestProfileMeasurements : public QObject
{
    Q_OBJECT
private slots:
    void hloTextIsReadForOpShapesAndPrimitive()
    {
        const auto dot = parseHloInstruction(
            "ROOT %dot.3 = f32[32,48]{1,0} dot(f32[16,32]{1,0} %a, f32[16,48]{1,0:T(8,128)} %b), "
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}, metadata={op_name=\"jit(f)/jit(main)/"
            "dot_general[dimension_numbers=(([0], [0]), ([], []))]\" source_file=\"a/b.py\"}");
        QVERIFY(dot);
        QCOMPARE(dot->name, std::string("dot.3"));
        QCOMPARE(dot->opcode, std::string("dot"));
        QCOMPARE(dot->primitive, std::string("dot_general"));
        QCOMPARE(dot->result.dtype, std::string("f32"));
        QCOMPARE(dot->result.dims, (std::vector<std::int64_t>{32, 48}));
        QCOMPARE(dot->operands.size(), std::size_t(2));
        QCOMPARE(dot->operands[1].dims, (std::vector<std::int64_t>{16, 48}));
        QCOMPARE(dot->lhsContracting, 0);
        QCOMPARE(dot->rhsContracting, 0);

        // Operands printed without shapes; a tuple result; a scalar.
        const auto bare = parseHloInstruction("%fusion.9 = f16[64,64]{1,0} fusion(%p0, %p1), kind=kOutput");
        QVERIFY(bare && bare->operands.empty() && bare->opcode == "fusion");
        const auto tuple = parseHloInstruction("%t = (f32[2]{0}, s32[]) tuple(f32[2]{0} %a, s32[] %b)");
        QVERIFY(tuple && tuple->result.dims.empty() && tuple->operands.size() == 2);
        QVERIFY(tuple->operands[1].dims.empty() && tuple->operands[1].dtype == "s32");

        // Not an instruction: nothing, never a throw.
        for (const char* junk :
             {"", "fusion.1", "%a = ", "%a = f32[1,2 add(", "%a = f32[1]{0} add(f32[1]{0} %x",
              "%a = f32[<=8]{0} add(f32[1]{0} %x)", "%a = f32[99999999999999]{0} add()",
              "%a = f32[1]{0 add()", "%a = f32[1]{0} (x)"})
            QVERIFY2(!parseHloInstruction(junk), junk);
        QVERIFY(!parseHloInstruction(std::string(2 << 20, 'x')));
    }

    void opsOfAnXProfProfileBecomeMeasurements()
    {
        QTemporaryDir dir;
        const auto found = measure(test::singleOpsOnTpu(), dir);
        QVERIFY2(found, found ? "" : found.error().toString().c_str());
        // One row per (op, shape, dtype), every run of it folded in; the copy and the shapeless fusion left
        // out.
        QCOMPARE(found->rows.size(), std::size_t(3));
        QCOMPARE(found->opsMatched, std::size_t(7));
        QCOMPARE(found->opsSkipped, std::size_t(2));
        std::map<std::string, calibrate::Measurement> byLabel;
        for (const auto& m : found->rows)
            byLabel[m.label()] = m;

        const auto& mm = byLabel.at("matmul 128x256x64 f16"); // C[128,256] = A[128,64] B[64,256]
        QVERIFY(near(mm.averageUs, 2.0));
        QVERIFY(near(mm.minimumUs, 1.8));
        QVERIFY(near(mm.maximumUs, 2.2));
        QVERIFY(near(mm.stddevUs, std::sqrt(0.02))); // population: (0 + 0.04 + 0.04 + 0) / 4
        QCOMPARE(mm.location, std::string("ops.xplane.pb: fusion.7 on /device:TPU:0, 4 runs"));

        // The dot contracts its lhs's first dimension: A is [k, m].
        const auto& dot = byLabel.at("matmul 32x48x16 f32");
        QVERIFY(near(dot.averageUs, 1.5));
        QVERIFY(near(dot.stddevUs, 0.0));

        const auto& add = byLabel.at("add 1024x1024 f16");
        QCOMPARE(add.op, calibrate::OpClass::Add);
        QVERIFY(near(add.averageUs, 19.4));

        const std::string skipped = found->skippedExamples.size() == 2
                                        ? found->skippedExamples[0] + " | " + found->skippedExamples[1]
                                        : std::string();
        QVERIFY2(skipped.find("copy.1: a copy, not a matmul or an add") != std::string::npos,
                 skipped.c_str());
        QVERIFY2(skipped.find("fusion.9: its HLO text does not print operand shapes") != std::string::npos,
                 skipped.c_str());

        // Each row becomes the module calibration compiles, as a CSV row does.
        QVERIFY(calibrate::moduleText(mm).find("tensor<128x64xf16>, tensor<64x256xf16>") !=
                std::string::npos);
    }

    void aProfileWithoutMatchingOpsSaysWhatItFound()
    {
        test::tp::XSpace space = test::singleOpsOnTpu();
        // Keep only the copy's run: XProf's view of a program that did no matmul or add.
        auto* ops = space.mutable_planes(1)->mutable_lines(0);
        ops->mutable_events()->DeleteSubrange(0, 7);
        QCOMPARE(ops->events_size(), 2);
        ops->mutable_events()->RemoveLast();
        QTemporaryDir dir;
        const auto found = measure(space, dir);
        QVERIFY(!found);
        const std::string error = found.error().toString();
        QVERIFY2(error.find("ops.xplane.pb: no measurements: 1 device op runs, none a matmul or an add with "
                            "shapes in its HLO text (copy.1: a copy, not a matmul or an add)") !=
                     std::string::npos,
                 error.c_str());

        // A host-only profile: no device ops at all.
        test::tp::XSpace hostOnly;
        *hostOnly.add_planes() = space.planes(0);
        const auto none = measure(hostOnly, dir);
        QVERIFY(!none && none.error().toString().find("no XLA op ran on a device") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestProfileMeasurements)
#include "tst_profile_measurements.moc"

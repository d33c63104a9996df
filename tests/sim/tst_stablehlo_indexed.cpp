// Data movement addressed by computed indices, on the reference interpreter and on the GRM: scatter (index
// vectors taken in order, so colliding updates see each other; windows of several dimensions; update
// computations of any element-wise body, replace included; f16 packed in HBM; out-of-bounds windows
// skipped; malformed dimension numbers located), dynamic_slice and dynamic_update_slice (starts clamped,
// known or computed), and reductions over integers. The StableHLO project's own modules for these ops run in
// tst_stablehlo_project.
#include "stablehlo_lowering_support.h"

#include <algorithm>

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

namespace {

// %r = scatter(%input, %indices, %updates) with `dims` (the #stablehlo.scatter fields) and an update
// computation returning `body` of %x (the result's element) and %y (the update's), on scalars of `element`.
std::string scatterModule(const std::string& input, const std::string& indices, const std::string& updates,
                          const std::string& dims, const std::string& element, const std::string& body,
                          const std::string& inputType, const std::string& indexType,
                          const std::string& updateType)
{
    const std::string scalar = "tensor<" + element + ">";
    std::string computation = "    ^bb0(%x: " + scalar + ", %y: " + scalar + "):\n";
    std::string result = "%y";
    if (!body.empty()) {
        computation += "      %z = " + body + " %x, %y : " + scalar + "\n";
        result = "%z";
    }
    computation += "      stablehlo.return " + result + " : " + scalar + "\n";
    return "func.func public @main() -> " + inputType + " {\n" + "  %input = stablehlo.constant dense<" +
           input + "> : " + inputType + "\n" + "  %indices = stablehlo.constant dense<" + indices +
           "> : " + indexType + "\n" + "  %updates = stablehlo.constant dense<" + updates +
           "> : " + updateType + "\n" +
           "  %r = \"stablehlo.scatter\"(%input, %indices, %updates) <{scatter_dimension_numbers = " +
           "#stablehlo.scatter<" + dims + ">, unique_indices = false}> ({\n" + computation + "  }) : (" +
           inputType + ", " + indexType + ", " + updateType + ") -> " + inputType +
           "\n  return %r : " + inputType + "\n}\n";
}

std::vector<double> interpreted(const std::string& text)
{
    auto m = parseModule(text, "case.mlir");
    if (!m)
        qFatal("%s", m.error().toString().c_str());
    Interpreter interpreter(*m);
    auto r = interpreter.run(*m->entry(), {});
    if (!r)
        qFatal("%s", r.error().toString().c_str());
    return r->front().data;
}

std::vector<double> replayed(const std::string& text)
{
    auto run = compileAndReplayOrFail(text);
    return run.replayed.results.front().data;
}

} // namespace

class TestStablehloIndexed : public QObject
{
    Q_OBJECT

private slots:
    // Scalar updates into a vector: index 1 twice (the second add sees the first), index 7 outside.
    void collidingUpdatesAddInOrder()
    {
        const auto text = scatterModule(
            "[10, 20, 30, 40, 50]", "[[1], [3], [1], [7]]", "[1, 2, 3, 4]",
            "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1", "i32",
            "stablehlo.add", "tensor<5xi32>", "tensor<4x1xi32>", "tensor<4xi32>");
        const std::vector<double> want = {10, 24, 30, 42, 50};
        QCOMPARE(interpreted(text), want);
        QCOMPARE(replayed(text), want);
    }

    // Rows of a matrix multiplied by update rows, row 2 twice; i64 indices.
    void rowWindowsMultiply()
    {
        const auto text = scatterModule(
            "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]", "[[2], [0], [2]]",
            "[[2.0, 0.5, -1.0], [3.0, 3.0, 3.0], [0.25, 4.0, 2.0]]",
            "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
            "index_vector_dim = 1",
            "f32", "stablehlo.multiply", "tensor<4x3xf32>", "tensor<3x1xi64>", "tensor<3x3xf32>");
        const std::vector<double> want = {3, 6, 9, 4, 5, 6, 3.5, 16, -18, 10, 11, 12};
        QCOMPARE(interpreted(text), want);
        QCOMPARE(replayed(text), want);
    }

    // Two-element windows replaced in a packed f16 vector, the second window overlapping the first's end:
    // the update computation returns the update itself.
    void replacedWindowsInF16()
    {
        const auto text = scatterModule(
            "[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]", "[[4], [1], [2]]", "[[0.5, 0.25], [-1.0, -2.0], [7.0, 8.0]]",
            "update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1", "f16", "",
            "tensor<6xf16>", "tensor<3x1xi32>", "tensor<3x2xf16>");
        const std::vector<double> want = {1, -1, 7, 8, 0.5, 0.25};
        QCOMPARE(interpreted(text), want);
        QCOMPARE(replayed(text), want);
    }

    // Windows of a 3-D input addressed by index vectors of two components (dimension 1, then 0), the
    // first dimension inserted, one index vector far outside: both engines agree bit for bit.
    void indexVectorsIntoAThreeDimensionalInput()
    {
        const auto text = scatterModule(
            "[[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]], "
            "[[17, 18], [19, 20], [21, 22], [23, 24]]]",
            "[[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]]", "1",
            "update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], "
            "index_vector_dim = 2",
            "i32", "stablehlo.add", "tensor<3x4x2xi32>", "tensor<2x3x2xi64>", "tensor<2x3x2x2xi32>");
        const std::vector<double> want = {1,  2,  5,  6,  7,  8,  7,  8,  10, 11, 12, 13,
                                          14, 15, 16, 17, 18, 19, 20, 21, 21, 22, 23, 24};
        QCOMPARE(interpreted(text), want);
        QCOMPARE(replayed(text), want);
    }

    // A window that lies partly outside the input: the spec skips only the elements outside (the
    // reference interpreter), XLA and the GRM the whole window (docs/stablehlo.md states the difference).
    void windowPartlyOutside()
    {
        const auto text = scatterModule(
            "[0, 0, 0, 0, 0, 0]", "[[5], [0]]", "[[1, 2], [3, 4]]",
            "update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1", "i32",
            "stablehlo.add", "tensor<6xi32>", "tensor<2x1xi32>", "tensor<2x2xi32>");
        QCOMPARE(interpreted(text), (std::vector<double>{3, 4, 0, 0, 0, 1}));
        QCOMPARE(replayed(text), (std::vector<double>{3, 4, 0, 0, 0, 0}));
    }

    // Each window is one read-modify-write through VMEM, in order: three DMAs per index vector after the
    // copy of the input and the load of the indices.
    void oneReadModifyWriteAWindow()
    {
        const auto text = scatterModule(
            "[10, 20, 30, 40, 50]", "[[1], [3], [1], [7]]", "[1, 2, 3, 4]",
            "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1", "i32",
            "stablehlo.maximum", "tensor<5xi32>", "tensor<4x1xi32>", "tensor<4xi32>");
        std::string failure;
        std::size_t dmas = 0;
        QCOMPARE(worstUlp(text, &failure, {}, &dmas), std::uint64_t{0});
        QCOMPARE(dmas, std::size_t{2 + 3 * 4});
    }

    // Dimension numbers that do not fit the operands: a located error from the interpreter and from the
    // compiler, naming what is wrong.
    void malformedDimensionNumbersAreLocated()
    {
        const auto text = scatterModule(
            "[1, 2, 3]", "[[0]]", "[[1, 2]]",
            "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
            "index_vector_dim = 1",
            "i32", "stablehlo.add", "tensor<3xi32>", "tensor<1x1xi32>", "tensor<1x2xi32>");
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        Interpreter interpreter(*m);
        auto r = interpreter.run(*m->entry(), {});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().toString().starts_with("case.mlir:5:8:"), r.error().toString().c_str());
        QVERIFY2(r.error().toString().find("must together have the input's rank 1") != std::string::npos,
                 r.error().toString().c_str());
        auto compiled = compileModule(*m);
        QVERIFY(!compiled.ok());
        QVERIFY2(compiled.error().toString().starts_with("case.mlir:5:8:"),
                 compiled.error().toString().c_str());
    }

    // A window read and written at starts computed at run time (from an argument: no folding), each
    // clamped so the window fits: -3 to 0, 7 to the last start that fits; and at constant starts.
    void dynamicSlicesClampTheirStarts()
    {
        const std::string text =
            R"(func.func public @main(%i: tensor<i64>, %j: tensor<i64>) -> (tensor<2x3xf16>, tensor<4x5xf16>) {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0]]> : tensor<4x5xf16>
  %s = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<4x5xf16>, tensor<i64>, tensor<i64>) -> tensor<2x3xf16>
  %u = stablehlo.constant dense<[[-1.0, -2.0], [-3.0, -4.0]]> : tensor<2x2xf16>
  %c = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.dynamic_update_slice %x, %u, %j, %c : (tensor<4x5xf16>, tensor<2x2xf16>, tensor<i64>, tensor<i64>) -> tensor<4x5xf16>
  return %s, %r : tensor<2x3xf16>, tensor<4x5xf16>
}
)";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        Interpreter interpreter(*m);
        const auto scalar = [](ElementType e, double value) {
            return TensorValue{TensorType{{}, e}, {value}};
        };
        auto r = interpreter.run(*m->entry(), {scalar(ElementType::I64, -3), scalar(ElementType::I64, 7)});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->at(0).data, (std::vector<double>{3, 4, 5, 8, 9, 10}));
        QCOMPARE(r->at(1).data, (std::vector<double>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                     11, -1, -2, 14, 15, 16, -3, -4, 19, 20}));
        // The replay draws its own arguments: held to the interpreter on the same ones.
        auto run = compileAndReplayOrFail(text, {}, true);
        QVERIFY(!run.replayed.check.checks.empty());
        for (const auto& c : run.replayed.check.checks)
            QVERIFY2(c.passed, (c.location + ": " + c.worst).c_str());
    }

    // Reductions over integers run the reducer's own vector code: wrapping i32 sums, an i8 maximum over a
    // reduce_window, bit for bit against the interpreter.
    void integerReductions()
    {
        const std::string text = R"(func.func public @main() -> (tensor<3xi32>, tensor<2x2xi8>) {
  %x = stablehlo.constant dense<[[2147483647, 1, 5], [1, 8, 9], [1, 2, 3], [4, -5, 6]]> : tensor<4x3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x3xi32>, tensor<i32>) -> tensor<3xi32>
  %y = stablehlo.constant dense<[[1, -128, 3], [127, 5, -6], [7, 8, 9]]> : tensor<3x3xi8>
  %lo = stablehlo.constant dense<-128> : tensor<i8>
  %m = "stablehlo.reduce_window"(%y, %lo) <{window_dimensions = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<i8>, %b: tensor<i8>):
    %t = stablehlo.maximum %a, %b : tensor<i8>
    stablehlo.return %t : tensor<i8>
  }) : (tensor<3x3xi8>, tensor<i8>) -> tensor<2x2xi8>
  return %s, %m : tensor<3xi32>, tensor<2x2xi8>
}
)";
        auto m = parseModule(text, "case.mlir");
        QVERIFY(m.ok());
        Interpreter interpreter(*m);
        auto r = interpreter.run(*m->entry(), {});
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
        QCOMPARE(r->at(0).data, (std::vector<double>{-2147483643.0, 6, 23}));
        QCOMPARE(r->at(1).data, (std::vector<double>{127, 5, 127, 9}));
        auto run = compileAndReplayOrFail(text, {}, true);
        for (const auto& c : run.replayed.check.checks)
            QVERIFY2(c.passed, (c.location + ": " + c.worst).c_str());
        QCOMPARE(run.replayed.results.at(0).data, r->at(0).data);
        QCOMPARE(run.replayed.results.at(1).data, r->at(1).data);
    }
};

QTEST_GUILESS_MAIN(TestStablehloIndexed)
#include "tst_stablehlo_indexed.moc"

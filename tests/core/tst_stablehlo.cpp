// The StableHLO frontend's parser and reference interpreter: JAX-style modules in both op forms parse to
// the same operations, every check of the bundled test modules holds, a wrong expected value fails naming
// the worst element, and bad or hostile text ends in an error at file:line:column, never a crash or a hang.
#include "test_support.h"

#include "stablehlo/interpreter.h"
#include "stablehlo/lower_pack.h"
// The lowering's ProgramWriter has a member named as Qt's `emit` keyword macro, which this test never uses.
#undef emit
#include "stablehlo/lower_program.h"
#include "stablehlo/parser.h"
#include "stablehlo/retype.h"
#include "stablehlo/tensor_value.h"

#include <atomic>
#include <chrono>

using namespace xps;
using namespace xps::shlo;

namespace {

std::string dataFile(const char* name)
{
    return test::sourceDir() + "/tests/data/stablehlo/" + name;
}

Module parsed(const std::string& text)
{
    auto m = parseModule(text, "t.mlir");
    if (!m)
        qFatal("%s", m.error().toString().c_str());
    return std::move(*m);
}

const Operation& firstOp(const Module& m, OpKind kind)
{
    for (const auto& f : m.functions)
        for (const auto& op : f.body.operations)
            if (op.kind == kind)
                return op;
    qFatal("no such op");
}

std::string errorOf(const std::string& text, const ParseLimits& limits = {})
{
    auto m = parseModule(text, "t.mlir", limits);
    if (m)
        return "parsed";
    return m.error().toString();
}

std::string evalErrorOf(const std::string& text, InterpreterLimits limits = {},
                        const std::atomic<bool>* cancel = nullptr)
{
    const auto m = parsed(text);
    auto r = checkModule(m, limits, cancel);
    return r ? "evaluated" : r.error().toString();
}

// The bundle of a packer's output that holds the instruction `text`, or -1.
int bundleHolding(const std::vector<isa::Bundle>& bundles, const char* text)
{
    const auto parsedInsn = assembly::parseBundleLine(text, {}, [](std::size_t) { return std::string("t"); });
    if (!parsedInsn || parsedInsn->instructions.size() != 1)
        qFatal("not one instruction: %s", text);
    for (std::size_t i = 0; i < bundles.size(); ++i)
        for (const isa::Instruction& insn : bundles[i].instructions)
            if (insn == parsedInsn->instructions.front())
                return static_cast<int>(i);
    return -1;
}

} // namespace

class TestStableHlo : public QObject
{
    Q_OBJECT
private slots:
    void parsesAJaxModuleWithLocations()
    {
        auto modules = parseFile(dataFile("mlp_relu.mlir"));
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        QCOMPARE(modules->size(), std::size_t{1});
        const auto& m = modules->front();
        QCOMPARE(m.name, std::string("jit_mlp"));
        QCOMPARE(m.functions.size(), std::size_t{4});
        QVERIFY(m.entry() && m.entry()->name == "main");
        QCOMPARE(m.operationCount(), std::size_t{21});
        const auto& dot = firstOp(m, OpKind::DotGeneral);
        QCOMPARE(dot.location.line, 23u);
        QCOMPARE(dot.location.column, 10u);
        // #loc3 = loc("jit(mlp)/jit(main)/dot_general"(#loc1)), #loc1 = loc("mlp.py":7:0)
        QCOMPARE(dot.location.name, std::string("jit(mlp)/jit(main)/dot_general (mlp.py:7)"));
        QCOMPARE(*dot.attributes.find("lhs_contracting_dimensions")->integers(),
                 std::vector<std::int64_t>{1});
        const auto& call = firstOp(m, OpKind::Call);
        QCOMPARE(call.callee, std::string("inputs"));
        QCOMPARE(call.resultTypes.size(), std::size_t{3}); // %0:3
    }

    void prettyAndGenericFormsGiveTheSameOp()
    {
        const auto pretty =
            parsed(R"(func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
})");
        const auto generic =
            parsed(R"(func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  "func.return"(%0) : (tensor<2x3x5xf32>) -> ()
})");
        for (const char* name : {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                 "lhs_contracting_dimensions", "rhs_contracting_dimensions"}) {
            const auto* a = firstOp(pretty, OpKind::DotGeneral).attributes.find(name);
            const auto* b = firstOp(generic, OpKind::DotGeneral).attributes.find(name);
            QVERIFY2(a && b, name);
            QCOMPARE(*a->integers(), *b->integers());
        }
        QCOMPARE(firstOp(pretty, OpKind::DotGeneral).resultTypes,
                 firstOp(generic, OpKind::DotGeneral).resultTypes);
    }

    void bundledModulesPassEveryCheck_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("checks");
        QTest::newRow("JAX pretty form, loc aliases") << QStringLiteral("mlp_relu.mlir") << 1;
        QTest::newRow("generic form, reducer regions") << QStringLiteral("softmax_generic.mlir") << 1;
        QTest::newRow("interpreter-test style, split file") << QStringLiteral("ops_interpret.mlir") << 15;
    }
    void bundledModulesPassEveryCheck()
    {
        QFETCH(QString, file);
        QFETCH(int, checks);
        auto modules = parseFile(dataFile(file.toStdString().c_str()));
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        int seen = 0;
        for (const auto& m : *modules) {
            auto r = checkModule(m);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
            for (const auto& c : r->checks) {
                QVERIFY2(c.passed, (c.location + " " + c.check + " " + c.worst).c_str());
                QVERIFY(c.elements > 0);
                ++seen;
            }
        }
        QCOMPARE(seen, checks);
    }

    void aWrongExpectedValueFailsNamingTheWorstElement()
    {
        const auto m = parsed(R"(func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[0.5, 0.25, 4.0]> : tensor<3xf32>
  %0 = stablehlo.multiply %a, %b : tensor<3xf32>
  check.expect_almost_eq_const %0, dense<[0.5, 0.5, 12.5]> : tensor<3xf32>
  func.return
})");
        auto r = checkModule(m);
        QVERIFY(r.ok());
        QCOMPARE(r->checks.size(), std::size_t{1});
        const auto& c = r->checks.front();
        QVERIFY(!c.passed);
        QCOMPARE(c.failing, std::int64_t{1});
        QCOMPARE(c.location, std::string("t.mlir:5:3"));
        QCOMPARE(c.worst, std::string("[2]: actual 12, expected 12.5 (difference 0.5)"));
    }

    void expectCloseCountsUnitsInTheLastPlace()
    {
        // 1 + 2^-23 is one f32 ulp above 1; with max_ulp_difference = 0 it fails, with 1 it holds.
        const auto text = [](int ulps) {
            return "func.func @main() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n"
                   "  %b = stablehlo.constant dense<0x3F800001> : tensor<f32>\n"
                   "  check.expect_close %a, %b, max_ulp_difference = " +
                   std::to_string(ulps) + " : tensor<f32>, tensor<f32>\n  func.return\n}";
        };
        QVERIFY(!checkModule(parsed(text(0)))->checks.front().passed);
        QVERIFY(checkModule(parsed(text(1)))->checks.front().passed);
        QCOMPARE(ulpDifference(ElementType::F32, 0.0, -0.0), std::uint64_t{0});
        QCOMPARE(ulpDifference(ElementType::F16, 1.0, 1.0 + 1.0 / 1024), std::uint64_t{1});
        QCOMPARE(ulpDifference(ElementType::F32, std::nan(""), std::nan("")), std::uint64_t{0});
    }

    void halfAndBfloat16RoundToNearestEven()
    {
        QCOMPARE(halfBits(1.0), std::uint16_t{0x3C00});
        QCOMPARE(halfBits(65504.0), std::uint16_t{0x7BFF});
        QCOMPARE(halfBits(65520.0), std::uint16_t{0x7C00}); // the first value that rounds to infinity
        QCOMPARE(halfBits(std::ldexp(1.0, -24)), std::uint16_t{0x0001});
        QCOMPARE(halfBits(1.0 + 1.0 / 2048), std::uint16_t{0x3C00}); // a tie rounds to the even neighbour
        QCOMPARE(halfBits(1.0 + 3.0 / 2048), std::uint16_t{0x3C02});
        QCOMPARE(halfValue(0xC000), -2.0);
        QCOMPARE(bfloat16Bits(1.0), std::uint16_t{0x3F80});
        QCOMPARE(bfloat16Bits(1.0 + 1.0 / 256), std::uint16_t{0x3F80}); // tie to even
        QCOMPARE(bfloat16Bits(1.0 + 3.0 / 256), std::uint16_t{0x3F82});
        QCOMPARE(roundTo(ElementType::BF16, 1.0 + 1.0 / 256 + 1e-9), 1.0 + 1.0 / 128); // past the tie: up
        QCOMPARE(roundTo(ElementType::I32, 4294967297.0), 1.0);                        // wraps modulo 2^32
    }

    void splitFilesKeepTheFilesLineNumbers()
    {
        const auto parts =
            splitInputFile("func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b() {\n  %0 = bad\n}\n");
        QCOMPARE(parts.size(), std::size_t{2});
        QCOMPARE(parts[1].firstLine, 5u);
        QCOMPARE(errorOf(parts[1].text),
                 std::string("t.mlir:6:8: unsupported op 'bad'; the StableHLO subset xpushark "
                             "compiles has: ") +
                     supportedOps());
    }

    void badTextGetsALocatedError_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("error");
        QTest::newRow("op outside the subset")
            << QByteArray("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.sort\"(%a) "
                          ": (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}")
            << QByteArray("t.mlir:2:8: unsupported op 'stablehlo.sort'; the StableHLO subset xpushark "
                          "compiles has: abs, acos, acosh, add,");
        QTest::newRow("element type outside the subset")
            << QByteArray("func.func @f(%a: tensor<4xf64>) {\n  func.return\n}")
            << QByteArray(
                   "t.mlir:1:27: unsupported element type 'f64'; the subset has f32, f16, bf16, i32, i1");
        QTest::newRow("dynamic shape")
            << QByteArray("func.func @f(%a: tensor<?x4xf32>) {\n  func.return\n}")
            << QByteArray(
                   "t.mlir:1:25: dynamic dimensions ('?') are not supported: every shape must be static");
        QTest::newRow("undefined value")
            << QByteArray("func.func @f() -> tensor<f32> {\n  return %x : tensor<f32>\n}")
            << QByteArray("t.mlir:2:10: use of undefined value %x");
        QTest::newRow("shape whose product overflows")
            << QByteArray("func.func @f(%a: tensor<65536x65536x65536xf32>) {\n  func.return\n}")
            << QByteArray("t.mlir:1:18: the shape has more than 2147483648 elements");
        QTest::newRow("ragged literal")
            << QByteArray("func.func @f() {\n  %0 = stablehlo.constant dense<[[1.0, 2.0], [3.0]]> : "
                          "tensor<2x2xf32>\n  func.return\n}")
            << QByteArray("t.mlir:2:51: a dense literal whose lists differ in length (1 after 2)");
        QTest::newRow("unclosed body") << QByteArray("func.func @f() {\n  func.return\n")
                                       << QByteArray("t.mlir:3:1: a body is not closed: expected '}'");
        QTest::newRow("return type mismatch")
            << QByteArray(
                   "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n  return %a : tensor<2xf32>\n}")
            << QByteArray(
                   "t.mlir:1:1: @f returns tensor<2xf32> as result 0; its signature declares tensor<3xf32>");
        QTest::newRow("invalid UTF-8 in a name")
            << QByteArray("func.func @f() {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32> "
                          "loc(\"\xc3\x28\":1:2)\n  func.return\n}")
            << QByteArray("parsed");
    }
    void badTextGetsALocatedError()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, error);
        const auto got = errorOf(text.toStdString());
        QVERIFY2(got.rfind(error.toStdString(), 0) == 0, got.c_str());
    }

    void hostileTextIsRefusedBeforeAllocation()
    {
        // 10,000 nested lists in a literal: refused at the nesting limit, not by a stack overflow.
        const std::string deep = "func.func @f() {\n  %0 = stablehlo.constant dense<" +
                                 std::string(10000, '[') + "1" + std::string(10000, ']') +
                                 "> : tensor<f32>\n  func.return\n}";
        QVERIFY2(errorOf(deep).find("nested deeper than 16 levels") != std::string::npos,
                 errorOf(deep).c_str());
        // A literal with more elements than the limit allows is refused as it is read.
        ParseLimits small;
        small.maxDenseElements = 1000;
        std::string many = "func.func @f() {\n  %0 = stablehlo.constant dense<[";
        for (int i = 0; i < 2000; ++i)
            many += "1.0, ";
        many += "1.0]> : tensor<2001xf32>\n  func.return\n}";
        QVERIFY(errorOf(many, small).find("a dense literal with more than 1000 elements") !=
                std::string::npos);
        // A Stop while parsing ends the parse at the next op, located there.
        std::stop_source stopped;
        stopped.request_stop();
        ParseLimits cancelled;
        cancelled.stop = stopped.get_token();
        const std::string stopAt =
            errorOf("func.func @f() {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n  "
                    "func.return\n}",
                    cancelled);
        QVERIFY2(stopAt == "t.mlir:2:3: cancelled", stopAt.c_str());
        // A file over the size limit is refused before it is read.
        small.maxSourceBytes = 100;
        QVERIFY(errorOf(many, small).find("bytes; the limit is 100") != std::string::npos);
    }

    void collectivesExchangeBetweenProcesses()
    {
        // Two processes (partitions), each with its own argument; every collective's result worked out by
        // hand.
        const auto m =
            parsed(R"(module @c attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<2xf32>) {
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<4xf32>
    %2 = "stablehlo.reduce_scatter"(%x) <{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<1xf32>
    %3 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
    return %0, %1, %2, %3 : tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<2xf32>
  }
})");
        const TensorType t{{2}, ElementType::F32};
        auto out =
            runProcesses(m, *m.entry(), {{TensorValue{t, {1.0, 20.0}}}, {TensorValue{t, {10.0, 2.0}}}});
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().toString().c_str());
        const auto& p0 = (*out)[0];
        const auto& p1 = (*out)[1];
        QCOMPARE(p0[0].data, (std::vector<double>{11.0, 22.0})); // all_reduce add
        QCOMPARE(p1[0].data, (std::vector<double>{11.0, 22.0}));
        QCOMPARE(p0[1].data,
                 (std::vector<double>{10.0, 2.0, 1.0, 20.0})); // all_gather in the group's order: 1, 0
        QCOMPARE(p0[2].data, (std::vector<double>{10.0}));     // reduce_scatter max: block 0 to process 0
        QCOMPARE(p1[2].data, (std::vector<double>{20.0}));
        QCOMPARE(p0[3].data, (std::vector<double>{0.0, 0.0})); // collective_permute 0 -> 1: nothing reaches 0
        QCOMPARE(p1[3].data, (std::vector<double>{1.0, 20.0}));
        // A process that fails wakes the others instead of leaving them waiting at the next collective.
        auto failed = runProcesses(m, *m.entry(), {{TensorValue{t, {1.0, 2.0}}}, {}});
        QVERIFY(!failed.ok());
    }

    void evaluationIsBoundedAndCancellable()
    {
        // Endless recursion ends at the call-depth limit.
        QCOMPARE(evalErrorOf("func.func @main() {\n  func.call @main() : () -> ()\n  func.return\n}"),
                 std::string("t.mlir:2:3: func.call: calls nested deeper than 64 (recursion?)"));
        // A contraction past the work budget ends in an error at once, whatever its size.
        const std::string big = R"(func.func @main() {
  %a = stablehlo.iota dim = 0 : tensor<2048x2048xf32>
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  func.return
})";
        InterpreterLimits limits;
        limits.maxWork = 1 << 26;
        const auto start = std::chrono::steady_clock::now();
        const auto error = evalErrorOf(big, limits);
        QVERIFY2(
            error.find(
                "t.mlir:3:8: stablehlo.dot_general: evaluating the module takes more than 67108864 element "
                "operations") == 0,
            error.c_str());
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
        // A result larger than the interpreter holds is refused before it is allocated.
        QVERIFY(evalErrorOf("func.func @main() {\n  %a = stablehlo.iota dim = 0 : tensor<32768x65536xf32>\n  "
                            "func.return\n}")
                    .find("a result of 2147483648 elements") != std::string::npos);
        // A cancel is seen at the next op.
        std::atomic<bool> cancel{true};
        QVERIFY(evalErrorOf(big, {}, &cancel).find("cancelled") != std::string::npos);
    }

    // --dtype bf16 rounds every float constant to bf16; one value for every element (a mask's fill) stays
    // one value, not 16 million written out, and either form reads back as the rounded values.
    void retypedConstantsKeepTheirForm()
    {
        Module m = parsed("func.func @main() -> (tensor<4096x4096xf32>, tensor<2xf32>) {\n"
                          "  %0 = stablehlo.constant dense<0.1> : tensor<4096x4096xf32>\n"
                          "  %1 = stablehlo.constant dense<[1.0, 0.3]> : tensor<2xf32>\n"
                          "  func.return %0, %1 : tensor<4096x4096xf32>, tensor<2xf32>\n}");
        QVERIFY(retypeFloats(m, ElementType::BF16));
        const auto& ops = m.functions.front().body.operations;
        const Attribute* splat = ops[0].attributes.find("value");
        QVERIFY(splat && splat->dense && splat->dense->isSplat());
        QCOMPARE(ops[0].resultTypes[0].element, ElementType::BF16);
        const double rounded = bfloat16Value(bfloat16Bits(0.1));
        QVERIFY(rounded != 0.1);
        TensorType small = ops[0].resultTypes[0];
        small.shape = {3, 5};
        const auto splatValues = literalValue(*splat, small, "t");
        QVERIFY(splatValues);
        QCOMPARE(splatValues->data, std::vector<double>(15, rounded));
        const auto listed = literalValue(*ops[1].attributes.find("value"), ops[1].resultTypes[0], "t");
        QVERIFY(listed);
        QCOMPARE(listed->data, (std::vector<double>{1.0, bfloat16Value(bfloat16Bits(0.3))}));

        // An f16 model run as f32: its constants keep their values, four bytes each.
        Module half = parsed("func.func @main() -> (tensor<64x64xf16>, tensor<2xf16>) {\n"
                             "  %0 = stablehlo.constant dense<0.1> : tensor<64x64xf16>\n"
                             "  %1 = stablehlo.constant dense<[-2.5, 0.3]> : tensor<2xf16>\n"
                             "  func.return %0, %1 : tensor<64x64xf16>, tensor<2xf16>\n}");
        QVERIFY(retypeFloats(half, ElementType::F32));
        const auto& widened = half.functions.front().body.operations;
        TensorType someOfThem = widened[0].resultTypes[0];
        QCOMPARE(someOfThem.element, ElementType::F32);
        someOfThem.shape = {3, 5};
        const auto fill = literalValue(*widened[0].attributes.find("value"), someOfThem, "t");
        QVERIFY(fill);
        QCOMPARE(fill->data, std::vector<double>(15, halfValue(halfBits(0.1))));
        const auto pair = literalValue(*widened[1].attributes.find("value"), widened[1].resultTypes[0], "t");
        QVERIFY(pair);
        QCOMPARE(pair->data, (std::vector<double>{-2.5, halfValue(halfBits(0.3))}));
    }

    // A Stop while one kernel writes a million bundles ends it within a few thousand: the writer looks at
    // the stop token as it goes, not only the lowering between ops.
    void aStoppedWriterEndsWithinAFewThousandBundles()
    {
        std::stop_source stopped;
        stopped.request_stop();
        lower::ProgramWriter w(isa::MachineConfig{}, false, stopped.get_token());
        std::uint64_t written = 0;
        try {
            for (; written < 100000; ++written)
                w.bundle("sync.wait 1, 0"); // left alone by the packer: a bundle each
            QFAIL("a stopped writer went on");
        } catch (const lower::Cancelled&) {
        }
        QVERIFY(written < 4096);
        lower::ProgramWriter going(isa::MachineConfig{}, false, std::stop_source{}.get_token());
        for (int i = 0; i < 10000; ++i)
            going.bundle("sync.wait 1, 0");
        QCOMPARE(going.takeChip().program.bundles.size(), std::size_t(10001)); // and the halt
    }

    // The lowering's VLIW packer: independent instructions share a bundle, a dependence never does (read
    // after write goes later, write after read may share), VMEM accesses to one page keep their order,
    // the MXU's FIFO never overflows, and what the packer does not model stays out.
    void packerKeepsEveryDependence()
    {
        isa::MachineConfig machine;
        machine.mxuResultFifoDepth = 2;
        lower::BundlePacker p(machine);
        for (const char* insn : {"vld v1, [0]", "vld v2, [4096]", "vadd.f32 v3, v1, v2", "vbcast v4, 7",
                                 "vmov v1, v4", "vst v3, [8192]", "vld v5, [8192]", "vld v6, [16384]"})
            QVERIFY2(p.add(insn), insn);
        const std::vector<isa::Bundle> b = p.flush();
        const auto bundleOf = [&](const char* insn) {
            const int at = bundleHolding(b, insn);
            if (at < 0)
                qFatal("%s was not emitted", insn);
            return at;
        };
        QCOMPARE(bundleOf("vld v1, [0]"), 0);
        QVERIFY(bundleOf("vbcast v4, 7") == 0);   // independent: packed with the first load
        QVERIFY(bundleOf("vld v2, [4096]") == 1); // one load slot per bundle
        QVERIFY(bundleOf("vadd.f32 v3, v1, v2") > bundleOf("vld v2, [4096]")); // after both loads
        QVERIFY(bundleOf("vmov v1, v4") >= bundleOf("vadd.f32 v3, v1, v2"));   // not before v1's last read
        QVERIFY(bundleOf("vst v3, [8192]") > bundleOf("vadd.f32 v3, v1, v2"));
        QVERIFY(bundleOf("vld v5, [8192]") > bundleOf("vst v3, [8192]"));  // the page it reads was stored
        QVERIFY(bundleOf("vld v6, [16384]") < bundleOf("vld v5, [8192]")); // another page: free to go earlier
        std::size_t instructions = 0;
        for (const auto& bundle : b)
            instructions += bundle.instructions.size();
        QCOMPARE(instructions, std::size_t(8));
        QVERIFY(b.size() < 8);

        // The MXU: with a FIFO of 2, the third matmul waits for the first pop.
        for (const char* insn :
             {"mxu.mm v0", "mxu.mm v1", "mxu.pop v8", "mxu.mm v2", "mxu.pop v9", "mxu.pop v10"})
            QVERIFY(p.add(insn));
        const std::vector<isa::Bundle> m = p.flush();
        int mm = 0, pops = 0, firstPop = -1, thirdMatmul = -1;
        for (std::size_t i = 0; i < m.size(); ++i)
            for (const isa::Instruction& insn : m[i].instructions) {
                if (insn.opcode == isa::Opcode::MxuPop && pops++ == 0)
                    firstPop = static_cast<int>(i);
                if (insn.opcode == isa::Opcode::MxuMm && ++mm == 3)
                    thirdMatmul = static_cast<int>(i);
            }
        QVERIFY(firstPop >= 0 && thirdMatmul > firstPop);

        // Left alone: DMA, sync, regions, strided addresses, a written bundle.
        for (const char* insn :
             {"dma.start vmem[0], hbm[0], 64, 1", "sync.wait 1, 1", "region.end", "vld.s v1, [0], s1",
              "vadd.f32 v1, v2, v3 ; vbcast v4, 1", "sld s1, [0]", "halt"})
            QVERIFY2(!p.add(insn), insn);
        QCOMPARE(p.pending(), std::size_t(0));

        // Through a loop's registers (each buffer its own): a store and a load of the same offset from the
        // same register stay in order; through another register, or at a fixed address, they do not
        // overlap; the register's increment comes no earlier than its last use.
        for (const char* insn : {"vst v1, [s30 + 4096]", "vld v2, [s30 + 4096]", "vld v3, [s29 + 4096]",
                                 "vld v4, [4096]", "sadd s30, s30, 8192"})
            QVERIFY2(p.add(insn), insn);
        const std::vector<isa::Bundle> r = p.flush();
        const auto placedAt = [&](const char* text) { return bundleHolding(r, text); };
        QVERIFY(placedAt("vld v2, [s30 + 4096]") > placedAt("vst v1, [s30 + 4096]"));
        QVERIFY(placedAt("vld v3, [s29 + 4096]") < placedAt("vld v2, [s30 + 4096]"));
        QVERIFY(placedAt("vld v4, [4096]") >= 0);
        QVERIFY(placedAt("sadd s30, s30, 8192") >= placedAt("vld v2, [s30 + 4096]"));
    }
};

QTEST_GUILESS_MAIN(TestStableHlo)
#include "tst_stablehlo.moc"

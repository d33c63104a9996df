// The StableHLO lowering against the reference interpreter: each op the lowering covers, compiled,
// replayed in full mode on the GRM and compared element by element with the interpreter's result, within
// the tolerance docs/stablehlo.md states for it (exact for data movement, integer and comparison ops).
// Plus what the user sees of a compiled module: its regions, source lines and checks. Tiles sized by the
// machine's VMEM: tst_stablehlo_tiles.
#include "stablehlo_lowering_support.h"

#include "analysis/activity_lanes.h"

using namespace xps;
using namespace xps::shlo;
using namespace xps::test;

// Ops whose result has no elements: @main(ARGUMENTS) -> RESULT { BODY; return %r }, %r the op under test.
struct EmptyResultCase
{
    const char* name;
    const char* arguments;
    const char* result;
    const char* body;
};
const EmptyResultCase kEmptyResultCases[] = {
    {"element-wise, a register broadcast of an empty operand", "%x: tensor<0xf32>, %y: tensor<4x0xf32>",
     "tensor<4x0xf32>",
     "%b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<0xf32>) -> "
     "tensor<4x0xf32>\n%r = stablehlo.add %b, %y : tensor<4x0xf32>"},
    {"element-wise chain", "%x: tensor<0x4xf32>, %y: tensor<0x4xf32>", "tensor<0x4xf32>",
     "%s = stablehlo.multiply %x, %y : tensor<0x4xf32>\n%r = stablehlo.exponential %s : "
     "tensor<0x4xf32>"},
    {"f16 add", "%x: tensor<0x4xf16>, %y: tensor<0x4xf16>", "tensor<0x4xf16>",
     "%r = stablehlo.add %x, %y : tensor<0x4xf16>"},
    {"select", "%p: tensor<0x4xi1>, %x: tensor<0x4xf32>, %y: tensor<0x4xf32>", "tensor<0x4xf32>",
     "%r = stablehlo.select %p, %x, %y : tensor<0x4xi1>, tensor<0x4xf32>"},
    {"dot_general of no rows", "%x: tensor<0x8xf32>, %y: tensor<8x4xf32>", "tensor<0x4xf32>",
     "%r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : "
     "(tensor<0x8xf32>, tensor<8x4xf32>) -> tensor<0x4xf32>"},
    {"dot_general contracting nothing", "%x: tensor<4x0xf32>, %y: tensor<0x4xf32>", "tensor<4x4xf32>",
     "%r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : "
     "(tensor<4x0xf32>, tensor<0x4xf32>) -> tensor<4x4xf32>"},
    {"dot_general of no batches", "%x: tensor<0x4x8xf32>, %y: tensor<0x8x4xf32>", "tensor<0x4x4xf32>",
     "%r = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = "
     "[2] x [1] : (tensor<0x4x8xf32>, tensor<0x8x4xf32>) -> tensor<0x4x4xf32>"},
    {"convolution of no images", "%x: tensor<0x4x4x2xf32>, %w: tensor<3x3x2x4xf32>", "tensor<0x4x4x4xf32>",
     "%r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, "
     "1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : "
     "i64, feature_group_count = 1 : i64} : (tensor<0x4x4x2xf32>, tensor<3x3x2x4xf32>) "
     "-> tensor<0x4x4x4xf32>"},
    {"reduce over an empty dimension", "%x: tensor<4x0xf32>", "tensor<4xf32>",
     "%z = stablehlo.constant dense<0.0> : tensor<f32>\n%r = stablehlo.reduce(%x init: %z) applies "
     "stablehlo.add across dimensions = [1] : (tensor<4x0xf32>, tensor<f32>) -> tensor<4xf32>"},
    {"reduce to nothing", "%x: tensor<0x4xf32>", "tensor<0xf32>",
     "%z = stablehlo.constant dense<0.0> : tensor<f32>\n%r = stablehlo.reduce(%x init: %z) applies "
     "stablehlo.maximum across dimensions = [1] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0xf32>"},
    {"transpose", "%x: tensor<0x4xf32>", "tensor<4x0xf32>",
     "%r = stablehlo.transpose %x, dims = [1, 0] : (tensor<0x4xf32>) -> tensor<4x0xf32>"},
    {"slice", "%x: tensor<8x4xf32>", "tensor<0x4xf32>",
     "%r = stablehlo.slice %x [2:2, 0:4] : (tensor<8x4xf32>) -> tensor<0x4xf32>"},
    {"concatenate", "%x: tensor<0x4xf32>, %y: tensor<3x4xf32>", "tensor<3x4xf32>",
     "%r = stablehlo.concatenate %x, %y, dim = 0 : "
     "(tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>"},
    {"pad", "%x: tensor<0x4xf32>", "tensor<2x4xf32>",
     "%z = stablehlo.constant dense<1.0> : tensor<f32>\n%r = stablehlo.pad %x, %z, low = [1, 0], high "
     "= [1, 0], interior = [0, 0] : (tensor<0x4xf32>, tensor<f32>) -> tensor<2x4xf32>"},
    {"reverse", "%x: tensor<0x4xf32>", "tensor<0x4xf32>",
     "%r = stablehlo.reverse %x, dims = [0] : tensor<0x4xf32>"},
    {"iota", "", "tensor<0x4xf32>", "%r = stablehlo.iota dim = 1 : tensor<0x4xf32>"},
};

class TestStableHloLowering : public QObject
{
    Q_OBJECT
private slots:
    void replayMatchesTheInterpreter_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("ulps");
        const auto binary = [](const char* op, const char* element = "f32") {
            return QString::fromStdString(
                moduleText({3, 700}, {3, 700},
                           std::string("  %r = ") + op + " %a, %b : " + type({3, 700}, element) + "\n",
                           type({3, 700}, element), element));
        };
        const auto unary = [](const char* op, bool positive = false) {
            return QString::fromStdString(
                moduleText({5, 300}, {}, std::string("  %r = ") + op + " %a : " + type({5, 300}) + "\n",
                           type({5, 300}), "f32", positive));
        };
        // 2,100 elements: three tiles of up to 16 registers, the last one partial.
        QTest::newRow("add") << binary("stablehlo.add") << 0;
        QTest::newRow("subtract") << binary("stablehlo.subtract") << 0;
        QTest::newRow("multiply") << binary("stablehlo.multiply") << 0;
        QTest::newRow("maximum") << binary("stablehlo.maximum") << 0;
        QTest::newRow("minimum") << binary("stablehlo.minimum") << 0;
        QTest::newRow("divide: reciprocal, then multiply") << binary("stablehlo.divide") << 2;
        QTest::newRow("add i32") << binary("stablehlo.add", "i32") << 0;
        QTest::newRow("multiply i32") << binary("stablehlo.multiply", "i32") << 0;
        QTest::newRow("negate") << unary("stablehlo.negate") << 0;
        QTest::newRow("abs") << unary("stablehlo.abs") << 0;
        QTest::newRow("floor") << unary("stablehlo.floor") << 0;
        QTest::newRow("ceil") << unary("stablehlo.ceil") << 0;
        QTest::newRow("round_nearest_even") << unary("stablehlo.round_nearest_even") << 0;
        QTest::newRow("round_nearest_afz") << unary("stablehlo.round_nearest_afz") << 0;
        QTest::newRow("sign") << unary("stablehlo.sign") << 0;
        QTest::newRow("exponential") << unary("stablehlo.exponential") << 1;
        QTest::newRow("tanh") << unary("stablehlo.tanh") << 2;
        QTest::newRow("logistic") << unary("stablehlo.logistic") << 3;
        QTest::newRow("log") << unary("stablehlo.log", true) << 1;
        QTest::newRow("sqrt: reciprocal of rsqrt") << unary("stablehlo.sqrt", true) << 2;
        QTest::newRow("rsqrt") << unary("stablehlo.rsqrt", true) << 1;
        // Functions the vector unit has no instruction for, and the error each approximation is held to.
        QTest::newRow("sine: Cody-Waite reduction, minimax polynomial") << unary("stablehlo.sine") << 2;
        QTest::newRow("cosine") << unary("stablehlo.cosine") << 2;
        QTest::newRow("tan: sin r / cos r, or -cos r / sin r") << unary("stablehlo.tan") << 2;
        QTest::newRow("cbrt: e^(ln|x|/3), one Newton step") << unary("stablehlo.cbrt") << 2;
        QTest::newRow("exponential_minus_one: Kahan") << unary("stablehlo.exponential_minus_one") << 3;
        QTest::newRow("log_plus_one: Kahan") << unary("stablehlo.log_plus_one", true) << 3;
        QTest::newRow("atan2: octant reduction, minimax polynomial") << binary("stablehlo.atan2") << 3;
        QTest::newRow("remainder: fused x - trunc(x/y) y") << binary("stablehlo.remainder") << 0;
        QTest::newRow("compare and select")
            << QString::fromStdString(moduleText(
                   {4, 9}, {4, 9},
                   "  %p = stablehlo.compare  GE, %a, %b,  FLOAT : (" + type({4, 9}) + ", " + type({4, 9}) +
                       ") -> " + type({4, 9}, "i1") + "\n  %r = stablehlo.select %p, %a, %b : " +
                       type({4, 9}, "i1") + ", " + type({4, 9}) + "\n",
                   type({4, 9})))
            << 0;
        QTest::newRow("clamp with scalar bounds")
            << QString::fromStdString(moduleText({4, 9}, {},
                                                 "  %lo = stablehlo.constant dense<-1.0> : tensor<f32>\n  "
                                                 "%hi = stablehlo.constant dense<2.5> : tensor<f32>\n"
                                                 "  %r = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, " +
                                                     type({4, 9}) + ", tensor<f32>) -> " + type({4, 9}) +
                                                     "\n",
                                                 type({4, 9})))
            << 0;
        QTest::newRow("convert f32 -> i32 -> f32")
            << QString::fromStdString(moduleText({7, 11}, {},
                                                 "  %i = stablehlo.convert %a : (" + type({7, 11}) + ") -> " +
                                                     type({7, 11}, "i32") +
                                                     "\n  %r = stablehlo.convert %i : (" +
                                                     type({7, 11}, "i32") + ") -> " + type({7, 11}) + "\n",
                                                 type({7, 11})))
            << 0;
        // f16 and bf16 are held as f32; converting to them rounds to nearest even on the vector unit.
        QTest::newRow("convert f32 -> bf16 -> f32 rounds to nearest even")
            << QString::fromStdString(moduleText({7, 11}, {},
                                                 "  %h = stablehlo.multiply %a, %a : " + type({7, 11}) +
                                                     "\n  %n = stablehlo.convert %h : (" + type({7, 11}) +
                                                     ") -> " + type({7, 11}, "bf16") +
                                                     "\n  %r = stablehlo.convert %n : (" +
                                                     type({7, 11}, "bf16") + ") -> " + type({7, 11}) + "\n",
                                                 type({7, 11})))
            << 0;
        QTest::newRow("convert f32 -> f16 -> f32 rounds to nearest even")
            << QString::fromStdString(moduleText({7, 11}, {},
                                                 "  %h = stablehlo.multiply %a, %a : " + type({7, 11}) +
                                                     "\n  %n = stablehlo.convert %h : (" + type({7, 11}) +
                                                     ") -> " + type({7, 11}, "f16") +
                                                     "\n  %r = stablehlo.convert %n : (" +
                                                     type({7, 11}, "f16") + ") -> " + type({7, 11}) + "\n",
                                                 type({7, 11})))
            << 0;
        QTest::newRow("broadcast a row")
            << QString::fromStdString(moduleText({5}, {},
                                                 "  %r = stablehlo.broadcast_in_dim %a, dims = [1] : (" +
                                                     type({5}) + ") -> " + type({3, 5}) + "\n",
                                                 type({3, 5})))
            << 0;
        QTest::newRow("broadcast a column")
            << QString::fromStdString(moduleText({3}, {},
                                                 "  %r = stablehlo.broadcast_in_dim %a, dims = [0] : (" +
                                                     type({3}) + ") -> " + type({3, 5}) + "\n",
                                                 type({3, 5})))
            << 0;
        QTest::newRow("transpose 3-D")
            << QString::fromStdString(moduleText({2, 3, 4}, {},
                                                 "  %r = stablehlo.transpose %a, dims = [2, 0, 1] : (" +
                                                     type({2, 3, 4}) + ") -> " + type({4, 2, 3}) + "\n",
                                                 type({4, 2, 3})))
            << 0;
        QTest::newRow("strided slice")
            << QString::fromStdString(moduleText({6, 10}, {},
                                                 "  %r = stablehlo.slice %a [1:6:2, 2:9:3] : (" +
                                                     type({6, 10}) + ") -> " + type({3, 3}) + "\n",
                                                 type({3, 3})))
            << 0;
        QTest::newRow("reverse") << QString::fromStdString(moduleText(
                                        {4, 5}, {},
                                        "  %r = stablehlo.reverse %a, dims = [0, 1] : " + type({4, 5}) + "\n",
                                        type({4, 5})))
                                 << 0;
        QTest::newRow("concatenate") << QString::fromStdString(
                                            moduleText({2, 3}, {2, 4},
                                                       "  %r = stablehlo.concatenate %a, %b, dim = 1 : (" +
                                                           type({2, 3}) + ", " + type({2, 4}) + ") -> " +
                                                           type({2, 7}) + "\n",
                                                       type({2, 7})))
                                     << 0;
        QTest::newRow("pad with interior")
            << QString::fromStdString(
                   moduleText({2, 3}, {},
                              "  %z = stablehlo.constant dense<7.5> : tensor<f32>\n  %r = stablehlo.pad %a, "
                              "%z, low = [1, 0], high = [0, 2], interior = [1, 1] : (" +
                                  type({2, 3}) + ", tensor<f32>) -> " + type({4, 7}) + "\n",
                              type({4, 7})))
            << 0;
        const auto reduce = [](const char* op, const char* init, const std::vector<std::int64_t>& shape,
                               const char* dims, const std::vector<std::int64_t>& out) {
            return QString::fromStdString(
                moduleText(shape, {},
                           std::string("  %i = stablehlo.constant dense<") + init +
                               "> : tensor<f32>\n  %r = stablehlo.reduce(%a init: %i) applies " + op +
                               " across dimensions = " + dims + " : (" + type(shape) + ", tensor<f32>) -> " +
                               type(out) + "\n",
                           type(out)));
        };
        QTest::newRow("reduce add, last dimension, 300 lanes")
            << reduce("stablehlo.add", "0.0", {5, 300}, "[1]", {5}) << 0;
        QTest::newRow("reduce max, first dimension")
            << reduce("stablehlo.maximum", "0xFF800000", {9, 4}, "[0]", {4}) << 0;
        QTest::newRow("reduce min, middle dimension, init joins")
            << reduce("stablehlo.minimum", "-1.5", {3, 6, 2}, "[1]", {3, 2}) << 0;
        QTest::newRow("reduce add, all dimensions")
            << reduce("stablehlo.add", "1.0", {4, 5}, "[0, 1]", {}) << 0;
        QTest::newRow("pad with negative padding (cropping)")
            << QString::fromStdString(moduleText({5, 6}, {},
                                                 "  %z = stablehlo.constant dense<-2.0> : tensor<f32>\n  %r "
                                                 "= stablehlo.pad %a, %z, low = [-1, 2], "
                                                 "high = [-2, -3], interior = [0, 1] : (" +
                                                     type({5, 6}) + ", tensor<f32>) -> " + type({2, 10}) +
                                                     "\n",
                                                 type({2, 10})))
            << 0;
        // argmax over the last dimension as JAX writes it: a value and its index, ties to the smaller index.
        QTest::newRow("argmax: two inputs, a compare-and-select reducer, i32 compares")
            << QString::fromStdString(moduleText(
                   {6, 40}, {},
                   "  %i = stablehlo.iota dim = 1 : tensor<6x40xi32>\n"
                   "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                   "  %zero = stablehlo.constant dense<0> : tensor<i32>\n"
                   "  %m:2 = stablehlo.reduce(%a init: %ninf), (%i init: %zero) across dimensions = [1] : (" +
                       type({6, 40}) +
                       ", tensor<6x40xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)\n"
                       "   reducer(%x: tensor<f32>, %y: tensor<f32>) (%xi: tensor<i32>, %yi: tensor<i32>)  "
                       "{\n"
                       "    %gt = stablehlo.compare  GT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> "
                       "tensor<i1>\n"
                       "    %eq = stablehlo.compare  EQ, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> "
                       "tensor<i1>\n"
                       "    %lt = stablehlo.compare  LT, %xi, %yi,  SIGNED : (tensor<i32>, tensor<i32>) -> "
                       "tensor<i1>\n"
                       "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n    %keep = stablehlo.or %gt, %tie : "
                       "tensor<i1>\n"
                       "    %v = stablehlo.select %keep, %x, %y : tensor<i1>, tensor<f32>\n"
                       "    %vi = stablehlo.select %keep, %xi, %yi : tensor<i1>, tensor<i32>\n"
                       "    stablehlo.return %v, %vi : tensor<f32>, tensor<i32>\n  }\n"
                       "  %r = stablehlo.convert %m#1 : (tensor<6xi32>) -> tensor<6xf32>\n",
                   type({6})))
            << 0;
        QTest::newRow("reduce with a multiply reducer (a region on the vector unit)")
            << QString::fromStdString(moduleText({4, 5}, {},
                                                 "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
                                                 "  %r = stablehlo.reduce(%a init: %one) applies "
                                                 "stablehlo.multiply across dimensions = [1] : (" +
                                                     type({4, 5}) + ", tensor<f32>) -> " + type({4}) + "\n",
                                                 type({4})))
            << 0;
        // 5,000 elements a row: past what the register-block layout holds in VMEM, so rows along the lanes.
        QTest::newRow("reduce add, lane layout")
            << reduce("stablehlo.add", "0.0", {2, 5000}, "[1]", {2}) << 0;
        QTest::newRow("max pool 3x3, stride 2, padded")
            << windowModule(
                   "stablehlo.maximum", "0xFF800000", {1, 9, 9, 2},
                   "window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, "
                   "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>",
                   {1, 5, 5, 2})
            << 0;
        QTest::newRow("cumulative sum: padding holds a non-identity initial value")
            << windowModule("stablehlo.add", "1.5", {8, 3},
                            "window_dimensions = array<i64: 8, 1>, padding = dense<[[7, 0], [0, 0]]> : "
                            "tensor<2x2xi64>",
                            {8, 3})
            << 0;
        QTest::newRow("window with base and window dilation")
            << windowModule("stablehlo.minimum", "0x7F800000", {5, 6},
                            "window_dimensions = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, "
                            "window_dilations = array<i64: 1, 2>",
                            {8, 4})
            << 0;
        const auto conv = [](const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                             const std::string& spec, const std::vector<std::int64_t>& out) {
            return QString::fromStdString(
                moduleText(a, b,
                           "  %r = stablehlo.convolution(%a, %b) " + spec +
                               " {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (" + type(a) +
                               ", " + type(b) + ") -> " + type(out) + "\n",
                           type(out)));
        };
        QTest::newRow("convolution NHWC 3x3, same padding")
            << conv({2, 6, 6, 3}, {3, 3, 3, 4},
                    "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = "
                    "[[1, 1], [1, 1]]}",
                    {2, 6, 6, 4})
            << 0;
        QTest::newRow("convolution with strides, lhs and rhs dilation, reversal")
            << conv({1, 7, 5, 2}, {2, 3, 2, 3},
                    "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = "
                    "[[1, 0], "
                    "[0, 2]], lhs_dilate = [2, 1], rhs_dilate = [1, 2], reverse = [true, false]}",
                    {1, 7, 3, 3})
            << 0;
        QTest::newRow("convolution with 2 feature groups (depthwise-like)")
            << QString::fromStdString(moduleText(
                   {1, 5, 5, 4}, {3, 3, 2, 6},
                   "  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, "
                   "f], window = "
                   "{stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
                   "feature_group_count = 2 : i64} : (" +
                       type({1, 5, 5, 4}) + ", " + type({3, 3, 2, 6}) + ") -> " + type({1, 5, 5, 6}) + "\n",
                   type({1, 5, 5, 6})))
            << 0;
        QTest::newRow("convolution NCHW x OIHW") << conv({1, 2, 5, 5}, {3, 2, 3, 3},
                                                         "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, "
                                                         "1], window = {stride = [1, 1], pad = [[0, 0], "
                                                         "[0, 0]]}",
                                                         {1, 3, 3, 3})
                                                 << 0;
        // Values in 1/64 steps: products in 1/4096 steps, sums of up to 300 exact in f32.
        QTest::newRow("dot 2-D, K and N over 128, M not a multiple of 8")
            << dotModule({13, 300}, {300, 200}, "contracting_dims = [1] x [0]", {13, 200}) << 0;
        QTest::newRow("dot batched") << dotModule({2, 5, 7}, {2, 7, 3},
                                                  "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
                                                  {2, 5, 3})
                                     << 0;
        // The rhs contracted on its last dimension (attention's keys): its rows of N pushed transposed
        // (mxu.wpush.t), K in three blocks and N in two, both partial.
        QTest::newRow("dot with the rhs contracted on its last dimension")
            << dotModule({20, 300}, {200, 300}, "contracting_dims = [1] x [1]", {20, 200}) << 0;
        QTest::newRow("dot batched, the rhs contracted on its last dimension")
            << dotModule({3, 9, 40}, {3, 130, 40}, "batching_dims = [0] x [0], contracting_dims = [2] x [2]",
                         {3, 9, 130})
            << 0;
        QTest::newRow("dot with the lhs contracted on its first dimension")
            << dotModule({7, 5}, {7, 3}, "contracting_dims = [0] x [0]", {5, 3}) << 0;
    }
    void replayMatchesTheInterpreter()
    {
        QFETCH(QString, text);
        QFETCH(int, ulps);
        std::string failure;
        const auto worst = worstUlp(text.toStdString(), &failure);
        QVERIFY2(worst <= static_cast<std::uint64_t>(ulps),
                 (std::to_string(worst) + " ulp " + failure).c_str());
    }

    void emptyResultsCompileAndReplay_data()
    {
        QTest::addColumn<QString>("text");
        for (const EmptyResultCase& c : kEmptyResultCases)
            QTest::newRow(c.name) << QString::fromStdString(std::string("func.func public @main(") +
                                                            c.arguments + ") -> " + c.result + " {\n" +
                                                            c.body + "\n  return %r : " + c.result + "\n}\n");
    }
    void emptyResultsCompileAndReplay()
    {
        // A result of no elements is no work, whatever the kernel: nothing in flight, no tiles, no batches.
        // Each kernel divided by one of those once (a batched dot_general of no batches read
        // past its jobs; an element-wise loop divided by the tiles in flight: CI's fuzz stage). Every way of
        // lowering one (fused or not, looped, unrolled or as needed) compiles and replays to the same values.
        QFETCH(QString, text);
        auto m = parseModule(text.toStdString(), "empty.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        for (const bool fuse : {true, false})
            for (const auto loops : {CompileOptions::Loops::WhenNeeded, CompileOptions::Loops::Always,
                                     CompileOptions::Loops::Never}) {
                CompileOptions options;
                options.fuse = fuse;
                options.loops = loops;
                auto compiled = compileModule(*m, options);
                QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
                auto replayed = sim::replayAndCheck(*m, *compiled, true);
                QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
                QCOMPARE(replayed->results.size(), std::size_t{1});
                QCOMPARE(replayed->check.checks.size(), std::size_t{1}); // reference.results
                const auto& held = replayed->check.checks.front();
                QVERIFY2(held.passed, held.worst.c_str());
            }
    }

    void aCompiledModuleShowsItsOpsAndLines()
    {
        auto modules = parseFile(test::sourceDir() + "/tests/data/stablehlo/mlp_relu.mlir");
        QVERIFY(modules.ok());
        const auto& m = modules->front();
        auto compiled = compileModule(m);
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        QCOMPARE(compiled->kernels, std::size_t{3}); // add and maximum fused, the zeros a register, the bias
        // row of 3 (no divisor of a register, too narrow for the row layout) written out inside their kernel
        QCOMPARE(compiled->fusedOps, std::size_t{1});
        QCOMPARE(compiled->checks.size(), std::size_t{1});
        const auto& symbols = compiled->trace.chips.at(0).symbols;
        const auto region = symbols.findRegion("dot_general %0 \u00b7 mlp.py:7");
        QVERIFY(region >= 0);
        QCOMPARE(symbols.regions[static_cast<std::size_t>(region)].level, std::string("op"));
        QVERIFY(symbols.findRegion("module @jit_mlp") >= 0 && symbols.findRegion("@mlp") >= 0);
        bool lineSeen = false;
        for (const auto& l : symbols.sourceLines)
            lineSeen |= l.line == 23 && l.file.find("mlp_relu.mlir") != std::string::npos;
        QVERIFY(lineSeen);
        // The timeline's region lanes say which levels they hold: module, @main, then @mlp and its ops.
        const analysis::ActivityLanes lanes(compiled->trace);
        std::vector<std::string> regionLanes;
        for (const auto& lane : lanes.lanes())
            if (lane.name.rfind("regions", 0) == 0)
                regionLanes.push_back(lane.name);
        // (the loop level: the bias row written out inside the fused kernel)
        QCOMPARE(regionLanes,
                 (std::vector<std::string>{"regions: layer", "regions: layer", "regions: layer, op, loop"}));
        auto replayed = sim::replayAndCheck(m, *compiled);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        QVERIFY(replayed->check.checks.front().passed);
        QCOMPARE(replayed->results.front().data, (std::vector<double>{13.5, 5.0}));
    }

    void theTransformerSampleMatchesTheInterpreter()
    {
        // resources/samples/transformer_block.mlir: attention over two heads, softmax, two layer norms, an
        // MLP with GELU; its weights come from the trace's generators, the same ones the interpreter is
        // given.
        auto modules = parseFile(test::sourceDir() + "/resources/samples/transformer_block.mlir");
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        auto compiled = compileModule(modules->front());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        // GELU one kernel, 14 more ops fused, every broadcast in registers, the layer norms' squares computed
        // by the reduces that sum them (which write the centred values the normalisations read), softmax's
        // scores by their maximum's kernel and its exponential by its sum's, the three transposes of the
        // heads folded into their dots
        QCOMPARE(compiled->kernels, std::size_t{25});
        QCOMPARE(compiled->fusedOps, std::size_t{24});
        QCOMPARE(compiled->arguments.size(), std::size_t{9});
        auto replayed = sim::replayAndCheck(modules->front(), *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        const auto& c = replayed->check.checks.back();
        QCOMPARE(c.check, std::string("reference.results"));
        QVERIFY2(c.passed, c.worst.c_str());
        QCOMPARE(c.elements, std::int64_t{128 * 256});
    }

    void collectivesOverIciMatchTheInterpreter_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("chips");
        QTest::addColumn<bool>("identical"); // every element exactly the interpreter's
        QTest::newRow("2-way tensor-parallel MLP (sample)")
            << QStringLiteral("/resources/samples/tp_mlp.mlir") << 2 << false;
        QTest::newRow("every collective, 4 chips in two groups")
            << QStringLiteral("/tests/data/stablehlo/collectives_4chips.mlir") << 4 << true;
        // Packed: a sum of four rounds to bf16 after each addition, as the interpreter's reducer does (one
        // rounding of the f32 sum would be a last-bit difference, within check's tolerance but not equal).
        QTest::newRow("every collective on packed bf16, 4 chips")
            << QStringLiteral("/tests/data/stablehlo/collectives_4chips_bf16.mlir") << 4 << true;
    }
    void collectivesOverIciMatchTheInterpreter()
    {
        QFETCH(QString, file);
        QFETCH(int, chips);
        QFETCH(bool, identical);
        auto modules = parseFile(test::sourceDir() + file.toStdString());
        QVERIFY2(modules.ok(), modules.ok() ? "" : modules.error().toString().c_str());
        auto compiled = compileModule(modules->front());
        QVERIFY2(compiled.ok(), compiled.ok() ? "" : compiled.error().toString().c_str());
        QCOMPARE(compiled->trace.chips.size(), static_cast<std::size_t>(chips));
        // Each chip's results are its outputs (what a suggestion's replay must leave unchanged).
        for (const auto& chip : compiled->trace.chips) {
            QVERIFY(!chip.outputs.empty());
            QCOMPARE(chip.outputs, compiled->trace.chips.front().outputs);
        }
        auto replayed = sim::replayAndCheck(modules->front(), *compiled, true);
        QVERIFY2(replayed.ok(), replayed.ok() ? "" : replayed.error().toString().c_str());
        std::size_t compared = 0;
        for (const auto& c : replayed->check.checks) {
            QVERIFY2(c.passed, (c.function + ": " + c.worst).c_str());
            if (identical && c.check == "reference.results")
                QVERIFY2(c.worst == "identical", (c.location + " " + c.function + ": " + c.worst).c_str());
            compared += c.check == "reference.results";
        }
        QVERIFY(compared >= static_cast<std::size_t>(chips)); // every result of every chip
    }

    void aMalformedModuleIsRefusedAtItsOp_data()
    {
        // What the interpreter would reject while computing, compile rejects before a kernel indexes with it.
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("broadcast dimension out of range")
            << QStringLiteral(
                   "func.func public @main(%a: tensor<4xf32>) -> tensor<2x4xf32> {\n"
                   "  %0 = stablehlo.broadcast_in_dim %a, dims = [7] : (tensor<4xf32>) -> tensor<2x4xf32>\n"
                   "  return %0 : tensor<2x4xf32>\n}\n")
            << QStringLiteral("c.mlir:2:8: stablehlo.broadcast_in_dim: broadcast dimension 7 is not a "
                              "dimension of a rank-2 tensor");
        QTest::newRow("transpose that is no permutation")
            << QStringLiteral(
                   "func.func public @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
                   "  %0 = stablehlo.transpose %a, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
                   "  return %0 : tensor<3x2xf32>\n}\n")
            << QStringLiteral("c.mlir:2:8: stablehlo.transpose: permutation entry repeats dimension 1");
        QTest::newRow("dot_general contracting sizes differ")
            << QStringLiteral(
                   "func.func public @main(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
                   "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, "
                   "tensor<4x5xf32>) -> tensor<2x5xf32>\n"
                   "  return %0 : tensor<2x5xf32>\n}\n")
            << QStringLiteral("c.mlir:2:8: stablehlo.dot_general: contracting dimensions differ in size");
        QTest::newRow("convolution with a zero stride")
            << QStringLiteral(
                   "func.func public @main(%a: tensor<1x4x4x1xf32>, %k: tensor<2x2x1x1xf32>) -> "
                   "tensor<1x3x3x1xf32> {\n"
                   "  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, "
                   "f], window = {stride = [0, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : "
                   "i64} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>\n"
                   "  return %0 : tensor<1x3x3x1xf32>\n}\n")
            << QStringLiteral("c.mlir:2:8: stablehlo.convolution: convolution strides and dilations must be "
                              "positive and in range");
    }
    void aMalformedModuleIsRefusedAtItsOp()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        auto m = parseModule(text.toStdString(), "c.mlir");
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().toString().c_str());
        auto compiled = compileModule(*m);
        QVERIFY(!compiled.ok());
        QCOMPARE(compiled.error().toString(), error.toStdString());
    }

    void whatHasNoLoweringSaysSoAtItsLine()
    {
        auto m = parseModule(
            "func.func public @main(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
            "  %0 = stablehlo.divide %a, %a : tensor<4xi32>\n  return %0 : tensor<4xi32>\n}\n",
            "c.mlir");
        QVERIFY(m.ok());
        auto compiled = compileModule(*m);
        QVERIFY(!compiled.ok());
        QCOMPARE(compiled.error().toString(),
                 std::string("c.mlir:2:8: stablehlo.divide: stablehlo.divide on i32 has no lowering "
                             "to xpu-v1 yet"));
    }
};

QTEST_GUILESS_MAIN(TestStableHloLowering)
#include "tst_stablehlo_lowering.moc"

// Element-wise ops of the reference interpreter (see eval_ops.h).

#include <bit>
#include <cmath>
#include <limits>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Integer elements are whole numbers in int32's range; a float operand (whose integer view is unused) may be
// anything, so the conversion is guarded against NaN and infinities (UB in C++).
std::int64_t asInt(double v)
{
    return v >= -9.0e18 && v <= 9.0e18 ? static_cast<std::int64_t>(v) : 0;
}

// f32 -> i32 as XLA converts: toward zero, saturating, NaN to 0.
double floatToInt32(double v)
{
    if (std::isnan(v))
        return 0;
    if (v <= -2147483648.0)
        return -2147483648.0;
    if (v >= 2147483647.0)
        return 2147483647.0;
    return std::trunc(v);
}

std::int64_t intPower(std::int64_t base, std::int64_t exponent)
{
    if (exponent < 0)
        return base == 1 ? 1 : base == -1 ? (exponent % 2 ? -1 : 1) : 0;
    std::uint32_t result = 1;
    auto b = static_cast<std::uint32_t>(wrapToInt32(base));
    for (auto e = exponent; e > 0; e >>= 1) { // wraps at 32 bits like the hardware
        if (e & 1)
            result *= b;
        b *= b;
    }
    return static_cast<std::int32_t>(result);
}

// Floats ordered as their bits are in StableHLO's TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < +NaN.
std::int64_t totalOrderKey(ElementType type, double v)
{
    const auto bits = static_cast<std::int64_t>(bitsOf(type, v));
    const std::int64_t sign = type == ElementType::F32 ? 0x80000000LL : 0x8000LL;
    return (bits & sign) ? -(bits & (sign - 1)) - 1 : bits;
}

} // namespace

double applyUnary(OpKind kind, ElementType in, ElementType out, double x)
{
    const bool flt = isFloat(in);
    switch (kind) {
    case OpKind::Abs: return flt ? std::fabs(x) : static_cast<double>(wrapToInt32(std::llabs(asInt(x))));
    case OpKind::Negate: return flt ? -x : static_cast<double>(wrapToInt32(-asInt(x)));
    case OpKind::Exponential: return std::exp(x);
    case OpKind::ExponentialMinusOne: return std::expm1(x);
    case OpKind::Log: return std::log(x);
    case OpKind::LogPlusOne: return std::log1p(x);
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::Logistic: return 1.0 / (1.0 + std::exp(-x));
    case OpKind::Rsqrt: return 1.0 / std::sqrt(x);
    case OpKind::Sqrt: return std::sqrt(x);
    case OpKind::Cbrt: return std::cbrt(x);
    case OpKind::Sine: return std::sin(x);
    case OpKind::Cosine: return std::cos(x);
    case OpKind::Tan: return std::tan(x);
    case OpKind::Floor: return std::floor(x);
    case OpKind::Ceil: return std::ceil(x);
    case OpKind::RoundNearestAfz: return std::round(x);
    case OpKind::RoundNearestEven: return std::nearbyint(x);
    case OpKind::Sign:
        if (flt)
            return std::isnan(x) ? kNaN : x > 0 ? 1.0 : x < 0 ? -1.0 : x;
        return x > 0 ? 1 : x < 0 ? -1 : 0;
    case OpKind::Not:
        return in == ElementType::I1 ? (x != 0 ? 0 : 1)
                                     : static_cast<double>(~static_cast<std::int32_t>(asInt(x)));
    case OpKind::IsFinite: return std::isfinite(x) ? 1 : 0;
    case OpKind::Convert:
        if (out == ElementType::I1)
            return x != 0 ? 1 : 0;
        if (out == ElementType::I32 && flt)
            return floatToInt32(x);
        return x;
    default: evalFail("not a unary element-wise op");
    }
}

double applyBinary(OpKind kind, ElementType type, double a, double b)
{
    const bool flt = isFloat(type);
    const bool pred = type == ElementType::I1;
    const auto ia = asInt(a);
    const auto ib = asInt(b);
    switch (kind) {
    case OpKind::Add: return flt ? a + b : pred ? (ia || ib) : static_cast<double>(wrapToInt32(ia + ib));
    case OpKind::Subtract: return flt ? a - b : static_cast<double>(wrapToInt32(ia - ib));
    case OpKind::Multiply: return flt ? a * b : pred ? (ia && ib) : static_cast<double>(wrapToInt32(ia * ib));
    case OpKind::Divide:
        if (flt)
            return a / b;
        if (ib == 0) // XLA's results for the cases C++ leaves undefined
            return -1;
        if (ia == INT32_MIN && ib == -1)
            return INT32_MIN;
        return static_cast<double>(ia / ib);
    case OpKind::Remainder:
        if (flt)
            return std::fmod(a, b);
        if (ib == 0)
            return a;
        if (ia == INT32_MIN && ib == -1)
            return 0;
        return static_cast<double>(ia % ib);
    case OpKind::Maximum:
        // A NaN operand is the result, the first's first, as llvm::maximum gives it to StableHLO's
        // interpreter (its payload kept; a signalling NaN leaves quiet, as the double holding it already is).
        if (flt && (std::isnan(a) || std::isnan(b)))
            return std::isnan(a) ? a : b;
        if (a == b && flt)
            return std::signbit(a) ? b : a; // max(-0, +0) is +0
        return a > b ? a : b;
    case OpKind::Minimum:
        if (flt && (std::isnan(a) || std::isnan(b)))
            return std::isnan(a) ? a : b;
        if (a == b && flt)
            return std::signbit(a) ? a : b;
        return a < b ? a : b;
    case OpKind::Power: return flt ? std::pow(a, b) : static_cast<double>(intPower(ia, ib));
    case OpKind::Atan2: return std::atan2(a, b);
    case OpKind::And:
        return static_cast<double>(static_cast<std::int32_t>(ia) & static_cast<std::int32_t>(ib));
    case OpKind::Or:
        return static_cast<double>(static_cast<std::int32_t>(ia) | static_cast<std::int32_t>(ib));
    case OpKind::Xor:
        return static_cast<double>(static_cast<std::int32_t>(ia) ^ static_cast<std::int32_t>(ib));
    case OpKind::ShiftLeft:
        return ib < 0 || ib >= 32 ? 0
                                  : static_cast<double>(wrapToInt32(
                                        static_cast<std::int64_t>(static_cast<std::uint32_t>(ia) << ib)));
    case OpKind::ShiftRightLogical:
        return ib < 0 || ib >= 32
                   ? 0
                   : static_cast<double>(wrapToInt32(static_cast<std::uint32_t>(wrapToInt32(ia)) >> ib));
    case OpKind::ShiftRightArithmetic:
        return static_cast<double>(static_cast<std::int32_t>(ia) >> (ib < 0 || ib >= 32 ? 31 : ib));
    default: evalFail("not a binary element-wise op");
    }
}

bool applyCompare(const std::string& direction, const std::string& compareType, ElementType type, double a,
                  double b)
{
    if (compareType == "TOTALORDER" && isFloat(type)) {
        a = static_cast<double>(totalOrderKey(type, a));
        b = static_cast<double>(totalOrderKey(type, b));
    } else if (compareType == "UNSIGNED" && type == ElementType::I32) {
        a = static_cast<double>(static_cast<std::uint32_t>(wrapToInt32(asInt(a))));
        b = static_cast<double>(static_cast<std::uint32_t>(wrapToInt32(asInt(b))));
    }
    if (direction == "EQ")
        return a == b;
    if (direction == "NE")
        return a != b;
    if (direction == "LT")
        return a < b;
    if (direction == "LE")
        return a <= b;
    if (direction == "GT")
        return a > b;
    if (direction == "GE")
        return a >= b;
    evalFail("unknown comparison direction '" + direction + "'; expected EQ, NE, LT, LE, GT or GE");
}

TensorValue evalElementwise(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& resultType = op.resultTypes.at(0);
    TensorValue out{resultType, {}};
    const auto n = resultType.elementCount();
    meter.charge(static_cast<std::uint64_t>(n));
    // Every operand has the result's shape; select's predicate and clamp's bounds may be scalars.
    for (std::size_t i = 0; i < in.size(); ++i) {
        const bool scalarAllowed =
            (op.kind == OpKind::Select && i == 0) || (op.kind == OpKind::Clamp && i != 1);
        if (in[i]->type.shape != resultType.shape && !(scalarAllowed && in[i]->type.shape.empty()))
            evalFail("operand " + std::to_string(i) + " is " + in[i]->type.toString() + "; the result is " +
                     resultType.toString() + " (element-wise ops do not broadcast)");
    }
    const auto at = [&](std::size_t operand, std::int64_t i) {
        const auto& d = in[operand]->data;
        return d.size() == 1 ? d[0] : d[static_cast<std::size_t>(i)];
    };
    out.data.resize(static_cast<std::size_t>(n));
    const auto rt = resultType.element;
    const auto inType = in[0]->type.element;
    if (op.kind == OpKind::Compare) {
        if (rt != ElementType::I1)
            evalFail("stablehlo.compare yields i1; the op declares " + resultType.toString());
        const auto direction = wordAttr(op, "comparison_direction", "");
        const auto type = wordAttr(op, "compare_type", isFloat(inType) ? "FLOAT" : "SIGNED");
        for (std::int64_t i = 0; i < n; ++i)
            out.data[static_cast<std::size_t>(i)] =
                applyCompare(direction, type, inType, at(0, i), at(1, i)) ? 1 : 0;
        return out;
    }
    if (op.kind == OpKind::Select) {
        if (in[0]->type.element != ElementType::I1)
            evalFail("stablehlo.select's predicate must be i1");
        for (std::int64_t i = 0; i < n; ++i)
            out.data[static_cast<std::size_t>(i)] = at(0, i) != 0 ? at(1, i) : at(2, i);
        return out;
    }
    if (op.kind == OpKind::Clamp) {
        for (std::int64_t i = 0; i < n; ++i) {
            const double low = at(0, i), x = at(1, i), high = at(2, i);
            const double lifted = applyBinary(OpKind::Maximum, rt, x, low);
            out.data[static_cast<std::size_t>(i)] = applyBinary(OpKind::Minimum, rt, lifted, high);
        }
        return out;
    }
    const int arity = elementwiseArity(op.kind);
    if (op.kind != OpKind::Convert && op.kind != OpKind::IsFinite && inType != rt)
        evalFail("operand is " + std::string(elementTypeName(inType)) + "; the result is " +
                 std::string(elementTypeName(rt)) + " (only stablehlo.convert changes the element type)");
    if (arity == 2 && in[1]->type.element != inType)
        evalFail("the operands' element types differ");
    const bool bitwise = op.kind == OpKind::And || op.kind == OpKind::Or || op.kind == OpKind::Xor ||
                         op.kind == OpKind::Not || op.kind == OpKind::ShiftLeft ||
                         op.kind == OpKind::ShiftRightLogical || op.kind == OpKind::ShiftRightArithmetic;
    if (bitwise && isFloat(inType))
        evalFail(std::string(opName(op.kind)) + " takes integers or predicates, not " +
                 std::string(elementTypeName(inType)));
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = arity == 1 ? applyUnary(op.kind, inType, rt, at(0, i))
                                    : applyBinary(op.kind, inType, at(0, i), at(1, i));
        out.data[static_cast<std::size_t>(i)] = roundTo(rt, v);
    }
    return out;
}

} // namespace xps::shlo::detail

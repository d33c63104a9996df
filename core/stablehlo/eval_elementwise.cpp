// Element-wise ops of the reference interpreter (see eval_ops.h).

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Integer elements are whole numbers in their type's range; a float operand (whose integer view is unused)
// may be anything, so the conversion is guarded against NaN and infinities (UB in C++).
std::int64_t asInt(double v)
{
    return v >= -9.0e18 && v <= 9.0e18 ? static_cast<std::int64_t>(v) : 0;
}

// Integer arithmetic on two's complement encodings of the type's width: what wraps in the hardware wraps
// here, at 8, 16, 32 or 64 bits.
struct IntegerMath
{
    ElementType type;
    int width = integerBits(type);
    std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    bool isSigned = !isUnsigned(type);

    std::uint64_t bits(double v) const { return integerEncoding(type, v); }
    double value(std::uint64_t e) const { return integerValue(type, e & mask); }
    // The encoding as a signed number (for a signed type) or an unsigned one, widened to 64 bits.
    std::int64_t signedOf(std::uint64_t e) const
    {
        if (width < 64 && ((e >> (width - 1)) & 1))
            e |= ~mask;
        return static_cast<std::int64_t>(e);
    }
    std::uint64_t minimum() const { return std::uint64_t{1} << (width - 1); } // the signed minimum's bits
};

// A float converted to an integer type as XLA converts: toward zero, saturating at the type's range, NaN to
// 0.
double floatToInteger(ElementType type, double v)
{
    if (std::isnan(v))
        return 0;
    const int width = integerBits(type);
    const double low = isUnsigned(type) ? 0 : -std::ldexp(1.0, width - 1);
    const double high = isUnsigned(type) ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
    if (v <= low)
        return low;
    if (v >= high)
        return high;
    return std::trunc(v);
}

double intPower(const IntegerMath& m, double base, double exponent)
{
    const std::int64_t e = m.isSigned ? m.signedOf(m.bits(exponent)) : asInt(exponent);
    if (e < 0) {
        const std::int64_t b = m.signedOf(m.bits(base));
        return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
    }
    std::uint64_t result = 1;
    auto b = m.bits(base);
    for (auto k = static_cast<std::uint64_t>(e); k > 0; k >>= 1) { // wraps at the width like the hardware
        if (k & 1)
            result *= b;
        b *= b;
    }
    return m.value(result);
}

double integerBinary(OpKind kind, ElementType type, double a, double b)
{
    const IntegerMath m{type};
    const auto ea = m.bits(a), eb = m.bits(b);
    switch (kind) {
    case OpKind::Add: return m.value(ea + eb);
    case OpKind::Subtract: return m.value(ea - eb);
    case OpKind::Multiply: return m.value(ea * eb);
    case OpKind::Divide:
        if (eb == 0) // XLA's results for the cases C++ leaves undefined: all ones
            return m.value(~std::uint64_t{0});
        if (!m.isSigned)
            return m.value(ea / eb);
        if (ea == m.minimum() && (eb & m.mask) == m.mask)
            return m.value(ea);
        return m.value(static_cast<std::uint64_t>(m.signedOf(ea) / m.signedOf(eb)));
    case OpKind::Remainder:
        if (eb == 0)
            return a;
        if (!m.isSigned)
            return m.value(ea % eb);
        if (ea == m.minimum() && (eb & m.mask) == m.mask)
            return 0;
        return m.value(static_cast<std::uint64_t>(m.signedOf(ea) % m.signedOf(eb)));
    case OpKind::Power: return intPower(m, a, b);
    case OpKind::And: return m.value(ea & eb);
    case OpKind::Or: return m.value(ea | eb);
    case OpKind::Xor: return m.value(ea ^ eb);
    case OpKind::ShiftLeft: return eb >= static_cast<std::uint64_t>(m.width) ? 0 : m.value(ea << eb);
    case OpKind::ShiftRightLogical: return eb >= static_cast<std::uint64_t>(m.width) ? 0 : m.value(ea >> eb);
    case OpKind::ShiftRightArithmetic: {
        const auto shift = std::min<std::uint64_t>(eb, static_cast<std::uint64_t>(m.width - 1));
        return m.value(static_cast<std::uint64_t>(m.signedOf(ea) >> shift));
    }
    default: evalFail("not a binary element-wise op");
    }
}

// Floats ordered as their bits are in StableHLO's TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < +NaN.
std::int64_t totalOrderKey(ElementType type, double v)
{
    const auto bits = static_cast<std::int64_t>(bitsOf(type, v));
    const std::int64_t sign = type == ElementType::F32 ? 0x80000000LL : 0x8000LL;
    return (bits & sign) ? -(bits & (sign - 1)) - 1 : bits;
}

} // namespace

std::pair<std::int64_t, std::int64_t> reducedBits(const Operation& op, ElementType type)
{
    if (!op.attributes.find("exponent_bits") || !op.attributes.find("mantissa_bits"))
        evalFail(
            "reduce_precision needs its format: format = eXmY (e5m10), or exponent_bits and mantissa_bits");
    const std::int64_t e = intAttr(op, "exponent_bits", 0, true), m = intAttr(op, "mantissa_bits", 0, true);
    if (e < 1 || m < 0)
        evalFail("exponent_bits must be at least 1 and mantissa_bits at least 0");
    if (!isFloat(type))
        evalFail("reduce_precision takes floats, not " + std::string(elementTypeName(type)));
    // f16 is held and rounded as itself only where nothing is reduced; bf16 shares f32's exponent, so its
    // f32 bits reduce as its own do.
    if (type == ElementType::F16 && (e < 5 || m < 10))
        evalFail("reduce_precision of " + std::string(elementTypeName(type)) + " to e" + std::to_string(e) +
                 "m" + std::to_string(m) +
                 " is not evaluated yet (f32 and bf16 to any format, f16 to e5m10 or more)");
    return {std::min<std::int64_t>(e, 8), std::min<std::int64_t>(m, 23)};
}

double reducePrecision(double value, int exponentBits, int mantissaBits)
{
    // XLA's algorithm on the f32 bits (EmitReducePrecisionIR): round the mantissa to nearest even at its
    // last kept bit, then send exponents past the format's range to infinity and those below it to zero
    // (the format has no subnormals there), its sign kept; a NaN stays itself.
    const float f = static_cast<float>(value);
    if (std::isnan(f))
        return value;
    std::uint32_t x = std::bit_cast<std::uint32_t>(f);
    if (mantissaBits < 23) {
        const std::uint32_t last = std::uint32_t{1} << (23 - mantissaBits);
        const std::uint32_t bias = (last >> 1) - 1 + ((x & last) >> (23 - mantissaBits));
        x = (x + bias) & ~(last - 1);
    }
    if (exponentBits < 8) {
        const std::uint32_t reducedBias = (std::uint32_t{1} << (exponentBits - 1)) - 1;
        const std::uint32_t exponent = x & 0x7F800000u, sign = x & 0x80000000u;
        if (exponent > (127 + reducedBias) << 23)
            x = sign | 0x7F800000u;
        else if (exponent <= (127 - reducedBias) << 23)
            x = sign;
    }
    return static_cast<double>(std::bit_cast<float>(x));
}

double applyUnary(OpKind kind, ElementType in, ElementType out, double x)
{
    const bool flt = isFloat(in);
    switch (kind) {
    case OpKind::Abs:
        if (flt)
            return std::fabs(x);
        return x < 0 ? IntegerMath{in}.value(0 - IntegerMath{in}.bits(x)) : x; // abs(INT_MIN) wraps
    case OpKind::Negate: return flt ? -x : IntegerMath{in}.value(0 - IntegerMath{in}.bits(x));
    case OpKind::Exponential: return std::exp(x);
    case OpKind::ExponentialMinusOne: return std::expm1(x);
    case OpKind::Log: return std::log(x);
    case OpKind::LogPlusOne: return std::log1p(x);
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::Erf: return std::erf(x);
    case OpKind::Atan: return std::atan(x);
    case OpKind::Asin: return std::asin(x);
    case OpKind::Acos: return std::acos(x);
    case OpKind::Atanh: return std::atanh(x);
    case OpKind::Asinh: return std::asinh(x);
    case OpKind::Acosh: return std::acosh(x);
    case OpKind::Sinh: return std::sinh(x);
    case OpKind::Cosh: return std::cosh(x);
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
        return in == ElementType::I1 ? (x != 0 ? 0 : 1) : IntegerMath{in}.value(~IntegerMath{in}.bits(x));
    case OpKind::IsFinite: return std::isfinite(x) ? 1 : 0;
    case OpKind::Popcnt: // over the type's width (an i1 is its one bit)
        return in == ElementType::I1 ? x : std::popcount(IntegerMath{in}.bits(x) & IntegerMath{in}.mask);
    case OpKind::CountLeadingZeros: {
        if (in == ElementType::I1)
            return x != 0 ? 0 : 1;
        const IntegerMath m{in};
        return std::countl_zero(m.bits(x) & m.mask) - (64 - m.width);
    }
    case OpKind::Convert:
        if (out == ElementType::I1)
            return x != 0 ? 1 : 0;
        if (!isFloat(out) && flt)
            return floatToInteger(out, x);
        return x; // rounded (a float) or wrapped (an integer) to the result type by the caller
    default: evalFail("not a unary element-wise op");
    }
}

double applyBinary(OpKind kind, ElementType type, double a, double b)
{
    const bool flt = isFloat(type);
    const bool pred = type == ElementType::I1;
    if (!flt && !pred && kind != OpKind::Maximum && kind != OpKind::Minimum && kind != OpKind::Atan2)
        return integerBinary(kind, type, a, b);
    const auto ia = asInt(a);
    const auto ib = asInt(b);
    switch (kind) {
    case OpKind::Add: return flt ? a + b : static_cast<double>(ia || ib);
    case OpKind::Subtract: return flt ? a - b : static_cast<double>(ia != ib); // i1: xor
    case OpKind::Multiply: return flt ? a * b : static_cast<double>(ia && ib);
    case OpKind::Divide: return flt ? a / b : ib == 0 ? 1 : static_cast<double>(ia);
    case OpKind::Remainder: return flt ? std::fmod(a, b) : ib == 0 ? a : 0;
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
    case OpKind::Power: return flt ? std::pow(a, b) : static_cast<double>(ia || !ib);
    case OpKind::Atan2: return std::atan2(a, b);
    case OpKind::And: return static_cast<double>(ia && ib);
    case OpKind::Or: return static_cast<double>(ia || ib);
    case OpKind::Xor: return static_cast<double>((ia != 0) != (ib != 0));
    case OpKind::ShiftLeft: return ib == 0 ? static_cast<double>(ia != 0) : 0;
    case OpKind::ShiftRightLogical: return ib == 0 ? static_cast<double>(ia != 0) : 0;
    case OpKind::ShiftRightArithmetic: return ib == 0 ? static_cast<double>(ia != 0) : 0;
    default: evalFail("not a binary element-wise op");
    }
}

bool applyCompare(const std::string& direction, const std::string& compareType, ElementType type, double a,
                  double b)
{
    if (compareType == "TOTALORDER" && isFloat(type)) {
        a = static_cast<double>(totalOrderKey(type, a));
        b = static_cast<double>(totalOrderKey(type, b));
    } else if (compareType == "UNSIGNED" && !isFloat(type)) {
        a = static_cast<double>(integerEncoding(type, a));
        b = static_cast<double>(integerEncoding(type, b));
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
        const auto type = wordAttr(op, "compare_type",
                                   isFloat(inType)      ? "FLOAT"
                                   : isUnsigned(inType) ? "UNSIGNED"
                                                        : "SIGNED");
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
    if (op.kind == OpKind::ReducePrecision) {
        if (rt != inType)
            evalFail("the result must have the operand's element type");
        const auto bits = reducedBits(op, inType);
        meter.charge(static_cast<std::uint64_t>(n));
        for (std::int64_t i = 0; i < n; ++i)
            out.data[static_cast<std::size_t>(i)] =
                reducePrecision(at(0, i), static_cast<int>(bits.first), static_cast<int>(bits.second));
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
                         op.kind == OpKind::ShiftRightLogical || op.kind == OpKind::ShiftRightArithmetic ||
                         op.kind == OpKind::Popcnt || op.kind == OpKind::CountLeadingZeros;
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

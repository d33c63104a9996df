// Element-wise code for what the s32 code cannot do for the integer types other than i32 and i1. Every
// integer is held as one 32-bit word, its value modulo 2^32 (lower_kernels.h): 8- and 16-bit ones sign- or
// zero-extended, so a result that may leave their range is brought back (masked, or masked and
// sign-extended); ui32 converts to floats as unsigned; 64-bit ones are their low half. Comparisons, maximum,
// minimum, clamp and sign take every word type in lower_elementwise.cpp.

#include <bit>
#include <cmath>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::string f32Bits(double value)
{
    return std::to_string(std::bit_cast<std::uint32_t>(static_cast<float>(value)));
}

// The word at `from` brought into an 8- or 16-bit type's range, in `res` (v30 and v31 as temporaries; `from`
// may be v31); nothing to do for 32 and 64 bits.
std::vector<std::string> narrowed(ElementType type, const std::string& from, const std::string& res)
{
    const int width = integerBits(type);
    if (width >= 32)
        return from == res ? std::vector<std::string>{}
                           : std::vector<std::string>{"vmov " + res + ", " + from};
    const auto mask = std::to_string((std::uint32_t{1} << width) - 1);
    if (isUnsigned(type))
        return {"vbcast v30, " + mask, "vand " + res + ", " + from + ", v30"};
    const auto sign = std::to_string(std::uint32_t{1} << (width - 1)); // (x & mask) ^ sign - sign
    return {"vbcast v30, " + mask, "vand v31, " + from + ", v30", "vbcast v30, " + sign, "vxor v31, v31, v30",
            "vsub.s32 " + res + ", v31, v30"};
}

// An unsigned word as the f32 nearest it, rounded once: its high half (a multiple of 2^16, exact in f32,
// plus 2^32 where the signed view is negative) plus its low half.
std::vector<std::string> unsignedToF32(const std::string& a, const std::string& res)
{
    return {"vbcast v3, 65535",
            "vand v4, " + a + ", v3",
            "vcvt.f32.s32 v4, v4",
            "vxor v3, v3, " + v(kAllOnes), // 0xFFFF0000
            "vand v5, " + a + ", v3",
            "vcvt.f32.s32 v5, v5",
            "vcmp.lt.f32 v3, v5, " + v(kZero),
            "vbcast v30, " + f32Bits(4294967296.0),
            "vsel v3, v3, v30, " + v(kZero),
            "vadd.f32 v5, v5, v3",
            "vadd.f32 " + res + ", v5, v4"};
}

// A float to an 8- or 16-bit integer: clamped to its range in f32, toward zero, NaN to 0 (as XLA converts).
std::vector<std::string> floatToNarrow(ElementType out, const std::string& a, const std::string& res)
{
    const int width = integerBits(out);
    const double low = isUnsigned(out) ? 0.0 : -std::ldexp(1.0, width - 1);
    const double high = isUnsigned(out) ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
    return {"vbcast v3, " + f32Bits(low),
            "vmax.f32 v4, " + a + ", v3",
            "vbcast v3, " + f32Bits(high),
            "vmin.f32 v4, v4, v3",
            "vcvt.s32.f32 v4, v4",
            "vcmp.eq.f32 v5, " + a + ", " + a,
            "vsel " + res + ", v5, v4, " + v(kZero)};
}

} // namespace

bool needsIntegerCode(const Operation& op, ElementType in, ElementType out)
{
    const auto otherWord = [](ElementType t) { return heldAsWord(t) && t != ElementType::I32; };
    switch (op.kind) {
    case OpKind::Convert: return otherWord(in) || otherWord(out);
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Negate:
    case OpKind::Not:
    case OpKind::Abs:
    case OpKind::ShiftLeft:
    case OpKind::ShiftRightLogical:
    case OpKind::ShiftRightArithmetic:
    case OpKind::Popcnt:
    case OpKind::CountLeadingZeros: return otherWord(in);
    default: return false;
    }
}

std::vector<std::string> integerElementwiseCode(const Operation& op, ElementType in, ElementType out,
                                                const std::vector<int>& r, int result)
{
    const auto res = v(result);
    const auto a = v(r.at(0));
    // The s32 code of the op, into `into`: exact on words, up to the width.
    const auto asI32 = [&](int into) {
        return elementwiseCode(op, ElementType::I32, heldAsWord(out) ? ElementType::I32 : out, r, into);
    };
    if (op.kind == OpKind::Convert) {
        if (isFloat(in)) // to ui32 or a 64-bit integer: no lowering
            return integerBits(out) >= 32 ? std::vector<std::string>{} : floatToNarrow(out, a, res);
        if (!isFloat(out))
            return out == ElementType::I1 ? asI32(result) : narrowed(out, a, res); // modulo 2^width
        if (!unsignedWord(in))
            return asI32(result);
        if (out == ElementType::F32)
            return unsignedToF32(a, res);
        const auto narrow = elementwiseCode(op, ElementType::F32, out, {5}, result); // then as an f32 rounds
        return narrow.empty() ? narrow : concat(unsignedToF32(a, "v5"), narrow);
    }
    if (op.kind == OpKind::Abs && isUnsigned(in))
        return {"vmov " + res + ", " + a};
    const int width = integerBits(in);
    if (width >= 64)
        switch (op.kind) {
        case OpKind::ShiftRightLogical: // the high half shifts into the low one: exact for values below 2^32
            return isUnsigned(in) ? asI32(result) : std::vector<std::string>{};
        case OpKind::Popcnt:
        case OpKind::CountLeadingZeros: return {}; // they count the high half too
        default: break;
        }
    if (width < 32) {
        const auto mask = std::to_string((std::uint32_t{1} << width) - 1);
        const auto sign = std::to_string(std::uint32_t{1} << (width - 1));
        switch (op.kind) {
        case OpKind::ShiftRightLogical: // the type's own bits, shifted
            return concat({"vbcast v30, " + mask, "vand v31, " + a + ", v30", "vshr v31, v31, " + v(r.at(1))},
                          narrowed(in, "v31", res));
        case OpKind::ShiftRightArithmetic: // from the type's sign bit: an unsigned one's sign-extended first
            if (!isUnsigned(in))
                return asI32(result);
            return concat({"vbcast v30, " + sign, "vxor v31, " + a + ", v30", "vsub.s32 v31, v31, v30",
                           "vsra v31, v31, " + v(r.at(1))},
                          narrowed(in, "v31", res));
        case OpKind::Popcnt: // of the type's own bits
            return {"vbcast v30, " + mask, "vand v31, " + a + ", v30", "vpopcnt " + res + ", v31"};
        case OpKind::CountLeadingZeros:
            return {"vbcast v30, " + mask, "vand v31, " + a + ", v30", "vclz v31, v31",
                    "vbcast v30, " + std::to_string(32 - width), "vsub.s32 " + res + ", v31, v30"};
        default: break;
        }
    }
    if (width >= 32) // the low word of a 64-bit result is exact
        return asI32(result);
    return concat(asI32(31), narrowed(in, "v31", res)); // abs(-128) and -(-128) wrap to -128
}

std::uint32_t wordOf(ElementType type, double value)
{
    if (isFloat(type))
        return std::bit_cast<std::uint32_t>(static_cast<float>(value));
    // Modulo 2^32: a narrow signed value sign-extended, a 64-bit one its low half.
    return static_cast<std::uint32_t>(integerEncoding(ElementType::I64, value));
}

} // namespace xps::shlo::lower

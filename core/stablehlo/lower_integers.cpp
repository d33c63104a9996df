// Element-wise code for the integer types other than i32 and i1. Every integer is held as one 32-bit word,
// its value modulo 2^32 (lower_kernels.h): 8- and 16-bit ones sign- or zero-extended, so i32 code computes
// them and a result that may leave their range is brought back (masked, or masked and sign-extended); ui32
// compares and converts as unsigned; 64-bit ones are their low half, exact where the values fit 32 bits.

#include <bit>
#include <cmath>

#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

constexpr std::uint32_t kSignBit = 0x80000000u;

// A 32-bit word of the type: the i32 code's arithmetic is exact on it.
bool heldAsI32(ElementType type)
{
    return !isFloat(type) && type != ElementType::I1;
}

// Whether the word is compared as an unsigned number (ui32, and ui64's low half).
bool unsignedWord(ElementType type)
{
    return isUnsigned(type) && integerBits(type) >= 32;
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

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// `less` of two words as signed numbers (v5 nonzero where a < b), with v3 and v4 as temporaries: the
// difference's sign corrected where it overflowed (as lower_elementwise.cpp's lessS32).
std::vector<std::string> lessWords(const std::string& a, const std::string& b, bool unsignedCompare)
{
    std::vector<std::string> code;
    std::string x = a, y = b;
    if (unsignedCompare) { // a <u b exactly when (a ^ 2^31) <s (b ^ 2^31)
        code = {"vbcast v5, " + std::to_string(kSignBit), "vxor v30, " + a + ", v5",
                "vxor v31, " + b + ", v5"};
        x = "v30";
        y = "v31";
    }
    return concat(code, {"vsub.s32 v3, " + x + ", " + y, "vxor v4, " + x + ", " + y, "vxor v5, v3, " + x,
                         "vand v4, v4, v5", "vxor v5, v3, v4", "vbcast v4, " + std::to_string(kSignBit),
                         "vand v5, v5, v4"});
}

// An unsigned word as the f32 nearest it, rounded once: its high half (a multiple of 2^16, exact in f32,
// plus 2^32 where the signed view is negative) plus its low half.
std::vector<std::string> unsignedToF32(const std::string& a, const std::string& res)
{
    return {"vbcast v3, 65535",
            "vand v4, " + a + ", v3",
            "vcvt.f32.s32 v4, v4",
            "vxor v3, v3, v8", // 0xFFFF0000 (v8 holds all ones)
            "vand v5, " + a + ", v3",
            "vcvt.f32.s32 v5, v5",
            "vcmp.lt.f32 v3, v5, v15",
            "vbcast v30, " + std::to_string(std::bit_cast<std::uint32_t>(4294967296.0f)),
            "vsel v3, v3, v30, v15",
            "vadd.f32 v5, v5, v3",
            "vadd.f32 " + res + ", v5, v4"};
}

std::vector<std::string> compareCode(const Operation& op, ElementType in, const std::string& a,
                                     const std::string& b, const std::string& res)
{
    const auto* direction = op.attributes.find("comparison_direction");
    const auto* type = op.attributes.find("compare_type");
    if (!direction || (type && type->text != "SIGNED" && type->text != "UNSIGNED"))
        return {};
    const bool asUnsigned = type ? type->text == "UNSIGNED" && integerBits(in) >= 32 : unsignedWord(in);
    if (type && integerBits(in) < 32 && (type->text == "UNSIGNED") != isUnsigned(in))
        return {}; // another view of a narrow word than its own would need it re-extended first
    const auto& d = direction->text;
    const std::string one = "v7", zero = "v15";
    if (d == "LT" || d == "GE")
        return concat(lessWords(a, b, asUnsigned),
                      {"vsel " + res + ", v5, " + (d == "LT" ? one + ", " + zero : zero + ", " + one)});
    if (d == "GT" || d == "LE")
        return concat(lessWords(b, a, asUnsigned),
                      {"vsel " + res + ", v5, " + (d == "GT" ? one + ", " + zero : zero + ", " + one)});
    if (d != "EQ" && d != "NE")
        return {};
    // a == b where a ^ b converts to 0.0 (only 0 does)
    std::vector<std::string> code = {"vxor v3, " + a + ", " + b, "vcvt.f32.s32 v3, v3",
                                     "vcmp.eq.f32 " + (d == "EQ" ? res : std::string("v4")) + ", v3, " +
                                         zero};
    if (d == "NE")
        code.push_back("vxor " + res + ", v4, " + one);
    return code;
}

} // namespace

bool needsIntegerCode(const Operation& op, ElementType in, ElementType out)
{
    const auto wordOther = [](ElementType t) { return heldAsI32(t) && t != ElementType::I32; };
    return wordOther(in) || (op.kind == OpKind::Convert && wordOther(out));
}

std::vector<std::string> integerElementwiseCode(const Operation& op, ElementType in, ElementType out,
                                                const std::vector<int>& r, int result)
{
    const auto res = v(result);
    const auto a = v(r.at(0));
    const auto b = r.size() > 1 ? v(r[1]) : std::string();
    const auto asI32 = [&](int into) {
        return elementwiseCode(op, ElementType::I32, heldAsI32(out) ? ElementType::I32 : out, r, into);
    };
    switch (op.kind) {
    case OpKind::Convert:
        if (isFloat(in)) { // to an 8- or 16-bit integer: clamped to its range in f32, toward zero, NaN to 0
            const int width = integerBits(out);
            if (width >= 32)
                return {}; // f32 -> ui32 or a 64-bit integer: no lowering
            const auto low = static_cast<float>(isUnsigned(out) ? 0.0 : -std::ldexp(1.0, width - 1));
            const auto high = static_cast<float>(isUnsigned(out) ? std::ldexp(1.0, width) - 1
                                                                 : std::ldexp(1.0, width - 1) - 1);
            return {"vbcast v3, " + std::to_string(std::bit_cast<std::uint32_t>(low)),
                    "vmax.f32 v4, " + a + ", v3",
                    "vbcast v3, " + std::to_string(std::bit_cast<std::uint32_t>(high)),
                    "vmin.f32 v4, v4, v3",
                    "vcvt.s32.f32 v4, v4",
                    "vcmp.eq.f32 v5, " + a + ", " + a,
                    "vsel " + res + ", v5, v4, v15"};
        }
        if (isFloat(out)) {
            if (!unsignedWord(in))
                return asI32(result);
            if (out == ElementType::F32)
                return unsignedToF32(a, res);
            auto code = unsignedToF32(a, "v5"); // then rounded to f16 or bf16 as an f32 is
            const auto narrow = elementwiseCode(op, ElementType::F32, out, {5}, result);
            return narrow.empty() ? narrow : concat(code, narrow);
        }
        if (out == ElementType::I1)
            return asI32(result);
        return narrowed(out, a, res); // the value modulo 2^width: the word modulo 2^width
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Negate:
    case OpKind::Not:
        if (integerBits(in) >= 32)
            return asI32(result);
        return concat(asI32(31), narrowed(in, "v31", res));
    case OpKind::Abs:
        if (isUnsigned(in))
            return {"vmov " + res + ", " + a};
        if (integerBits(in) >= 32)
            return asI32(result);
        return concat(asI32(31), narrowed(in, "v31", res)); // abs(-128) wraps to -128
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor: return asI32(result); // an extension survives bitwise ops
    case OpKind::Compare: return compareCode(op, in, a, b, res);
    case OpKind::Maximum:
    case OpKind::Minimum:
        return concat(lessWords(a, b, unsignedWord(in)),
                      {op.kind == OpKind::Maximum ? "vsel " + res + ", v5, " + b + ", " + a
                                                  : "vsel " + res + ", v5, " + a + ", " + b});
    case OpKind::Sign:
        if (!isUnsigned(in))
            return asI32(result);
        return {"vcvt.f32.s32 v3, " + a, "vcmp.eq.f32 v4, v3, v15", "vsel " + res + ", v4, v15, v7"};
    case OpKind::Clamp: return unsignedWord(in) ? std::vector<std::string>{} : asI32(result);
    default: return {}; // divide, remainder, power, shifts: the reference interpreter's only
    }
}

std::uint32_t wordOf(ElementType type, double value)
{
    if (isFloat(type))
        return std::bit_cast<std::uint32_t>(static_cast<float>(value));
    // Modulo 2^32: a narrow signed value sign-extended, a 64-bit one its low half.
    return static_cast<std::uint32_t>(integerEncoding(ElementType::I64, value));
}

} // namespace xps::shlo::lower

// Element-wise ops as vector code: the instruction sequence computing one register of an op's result from
// its operands' registers (the kernel around it, tiles and DMAs: lower_elementwise_kernel.cpp).

#include <bit>
#include <cmath>

#include <algorithm>
#include <iterator>

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

std::string f32Bits(float f)
{
    return std::to_string(std::bit_cast<std::uint32_t>(f));
}

// Whether a < b as signed 32-bit integers, exactly, where the vector unit compares only f32 (through which
// integers past 2^24 round together): the sign bit of (a - b) ^ ((a ^ b) & ((a - b) ^ a)), the difference's
// sign corrected where it overflowed, left in v5 (its other bits are noise: a vsel tests it as nonzero).
// Uses v3 and v4; a and b must be neither.
std::vector<std::string> lessS32(const std::string& a, const std::string& b)
{
    return {"vsub.s32 v3, " + a + ", " + b,
            "vxor v4, " + a + ", " + b,
            "vxor v5, v3, " + a,
            "vand v4, v4, v5",
            "vxor v5, v3, v4",
            "vand v5, v5, " + v(kSignMask)};
}

std::vector<std::string> followedBy(std::vector<std::string> code, std::initializer_list<std::string> more)
{
    code.insert(code.end(), more);
    return code;
}

// a < b for integers held as words (every integer type but i1, and i1's 0 or 1), in v5 as lessS32 leaves
// it: as signed numbers, or as unsigned ones, each word biased by 2^31 first (into v30 and v31).
std::vector<std::string> lessWords(const std::string& a, const std::string& b, bool unsignedCompare)
{
    if (!unsignedCompare)
        return lessS32(a, b);
    std::vector<std::string> code = {"vxor v30, " + a + ", " + v(kSignMask),
                                     "vxor v31, " + b + ", " + v(kSignMask)};
    const auto less = lessS32("v30", "v31");
    code.insert(code.end(), less.begin(), less.end());
    return code;
}

// floor, ceil and the two roundings from truncation (vcvt.s32.f32 then back), exact for |x| < 2^23;
// larger magnitudes, infinities and NaN are already integral and pass through unchanged.
std::vector<std::string> rounding(OpKind kind, const std::string& a, const std::string& res)
{
    std::vector<std::string> code = {"vcvt.s32.f32 v3, " + a, "vcvt.f32.s32 v3, v3"}; // t = trunc(x)
    switch (kind) {
    // x's sign put back: a zero result has it (floor(-0) and ceil(-0.5) are -0), a nonzero one already does.
    case OpKind::Floor: // t - (x < t)
        code.insert(code.end(),
                    {"vcmp.lt.f32 v4, " + a + ", v3", "vcvt.f32.s32 v4, v4", "vsub.f32 v3, v3, v4",
                     "vand v4, " + a + ", " + v(kSignMask), "vor v3, v3, v4"});
        break;
    case OpKind::Ceil: // t + (t < x)
        code.insert(code.end(), {"vcmp.lt.f32 v4, v3, " + a, "vcvt.f32.s32 v4, v4", "vadd.f32 v3, v3, v4",
                                 "vand v4, " + a + ", " + v(kSignMask), "vor v3, v3, v4"});
        break;
    case OpKind::RoundNearestEven: // (|x| + 2^23) - 2^23 rounds to even; x's sign put back
        code = {"vand v3, " + a + ", " + v(kAbsMask), "vadd.f32 v3, v3, v12", "vsub.f32 v3, v3, v12",
                "vand v4, " + a + ", " + v(kSignMask), "vor v3, v3, v4"};
        break;
    default: // away from zero: trunc(|x|) + (|x| - trunc(|x|) >= 0.5), with x's sign
        code = {"vand v3, " + a + ", " + v(kAbsMask),
                "vcvt.s32.f32 v4, v3",
                "vcvt.f32.s32 v4, v4",
                "vsub.f32 v5, v3, v4",
                "vcmp.lt.f32 v5, v5, v11",
                "vxor v5, v5, " + v(kIntOne),
                "vcvt.f32.s32 v5, v5",
                "vadd.f32 v3, v4, v5",
                "vand v4, " + a + ", " + v(kSignMask),
                "vor v3, v3, v4"};
        break;
    }
    // Where |x| >= 2^23 (or x is NaN) x is kept.
    code.insert(code.end(), {"vand v4, " + a + ", " + v(kAbsMask), "vcmp.lt.f32 v4, v4, v12",
                             "vsel " + res + ", v4, v3, " + a});
    return code;
}

// erf(x) = x p(x^2) / q(x^2) on x clamped to [-4, 4], the rational approximation XLA evaluates for f32 (and
// for f16 and bf16, widened: ErfImpl32 in xla/hlo/builder/lib/math.cc, which StableHLO's chlo legalisation
// also uses), each polynomial by Horner's rule with fused multiply-adds; NaN stays NaN.
std::vector<std::string> erfCode(const std::string& a, const std::string& res)
{
    static constexpr float kAlpha[] = {-2.72614225801306e-10f, 2.77068142495902e-08f,  -2.10102402082508e-06f,
                                       -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
                                       -1.60960333262415e-02f};
    static constexpr float kBeta[] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
                                      -7.37332916720468e-03f, -1.42647390514189e-02f};
    std::vector<std::string> code = {"vbcast v4, " + f32Bits(4.0f), "vmin.f32 v3, " + a + ", v4",
                                     "vbcast v4, " + f32Bits(-4.0f), "vmax.f32 v3, v3, v4",
                                     "vmul.f32 v30, v3, v3"};
    const auto horner = [&](const std::string& into, const float* c, std::size_t n) {
        code.push_back("vbcast " + into + ", " + f32Bits(c[0]));
        for (std::size_t i = 1; i < n; ++i) {
            code.push_back("vbcast v5, " + f32Bits(c[i]));
            code.push_back("vfma.f32 " + into + ", " + into + ", v30, v5");
        }
    };
    horner("v4", kAlpha, std::size(kAlpha));
    horner("v31", kBeta, std::size(kBeta));
    code.insert(code.end(), {"vmul.f32 v4, v4, v3", "vrcp.f32 v31, v31", "vmul.f32 v4, v4, v31",
                             "vcmp.eq.f32 v5, " + a + ", " + a, "vsel " + res + ", v5, v4, " + a});
    return code;
}

} // namespace

std::vector<std::string> elementwiseCode(const Operation& op, ElementType in, ElementType out,
                                         const std::vector<int>& r, int result)
{
    if (needsIntegerCode(op, in, out))
        return integerElementwiseCode(op, in, out, r, result);
    const bool f = isFloat(in);
    const auto res = v(result); // written by each sequence's last instruction only
    const auto a = v(r[0]);
    const auto b = r.size() > 1 ? v(r[1]) : std::string();
    const auto c = r.size() > 2 ? v(r[2]) : std::string();
    const auto bin = [&](const char* fop, const char* iop) -> std::vector<std::string> {
        const char* mnemonic = f ? fop : iop;
        if (!mnemonic)
            return {};
        return {std::string(mnemonic) + " " + res + ", " + a + ", " + b};
    };
    switch (op.kind) {
    case OpKind::Add: return bin("vadd.f32", in == ElementType::I1 ? "vor" : "vadd.s32");
    case OpKind::Subtract: return bin("vsub.f32", "vsub.s32");
    case OpKind::Multiply: return bin("vmul.f32", in == ElementType::I1 ? "vand" : "vmul.s32");
    case OpKind::Maximum:
    case OpKind::Minimum:
        if (f) // vmax/vmin ignore a NaN operand (fmax); StableHLO propagates it, the first operand's first
               // (llvm::maximum, as its interpreter computes it): b's NaN is selected, then a's over it
            return {std::string(op.kind == OpKind::Maximum ? "vmax.f32" : "vmin.f32") + " v3, " + a + ", " +
                        b,
                    "vcmp.eq.f32 v4, " + b + ", " + b, "vsel v3, v4, v3, " + b,
                    "vcmp.eq.f32 v5, " + a + ", " + a, "vsel " + res + ", v5, v3, " + a};
        if (heldAsWord(in)) // a < b exactly, for every value
            return followedBy(lessWords(a, b, unsignedWord(in)),
                              {op.kind == OpKind::Maximum ? "vsel " + res + ", v5, " + b + ", " + a
                                                          : "vsel " + res + ", v5, " + a + ", " + b});
        return bin(nullptr, in == ElementType::I1 ? (op.kind == OpKind::Maximum ? "vor" : "vand") : nullptr);
    case OpKind::And: return bin(nullptr, "vand");
    case OpKind::Or: return bin(nullptr, "vor");
    case OpKind::Xor: return bin(nullptr, "vxor");
    case OpKind::ShiftLeft: return in == ElementType::I1 ? std::vector<std::string>{} : bin(nullptr, "vshl");
    case OpKind::ShiftRightLogical: return bin(nullptr, "vshr");
    case OpKind::ShiftRightArithmetic: return bin(nullptr, "vsra");
    case OpKind::Popcnt:
        return f ? std::vector<std::string>{} : std::vector<std::string>{"vpopcnt " + res + ", " + a};
    case OpKind::CountLeadingZeros:
        return f || in == ElementType::I1 ? std::vector<std::string>{}
                                          : std::vector<std::string>{"vclz " + res + ", " + a};
    case OpKind::Divide:
        if (!f)
            return {};
        return {"vrcp.f32 v3, " + b, "vmul.f32 " + res + ", " + a + ", v3"};
    case OpKind::Negate:
        return f ? std::vector<std::string>{"vxor " + res + ", " + a + ", " + v(kSignMask)}
                 : std::vector<std::string>{"vsub.s32 " + res + ", " + v(kZero) + ", " + a};
    case OpKind::Abs: // clear the sign bit; an i32 negated where its sign bit is set (INT_MIN stays,
                      // wrapping)
        if (f)
            return {"vand " + res + ", " + a + ", " + v(kAbsMask)};
        if (in != ElementType::I32)
            return {};
        return {"vand v3, " + a + ", " + v(kSignMask), "vsub.s32 v4, " + v(kZero) + ", " + a,
                "vsel " + res + ", v3, v4, " + a};
    case OpKind::Exponential:
        return f ? std::vector<std::string>{"vexp.f32 " + res + ", " + a} : std::vector<std::string>{};
    case OpKind::Log:
        return f ? std::vector<std::string>{"vlog.f32 " + res + ", " + a} : std::vector<std::string>{};
    case OpKind::Tanh:
        return f ? std::vector<std::string>{"vtanh.f32 " + res + ", " + a} : std::vector<std::string>{};
    case OpKind::Erf: return f ? erfCode(a, res) : std::vector<std::string>{};
    case OpKind::Rsqrt:
        return f ? std::vector<std::string>{"vrsqrt.f32 " + res + ", " + a} : std::vector<std::string>{};
    case OpKind::Sqrt: // 1 / rsqrt(x): exact at 0 and infinity, where x * rsqrt(x) would give NaN
        return f ? std::vector<std::string>{"vrsqrt.f32 v3, " + a, "vrcp.f32 " + res + ", v3"}
                 : std::vector<std::string>{};
    case OpKind::Logistic: // 1 / (1 + e^-x)
        if (!f)
            return {};
        return {"vxor v3, " + a + ", " + v(kSignMask), "vexp.f32 v4, v3", "vadd.f32 v5, v4, " + v(kOne),
                "vrcp.f32 " + res + ", v5"};
    case OpKind::ExponentialMinusOne: // Kahan: u = e^x; (u - 1) (x / ln u), exact where u rounds to 1
        // x / ln u (about 1) first: (u - 1) x overflowed for x near ln FLT_MAX (e^88.5 - 1 is finite).
        if (!f)
            return {};
        return {"vexp.f32 v3, " + a,
                "vsub.f32 v4, v3, " + v(kOne),
                "vlog.f32 v5, v3",
                "vrcp.f32 v5, v5",
                "vmul.f32 v5, v5, " + a,
                "vmul.f32 v4, v4, v5",
                "vcmp.eq.f32 v5, v3, " + v(kOne),
                "vsel v4, v5, " + a + ", v4",
                "vbcast v30, 2139095040",
                "vcmp.eq.f32 v5, v3, v30",
                "vsel v4, v5, v3, v4", // u = inf: inf
                "vcmp.eq.f32 v5, v3, " + v(kZero),
                "vsub.f32 v31, v3, " + v(kOne),
                "vsel " + res + ", v5, v31, v4"};
    case OpKind::LogPlusOne: // Kahan: u = 1 + x; ln u * x / (u - 1), x itself where u rounds to 1
        if (!f)
            return {};
        return {"vadd.f32 v3, " + a + ", " + v(kOne),
                "vlog.f32 v4, v3",
                "vsub.f32 v5, v3, " + v(kOne),
                "vrcp.f32 v5, v5",
                "vmul.f32 v5, v5, " + a,
                "vmul.f32 v4, v4, v5",
                "vcmp.eq.f32 v5, v3, " + v(kOne),
                "vsel v4, v5, " + a + ", v4",
                "vbcast v30, 2139095040",
                "vcmp.eq.f32 v5, v3, v30",
                "vsel " + res + ", v5, v3, v4"};
    case OpKind::Remainder: // x - trunc(x / y) y, fused (exact when the quotient is); x for an infinite y;
                            // NaN for y = 0 or x infinite
        if (!f)
            return {};
        return {"vrcp.f32 v3, " + b,
                "vmul.f32 v3, " + a + ", v3",
                "vcvt.s32.f32 v3, v3",
                "vcvt.f32.s32 v3, v3",
                "vxor v3, v3, " + v(kSignMask),
                "vfma.f32 v4, v3, " + b + ", " + a,
                "vand v3, " + b + ", " + v(kAbsMask),
                "vbcast v31, 2139095040",
                "vcmp.eq.f32 v3, v3, v31",
                "vsel v4, v3, " + a + ", v4",
                "vcmp.eq.f32 v5, " + b + ", " + v(kZero),
                "vsub.f32 v3, " + a + ", " + a,
                "vcmp.eq.f32 v3, v3, v3",
                "vxor v3, v3, " + v(kIntOne),
                "vor v5, v5, v3",
                "vbcast v31, 2143289344",
                "vsel " + res + ", v5, v31, v4"};
    case OpKind::Sine:
    case OpKind::Cosine:
    case OpKind::Tan: {
        // k = x * 2/pi rounded to an integer (the 1.5 * 2^23 trick; truncated to one as the quadrant's
        // integer is where the trick leaves halves, |k| >= 2^22), r = x - k pi/2 in three fused steps
        // (Cody-Waite), then Cephes' minimax polynomials for sin r and cos r on [-pi/4, pi/4]; the quadrant
        // k mod 4 (k + 1 for cosine) picks one and its sign; tan is sin r / cos r for an even k and
        // -cos r / sin r for an odd one. NaN and infinities give NaN.
        if (!f)
            return {};
        const auto k = [](float x) { return f32Bits(x); };
        std::vector<std::string> code = {
            "vbcast v4, " + k(0.636619772f), "vmul.f32 v3, " + a + ", v4", "vbcast v4, " + k(12582912.0f),
            "vadd.f32 v3, v3, v4", "vsub.f32 v3, v3, v4", "vcvt.s32.f32 v30, v3", "vcvt.f32.s32 v3, v30",
            "vbcast v4, " + k(-1.5703125f), "vfma.f32 v5, v3, v4, " + a,
            "vbcast v4, " + k(-4.837512969970703125e-4f), "vfma.f32 v5, v3, v4, v5",
            "vbcast v4, " + k(-7.54978995489188216e-8f), "vfma.f32 v5, v3, v4, v5",
            // + (x - x): NaN for an infinite x, whose k the conversions above made finite
            "vsub.f32 v4, " + a + ", " + a, "vadd.f32 v5, v5, v4", "vmul.f32 v31, v5, v5",
            // sin r = r + r * r^2 * (s1 + r^2 (s2 + r^2 s3))
            "vbcast v3, " + k(-1.9515295891e-4f), "vbcast v4, " + k(8.3321608736e-3f),
            "vfma.f32 v3, v3, v31, v4", "vbcast v4, " + k(-1.6666654611e-1f), "vfma.f32 v3, v3, v31, v4",
            "vmul.f32 v3, v3, v31", "vfma.f32 v3, v3, v5, v5",
            // cos r = 1 + r^2 (-1/2 + r^2 (c1 + r^2 (c2 + r^2 c3)))
            "vbcast v5, " + k(2.443315711809948e-5f), "vbcast v4, " + k(-1.388731625493765e-3f),
            "vfma.f32 v5, v5, v31, v4", "vbcast v4, " + k(4.166664568298827e-2f), "vfma.f32 v5, v5, v31, v4",
            "vbcast v4, " + k(-0.5f), "vfma.f32 v5, v5, v31, v4", "vfma.f32 v5, v5, v31, " + v(kOne)};
        // sin r's r + r^3 p is +0 for r = -0: sine and tan give a zero argument back, its sign kept.
        const std::vector<std::string> keepZero = {"vcmp.eq.f32 v4, " + a + ", " + v(kZero),
                                                   "vsel " + res + ", v4, " + a + ", v3"};
        if (op.kind == OpKind::Tan) {
            code.insert(code.end(), {"vand v31, v30, " + v(kIntOne), "vsel v4, v31, v5, v3",
                                     "vsel v5, v31, v3, v5", "vrcp.f32 v5, v5", "vmul.f32 v4, v4, v5",
                                     "vxor v3, v4, " + v(kSignMask), "vsel v3, v31, v3, v4"});
            code.insert(code.end(), keepZero.begin(), keepZero.end());
            return code;
        }
        if (op.kind == OpKind::Cosine)
            code.push_back("vadd.s32 v30, v30, " + v(kIntOne));
        code.insert(code.end(), {"vand v31, v30, " + v(kIntOne), "vsel v4, v31, v5, v3", "vbcast v31, 2",
                                 "vand v31, v30, v31", "vxor v3, v4, " + v(kSignMask)});
        if (op.kind == OpKind::Cosine) {
            code.push_back("vsel " + res + ", v31, v3, v4");
        } else {
            code.push_back("vsel v3, v31, v3, v4");
            code.insert(code.end(), keepZero.begin(), keepZero.end());
        }
        return code;
    }
    case OpKind::Atan2: {
        // t = min(|x|, |y|) / max(|x|, |y|) in [0, 1], reduced to [-tan(pi/8), tan(pi/8)] around pi/4 above
        // tan(pi/8), Cephes' atanf polynomial, then the octant: pi/2 - r where |y| > |x|, pi - r where x's
        // sign is set (-0 too: atan2(+-0, -0) is +-pi), y's sign. t is 0 for two zeros and 1 for two
        // infinities
        // (+-pi/4, +-3pi/4, as C's atan2 and StableHLO's interpreter give); a NaN operand gives NaN.
        if (!f)
            return {};
        const auto k = [](float x) { return f32Bits(x); };
        const auto& y = a;
        const auto& x = b;
        return {"vand v3, " + x + ", " + v(kAbsMask),
                "vand v4, " + y + ", " + v(kAbsMask),
                "vmax.f32 v5, v3, v4",
                "vmin.f32 v30, v3, v4",
                "vcmp.lt.f32 v31, v3, v4",
                "vbcast v6, 2139095040",
                "vcmp.eq.f32 v6, v30, v6",
                "vcvt.f32.s32 v6, v6", // t where min / max is NaN: 1 for two infinities, 0 for two zeros
                "vrcp.f32 v5, v5",
                "vmul.f32 v30, v30, v5",
                "vcmp.eq.f32 v5, v30, v30",
                "vsel v30, v5, v30, v6",
                "vbcast v3, " + k(0.414213562f),
                "vcmp.lt.f32 v4, v3, v30",
                "vsub.f32 v5, v30, " + v(kOne),
                "vadd.f32 v3, v30, " + v(kOne),
                "vrcp.f32 v3, v3",
                "vmul.f32 v5, v5, v3",
                "vsel v30, v4, v5, v30",
                "vmul.f32 v5, v30, v30",
                "vbcast v3, " + k(8.05374449538e-2f),
                "vbcast v6, " + k(-1.38776856032e-1f),
                "vfma.f32 v3, v3, v5, v6",
                "vbcast v6, " + k(1.99777106478e-1f),
                "vfma.f32 v3, v3, v5, v6",
                "vbcast v6, " + k(-3.33329491539e-1f),
                "vfma.f32 v3, v3, v5, v6",
                "vmul.f32 v3, v3, v5",
                "vfma.f32 v3, v3, v30, v30",
                "vbcast v6, " + k(0.785398163f),
                "vsel v6, v4, v6, " + v(kZero),
                "vadd.f32 v3, v3, v6",
                "vbcast v6, " + k(1.57079633f),
                "vsub.f32 v5, v6, v3",
                "vsel v3, v31, v5, v3",
                "vand v31, " + x + ", " + v(kSignMask),
                "vbcast v6, " + k(3.14159265f),
                "vsub.f32 v5, v6, v3",
                "vsel v3, v31, v5, v3",
                "vand v5, " + y + ", " + v(kSignMask),
                "vor v3, v3, v5",
                "vcmp.eq.f32 v5, " + y + ", " + y,
                "vcmp.eq.f32 v4, " + x + ", " + x,
                "vand v5, v5, v4",
                "vbcast v6, 2143289344",
                "vsel " + res + ", v5, v3, v6"};
    }
    case OpKind::Cbrt: // e^(ln|x| / 3), one Newton step y -= (y^3 - |x|) / (3 y^2), then x's sign
        if (!f)
            return {};
        return {"vand v3, " + a + ", " + v(kAbsMask), "vlog.f32 v4, v3", "vbcast v5, " + f32Bits(1.0f / 3.0f),
                "vmul.f32 v4, v4, v5", "vexp.f32 v4, v4", "vmul.f32 v5, v4, v4", "vmul.f32 v30, v5, v4",
                "vsub.f32 v30, v30, v3", "vbcast v31, " + f32Bits(3.0f), "vmul.f32 v5, v5, v31",
                "vrcp.f32 v5, v5", "vmul.f32 v30, v30, v5", "vsub.f32 v30, v4, v30",
                // 0, infinity and NaN: the first estimate already is the answer (the step would give NaN)
                "vcmp.eq.f32 v5, v30, v30", "vsel v4, v5, v30, v4", "vand v5, " + a + ", " + v(kSignMask),
                "vor " + res + ", v4, v5"};
    case OpKind::Power: // e^(y ln |x|), negative for x < 0 and an odd integer y, NaN for a fraction; x^0 and
                        // 1^y are 1 (NaN and infinities too, as C's pow gives them; (-1)^+-inf is NaN here)
        if (!f)
            return {};
        return {"vand v3, " + a + ", " + v(kAbsMask), "vlog.f32 v3, v3", "vmul.f32 v3, v3, " + b,
                "vexp.f32 v3, v3",
                // y an integer? trunc(y) == y; odd? its lowest bit
                "vcvt.s32.f32 v4, " + b, "vcvt.f32.s32 v5, v4", "vcmp.eq.f32 v5, v5, " + b,
                "vand v4, v4, " + v(kIntOne),
                // an infinite y counts as an even integer (C's pow: (-inf)^inf is inf, (-3)^-inf is 0)
                "vand v30, " + b + ", " + v(kAbsMask), "vbcast v31, 2139095040", "vcmp.eq.f32 v30, v30, v31",
                "vor v5, v5, v30", "vxor v30, v30, " + v(kIntOne), "vand v4, v4, v30",
                "vcmp.lt.f32 v30, " + a + ", " + v(kZero), "vand v31, v30, v4", "vand v31, v31, v5",
                "vxor v4, v3, " + v(kSignMask),
                "vsel v3, v31, v4, v3", // odd power of a negative
                "vxor v5, v5, " + v(kIntOne), "vand v30, v30, v5", "vbcast v31, 2143289344",
                "vsel v3, v30, v31, v3", // fraction: NaN
                "vcmp.eq.f32 v5, " + b + ", " + v(kZero), "vcmp.eq.f32 v4, " + a + ", " + v(kOne),
                "vor v5, v5, v4", "vsel " + res + ", v5, " + v(kOne) + ", v3"};
    case OpKind::IsFinite: // x - x is 0 for finite x, NaN otherwise
        return {"vsub.f32 v3, " + a + ", " + a, "vcmp.eq.f32 " + res + ", v3, " + v(kZero)};
    case OpKind::Not:
        return in == ElementType::I1
                   ? std::vector<std::string>{"vxor " + res + ", " + a + ", " + v(kIntOne)}
                   : std::vector<std::string>{"vxor " + res + ", " + a + ", " + v(kAllOnes)};
    case OpKind::Select: return {"vsel " + res + ", " + a + ", " + b + ", " + c};
    case OpKind::ReducePrecision: { // XLA's algorithm on the f32 bits (eval_elementwise.cpp), a NaN kept
        if (!f)
            return {};
        const auto [e, m] = detail::reducedBits(op, in);
        std::vector<std::string> code = {"vmov v4, " + a};
        if (m < 23) {
            const std::uint32_t last = std::uint32_t{1} << (23 - m);
            code = {"vbcast v3, " + std::to_string(last),
                    "vand v4, " + a + ", v3",
                    "vbcast v5, " + std::to_string(23 - m),
                    "vshr v4, v4, v5",
                    "vbcast v5, " + std::to_string((last >> 1) - 1),
                    "vadd.s32 v4, v4, v5",
                    "vadd.s32 v4, " + a + ", v4",
                    "vbcast v5, " + std::to_string(~(last - 1)),
                    "vand v4, v4, v5"};
        }
        if (e < 8) { // the exponent words compare as the positive floats they are
            const std::uint32_t reducedBias = (std::uint32_t{1} << (e - 1)) - 1;
            code.insert(code.end(), {"vbcast v3, 2139095040", "vand v5, v4, v3",
                                     "vbcast v30, " + std::to_string((127 + reducedBias) << 23),
                                     "vcmp.lt.f32 v31, v30, v5",
                                     "vbcast v30, " + std::to_string((127 - reducedBias) << 23),
                                     "vcmp.lt.f32 v30, v30, v5", "vand v5, v4, " + v(kSignMask),
                                     "vor v3, v5, v3", "vsel v4, v31, v3, v4", "vsel v4, v30, v4, v5"});
        }
        code.insert(code.end(), {"vcmp.eq.f32 v5, " + a + ", " + a, "vsel " + res + ", v5, v4, " + a});
        return code;
    }
    case OpKind::Clamp:
        if (heldAsWord(in)) { // t = x < lo ? lo : x, then hi < t ? hi : t, exactly (t in v6: an unsigned
                              // compare biases its words in v30 and v31)
            auto code = followedBy(lessWords(b, a, unsignedWord(in)), {"vsel v6, v5, " + a + ", " + b});
            const auto upper = lessWords(c, "v6", unsignedWord(in));
            code.insert(code.end(), upper.begin(), upper.end());
            code.push_back("vsel " + res + ", v5, " + c + ", v6");
            return code;
        }
        if (!f)
            return {};
        // min(max(x, lo), hi) with NaN propagated as StableHLO's maximum and minimum do: x's, then lo's, then
        // hi's (vmax and vmin alone skip a NaN bound)
        return {"vmax.f32 v3, " + b + ", " + a,    "vmin.f32 v4, v3, " + c,
                "vcmp.eq.f32 v5, " + c + ", " + c, "vsel v4, v5, v4, " + c,
                "vcmp.eq.f32 v5, " + a + ", " + a, "vsel v4, v5, v4, " + a,
                "vcmp.eq.f32 v5, " + b + ", " + b, "vsel " + res + ", v5, v4, " + b};
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::RoundNearestEven:
    case OpKind::RoundNearestAfz:
        if (!f)
            return {};
        return rounding(op.kind, a, res);
    case OpKind::Sign:                        // -1, 0 or 1 with x's sign; 0 and NaN stay themselves
        if (heldAsWord(in) && isUnsigned(in)) // 0 or 1 (a word converts to 0.0 only if it is 0)
            return {"vcvt.f32.s32 v3, " + a, "vcmp.eq.f32 v4, v3, " + v(kZero),
                    "vsel " + res + ", v4, " + v(kZero) + ", " + v(kIntOne)};
        if (heldAsWord(in))
            return {"vcvt.f32.s32 v3, " + a, "vcmp.eq.f32 v4, v3, " + v(kZero),
                    "vand v5, " + a + ", " + v(kSignMask), "vsel v3, v5, " + v(kAllOnes) + ", " + v(kIntOne),
                    "vsel " + res + ", v4, " + v(kZero) + ", v3"};
        if (!f)
            return {};
        return {"vand v3, " + a + ", " + v(kSignMask),
                "vor v3, v3, " + v(kOne),
                "vcmp.eq.f32 v4, " + a + ", " + v(kZero),
                "vcmp.eq.f32 v5, " + a + ", " + a,
                "vxor v5, v5, " + v(kIntOne),
                "vor v4, v4, v5",
                "vsel " + res + ", v4, " + a + ", v3"};
    case OpKind::Convert:
        if (out == ElementType::F16 || out == ElementType::BF16) {
            // Round the f32 (or converted i32) to the narrow type's mantissa, to nearest even, by integer
            // arithmetic on its bits: add half a unit of the kept part (plus its lowest kept bit), clear the
            // rest. Normal range only: past f16's largest value or in its subnormals the f32 stays as it is.
            const bool bf = out == ElementType::BF16;
            std::vector<std::string> code;
            std::string x = a;
            if (!f) {
                code.push_back("vcvt.f32.s32 v5, " + a);
                x = "v5";
            }
            if (!f && bf) {
                // From 2^24 on, i32 -> f32 rounds, and a second rounding to bf16 could land on the wrong
                // side of a tie (16,842,753 -> 16,842,752, a bf16 midpoint -> 16,777,216 instead of
                // 16,908,288). bf16 keeps 8 bits, so there the low 8 bits of i matter only as "some":
                // i & ~255, plus 128 if any was set, is exact in f32 and rounds to bf16 as i does.
                code.insert(code.end(),
                            {"vbcast v4, 255", "vand v3, " + a + ", v4", "vcvt.f32.s32 v3, v3",
                             "vcmp.eq.f32 v3, v3, " + v(kZero), "vbcast v4, 128",
                             "vsel v3, v3, " + v(kZero) + ", v4", "vbcast v4, 4294967040",
                             "vand v4, " + a + ", v4", "vadd.s32 v3, v4, v3", "vcvt.f32.s32 v3, v3",
                             "vand v4, v5, " + v(kAbsMask), "vbcast v30, " + f32Bits(16777216.0f),
                             "vcmp.lt.f32 v4, v4, v30", "vsel v5, v4, v5, v3"});
            }
            code.insert(code.end(),
                        {std::string("vbcast v4, ") + (bf ? "65536" : "8192"), "vand v3, " + x + ", v4",
                         "vcvt.f32.s32 v3, v3", "vbcast v4, " + f32Bits(bf ? 1.0f / 65536 : 1.0f / 8192),
                         "vmul.f32 v3, v3, v4", "vcvt.s32.f32 v3, v3",
                         std::string("vbcast v4, ") + (bf ? "32767" : "4095"), "vadd.s32 v3, v3, v4",
                         "vadd.s32 v3, " + x + ", v3",
                         std::string("vbcast v4, ") + (bf ? "4294901760" : "4294959104"),
                         "vand " + res + ", v3, v4"});
            return code;
        }
        if (f && out == ElementType::I32)
            return {"vcvt.s32.f32 " + res + ", " + a};
        if (!f && isFloat(out))
            return {"vcvt.f32.s32 " + res + ", " + a};
        if (out == ElementType::I1) { // x != 0
            if (f)
                return {"vcmp.eq.f32 v3, " + a + ", " + v(kZero), "vxor " + res + ", v3, " + v(kIntOne)};
            return {"vcvt.f32.s32 v4, " + a, "vcmp.eq.f32 v3, v4, " + v(kZero),
                    "vxor " + res + ", v3, " + v(kIntOne)};
        }
        return {"vmov " + res + ", " + a}; // i1 -> i32, and a type to itself
    case OpKind::Compare: {
        const auto* direction = op.attributes.find("comparison_direction");
        const auto* type = op.attributes.find("compare_type");
        if (!direction)
            return {};
        const auto& d = direction->text;
        if (!f) { // integers exactly: a < b by lessWords, a == b as a ^ b converting to 0.0
            if (type && type->text != "SIGNED" && type->text != "UNSIGNED")
                return {};
            const bool unsignedCompare = type ? type->text == "UNSIGNED" : isUnsigned(in);
            // A narrow unsigned word is zero-extended: its signed view would need its sign extended first.
            // (A sign-extended word keeps its unsigned order, and every word its signed one.)
            if (!unsignedCompare && isUnsigned(in) && integerBits(in) < 32)
                return {};
            const std::string one = v(kIntOne), zero = v(kZero);
            if (d == "LT" || d == "GE")
                return followedBy(
                    lessWords(a, b, unsignedCompare),
                    {"vsel " + res + ", v5, " + (d == "LT" ? one + ", " + zero : zero + ", " + one)});
            if (d == "GT" || d == "LE")
                return followedBy(
                    lessWords(b, a, unsignedCompare),
                    {"vsel " + res + ", v5, " + (d == "GT" ? one + ", " + zero : zero + ", " + one)});
            std::vector<std::string> code = {"vxor v3, " + a + ", " + b, "vcvt.f32.s32 v3, v3",
                                             "vcmp.eq.f32 " + (d == "EQ" ? res : std::string("v4")) +
                                                 ", v3, " + zero};
            if (d == "NE")
                code.push_back("vxor " + res + ", v4, " + one);
            return d == "EQ" || d == "NE" ? code : std::vector<std::string>{};
        }
        if (type && type->text != "FLOAT") // TOTALORDER has no lowering yet
            return {};
        if (d == "LT")
            return {"vcmp.lt.f32 " + res + ", " + a + ", " + b};
        if (d == "GT")
            return {"vcmp.lt.f32 " + res + ", " + b + ", " + a};
        if (d == "EQ")
            return {"vcmp.eq.f32 " + res + ", " + a + ", " + b};
        if (d == "NE")
            return {"vcmp.eq.f32 v3, " + a + ", " + b, "vxor " + res + ", v3, " + v(kIntOne)};
        if (d == "LE")
            return {"vcmp.lt.f32 v3, " + a + ", " + b, "vcmp.eq.f32 v4, " + a + ", " + b,
                    "vor " + res + ", v3, v4"};
        if (d == "GE")
            return {"vcmp.lt.f32 v3, " + b + ", " + a, "vcmp.eq.f32 v4, " + a + ", " + b,
                    "vor " + res + ", v3, v4"};
        return {};
    }
    default: return {};
    }
}

std::vector<std::int64_t> byteStrides(const std::vector<std::int64_t>& shape, std::int64_t elementBytes)
{
    auto s = stridesOf(shape);
    for (auto& x : s)
        x *= elementBytes;
    return s;
}

void setUpElementwiseConstants(ProgramWriter& w, OpKind kind)
{
    w.bundle("vbcast " + v(kSignMask) + ", 2147483648");
    w.bundle("vbcast " + v(kOne) + ", " + f32Bits(1.0f));
    w.bundle("vbcast " + v(kZero) + ", 0");
    w.bundle("vbcast " + v(kIntOne) + ", 1");
    w.bundle("vbcast " + v(kAbsMask) + ", 2147483647");
    w.bundle("vbcast " + v(kAllOnes) + ", 4294967295");
    if (kind == OpKind::Floor || kind == OpKind::Ceil || kind == OpKind::RoundNearestEven ||
        kind == OpKind::RoundNearestAfz) {
        w.bundle("vbcast v12, " + f32Bits(8388608.0f)); // 2^23
        w.bundle("vbcast v11, " + f32Bits(0.5f));
    }
}

} // namespace xps::shlo::lower

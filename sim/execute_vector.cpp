// Vector ALU, transcendental and cross-lane semantics. Elements are raw 32-bit words; each op reads them
// as f32 or s32 as its mnemonic says. Results are deterministic: the reduction orders are fixed.
#include "execute_detail.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

namespace xps::sim::detail {
namespace {

using isa::Opcode;
constexpr int N = isa::kVectorElements;
constexpr int L = isa::kLanes;
constexpr int R = isa::kSublanes;

float f(std::uint32_t bits)
{
    return std::bit_cast<float>(bits);
}
std::uint32_t u(float value)
{
    return std::bit_cast<std::uint32_t>(value);
}

// Element-wise kernels. The result is a pending write (PendingWrites' own slot), never a source register,
// so the arrays cannot overlap; saying so on the parameters lets GCC vectorise the loops at -O2 (the
// README's build, and the package's) with no run-time overlap check, and at -O3 without versioning.
// f32 ops read the words as floats through a may_alias type, which GCC and Clang define for exactly this;
// a std::bit_cast per element kept every loop scalar (about 6 instructions an element, more than half of a
// full-mode replay of the stress loop). Element-wise IEEE add, multiply, divide, compare and convert give
// the same bits vectorised as scalar: results do not depend on the build.
using F32 [[gnu::may_alias]] = float;
using S32 [[gnu::may_alias]] = std::int32_t;
template <typename T, typename Word> T* as(Word* p)
{
    return reinterpret_cast<T*>(p);
}
template <typename T, typename Word> const T* as(const Word* p)
{
    return reinterpret_cast<const T*>(p);
}

template <typename Out, typename In, typename Fn>
[[gnu::always_inline]] inline void kernel1(Out* __restrict out, const In* __restrict a, Fn fn)
{
    for (int i = 0; i < N; ++i)
        out[i] = fn(a[i]);
}
template <typename Out, typename In, typename Fn>
[[gnu::always_inline]] inline void kernel2(Out* __restrict out, const In* __restrict a,
                                           const In* __restrict b, Fn fn)
{
    for (int i = 0; i < N; ++i)
        out[i] = fn(a[i], b[i]);
}

template <typename Fn>
[[gnu::always_inline]] inline void kernel3(std::uint32_t* __restrict out, const std::uint32_t* __restrict a,
                                           const std::uint32_t* __restrict b,
                                           const std::uint32_t* __restrict c, Fn fn)
{
    for (int i = 0; i < N; ++i)
        out[i] = fn(a[i], b[i], c[i]);
}

// An f32 result that is NaN is the default quiet NaN, 0x7FC00000, whatever NaN the host made: which of
// two NaN operands an add passes on is the order the compiler put the operands in (the scalar and the
// vectorised loop chose differently), and x86 makes 0xFFC00000 for 0 x inf. The same bits on every build
// and host, as Arm's default-NaN mode gives them.
inline constexpr std::uint32_t kDefaultNaN = 0x7FC00000u;
inline float defaultNaN(float r)
{
    return r != r ? std::bit_cast<float>(kDefaultNaN) : r;
}

// out = fn(a) and out = fn(a, b) element by element, the elements read as In and written as Out (each
// std::uint32_t, F32 or S32); an F32 result that is NaN is the default one.
template <typename Fn> auto withDefaultNaN(Fn fn)
{
    return [fn](auto... x) {
        if constexpr (std::is_same_v<decltype(fn(x...)), float>)
            return defaultNaN(fn(x...));
        else
            return fn(x...);
    };
}
template <typename Out, typename In, typename Fn> void map1(VReg& out, const VReg& a, Fn fn)
{
    kernel1(as<Out>(out.data()), as<In>(a.data()), withDefaultNaN(fn));
}
template <typename Out, typename In, typename Fn> void map2(VReg& out, const VReg& a, const VReg& b, Fn fn)
{
    kernel2(as<Out>(out.data()), as<In>(a.data()), as<In>(b.data()), withDefaultNaN(fn));
}
using U32 = std::uint32_t;

std::uint32_t toS32Saturating(float x)
{
    if (std::isnan(x))
        return 0;
    if (x >= 2147483648.0f)
        return static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());
    if (x < -2147483648.0f)
        return static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::min());
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(x));
}

// vmax / vmin: a NaN operand gives the other one (as C's fmax), and -0 orders below +0 (IEEE 754-2019's
// maximumNumber / minimumNumber; the StableHLO interpreter's max(-0, +0) is +0 too). std::fmax leaves the
// sign of max(+0, -0) to the library or to the compiler's inline expansion: glibc's gave the first
// operand, so vmin(+0, -0) was +0 but vmin(-0, +0) was -0, and a build that expanded it differently would
// have given other bits. Written out, it is the same on every build.
float maxNumber(float x, float y)
{
    if (std::isnan(x))
        return y;
    if (std::isnan(y))
        return x;
    if (x == y)
        return std::signbit(x) ? y : x;
    return x > y ? x : y;
}
float minNumber(float x, float y)
{
    if (std::isnan(x))
        return y;
    if (std::isnan(y))
        return x;
    if (x == y)
        return std::signbit(x) ? x : y;
    return x < y ? x : y;
}

// Pairwise tree sum of 128 lanes: ((l0 + l1) + (l2 + l3)) + ... ; the documented order.
float treeSum(const std::uint32_t* row)
{
    float level[L];
    for (int i = 0; i < L; ++i)
        level[i] = f(row[i]);
    for (int width = L; width > 1; width /= 2)
        for (int i = 0; i < width / 2; ++i)
            level[i] = level[2 * i] + level[2 * i + 1];
    return level[0];
}

} // namespace

void executeVector(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                   PendingWrites& writes)
{
    const auto& o = insn.operands;
    // Read every source first: faults on uninitialised registers must not depend on the mode.
    const isa::OpcodeInfo& info = insn.info();
    const VReg* src[3] = {nullptr, nullptr, nullptr};
    int n = 0;
    for (std::size_t i = 1; i < info.operandSpecs().size(); ++i)
        if (info.operands[i].kind == isa::OperandKind::VReg)
            src[n++] = &vectorOperand(state, o[i]);
    std::uint32_t scalar = 0;
    if (insn.opcode == Opcode::VBcast || insn.opcode == Opcode::XluRot)
        scalar = scalarOperand(state, o[insn.opcode == Opcode::VBcast ? 1 : 2]);

    VReg* slot = writes.vector(o[0].reg, options.computeVectors);
    if (!slot)
        return;
    VReg& out = *slot;
    static const VReg kNone{};
    const VReg& a = n > 0 ? *src[0] : kNone;
    switch (insn.opcode) {
    case Opcode::VMov: out = *src[0]; break;
    case Opcode::VBcast: out.fill(scalar); break;
    case Opcode::VIota:
        for (int i = 0; i < N; ++i)
            out[i] = static_cast<std::uint32_t>(i);
        break;
    case Opcode::VAddF: map2<F32, F32>(out, a, *src[1], [](float x, float y) { return x + y; }); break;
    case Opcode::VSubF: map2<F32, F32>(out, a, *src[1], [](float x, float y) { return x - y; }); break;
    case Opcode::VMulF: map2<F32, F32>(out, a, *src[1], [](float x, float y) { return x * y; }); break;
    case Opcode::VMaxF: map2<F32, F32>(out, a, *src[1], maxNumber); break;
    case Opcode::VMinF: map2<F32, F32>(out, a, *src[1], minNumber); break;
    case Opcode::VFmaF:
        for (int i = 0; i < N; ++i)
            out[i] = u(defaultNaN(std::fma(f(a[i]), f((*src[1])[i]), f((*src[2])[i]))));
        break;
    case Opcode::VAddS: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x + y; }); break;
    case Opcode::VSubS: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x - y; }); break;
    case Opcode::VMulS: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x * y; }); break;
    case Opcode::VAnd: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x & y; }); break;
    case Opcode::VOr: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x | y; }); break;
    case Opcode::VXor: map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return x ^ y; }); break;
    // Shifts as StableHLO defines them on 32-bit words: an amount of 32 or more (unsigned) shifts
    // everything out, or fills with the sign.
    case Opcode::VShl:
        map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return y >= 32 ? 0 : x << y; });
        break;
    case Opcode::VShr:
        map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) { return y >= 32 ? 0 : x >> y; });
        break;
    case Opcode::VSra:
        map2<U32, U32>(out, a, *src[1], [](U32 x, U32 y) {
            return static_cast<U32>(static_cast<std::int32_t>(x) >> std::min<U32>(y, 31));
        });
        break;
    case Opcode::VPopcnt:
        for (int i = 0; i < N; ++i)
            out[i] = static_cast<U32>(std::popcount(a[i]));
        break;
    case Opcode::VClz:
        for (int i = 0; i < N; ++i)
            out[i] = static_cast<U32>(std::countl_zero(a[i]));
        break;
    case Opcode::VCmpLtF: map2<U32, F32>(out, a, *src[1], [](float x, float y) { return U32(x < y); }); break;
    case Opcode::VCmpEqF:
        map2<U32, F32>(out, a, *src[1], [](float x, float y) { return U32(x == y); });
        break;
    case Opcode::VSel:
        kernel3(out.data(), a.data(), src[1]->data(), src[2]->data(),
                [](U32 m, U32 x, U32 y) { return m != 0 ? x : y; });
        break;
    case Opcode::VCvtFS: map1<F32, S32>(out, a, [](std::int32_t x) { return static_cast<float>(x); }); break;
    case Opcode::VCvtSF: map1<U32, F32>(out, a, [](float x) { return toS32Saturating(x); }); break;
    case Opcode::VExp: map1<F32, F32>(out, a, [](float x) { return std::exp(x); }); break;
    case Opcode::VLog: map1<F32, F32>(out, a, [](float x) { return std::log(x); }); break;
    case Opcode::VRcp: map1<F32, F32>(out, a, [](float x) { return 1.0f / x; }); break;
    case Opcode::VRsqrt: map1<F32, F32>(out, a, [](float x) { return 1.0f / std::sqrt(x); }); break;
    case Opcode::VTanh: map1<F32, F32>(out, a, [](float x) { return std::tanh(x); }); break;
    case Opcode::XluRSum:
    case Opcode::XluRMax:
        for (int r = 0; r < R; ++r) {
            const std::uint32_t* row = a.data() + r * L;
            float v = 0.0f;
            if (insn.opcode == Opcode::XluRSum) {
                v = treeSum(row);
            } else {
                v = f(row[0]);
                for (int l = 1; l < L; ++l)
                    v = maxNumber(v, f(row[l]));
            }
            for (int l = 0; l < L; ++l)
                out[r * L + l] = u(defaultNaN(v));
        }
        break;
    case Opcode::XluCSum:
        for (int l = 0; l < L; ++l) {
            float v = 0.0f;
            for (int r = 0; r < R; ++r)
                v += f(a[r * L + l]);
            for (int r = 0; r < R; ++r)
                out[r * L + l] = u(defaultNaN(v));
        }
        break;
    case Opcode::XluRot: {
        const std::uint32_t shift = scalar % L;
        for (int r = 0; r < R; ++r)
            for (int l = 0; l < L; ++l)
                out[r * L + l] = a[r * L + static_cast<int>((l + L - shift) % L)];
        break;
    }
    case Opcode::XluTpose:
        for (int b = 0; b < L / 8; ++b)
            for (int r = 0; r < 8; ++r)
                for (int c = 0; c < 8; ++c)
                    out[r * L + 8 * b + c] = a[c * L + 8 * b + r];
        break;
    default: break;
    }
}

} // namespace xps::sim::detail

// Vector ALU, transcendental and cross-lane semantics. Elements are raw 32-bit words; each op reads them
// as f32 or s32 as its mnemonic says. Results are deterministic: the reduction orders are fixed.
#include "execute_detail.h"

#include <bit>
#include <cmath>
#include <limits>

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

template <typename Fn> void map1(VReg& out, const VReg& a, Fn fn)
{
    for (int i = 0; i < N; ++i)
        out[i] = fn(a[i]);
}
template <typename Fn> void map2(VReg& out, const VReg& a, const VReg& b, Fn fn)
{
    for (int i = 0; i < N; ++i)
        out[i] = fn(a[i], b[i]);
}

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
    case Opcode::VAddF: map2(out, a, *src[1], [](auto x, auto y) { return u(f(x) + f(y)); }); break;
    case Opcode::VSubF: map2(out, a, *src[1], [](auto x, auto y) { return u(f(x) - f(y)); }); break;
    case Opcode::VMulF: map2(out, a, *src[1], [](auto x, auto y) { return u(f(x) * f(y)); }); break;
    case Opcode::VMaxF: map2(out, a, *src[1], [](auto x, auto y) { return u(std::fmax(f(x), f(y))); }); break;
    case Opcode::VMinF: map2(out, a, *src[1], [](auto x, auto y) { return u(std::fmin(f(x), f(y))); }); break;
    case Opcode::VFmaF:
        for (int i = 0; i < N; ++i)
            out[i] = u(std::fma(f(a[i]), f((*src[1])[i]), f((*src[2])[i])));
        break;
    case Opcode::VAddS: map2(out, a, *src[1], [](auto x, auto y) { return x + y; }); break;
    case Opcode::VSubS: map2(out, a, *src[1], [](auto x, auto y) { return x - y; }); break;
    case Opcode::VMulS: map2(out, a, *src[1], [](auto x, auto y) { return x * y; }); break;
    case Opcode::VAnd: map2(out, a, *src[1], [](auto x, auto y) { return x & y; }); break;
    case Opcode::VOr: map2(out, a, *src[1], [](auto x, auto y) { return x | y; }); break;
    case Opcode::VXor: map2(out, a, *src[1], [](auto x, auto y) { return x ^ y; }); break;
    case Opcode::VCmpLtF:
        map2(out, a, *src[1], [](auto x, auto y) { return std::uint32_t(f(x) < f(y)); });
        break;
    case Opcode::VCmpEqF:
        map2(out, a, *src[1], [](auto x, auto y) { return std::uint32_t(f(x) == f(y)); });
        break;
    case Opcode::VSel:
        for (int i = 0; i < N; ++i)
            out[i] = a[i] != 0 ? (*src[1])[i] : (*src[2])[i];
        break;
    case Opcode::VCvtFS:
        map1(out, a, [](auto x) { return u(static_cast<float>(static_cast<std::int32_t>(x))); });
        break;
    case Opcode::VCvtSF: map1(out, a, [](auto x) { return toS32Saturating(f(x)); }); break;
    case Opcode::VExp: map1(out, a, [](auto x) { return u(std::exp(f(x))); }); break;
    case Opcode::VLog: map1(out, a, [](auto x) { return u(std::log(f(x))); }); break;
    case Opcode::VRcp: map1(out, a, [](auto x) { return u(1.0f / f(x)); }); break;
    case Opcode::VRsqrt: map1(out, a, [](auto x) { return u(1.0f / std::sqrt(f(x))); }); break;
    case Opcode::VTanh: map1(out, a, [](auto x) { return u(std::tanh(f(x))); }); break;
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
                    v = std::fmax(v, f(row[l]));
            }
            for (int l = 0; l < L; ++l)
                out[r * L + l] = u(v);
        }
        break;
    case Opcode::XluCSum:
        for (int l = 0; l < L; ++l) {
            float v = 0.0f;
            for (int r = 0; r < R; ++r)
                v += f(a[r * L + l]);
            for (int r = 0; r < R; ++r)
                out[r * L + l] = u(v);
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

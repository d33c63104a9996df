// The xpu-v1 opcode table: the one place an instruction is defined. Read it like the spec.
#include "isa/isa.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <unordered_map>

namespace xps::isa {
namespace {

constexpr OperandSpec sd{OperandKind::SReg, "sd"};
constexpr OperandSpec sa{OperandKind::SReg, "sa"};
constexpr OperandSpec ss{OperandKind::SReg, "ss"};
constexpr OperandSpec src{OperandKind::SRegOrImm, "src"};
constexpr OperandSpec vd{OperandKind::VReg, "vd"};
constexpr OperandSpec va{OperandKind::VReg, "va"};
constexpr OperandSpec vb{OperandKind::VReg, "vb"};
constexpr OperandSpec vc{OperandKind::VReg, "vc"};
constexpr OperandSpec vs{OperandKind::VReg, "vs"};
constexpr OperandSpec addr{OperandKind::Addr, "addr"};
constexpr OperandSpec target{OperandKind::Label, "target"};
constexpr OperandSpec flag{OperandKind::SRegOrImm, "flag"};
constexpr OperandSpec value{OperandKind::SRegOrImm, "value"};
constexpr OperandSpec stride{OperandKind::SRegOrImm, "stride"};
constexpr OperandSpec region{OperandKind::Region, "name"};
constexpr OperandSpec remoteChip{OperandKind::SRegOrImm, "chip", true, -1};
// Which of the core's MXUs (mxu_count) an MXU instruction acts on; each has its own weights and FIFO.
constexpr OperandSpec mxu{OperandKind::Imm, "mxu", true, 0};
// The element format of an MXU operand register: 0 f32 (8 rows of 128), or 16-bit elements packed two to a
// 32-bit lane, 16 rows of 128 (1 f16, 2 bf16: dma.start's cvt= codes of the 2-byte types); the machine
// says which the MXU takes (mxu_f16, mxu_bf16). It precedes mxu=, which stays the last operand.
constexpr OperandSpec fmt{OperandKind::Imm, "fmt", true, 0};

struct Row
{
    Opcode opcode;
    std::string_view mnemonic;
    SlotKind slot;
    Unit unit;
    std::initializer_list<OperandSpec> operands;
    std::string_view latency;
    std::string_view occupancy;
    std::string_view semantics;
    Space space = Space::Vmem;
};

constexpr OpcodeInfo make(const Row& r)
{
    OpcodeInfo i{r.opcode,  r.mnemonic,  r.slot,      r.unit,  {},   0,
                 r.latency, r.occupancy, r.semantics, r.space, false};
    for (const OperandSpec& o : r.operands)
        i.operands[static_cast<std::size_t>(i.operandCount++)] = o;
    i.isBranch = r.unit == Unit::Branch;
    return i;
}

using S = SlotKind;
using U = Unit;
using O = Opcode;

// Scalar ALU ops are 32-bit two's complement; compares write 1 or 0.
// Vector ops are element-wise over 8 sublanes x 128 lanes unless said otherwise.
// One row per opcode/parameter, so the table reads like the spec.
// clang-format off
constexpr OpcodeInfo kTable[] = {
    make({O::SMov, "smov", S::Scalar, U::ScalarAlu, {sd, src}, "lat_scalar_alu", "", "sd = src"}),
    make({O::SAdd, "sadd", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa + src (wraps)"}),
    make({O::SSub, "ssub", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa - src (wraps)"}),
    make({O::SMul, "smul", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_mul", "", "sd = low 32 bits of sa * src"}),
    make({O::SAnd, "sand", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa & src"}),
    make({O::SOr, "sor", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa | src"}),
    make({O::SXor, "sxor", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa ^ src"}),
    make({O::SShl, "sshl", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa << (src & 31)"}),
    make({O::SShr, "sshr", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa >> (src & 31), logical"}),
    make({O::SSra, "ssra", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa >> (src & 31), arithmetic"}),
    make({O::SMin, "smin", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = min(sa, src), signed"}),
    make({O::SMax, "smax", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = max(sa, src), signed"}),
    make({O::SCmpEq, "scmp.eq", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa == src"}),
    make({O::SCmpNe, "scmp.ne", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa != src"}),
    make({O::SCmpLt, "scmp.lt", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa < src, signed"}),
    make({O::SCmpLe, "scmp.le", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa <= src, signed"}),
    make({O::SCmpGt, "scmp.gt", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa > src, signed"}),
    make({O::SCmpGe, "scmp.ge", S::Scalar, U::ScalarAlu, {sd, sa, src}, "lat_scalar_alu", "", "sd = sa >= src, signed"}),
    make({O::SChip, "schip", S::Scalar, U::ScalarAlu, {sd}, "lat_scalar_alu", "", "sd = index of the executing chip"}),
    make({O::SLd, "sld", S::Scalar, U::ScalarMemory, {sd, addr}, "lat_smem_load", "", "sd = SMEM word at addr (4-byte aligned)", Space::Smem}),
    make({O::SSt, "sst", S::Scalar, U::ScalarMemory, {ss, addr}, "lat_scalar_alu", "", "SMEM word at addr = ss (4-byte aligned)", Space::Smem}),
    make({O::Br, "br", S::Scalar, U::Branch, {target}, "lat_branch_taken", "", "jump to target"}),
    make({O::Brz, "brz", S::Scalar, U::Branch, {sa, target}, "lat_branch_taken", "", "jump to target if sa == 0"}),
    make({O::Brnz, "brnz", S::Scalar, U::Branch, {sa, target}, "lat_branch_taken", "", "jump to target if sa != 0"}),

    make({O::VMov, "vmov", S::Vector, U::VectorAlu, {vd, va}, "lat_vector_alu", "", "vd = va"}),
    make({O::VBcast, "vbcast", S::Vector, U::VectorAlu, {vd, src}, "lat_vector_alu", "", "every element of vd = the 32 bits of src"}),
    make({O::VIota, "viota", S::Vector, U::VectorAlu, {vd}, "lat_vector_alu", "", "vd[s][l] = s * 128 + l (s32)"}),
    make({O::VAddF, "vadd.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va + vb (f32)"}),
    make({O::VSubF, "vsub.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va - vb (f32)"}),
    make({O::VMulF, "vmul.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va * vb (f32)"}),
    make({O::VMaxF, "vmax.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = max(va, vb) (f32; a NaN operand gives the other, -0 < +0)"}),
    make({O::VMinF, "vmin.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = min(va, vb) (f32; a NaN operand gives the other, -0 < +0)"}),
    make({O::VFmaF, "vfma.f32", S::Vector, U::VectorAlu, {vd, va, vb, vc}, "lat_vector_fma", "", "vd = va * vb + vc (f32, fused)"}),
    make({O::VAddS, "vadd.s32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va + vb (s32, wraps)"}),
    make({O::VSubS, "vsub.s32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va - vb (s32, wraps)"}),
    make({O::VMulS, "vmul.s32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = low 32 bits of va * vb"}),
    make({O::VAnd, "vand", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va & vb"}),
    make({O::VOr, "vor", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va | vb"}),
    make({O::VXor, "vxor", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va ^ vb"}),
    make({O::VShl, "vshl", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va << vb, 0 where vb >= 32 (unsigned)"}),
    make({O::VShr, "vshr", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va >> vb, logical, 0 where vb >= 32 (unsigned)"}),
    make({O::VSra, "vsra", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va >> min(vb, 31), arithmetic (vb unsigned)"}),
    make({O::VPopcnt, "vpopcnt", S::Vector, U::VectorAlu, {vd, va}, "lat_vector_alu", "", "vd = the number of bits set in va"}),
    make({O::VClz, "vclz", S::Vector, U::VectorAlu, {vd, va}, "lat_vector_alu", "", "vd = the number of leading zero bits of va (32 for 0)"}),
    make({O::VCmpLtF, "vcmp.lt.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va < vb ? 1 : 0 (f32 compare, s32 result)"}),
    make({O::VCmpEqF, "vcmp.eq.f32", S::Vector, U::VectorAlu, {vd, va, vb}, "lat_vector_alu", "", "vd = va == vb ? 1 : 0 (f32 compare, s32 result)"}),
    make({O::VSel, "vsel", S::Vector, U::VectorAlu, {vd, {OperandKind::VReg, "vm"}, va, vb}, "lat_vector_alu", "", "vd = vm != 0 ? va : vb"}),
    make({O::VCvtFS, "vcvt.f32.s32", S::Vector, U::VectorAlu, {vd, va}, "lat_vector_alu", "", "vd = (f32) va, from s32, round to nearest even"}),
    make({O::VCvtSF, "vcvt.s32.f32", S::Vector, U::VectorAlu, {vd, va}, "lat_vector_alu", "", "vd = (s32) va, from f32, toward zero, saturating; NaN -> 0"}),

    make({O::VExp, "vexp.f32", S::Vector, U::Transcendental, {vd, va}, "lat_transcendental", "occ_transcendental", "vd = e^va"}),
    make({O::VLog, "vlog.f32", S::Vector, U::Transcendental, {vd, va}, "lat_transcendental", "occ_transcendental", "vd = ln(va)"}),
    make({O::VRcp, "vrcp.f32", S::Vector, U::Transcendental, {vd, va}, "lat_transcendental", "occ_transcendental", "vd = 1 / va"}),
    make({O::VRsqrt, "vrsqrt.f32", S::Vector, U::Transcendental, {vd, va}, "lat_transcendental", "occ_transcendental", "vd = 1 / sqrt(va)"}),
    make({O::VTanh, "vtanh.f32", S::Vector, U::Transcendental, {vd, va}, "lat_transcendental", "occ_transcendental", "vd = tanh(va)"}),

    make({O::VLd, "vld", S::VectorLoad, U::VectorLoad, {vd, addr}, "lat_vector_load", "", "vd = 4 KiB of VMEM at addr (8 rows of 512 B)"}),
    make({O::VLdS, "vld.s", S::VectorLoad, U::VectorLoad, {vd, addr, stride}, "lat_vector_load", "", "row r of vd = 512 B of VMEM at addr + r * stride"}),
    make({O::VLdSH, "vld.sh", S::VectorLoad, U::VectorLoad, {vd, addr, stride}, "lat_vector_load", "", "16 half rows: half h of vd (row h / 2, lanes 64 (h % 2) on) = 256 B of VMEM at addr + h * stride, 16 packed f16/bf16 rows as the MXU takes them (fmt=)"}),
    make({O::VSt, "vst", S::VectorStore, U::VectorStore, {vs, addr}, "lat_vector_store", "", "4 KiB of VMEM at addr = vs"}),
    make({O::VStS, "vst.s", S::VectorStore, U::VectorStore, {vs, addr, stride}, "lat_vector_store", "", "512 B of VMEM at addr + r * stride = row r of vs"}),

    make({O::MxuWPush, "mxu.wpush", S::MatrixPush, U::MxuWeights, {va, fmt, mxu}, "lat_mxu_wpush", "occ_mxu_wpush", "push 8 weight rows (va) into MXU mxu's staging buffer, or 16 packed rows (fmt=1 f16, 2 bf16); 128 rows stage 128 x 128"}),
    make({O::MxuWPushT, "mxu.wpush.t", S::MatrixPush, U::MxuWeights, {va, fmt, mxu}, "lat_mxu_wpush", "occ_mxu_wpush", "push 8 weight columns (16 packed, fmt=), transposed: row r of va becomes column c + r of the staged weights (c: columns staged so far), as a transposed-rhs matmul loads them"}),
    make({O::MxuWCommit, "mxu.wcommit", S::MatrixPush, U::MxuWeights, {mxu}, "lat_mxu_wcommit", "occ_mxu_wcommit", "MXU mxu's staged weights become its active weights (staging is cleared)"}),
    make({O::MxuMm, "mxu.mm", S::MatrixPush, U::MxuMatmul, {va, fmt, mxu}, "lat_mxu_matmul", "occ_mxu_matmul", "stream 8 rows of va (8 x 128) through MXU mxu's active weights W; push va x W (8 x 128, f32) to its result FIFO; fmt=1 or 2: 16 packed f16/bf16 rows, two results, twice the occupancy"}),
    make({O::MxuPop, "mxu.pop", S::MatrixPop, U::MxuResult, {vd, mxu}, "lat_mxu_pop", "", "vd = oldest result in MXU mxu's FIFO; waits while it is empty"}),

    make({O::XluRSum, "xlu.rsum.f32", S::CrossLane, U::CrossLane, {vd, va}, "lat_xlu", "occ_xlu", "every lane of row r of vd = sum of row r of va (f32, pairwise tree order)"}),
    make({O::XluRMax, "xlu.rmax.f32", S::CrossLane, U::CrossLane, {vd, va}, "lat_xlu", "occ_xlu", "every lane of row r of vd = max of row r of va"}),
    make({O::XluCSum, "xlu.csum.f32", S::CrossLane, U::CrossLane, {vd, va}, "lat_xlu", "occ_xlu", "every row of lane l of vd = sum over the 8 rows of lane l of va (f32, in row order)"}),
    make({O::XluRot, "xlu.rot", S::CrossLane, U::CrossLane, {vd, va, {OperandKind::SRegOrImm, "shift"}}, "lat_xlu", "occ_xlu", "vd[r][l] = va[r][(l - shift) mod 128]"}),
    make({O::XluTpose, "xlu.tpose", S::CrossLane, U::CrossLane, {vd, va}, "lat_xlu", "occ_xlu", "transpose each of the 16 8 x 8 blocks of va: vd[r][8b + c] = va[c][8b + r]"}),

    make({O::DmaStart, "dma.start", S::Misc, U::Dma,
          {{OperandKind::SpaceAddr, "dst"}, {OperandKind::SpaceAddr, "src"}, {OperandKind::SRegOrImm, "bytes"}, flag,
           {OperandKind::Imm, "engine", true, 0}, {OperandKind::SRegOrImm, "rows", true, 1},
           {OperandKind::SRegOrImm, "sstride", true, 0}, {OperandKind::SRegOrImm, "dstride", true, 0},
           {OperandKind::Imm, "chunk", true, 0}, remoteChip, {OperandKind::Imm, "route", true, 0},
           {OperandKind::Imm, "cvt", true, 0}},
          "dma_setup_cycles", "", "queue a copy of rows x bytes from src to dst on an engine; flag += 1 per completed chunk (on the destination chip); route=1 sends a remote copy the long way round; cvt converts each element on the way (1 f16->f32, 2 bf16->f32, 3 f32->f16, 4 f32->bf16, rounding to nearest even): bytes counts the source's bytes per row, each side has its own stride, and chunk= and the progress count the 2-byte side's bytes"}),
    make({O::SyncWait, "sync.wait", S::Misc, U::Sync, {flag, value}, "lat_sync", "", "stall issue until flag >= value"}),
    make({O::SyncSet, "sync.set", S::Misc, U::Sync, {flag, value}, "lat_sync", "", "flag = value"}),
    make({O::SyncAdd, "sync.add", S::Misc, U::Sync, {flag, value, remoteChip}, "lat_sync", "", "flag += value, on chip `chip` if given (over ICI)"}),
    make({O::RegionBegin, "region.begin", S::Misc, U::Marker, {region}, "", "", "enter the named region (nestable: layer > op > loop)"}),
    make({O::RegionEnd, "region.end", S::Misc, U::Marker, {}, "", "", "leave the innermost open region"}),
    make({O::Halt, "halt", S::Misc, U::Control, {}, "", "", "stop this chip's core once its issued work has drained"}),
};
// clang-format on

static_assert(std::size(kTable) == static_cast<std::size_t>(kOpcodeCount), "one table row per opcode");

constexpr bool tableInOpcodeOrder()
{
    for (std::size_t i = 0; i < std::size(kTable); ++i)
        if (static_cast<std::size_t>(kTable[i].opcode) != i)
            return false;
    return true;
}
static_assert(tableInOpcodeOrder(), "kTable rows must follow the Opcode enum order");

} // namespace

int OpcodeInfo::positionalCount() const
{
    int n = 0;
    for (const OperandSpec& o : operandSpecs())
        n += o.keyword ? 0 : 1;
    return n;
}

const OpcodeInfo& info(Opcode op)
{
    return kTable[static_cast<std::size_t>(op)];
}

std::span<const OpcodeInfo> allOpcodes()
{
    return kTable;
}

std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic)
{
    static const auto byName = [] {
        std::unordered_map<std::string_view, Opcode> m;
        for (const OpcodeInfo& i : kTable)
            m.emplace(i.mnemonic, i.opcode);
        return m;
    }();
    const auto it = byName.find(mnemonic);
    if (it == byName.end())
        return std::nullopt;
    return it->second;
}

int slotCount(SlotKind kind)
{
    return kind == SlotKind::Scalar || kind == SlotKind::Vector ? 2 : 1;
}

std::string_view slotName(SlotKind kind)
{
    switch (kind) {
    case SlotKind::Scalar: return "scalar";
    case SlotKind::Vector: return "vector";
    case SlotKind::VectorLoad: return "vector load";
    case SlotKind::VectorStore: return "vector store";
    case SlotKind::MatrixPush: return "matrix push";
    case SlotKind::MatrixPop: return "matrix pop";
    case SlotKind::CrossLane: return "cross-lane";
    case SlotKind::Misc: return "misc";
    }
    return "?";
}

std::string_view unitName(Unit unit)
{
    switch (unit) {
    case Unit::ScalarAlu: return "scalar ALU";
    case Unit::ScalarMemory: return "SMEM";
    case Unit::Branch: return "branch";
    case Unit::VectorAlu: return "vector ALU";
    case Unit::Transcendental: return "transcendental";
    case Unit::VectorLoad: return "vector load";
    case Unit::VectorStore: return "vector store";
    case Unit::MxuWeights: return "MXU weights";
    case Unit::MxuMatmul: return "MXU matmul";
    case Unit::MxuResult: return "MXU result";
    case Unit::CrossLane: return "cross-lane";
    case Unit::Dma: return "DMA";
    case Unit::Sync: return "sync";
    case Unit::Marker: return "marker";
    case Unit::Control: return "control";
    }
    return "?";
}

std::string_view spaceName(Space space)
{
    switch (space) {
    case Space::Hbm: return "hbm";
    case Space::Vmem: return "vmem";
    case Space::Smem: return "smem";
    }
    return "?";
}

std::optional<Space> spaceFromName(std::string_view name)
{
    if (name == "hbm")
        return Space::Hbm;
    if (name == "vmem")
        return Space::Vmem;
    if (name == "smem")
        return Space::Smem;
    return std::nullopt;
}

std::string_view operandKindDescription(OperandKind kind)
{
    switch (kind) {
    case OperandKind::SReg: return "a scalar register (s0..s31)";
    case OperandKind::VReg: return "a vector register (v0..v31)";
    case OperandKind::SRegOrImm: return "a scalar register or an immediate";
    case OperandKind::Imm: return "an immediate";
    case OperandKind::Label: return "a label or a pc";
    case OperandKind::Addr: return "an address [sN + offset]";
    case OperandKind::SpaceAddr: return "a memory operand hbm[...], vmem[...] or smem[...]";
    case OperandKind::Region: return "a region name";
    }
    return "?";
}

} // namespace xps::isa

#pragma once
// The xpu-v1 instruction set, as data. One entry per opcode in opcodes.cpp: its slot, operands, latency
// parameter and a one-line semantics. The assembler, the disassembler, the GRM and docs/isa.md all draw
// from that table, so an opcode is added in exactly one place.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace xps::isa {

inline constexpr int kScalarRegisters = 32;
inline constexpr int kVectorRegisters = 32;
inline constexpr int kSublanes = 8;
inline constexpr int kLanes = 128;
inline constexpr int kVectorElements = kSublanes * kLanes; // 32-bit elements per vector register
inline constexpr int kVectorBytes = kVectorElements * 4;   // 4 KiB
inline constexpr int kMxuDim = 128;                        // systolic array is kMxuDim x kMxuDim
inline constexpr int kMaxOperands = 12;
inline constexpr int kMaxMxus = 16; // mxu_count's upper bound

// The kind of bundle slot an instruction occupies. A bundle has two scalar, two vector and one of each
// other slot; the assembler places instructions and reports a conflict when a kind is over-subscribed.
enum class SlotKind : std::uint8_t {
    Scalar,
    Vector,
    VectorLoad,
    VectorStore,
    MatrixPush,
    MatrixPop,
    CrossLane,
    Misc
};
inline constexpr int kSlotKinds = 8;
int slotCount(SlotKind kind);
std::string_view slotName(SlotKind kind);

// The functional unit that executes an instruction (what timelines draw lanes for).
enum class Unit : std::uint8_t {
    ScalarAlu,
    ScalarMemory,
    Branch,
    VectorAlu,
    Transcendental,
    VectorLoad,
    VectorStore,
    MxuWeights,
    MxuMatmul,
    MxuResult,
    CrossLane,
    Dma,
    Sync,
    Marker,
    Control
};
std::string_view unitName(Unit unit);

enum class Space : std::uint8_t { Hbm, Vmem, Smem };
std::string_view spaceName(Space space);
std::optional<Space> spaceFromName(std::string_view name);

// What an operand position accepts, as written in assembly.
enum class OperandKind : std::uint8_t {
    SReg,      // s0..s31
    VReg,      // v0..v31
    SRegOrImm, // s0..s31 or an immediate expression
    Imm,       // an immediate expression, known at assembly time
    Label,     // a branch target: a label name or an absolute pc
    Addr,      // [sN + expr] or [expr]; the space is implied by the opcode
    SpaceAddr, // hbm[...], vmem[...] or smem[...]
    Region,    // a region name
};
std::string_view operandKindDescription(OperandKind kind);

struct OperandSpec
{
    OperandKind kind;
    std::string_view name; // positional: documentation name; keyword: the keyword (`engine=`)
    bool keyword = false;  // keyword operands follow positional ones, in any order, and may be omitted
    std::int64_t defaultValue = 0;
};

enum class Opcode : std::uint16_t {
    // scalar
    SMov,
    SAdd,
    SSub,
    SMul,
    SAnd,
    SOr,
    SXor,
    SShl,
    SShr,
    SSra,
    SMin,
    SMax,
    SCmpEq,
    SCmpNe,
    SCmpLt,
    SCmpLe,
    SCmpGt,
    SCmpGe,
    SChip,
    SLd,
    SSt,
    Br,
    Brz,
    Brnz,
    // vector ALU
    VMov,
    VBcast,
    VIota,
    VAddF,
    VSubF,
    VMulF,
    VMaxF,
    VMinF,
    VFmaF,
    VAddS,
    VSubS,
    VMulS,
    VAnd,
    VOr,
    VXor,
    VShl,
    VShr,
    VSra,
    VPopcnt,
    VClz,
    VCmpLtF,
    VCmpEqF,
    VSel,
    VCvtFS,
    VCvtSF,
    // transcendental
    VExp,
    VLog,
    VRcp,
    VRsqrt,
    VTanh,
    // vector memory
    VLd,
    VLdS,
    VLdSH,
    VSt,
    VStS,
    // MXU
    MxuWPush,
    MxuWPushT,
    MxuWCommit,
    MxuMm,
    MxuPop,
    // cross-lane
    XluRSum,
    XluRMax,
    XluCSum,
    XluRot,
    XluTpose,
    // misc
    DmaStart,
    SyncWait,
    SyncSet,
    SyncAdd,
    RegionBegin,
    RegionEnd,
    Halt,
    Count_
};
inline constexpr int kOpcodeCount = static_cast<int>(Opcode::Count_);

struct OpcodeInfo
{
    Opcode opcode;
    std::string_view mnemonic;
    SlotKind slot;
    Unit unit;
    std::array<OperandSpec, kMaxOperands> operands;
    int operandCount;
    std::string_view latencyParam;   // machine-config key of the result latency
    std::string_view occupancyParam; // machine-config key of the unit occupancy, empty if fully pipelined
    std::string_view semantics;      // one line, for docs and tooltips
    Space memorySpace = Space::Vmem; // for Addr operands
    bool isBranch = false;

    std::span<const OperandSpec> operandSpecs() const
    {
        return {operands.data(), static_cast<std::size_t>(operandCount)};
    }
    int positionalCount() const;
};

const OpcodeInfo& info(Opcode op);
std::span<const OpcodeInfo> allOpcodes();
std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic);

} // namespace xps::isa

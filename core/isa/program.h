#pragma once
// Decoded xpu-v1 code: operands, instructions, bundles, programs. Plain values, cheap to compare, so
// round-trip tests and the what-if transformations can check "same program" with ==.

#include "isa/isa.h"

#include <array>
#include <cstdint>
#include <vector>

namespace xps::isa {

struct Operand
{
    enum class Form : std::uint8_t { None, SReg, VReg, Imm, Mem };

    // Eight bytes: a model's program has millions of instructions of twelve operand slots each, so each
    // byte here costs GPT-2's program over a hundred megabytes. `value` holds 39 bits with its sign
    // (+-256 GiB: every address and immediate the ISA has); the assembler refuses a wider one (fits()).
    static constexpr std::int64_t kValueLimit = (std::int64_t{1} << 38) - 1;

    Form form : 8 = Form::None;
    Space space : 8 = Space::Vmem; // Mem: the address space
    std::uint8_t reg : 8 = 0;      // SReg/VReg: register number; Mem: base register
    bool hasBase : 1 = false;      // Mem: whether a base register is added
    std::int64_t value : 39 = 0;   // Imm: value (label pc, region id); Mem: byte offset

    static Operand sreg(int r) { return make(Form::SReg, Space::Vmem, false, r, 0); }
    static Operand vreg(int r) { return make(Form::VReg, Space::Vmem, false, r, 0); }
    static Operand imm(std::int64_t v) { return make(Form::Imm, Space::Vmem, false, 0, v); }
    static Operand mem(Space s, int base, std::int64_t offset)
    {
        return make(Form::Mem, s, base >= 0, base < 0 ? 0 : base, offset);
    }
    static bool fits(std::int64_t v) { return v >= -kValueLimit - 1 && v <= kValueLimit; }
    bool present() const { return form != Form::None; }
    bool operator==(const Operand&) const = default;

private:
    static Operand make(Form form, Space space, bool hasBase, int reg, std::int64_t value)
    {
        Operand o;
        o.form = form;
        o.space = space;
        o.hasBase = hasBase;
        o.reg = static_cast<std::uint8_t>(reg);
        o.value = value;
        return o;
    }
};
static_assert(sizeof(Operand) == 8);

// Operands are stored in the order of the opcode's OperandSpec list; an omitted keyword operand is
// Form::None and means its documented default.
struct Instruction
{
    Opcode opcode = Opcode::Halt;
    std::array<Operand, kMaxOperands> operands{};

    const OpcodeInfo& info() const { return isa::info(opcode); }
    bool operator==(const Instruction&) const = default;
};

// The MXU an MXU instruction (matrix push or pop slot) acts on: its mxu= operand, the last one, 0 when
// omitted; -1 for any other instruction. Not range-checked: the trace validator keeps it below mxu_count.
inline std::int64_t mxuIndex(const Instruction& insn)
{
    const OpcodeInfo& op = insn.info();
    if (op.slot != SlotKind::MatrixPush && op.slot != SlotKind::MatrixPop)
        return -1;
    const Operand& which = insn.operands[static_cast<std::size_t>(op.operandCount - 1)];
    return which.present() ? which.value : 0;
}

// MXU operand formats (an mxu.wpush, mxu.wpush.t or mxu.mm's fmt= operand): f32 rows, or f16/bf16 packed
// two to a 32-bit lane, so that a register holds 16 rows (the codes are dma.start cvt='s for the 2-byte
// types that widen to f32).
inline constexpr std::int64_t kMxuF32 = 0, kMxuF16 = 1, kMxuBf16 = 2;

// The format of an MXU instruction's register operand: its fmt= operand (the one before mxu=), 0 when
// omitted or for an instruction without one. Not range-checked: the trace validator does that.
inline std::int64_t mxuFormat(const Instruction& insn)
{
    const OpcodeInfo& op = insn.info();
    if (insn.opcode != Opcode::MxuWPush && insn.opcode != Opcode::MxuWPushT && insn.opcode != Opcode::MxuMm)
        return kMxuF32;
    const Operand& format = insn.operands[static_cast<std::size_t>(op.operandCount - 2)];
    return format.present() ? format.value : kMxuF32;
}

// Rows of 128 an MXU operand register holds in a format: 8 of f32, 16 packed.
inline int mxuRowsPerRegister(std::int64_t format)
{
    return format == kMxuF32 ? kSublanes : 2 * kSublanes;
}

// How many times its opcode's occupancy an instruction keeps its unit busy: twice for an mxu.mm of 16
// packed rows (the LHS stream at a row a cycle), else once. isa::OpcodeCycles scales the
// opcode's occupancy by it.
inline int occupancyMultiple(const Instruction& insn)
{
    return insn.opcode == Opcode::MxuMm ? mxuRowsPerRegister(mxuFormat(insn)) / kSublanes : 1;
}

// One VLIW bundle: the instructions issued together in one cycle, in slot order. Empty means nop.
struct Bundle
{
    std::vector<Instruction> instructions;
    bool operator==(const Bundle&) const = default;
};

struct Program
{
    std::vector<Bundle> bundles; // pc = index
    bool operator==(const Program&) const = default;
};

} // namespace xps::isa

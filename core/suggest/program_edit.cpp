#include "suggest/program_edit.h"

#include "isa/register_use.h"

namespace xps::suggest {
namespace {

bool isLabelOperand(const isa::Instruction& insn, std::size_t i)
{
    const auto specs = insn.info().operandSpecs();
    return i < specs.size() && specs[i].kind == isa::OperandKind::Label && insn.operands[i].form == isa::Operand::Form::Imm;
}

} // namespace

void insertBundle(trace::ChipTrace& chip, std::uint32_t pc, isa::Bundle bundle)
{
    auto& bundles = chip.program.bundles;
    for (isa::Bundle& b : bundles)
        for (isa::Instruction& insn : b.instructions)
            for (std::size_t i = 0; i < insn.operands.size(); ++i)
                if (isLabelOperand(insn, i) && insn.operands[i].value > static_cast<std::int64_t>(pc))
                    ++insn.operands[i].value;
    bundles.insert(bundles.begin() + pc, std::move(bundle));
    for (trace::Label& l : chip.symbols.labels)
        if (l.pc > pc)
            ++l.pc;
    for (trace::SourceLine& s : chip.symbols.sourceLines)
        if (s.pc > pc)
            ++s.pc;
}

void removeBundle(trace::ChipTrace& chip, std::uint32_t pc)
{
    auto& bundles = chip.program.bundles;
    bundles.erase(bundles.begin() + pc);
    for (isa::Bundle& b : bundles)
        for (isa::Instruction& insn : b.instructions)
            for (std::size_t i = 0; i < insn.operands.size(); ++i)
                if (isLabelOperand(insn, i) && insn.operands[i].value > static_cast<std::int64_t>(pc))
                    --insn.operands[i].value;
    for (trace::Label& l : chip.symbols.labels)
        if (l.pc > pc)
            --l.pc;
    for (trace::SourceLine& s : chip.symbols.sourceLines)
        if (s.pc > pc)
            --s.pc;
}

std::vector<bool> branchTargets(const isa::Program& program)
{
    std::vector<bool> targets(program.bundles.size() + 1, false);
    for (const isa::Bundle& b : program.bundles)
        for (const isa::Instruction& insn : b.instructions)
            for (std::size_t i = 0; i < insn.operands.size(); ++i)
                if (isLabelOperand(insn, i)) {
                    const std::int64_t t = insn.operands[i].value;
                    if (t >= 0 && static_cast<std::size_t>(t) < targets.size())
                        targets[static_cast<std::size_t>(t)] = true;
                }
    return targets;
}

bool hasBranch(const isa::Bundle& bundle)
{
    for (const isa::Instruction& insn : bundle.instructions)
        if (insn.info().isBranch || insn.opcode == isa::Opcode::Halt)
            return true;
    return false;
}

int findInstruction(const isa::Bundle& bundle, isa::Opcode opcode)
{
    for (std::size_t i = 0; i < bundle.instructions.size(); ++i)
        if (bundle.instructions[i].opcode == opcode)
            return static_cast<int>(i);
    return -1;
}

bool slotFree(const isa::Bundle& bundle, isa::SlotKind slot)
{
    int used = 0;
    for (const isa::Instruction& insn : bundle.instructions)
        if (insn.info().slot == slot)
            ++used;
    return used < isa::slotCount(slot);
}

std::uint32_t scalarRegistersUsed(const trace::ChipTrace& chip)
{
    std::uint32_t used = 0;
    for (const auto& [r, value] : chip.initial.scalarRegisters)
        used |= 1u << (r & 31);
    for (const isa::Bundle& b : chip.program.bundles)
        for (const isa::Instruction& insn : b.instructions) {
            const isa::RegisterUse use = isa::registerUse(insn);
            used |= use.readsS;
            if (use.writesS >= 0)
                used |= 1u << use.writesS;
        }
    return used;
}

std::int64_t loopEnd(const isa::Program& program, std::uint32_t pc, std::uint32_t* head)
{
    for (std::size_t q = pc; q < program.bundles.size(); ++q)
        for (const isa::Instruction& insn : program.bundles[q].instructions) {
            if (!insn.info().isBranch)
                continue;
            const auto specs = insn.info().operandSpecs();
            for (std::size_t i = 0; i < specs.size(); ++i)
                if (specs[i].kind == isa::OperandKind::Label && insn.operands[i].form == isa::Operand::Form::Imm &&
                    insn.operands[i].value >= 0 && insn.operands[i].value <= static_cast<std::int64_t>(pc)) {
                    if (head)
                        *head = static_cast<std::uint32_t>(insn.operands[i].value);
                    return static_cast<std::int64_t>(q);
                }
        }
    return -1;
}

} // namespace xps::suggest

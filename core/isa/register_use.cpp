#include "isa/register_use.h"

namespace xps::isa {

RegisterUse registerUse(const Instruction& insn)
{
    RegisterUse u;
    const auto specs = insn.info().operandSpecs();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const Operand& o = insn.operands[i];
        // Destinations are the operands the opcode table names "sd" and "vd".
        const bool destination = specs[i].name == "sd" || specs[i].name == "vd";
        switch (o.form) {
        case Operand::Form::SReg:
            if (destination)
                u.writesS = o.reg;
            else
                u.readsS |= 1u << o.reg;
            break;
        case Operand::Form::VReg:
            if (destination)
                u.writesV = o.reg;
            else
                u.readsV |= 1u << o.reg;
            break;
        case Operand::Form::Mem:
            if (o.hasBase)
                u.readsS |= 1u << o.reg;
            break;
        default: break;
        }
    }
    return u;
}

} // namespace xps::isa

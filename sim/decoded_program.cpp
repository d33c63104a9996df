#include "decoded_program.h"

namespace xps::sim {

std::vector<DecodedBundle> decodeProgram(const isa::Program& program, const isa::MachineConfig& config)
{
    std::vector<DecodedBundle> out;
    out.reserve(program.bundles.size());
    for (const isa::Bundle& bundle : program.bundles) {
        DecodedBundle db;
        for (const isa::Instruction& insn : bundle.instructions) {
            const isa::OpcodeInfo& info = insn.info();
            DecodedInstruction d;
            d.insn = &insn;
            d.unit = info.unit;
            d.latency = info.latencyParam.empty()
                            ? 1u
                            : static_cast<std::uint32_t>(isa::machineParamInt(config, info.latencyParam));
            d.occupancy = info.occupancyParam.empty()
                              ? 0u
                              : static_cast<std::uint32_t>(isa::machineParamInt(config, info.occupancyParam));
            const auto specs = info.operandSpecs();
            for (std::size_t i = 0; i < specs.size(); ++i) {
                const isa::Operand& o = insn.operands[i];
                const bool destination = specs[i].name == "sd" || specs[i].name == "vd";
                switch (o.form) {
                case isa::Operand::Form::SReg:
                    if (destination)
                        d.writesS = o.reg;
                    else
                        d.readsS |= 1u << o.reg;
                    break;
                case isa::Operand::Form::VReg:
                    if (destination)
                        d.writesV = o.reg;
                    else
                        d.readsV |= 1u << o.reg;
                    break;
                case isa::Operand::Form::Mem:
                    if (o.hasBase)
                        d.readsS |= 1u << o.reg;
                    break;
                default: break;
                }
            }
            db.pops = db.pops || insn.opcode == isa::Opcode::MxuPop;
            db.readsS |= d.readsS;
            db.readsV |= d.readsV;
            db.instructions.push_back(d);
        }
        out.push_back(std::move(db));
    }
    return out;
}

} // namespace xps::sim

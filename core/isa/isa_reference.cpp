#include "isa/isa_reference.h"

#include "isa/isa.h"
#include "isa/machine_config.h"

namespace xps::isa {
namespace {

std::string syntaxOf(const OpcodeInfo& op)
{
    std::string s = "`" + std::string(op.mnemonic);
    bool first = true;
    for (const OperandSpec& o : op.operandSpecs()) {
        s += first ? " " : ", ";
        first = false;
        if (o.keyword)
            s += "[" + std::string(o.name) + "=" + std::to_string(o.defaultValue) + "]";
        else
            s += std::string(o.name);
    }
    return s + "`";
}

std::string escapePipes(std::string_view text)
{
    std::string out;
    for (char c : text)
        out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

} // namespace

std::string opcodeReferenceMarkdown()
{
    std::string out =
        "| syntax | slot | unit | latency | occupancy | semantics |\n|---|---|---|---|---|---|\n";
    for (const OpcodeInfo& op : allOpcodes()) {
        out += "| " + syntaxOf(op) + " | " + std::string(slotName(op.slot)) + " | " +
               std::string(unitName(op.unit)) + " | " +
               (op.latencyParam.empty() ? "-" : "`" + std::string(op.latencyParam) + "`") + " | " +
               (op.occupancyParam.empty() ? "-" : "`" + std::string(op.occupancyParam) + "`") + " | " +
               escapePipes(op.semantics) + " |\n";
    }
    return out;
}

std::string machineConfigReferenceMarkdown()
{
    const MachineConfig defaults;
    std::string out = "| key | default | unit | meaning | source of the default |\n|---|---|---|---|---|\n";
    for (const ConfigParam& p : configParams())
        out += "| `" + std::string(p.key) + "` | " + machineParamText(defaults, p.key) + " | " +
               std::string(p.unit) + " | " + escapePipes(p.description) + " | " + escapePipes(p.source) +
               " |\n";
    return out;
}

} // namespace xps::isa

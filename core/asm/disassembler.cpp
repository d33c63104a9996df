#include "asm/disassembler.h"

#include "util/text.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>

namespace xps::assembly {
namespace {

std::string signedOffset(std::int64_t v)
{
    return v < 0 ? " - " + text::hex(static_cast<std::uint64_t>(-v))
                 : " + " + text::hex(static_cast<std::uint64_t>(v));
}

std::string address(const isa::Operand& o)
{
    if (!o.hasBase)
        return "[" + text::hex(static_cast<std::uint64_t>(o.value)) + "]";
    const std::string base = "s" + std::to_string(o.reg);
    return "[" + base + (o.value == 0 ? "" : signedOffset(o.value)) + "]";
}

std::string labelAt(const trace::SymbolTable& symbols, std::int64_t pc)
{
    for (const trace::Label& l : symbols.labels)
        if (l.pc == pc)
            return l.name;
    return text::hex(static_cast<std::uint64_t>(pc));
}

std::string operandText(const isa::Operand& o, const isa::OperandSpec& spec,
                        const trace::SymbolTable& symbols)
{
    switch (o.form) {
    case isa::Operand::Form::None: return {};
    case isa::Operand::Form::SReg: return "s" + std::to_string(o.reg);
    case isa::Operand::Form::VReg: return "v" + std::to_string(o.reg);
    case isa::Operand::Form::Mem:
        return spec.kind == isa::OperandKind::SpaceAddr ? std::string(isa::spaceName(o.space)) + address(o)
                                                        : address(o);
    case isa::Operand::Form::Imm:
        if (spec.kind == isa::OperandKind::Label)
            return labelAt(symbols, o.value);
        if (spec.kind == isa::OperandKind::Region) {
            if (o.value >= 0 && o.value < static_cast<std::int64_t>(symbols.regions.size())) {
                const std::string& name = symbols.regions[static_cast<std::size_t>(o.value)].name;
                return isPlainIdentifier(name) ? name : "\"" + name + "\"";
            }
            return "\"#" + std::to_string(o.value) + "\"";
        }
        return std::to_string(o.value);
    }
    return {};
}

std::string generatorText(const trace::Payload& p)
{
    const trace::Generator& g = p.generator;
    std::string out(trace::generatorKindName(g.kind));
    char buffer[160];
    switch (g.kind) {
    case trace::Generator::Kind::ConstF32:
        std::snprintf(buffer, sizeof buffer, ", %.17g", g.a);
        out += buffer;
        if (out.find_first_of(".e", out.find(',')) == std::string::npos)
            out += ".0";
        break;
    case trace::Generator::Kind::ConstU32: out += ", " + std::to_string(g.bits); break;
    case trace::Generator::Kind::RandomF32:
    case trace::Generator::Kind::RandomF16:
    case trace::Generator::Kind::RandomBF16:
        std::snprintf(buffer, sizeof buffer, ", seed=%llu, lo=%.17g, hi=%.17g",
                      static_cast<unsigned long long>(g.seed), g.a, g.b);
        out += buffer;
        break;
    case trace::Generator::Kind::RandomU32: out += ", seed=" + std::to_string(g.seed); break;
    case trace::Generator::Kind::RandomS32:
        out += ", seed=" + std::to_string(g.seed) + ", lo=" + std::to_string(static_cast<std::int64_t>(g.a)) +
               ", hi=" + std::to_string(static_cast<std::int64_t>(g.b));
        break;
    default: break;
    }
    return out;
}

} // namespace

bool isPlainIdentifier(std::string_view name)
{
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'))
            return false;
    return true;
}

std::string disassembleInstruction(const isa::Instruction& insn, const trace::SymbolTable& symbols)
{
    const isa::OpcodeInfo& op = insn.info();
    std::string out(op.mnemonic);
    const auto specs = op.operandSpecs();
    bool first = true;
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const isa::Operand& o = insn.operands[i];
        if (!o.present())
            continue;
        out += first ? " " : ", ";
        first = false;
        if (specs[i].keyword)
            out += std::string(specs[i].name) + "=";
        out += operandText(o, specs[i], symbols);
    }
    return out;
}

std::string disassembleBundle(const isa::Bundle& bundle, const trace::SymbolTable& symbols)
{
    if (bundle.instructions.empty())
        return "nop";
    std::string out;
    for (const isa::Instruction& insn : bundle.instructions) {
        if (!out.empty())
            out += " ; ";
        out += disassembleInstruction(insn, symbols);
    }
    return out;
}

std::string disassembleTrace(const trace::Trace& t)
{
    std::string out = "// xpu-v1 assembly written by xpushark\n";
    if (!t.name.empty())
        out += ".name \"" + t.name + "\"\n";
    for (const std::string& key : t.machine.overridden)
        out += ".machine " + key + "=" + isa::machineParamText(t.machine, key) + "\n";
    for (const trace::ChipTrace& c : t.chips) {
        out += "\n.chip " + std::to_string(c.chip.value) + "\n";
        for (const trace::Buffer& b : c.symbols.buffers) {
            out += "." + std::string(isa::spaceName(b.space)) + " " + b.name + ", " + text::hex(b.address) +
                   ", " + std::to_string(b.size);
            if (!b.dtype.empty())
                out += ", dtype=" + b.dtype;
            if (!b.shape.empty()) {
                out += ", shape=[";
                for (std::size_t i = 0; i < b.shape.size(); ++i)
                    out += (i ? ", " : "") + std::to_string(b.shape[i]);
                out += "]";
            }
            if (!b.aliasOf.empty())
                out += ", alias=" + b.aliasOf;
            out += "\n";
        }
        for (const trace::RegionSymbol& r : c.symbols.regions)
            out += ".region " + (isPlainIdentifier(r.name) ? r.name : "\"" + r.name + "\"") +
                   (r.level.empty() ? "" : ", level=" + r.level) + "\n";
        for (const auto& [r, v] : c.initial.scalarRegisters)
            out += ".sreg s" + std::to_string(r) + ", " + std::to_string(v) + "\n";
        for (const auto& [f, v] : c.initial.flags)
            out += ".flag " + std::to_string(f) + ", " + std::to_string(v) + "\n";
        for (const auto& [r, p] : c.initial.vectorRegisters)
            out += p.isGenerator ? ".init v" + std::to_string(r) + ", " + generatorText(p) + "\n"
                                 : "// v" + std::to_string(r) +
                                       " starts from a 4 KiB snapshot (kept in the trace file)\n";
        for (const trace::MemoryInit& m : c.initial.memory) {
            const trace::Buffer* owner = nullptr;
            for (const trace::Buffer& b : c.symbols.buffers)
                if (b.space == m.space && b.address == m.address && b.size == m.size)
                    owner = &b;
            if (m.payload.isGenerator && owner)
                out += ".init " + owner->name + ", " + generatorText(m.payload) + "\n";
            else
                out += "// " + std::string(isa::spaceName(m.space)) + "[" + text::hex(m.address) + ", +" +
                       std::to_string(m.size) + ") starts from " +
                       (m.payload.isGenerator ? generatorText(m.payload) : "a snapshot") +
                       " (kept in the trace file)\n";
        }
        for (const std::string& o : c.outputs)
            out += ".output " + o + "\n";
        std::multimap<std::uint32_t, const trace::Label*> labels;
        for (const trace::Label& l : c.symbols.labels)
            labels.emplace(l.pc, &l);
        std::map<std::uint32_t, const trace::SourceLine*> lines;
        for (const trace::SourceLine& l : c.symbols.sourceLines)
            lines[l.pc] = &l;
        for (std::size_t pc = 0; pc <= c.program.bundles.size(); ++pc) {
            if (auto it = lines.find(static_cast<std::uint32_t>(pc)); it != lines.end())
                out += ".loc \"" + it->second->file + "\", " + std::to_string(it->second->line) + "\n";
            const auto [from, to] = labels.equal_range(static_cast<std::uint32_t>(pc));
            for (auto it = from; it != to; ++it)
                out += it->second->name + ":\n";
            if (pc < c.program.bundles.size())
                out += "    " + disassembleBundle(c.program.bundles[pc], c.symbols) + "\n";
        }
    }
    return out;
}

} // namespace xps::assembly

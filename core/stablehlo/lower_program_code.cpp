// The program writer's code and symbols: each bundle's text parsed once, as the assembler parses it, into
// the chip's program; buffers, regions, source lines and outputs as the trace's symbol table holds them.
// No assembly text is kept: a model's millions of bundles go straight into the trace.

#include "stablehlo/lower_program.h"

#include <algorithm>

#include "util/utf8.h"

namespace xps::shlo::lower {

namespace {
// A region or file name as an .xasm string holds it: UTF-8, no quotes, backslashes or line breaks.
std::string writable(std::string s)
{
    text::repairUtf8(s); // the assembler reads UTF-8 only; a file or loc name may be anything
    for (char& c : s)
        if (c == '"' || c == '\\' || c == '\n')
            c = '\'';
    return s;
}
std::string quoted(const std::string& s)
{
    return "\"" + writable(s) + "\"";
}
// Bundles the packer may hold before they are emitted: it bounds its work per instruction; kernels'
// independent work lies much closer together.
constexpr std::size_t kMaxPackWindow = 2048;
} // namespace

void ProgramWriter::declareBuffer(trace::Buffer buffer)
{
    m_scope.buffers.push_back(buffer);
    m_symbols.buffers.push_back(std::move(buffer));
}

void ProgramWriter::bundle(const std::string& text)
{
    if (m_packer.add(text)) {
        if (m_packer.pending() >= kMaxPackWindow)
            finish();
        return;
    }
    finish();
    emit(text);
}

void ProgramWriter::finish()
{
    for (isa::Bundle& b : m_packer.flush())
        append(std::move(b));
}

void ProgramWriter::emit(const std::string& line)
{
    append(parse(line));
}

void ProgramWriter::countBundle()
{
    if (++m_bundles > static_cast<std::uint64_t>(m_machine.imemBundles))
        instructionMemoryFail("the program is longer than the machine's instruction memory (" +
                              std::to_string(m_machine.imemBundles) + " bundles)");
    if (m_bundles % 4096 == 0 && m_stop.stop_requested())
        throw Cancelled{};
}

void ProgramWriter::append(isa::Bundle bundle)
{
    countBundle();
    m_program.push_back(std::move(bundle));
}

isa::Bundle ProgramWriter::parse(const std::string& line)
{
    m_scope.regions = &m_symbols.regions;
    auto parsed = assembly::parseBundleLine(line, m_scope, [&line](std::size_t column) {
        return "the generated program does not assemble (a lowering bug): '" + line + "', column " +
               std::to_string(column);
    });
    if (!parsed)
        lowerFail(parsed.error().toString());
    return std::move(*parsed);
}

void ProgramWriter::declareRegion(const std::string& regionName, const char* level)
{
    std::string name = writable(regionName);
    for (const trace::RegionSymbol& r : m_symbols.regions)
        if (r.name == name)
            return;
    m_symbols.regions.push_back({std::move(name), level});
}

void ProgramWriter::regionBegin(const std::string& regionName)
{
    bundle("region.begin " + quoted(regionName));
}
void ProgramWriter::regionEnd()
{
    bundle("region.end");
}

void ProgramWriter::sourceLine(const std::string& file, std::uint32_t line)
{
    finish(); // the bundles before belong to the previous line
    m_symbols.sourceLines.push_back({static_cast<std::uint32_t>(m_program.size()), writable(file), line});
}

void ProgramWriter::output(const std::string& buffer)
{
    m_outputs.push_back(buffer);
}
void ProgramWriter::name(const std::string& traceName)
{
    m_name = writable(traceName);
}

trace::ChipTrace ProgramWriter::takeChip()
{
    finish();
    if (!m_open.empty())
        lowerFail("a loop left open (a lowering bug)");
    m_program.push_back(parse("halt"));
    trace::ChipTrace chip;
    chip.program.bundles = std::move(m_program);
    chip.symbols = std::move(m_symbols);
    // By pc, as the assembler lists them.
    for (const auto& [labelName, pc] : m_scope.labels)
        chip.symbols.labels.push_back({labelName, pc});
    std::stable_sort(chip.symbols.labels.begin(), chip.symbols.labels.end(),
                     [](const trace::Label& a, const trace::Label& b) { return a.pc < b.pc; });
    chip.outputs = std::move(m_outputs);
    return chip;
}

} // namespace xps::shlo::lower

// The .xasm driver. Pass 1 walks the lines: directives, labels, chip sections, bundle boundaries.
// Pass 2 parses instructions once every label and buffer is known, then the trace is validated against
// the machine (bounds, overlaps, flags, engines) with each finding pointed at its source line.
#include "asm/assembler.h"

#include "asm/assembler_state.h"
#include "trace/trace_validate.h"

#include <algorithm>

namespace xps::assembly {
namespace detail {

std::string AssemblerState::where(std::size_t line, std::size_t column) const
{
    return fileName + ":" + std::to_string(line + 1) + ":" + std::to_string(column);
}

std::string AssemblerState::where(const SourceRef& ref) const
{
    return where(ref.line, column(ref));
}

std::span<const Token> AssemblerState::relex(std::size_t line, std::vector<Token>& into) const
{
    into.clear();
    lexLineInto(text[line], into);
    return into;
}

std::size_t AssemblerState::column(const SourceRef& ref) const
{
    std::vector<Token> tokens;
    const std::span<const Token> line = relex(ref.line, tokens);
    return line[std::min(ref.token, line.size() - 1)].column;
}

void AssemblerState::report(std::string location, std::string message)
{
    if (!full())
        diagnostics.push_back({std::move(location), std::move(message)});
}

bool AssemblerState::full() const
{
    return diagnostics.size() >= kMaxDiagnostics;
}

const Scope& AssemblerState::scopeFor(Section& section)
{
    auto& c = m_scopeCache;
    const bool isGlobal = &section == &global;
    const bool appendOnly =
        c.section == &section && c.sectionCount == sections.size() &&
        c.globalConstants == global.constants.size() && c.sectionConstants == section.constants.size() &&
        c.sectionLabels == section.labels.size() && global.buffers.size() >= c.globalBuffers &&
        section.buffers.size() >= c.sectionBuffers && (isGlobal || global.buffers.size() == c.globalBuffers);
    Scope& scope = c.scope;
    if (appendOnly) {
        // Only buffers were appended since: append them (global first, then the section's own).
        const auto& added = isGlobal ? global.buffers : section.buffers;
        const std::size_t from = isGlobal ? c.globalBuffers : c.sectionBuffers;
        scope.buffers.insert(scope.buffers.end(), added.begin() + static_cast<std::ptrdiff_t>(from),
                             added.end());
    } else {
        scope = Scope{};
        scope.constants = global.constants;
        for (const auto& [k, v] : section.constants)
            scope.constants[k] = v;
        scope.buffers = global.buffers;
        if (!isGlobal)
            scope.buffers.insert(scope.buffers.end(), section.buffers.begin(), section.buffers.end());
        scope.labels = section.labels;
    }
    scope.regions = &section.regions;
    c.section = &section;
    c.sectionCount = sections.size();
    c.globalConstants = global.constants.size();
    c.sectionConstants = section.constants.size();
    c.sectionLabels = section.labels.size();
    c.globalBuffers = global.buffers.size();
    c.sectionBuffers = section.buffers.size();
    return scope;
}

} // namespace detail

namespace {

using detail::AssemblerState;
using detail::Section;
using detail::SourceRef;

bool isLabelStart(std::span<const Token> tokens, std::size_t i)
{
    return tokens[i].kind == Token::Kind::Identifier && tokens[i + 1].is(':') && tokens[i].text[0] != '.';
}

// Pass 1 over one line, lexed into `tokens`. `openBrace` is the braced bundle being collected, if any.
void structureLine(AssemblerState& s, std::size_t lineIndex, std::vector<Token>& lexed,
                   detail::PendingBundle*& openBrace)
{
    lexed.clear();
    if (LexError error = lexLineInto(s.text[lineIndex], lexed); !error.message.empty()) {
        s.report(s.where(lineIndex, error.column), error.message);
        return;
    }
    const std::span<const Token> tokens = lexed;
    std::size_t i = 0;
    while (isLabelStart(tokens, i)) {
        if (openBrace) {
            s.report(s.where(lineIndex, tokens[i].column), "a label cannot stand inside a braced bundle");
            return;
        }
        Section& section = s.current();
        if (s.hasSections && &section == &s.global) {
            s.report(s.where(lineIndex, tokens[i].column), "label outside a .chip section");
            return;
        }
        const std::string name(tokens[i].text);
        if (section.labels.contains(name))
            s.report(s.where(lineIndex, tokens[i].column), "label '" + name + "' defined twice");
        section.labels[name] = static_cast<std::uint32_t>(section.bundles.size());
        i += 2;
    }
    const Token& head = tokens[i];
    if (head.kind == Token::Kind::End)
        return;
    const SourceRef at{lineIndex, i};
    if (openBrace) {
        if (head.is('}')) {
            if (tokens[i + 1].kind != Token::Kind::End)
                s.report(s.where(lineIndex, tokens[i + 1].column), "expected end of line after '}'");
            openBrace = nullptr;
            return;
        }
        s.current().pieces.push_back(at); // the open bundle is the section's last: its pieces stay a run
        ++openBrace->pieceCount;
        if (const auto close = std::find_if(tokens.begin() + static_cast<long>(i), tokens.end(),
                                            [](const Token& t) { return t.is('}'); });
            close != tokens.end())
            openBrace = nullptr;
        return;
    }
    if (head.kind == Token::Kind::Identifier && head.text[0] == '.') {
        try {
            TokenCursor cursor(tokens, i);
            detail::handleDirective(s, cursor, at);
        } catch (const ParseError& e) {
            s.report(s.where(lineIndex, e.column), e.message);
        }
        return;
    }
    Section& section = s.current();
    if (s.hasSections && &section == &s.global) {
        s.report(s.where(at),
                 "instruction outside a .chip section: after the first .chip, code belongs to a section");
        return;
    }
    section.bundles.push_back({section.pieces.size(), 0});
    if (head.is('{')) {
        const bool closesHere = std::any_of(tokens.begin() + static_cast<long>(i), tokens.end(),
                                            [](const Token& t) { return t.is('}'); });
        if (tokens[i + 1].kind != Token::Kind::End) {
            section.pieces.push_back({lineIndex, i + 1});
            section.bundles.back().pieceCount = 1;
        }
        if (!closesHere)
            openBrace = &section.bundles.back();
        return;
    }
    section.pieces.push_back(at);
    section.bundles.back().pieceCount = 1;
}

// Pass 2: parses the instructions of one pending bundle.
// `placed` and `lexed` are scratch space kept from bundle to bundle.
isa::Bundle assembleBundle(AssemblerState& s, std::span<const SourceRef> pieces, const Scope& scope,
                           std::vector<PlacedInstruction>& placed, std::vector<Token>& lexed, bool& failed)
{
    placed.clear();
    std::size_t lastLine = 0;
    for (const SourceRef& piece : pieces) {
        lastLine = piece.line;
        try {
            TokenCursor c(s.relex(piece.line, lexed), piece.token);
            if (c.peek().kind == Token::Kind::Identifier && c.peek().text == "nop" &&
                (c.peek(1).kind == Token::Kind::End || c.peek(1).is('}')))
                continue;
            while (!c.atEnd() && !c.peek().is('}')) {
                const std::size_t column = c.peek().column;
                placed.push_back({parseInstruction(c, scope), column});
                if (!c.atEnd() && !c.peek().is('}'))
                    c.expect(';', "';' between instructions of a bundle");
            }
        } catch (const ParseError& e) {
            s.report(s.where(piece.line, e.column), e.message);
            failed = true;
            return {};
        }
    }
    try {
        return makeBundle(placed);
    } catch (const ParseError& e) {
        s.report(s.where(lastLine, e.column), e.message);
        failed = true;
        return {};
    }
}

// Where each part of a chip came from, turned into "file:line:column" only for the findings that need it
// (a compiled model has a million bundles and few findings).
struct ChipLocations
{
    static constexpr SourceRef kNone{SIZE_MAX, 0};
    std::vector<SourceRef> bundles, buffers, memoryInits, outputs;
    std::string section;
};

void buildChips(AssemblerState& s, std::stop_token stop)
{
    std::vector<Section*> sections;
    if (s.hasSections) {
        for (Section& section : s.sections)
            sections.push_back(&section);
    } else {
        s.global.chips.clear();
        for (int c = 0; c < s.trace.machine.chips; ++c)
            s.global.chips.push_back(c);
        sections.push_back(&s.global);
    }

    std::vector<ChipLocations> locations(static_cast<std::size_t>(s.trace.machine.chips));
    s.trace.chips.assign(static_cast<std::size_t>(s.trace.machine.chips), {});
    std::vector<bool> assigned(s.trace.chips.size(), false);

    for (Section* section : sections) {
        Scope scope = s.scopeFor(*section);
        for (const SourceRef& ref : section->deferred) {
            try {
                detail::resolveDeferred(s, *section, ref);
            } catch (const ParseError& e) {
                s.report(s.where(ref.line, e.column), e.message);
            }
        }
        trace::ChipTrace chip;
        ChipLocations where;
        bool failed = false;
        std::vector<PlacedInstruction> placed;
        std::vector<Token> lexed;
        chip.program.bundles.reserve(section->bundles.size());
        where.bundles.reserve(section->bundles.size());
        for (const detail::PendingBundle& pending : section->bundles) {
            if (chip.program.bundles.size() % 4096 == 0 && stop.stop_requested())
                return;
            const auto pieces =
                std::span<const SourceRef>(section->pieces).subspan(pending.firstPiece, pending.pieceCount);
            chip.program.bundles.push_back(assembleBundle(s, pieces, scope, placed, lexed, failed));
            where.bundles.push_back(pieces.empty() ? ChipLocations::kNone : pieces.front());
        }
        std::vector<trace::Buffer> buffers = s.global.buffers;
        std::vector<SourceRef> bufferRefs = s.global.bufferRefs;
        if (section != &s.global) {
            buffers.insert(buffers.end(), section->buffers.begin(), section->buffers.end());
            bufferRefs.insert(bufferRefs.end(), section->bufferRefs.begin(), section->bufferRefs.end());
        }
        chip.symbols.buffers = std::move(buffers);
        where.buffers = std::move(bufferRefs);
        chip.symbols.regions = section->regions;
        for (const auto& [name, pc] : section->labels)
            chip.symbols.labels.push_back({name, pc});
        std::stable_sort(chip.symbols.labels.begin(), chip.symbols.labels.end(),
                         [](const trace::Label& a, const trace::Label& b) { return a.pc < b.pc; });
        chip.symbols.sourceLines = section->sourceLines;
        chip.initial = section->initial;
        where.memoryInits = section->memoryInitRefs;
        chip.outputs = section->outputs;
        where.outputs = section->outputRefs;
        where.section = section == &s.global ? s.fileName : s.where(section->declaredAt);

        std::size_t remaining = section->chips.size();
        for (int c : section->chips) {
            const bool last = --remaining == 0;
            if (c >= s.trace.machine.chips) {
                s.report(s.where(section->declaredAt),
                         "chip " + std::to_string(c) + " does not exist: the machine has " +
                             std::to_string(s.trace.machine.chips) + " (set it with `.machine chips=N`)");
                continue;
            }
            if (assigned[static_cast<std::size_t>(c)]) {
                s.report(s.where(section->declaredAt),
                         "chip " + std::to_string(c) + " is in two .chip sections");
                continue;
            }
            assigned[static_cast<std::size_t>(c)] = true;
            chip.chip = chipIdAt(static_cast<std::size_t>(c));
            // The last chip of a section takes the section's program instead of a copy of it.
            s.trace.chips[static_cast<std::size_t>(c)] = last ? std::move(chip) : chip;
            locations[static_cast<std::size_t>(c)] = last ? std::move(where) : where;
        }
    }
    for (std::size_t c = 0; c < assigned.size(); ++c)
        if (!assigned[c])
            s.report(s.fileName, "chip " + std::to_string(c) + " has no program: add it to a .chip section");
    if (!s.diagnostics.empty())
        return;

    const auto locate = [&](const trace::Where& w) -> std::string {
        if (!w.chip.valid() || w.chip.value >= locations.size()) // the trace as a whole
            return s.fileName;
        const ChipLocations& l = locations[w.chip.value];
        auto pick = [&](const std::vector<SourceRef>& v) {
            return w.index < v.size() && v[w.index].line != ChipLocations::kNone.line ? s.where(v[w.index])
                                                                                      : l.section;
        };
        switch (w.part) {
        case trace::Part::Bundle: return pick(l.bundles);
        case trace::Part::Buffer: return pick(l.buffers);
        case trace::Part::MemoryInit: return pick(l.memoryInits);
        case trace::Part::Output: return pick(l.outputs);
        default: return l.section;
        }
    };
    for (Diagnostic& d : trace::validateTrace(s.trace, locate))
        s.report(std::move(d.location), std::move(d.message));
}

} // namespace

Result<trace::Trace> assemble(std::string_view source, std::string_view fileName, std::stop_token stop)
{
    AssemblerState s;
    s.fileName = std::string(fileName);
    s.text.reserve(static_cast<std::size_t>(std::count(source.begin(), source.end(), '\n')) + 1);
    std::size_t start = 0;
    while (start <= source.size()) {
        const std::size_t end = std::min(source.find('\n', start), source.size());
        s.text.push_back(source.substr(start, end - start));
        start = end + 1;
    }
    detail::PendingBundle* openBrace = nullptr;
    std::size_t braceLine = 0;
    std::vector<Token> lexed;
    for (std::size_t i = 0; i < s.text.size() && !s.full(); ++i) {
        if (i % 4096 == 0 && stop.stop_requested())
            return Error(std::string(fileName), "cancelled");
        const bool wasOpen = openBrace != nullptr;
        structureLine(s, i, lexed, openBrace);
        if (!wasOpen && openBrace)
            braceLine = i;
    }
    if (openBrace)
        s.report(s.where(braceLine, 1), "'{' is never closed: expected '}'");
    if (s.diagnostics.empty())
        buildChips(s, stop);
    if (stop.stop_requested())
        return Error(std::string(fileName), "cancelled");
    if (!s.diagnostics.empty())
        return Error(std::move(s.diagnostics));
    return std::move(s.trace);
}

} // namespace xps::assembly

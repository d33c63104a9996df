#pragma once
// Internal to the assembler: what pass 1 (structure, directives, labels) hands to pass 2 (instructions).

#include "asm/lexer.h"
#include "asm/parser.h"
#include "trace/trace.h"
#include "util/result.h"

#include <map>
#include <span>
#include <string>
#include <vector>

namespace xps::assembly::detail {

// Where a token of the source is, as "file:line:column".
struct SourceRef
{
    std::size_t line = 0;  // 0-based index into AssemblerState::lines
    std::size_t token = 0; // index of the first token
};

// One bundle still to be parsed: its pieces (a braced group spans several lines), a run of its section's
// `pieces` (one array for the section, not one allocation per bundle).
struct PendingBundle
{
    std::size_t firstPiece = 0;
    std::size_t pieceCount = 0;
};

// A chip section (`.chip 0-3`), or the whole file when it has no sections.
struct Section
{
    std::vector<int> chips;
    SourceRef declaredAt;
    std::map<std::string, std::int64_t, std::less<>> constants;
    std::vector<trace::Buffer> buffers;
    std::vector<SourceRef> bufferRefs;
    std::map<std::string, std::uint32_t, std::less<>> labels;
    std::vector<trace::RegionSymbol> regions;
    std::vector<trace::SourceLine> sourceLines;
    std::vector<PendingBundle> bundles;
    std::vector<SourceRef> pieces; // of every bundle, in order
    std::vector<SourceRef>
        deferred; // .init, .sreg, .flag and .output lines, resolved once all names are known
    trace::InitialState initial;
    std::vector<SourceRef> memoryInitRefs;
    std::vector<std::string> outputs;
    std::vector<SourceRef> outputRefs;
};

struct AssemblerState
{
    std::string fileName;
    std::vector<std::string_view> text; // source lines
    std::vector<Diagnostic> diagnostics;
    trace::Trace trace;
    Section global; // before the first .chip; the program itself when there is none
    std::vector<Section> sections;
    bool hasSections = false;

    Section& current() { return sections.empty() ? global : sections.back(); }
    std::string where(std::size_t line, std::size_t column) const;
    std::string where(const SourceRef& ref) const;
    // The tokens of a source line (ending with an End token), lexed again into `into`: each pass lexes
    // the lines it reads, which costs less than keeping a compiled model's million lines of tokens.
    // Pass 1 reported the lines that do not lex; later passes read only lines that did.
    std::span<const Token> relex(std::size_t line, std::vector<Token>& into) const;
    std::size_t column(const SourceRef& ref) const;
    void report(std::string location, std::string message);
    bool full() const;

    // Scope of a section: global names plus its own. Kept between calls and brought up to date with what
    // was appended since, so a file of N buffer or .loc lines costs O(N), not O(N^2) copies (a compiled
    // StableHLO model declares a buffer per tensor). The reference stays valid until the next call.
    const Scope& scopeFor(Section& section);

private:
    struct ScopeCache
    {
        const Section* section = nullptr;
        std::size_t sectionCount = 0, globalConstants = 0, sectionConstants = 0, sectionLabels = 0;
        std::size_t globalBuffers = 0, sectionBuffers = 0;
        Scope scope;
    };
    ScopeCache m_scopeCache;
};

// Handles one directive line (its first token is the directive). Throws ParseError.
void handleDirective(AssemblerState& state, TokenCursor& cursor, const SourceRef& at);
// Resolves a deferred directive (.init, .sreg, .flag, .output) once every name is known. Throws ParseError.
void resolveDeferred(AssemblerState& state, Section& section, const SourceRef& at);

} // namespace xps::assembly::detail

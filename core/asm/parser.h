#pragma once
// Parsing of xpu-v1 instructions and bundles, shared by the .xasm assembler and the trace readers (which
// store programs as one bundle of assembly text per line).

#include "asm/lexer.h"
#include "isa/program.h"
#include "trace/trace.h"
#include "util/result.h"

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xps::assembly {

// The names an operand may use: constants, buffers (their address), labels (their pc) and regions.
struct Scope
{
    std::map<std::string, std::int64_t, std::less<>> constants;
    std::vector<trace::Buffer> buffers; // only appended to, or the whole Scope replaced
    std::map<std::string, std::uint32_t, std::less<>> labels;
    std::vector<trace::RegionSymbol>* regions = nullptr; // region.begin operands resolve here
    bool declareRegions =
        true; // .xasm declares regions on first use; a trace's symbol table is authoritative

    // The first buffer of that name, or null: a hash look-up, as a compiled model declares a buffer per
    // tensor and names them in most of its million DMA bundles. Indexes what was appended since the last
    // call, so a Scope is not to be shared between threads.
    const trace::Buffer* findBuffer(std::string_view name) const;

private:
    struct NameHash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    mutable std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> m_bufferIndex;
    mutable std::size_t m_indexed = 0;
};

// Thrown inside the parser only; callers see Result/Diagnostic.
struct ParseError
{
    std::size_t column;
    std::string message;
};

class TokenCursor
{
public:
    explicit TokenCursor(std::span<const Token> tokens, std::size_t start = 0)
        : m_tokens(tokens), m_pos(start)
    {
    }
    const Token& peek(std::size_t ahead = 0) const;
    const Token& next();
    bool accept(char punct);
    void expect(char punct, std::string_view what);
    bool atEnd() const { return peek().kind == Token::Kind::End; }
    std::size_t position() const { return m_pos; }

private:
    std::span<const Token> m_tokens;
    std::size_t m_pos;
};

// Parses an integer expression: literals, constants, buffer names, labels, sizeof(buf), end(buf), + - * / %
// and parentheses. Throws ParseError.
std::int64_t parseExpression(TokenCursor& cursor, const Scope& scope);

// Parses one instruction up to (not including) `;`, `}` or the end of the line. Throws ParseError.
isa::Instruction parseInstruction(TokenCursor& cursor, const Scope& scope);

struct PlacedInstruction
{
    isa::Instruction instruction;
    std::size_t column;
};
// Checks slot capacity and orders instructions canonically (by slot kind). Throws ParseError at the column
// of the first instruction that does not fit.
isa::Bundle makeBundle(const std::vector<PlacedInstruction>& instructions);

// Parses a whole bundle written on one line: `nop`, or instructions separated by `;`.
// `where(column)` names the location for diagnostics.
Result<isa::Bundle> parseBundleLine(std::string_view line, const Scope& scope,
                                    const std::function<std::string(std::size_t column)>& where);

// Every name the scope knows, for "did you mean" suggestions.
std::vector<std::string> scopeNames(const Scope& scope);

} // namespace xps::assembly

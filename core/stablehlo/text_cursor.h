#pragma once
// A cursor over MLIR text for the StableHLO parser: skips blanks and // comments, reads the lexical pieces
// MLIR is made of (bare identifiers, %values, @symbols, numbers, strings) and turns a position into
// file:line:column. Errors are thrown as ParseError and become one Error at the parser's entry point, so
// the grammar code reads as the grammar.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xps::shlo {

struct ParseError
{
    std::size_t offset;
    std::string message;
};

class TextCursor
{
public:
    explicit TextCursor(std::string_view text);

    std::size_t offset() const { return m_pos; }
    void seek(std::size_t offset) { m_pos = offset; }
    std::string_view text() const { return m_text; }

    void skipSpace(); // blanks and // comments
    bool atEnd();
    char peek();                             // the next non-blank character, '\0' at the end
    char peekRaw() const;                    // the next character, blanks included
    bool startsWith(std::string_view s);     // after blanks
    bool consume(std::string_view token);    // punctuation: "(", "->", "x"
    bool consumeWord(std::string_view word); // a whole bare identifier, not a prefix of a longer one
    void expect(std::string_view token, std::string_view what);

    bool atIdentifier();
    std::string_view identifier(std::string_view what);           // [A-Za-z_][A-Za-z0-9_$.]*
    std::string_view suffixId(char sigil, std::string_view what); // %name, @name, ^bb, #alias (sigil dropped)
    std::string quotedString(std::string_view what);              // "..." with MLIR's escapes
    std::string_view numberText(std::string_view what);           // -12, 1.5e-3, 0x7FC00000, inf, nan
    std::int64_t integer(std::string_view what, std::int64_t lo, std::int64_t hi);
    std::string_view balanced(char open, char close); // the text between matching brackets, brackets consumed

    [[noreturn]] void fail(std::string message) const { throw ParseError{m_pos, std::move(message)}; }
    [[noreturn]] void failAt(std::size_t offset, std::string message) const
    {
        throw ParseError{offset, std::move(message)};
    }
    // "what was found" for messages: the next few characters, quoted.
    std::string found();

    // 1-based line and column of a byte offset.
    std::pair<std::uint32_t, std::uint32_t> lineColumn(std::size_t offset) const;

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    std::vector<std::size_t> m_lineStarts;
};

} // namespace xps::shlo

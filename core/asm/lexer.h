#pragma once
// Tokens of one line of xpu-v1 assembly. Columns are 1-based so diagnostics point where an editor does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xps::assembly {

struct Token
{
    enum class Kind : std::uint8_t { Identifier, Integer, Float, String, Punct, End };
    // 32 bytes: a compiled model's program is a million lines of several tokens each.
    Kind kind = Kind::End;
    std::uint32_t column = 1;
    std::string_view text; // as written (for String: without the quotes)
    union {
        std::int64_t integer = 0; // an Integer's value
        double real;              // a Float's value
    };

    bool is(char punct) const { return kind == Kind::Punct && text.size() == 1 && text[0] == punct; }
};

struct LexResult
{
    std::vector<Token> tokens; // always ends with an End token
    std::string error;         // empty if the line lexed cleanly
    std::size_t errorColumn = 0;
};

// Comments start with `//` or `#` and run to the end of the line. `;` separates instructions of a bundle.
LexResult lexLine(std::string_view line);

struct LexError
{
    std::string message; // empty if the line lexed cleanly
    std::size_t column = 0;
};
// The same, appending the line's tokens (always ending with an End token; only that on an error) to
// `tokens`: a whole file's tokens in one array costs one allocation per doubling, not several per line.
LexError lexLineInto(std::string_view line, std::vector<Token>& tokens);

} // namespace xps::assembly

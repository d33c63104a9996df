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
    Kind kind = Kind::End;
    std::string_view text; // as written (for String: without the quotes)
    std::int64_t integer = 0;
    double real = 0.0;
    std::size_t column = 1;

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

} // namespace xps::assembly

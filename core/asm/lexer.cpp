#include "asm/lexer.h"

#include "util/utf8.h"

#include <charconv>
#include <cstdlib>
#include <string>

namespace xps::assembly {
namespace {

// ASCII classes by table, not <cctype>: those are calls that consult the locale, and the lexer reads every
// byte of a compiled model's program (tens of megabytes).
constexpr bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}
constexpr bool isAsciiAlpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr bool isAsciiAlnum(char c)
{
    return isAsciiAlpha(c) || isAsciiDigit(c);
}
bool isIdentStart(char c)
{
    return isAsciiAlpha(c) || c == '_' || c == '.';
}
bool isIdentChar(char c)
{
    return isAsciiAlnum(c) || c == '_' || c == '.';
}
constexpr bool isPunct(char c)
{
    switch (c) {
    case '[':
    case ']':
    case ',':
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '(':
    case ')':
    case '=':
    case '{':
    case '}':
    case ';':
    case ':':
    case '@': return true;
    default: return false;
    }
}

Token endToken(std::size_t column)
{
    Token t;
    t.column = static_cast<std::uint32_t>(column);
    return t;
}

} // namespace

LexResult lexLine(std::string_view line)
{
    LexResult result;
    LexError error = lexLineInto(line, result.tokens);
    result.error = std::move(error.message);
    result.errorColumn = error.column;
    return result;
}

LexError lexLineInto(std::string_view line, std::vector<Token>& tokens)
{
    const std::size_t lineStart = tokens.size();
    auto fail = [&](std::size_t at, std::string message) {
        tokens.resize(lineStart);
        tokens.push_back(endToken(at + 1));
        return LexError{std::move(message), at + 1};
    };
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
            continue;
        }
        if (c == '#' || (c == '/' && i + 1 < line.size() && line[i + 1] == '/'))
            break;
        Token t;
        t.column = static_cast<std::uint32_t>(i + 1);
        if (isIdentStart(c)) {
            std::size_t j = i + 1;
            while (j < line.size() && isIdentChar(line[j]))
                ++j;
            t.kind = Token::Kind::Identifier;
            t.text = line.substr(i, j - i);
            i = j;
        } else if (isAsciiDigit(c)) {
            std::size_t j = i;
            while (j < line.size() &&
                   (isAsciiAlnum(line[j]) || line[j] == '_' || line[j] == '.' ||
                    ((line[j] == '+' || line[j] == '-') && (line[j - 1] == 'e' || line[j - 1] == 'E') &&
                     !(line[i] == '0' && i + 1 < line.size() && (line[i + 1] == 'x' || line[i + 1] == 'X')))))
                ++j;
            t.text = line.substr(i, j - i);
            // Digits without the '_' separators; most numbers have none and are read in place.
            std::string separated;
            std::string_view digits = t.text;
            if (digits.find('_') != std::string_view::npos) {
                for (char d : digits)
                    if (d != '_')
                        separated += d;
                digits = separated;
            }
            const bool isHex =
                digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
            const bool isBin =
                digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B');
            if (!isHex && !isBin && digits.find_first_of(".eE") != std::string_view::npos) {
                const std::string terminated(digits); // strtod needs a terminated string
                char* end = nullptr;
                t.real = std::strtod(terminated.c_str(), &end);
                if (end != terminated.c_str() + terminated.size())
                    return fail(i, "malformed number '" + std::string(t.text) + "'");
                t.kind = Token::Kind::Float;
            } else {
                const int base = isHex ? 16 : isBin ? 2 : 10;
                const char* first = digits.data() + (isHex || isBin ? 2 : 0);
                const char* last = digits.data() + digits.size();
                std::uint64_t v = 0;
                const auto [ptr, ec] = std::from_chars(first, last, v, base);
                if (ec == std::errc::result_out_of_range)
                    return fail(i, "number '" + std::string(t.text) + "' does not fit in 64 bits");
                if (ec != std::errc() || ptr != last || first == last)
                    return fail(i, "malformed number '" + std::string(t.text) + "'");
                if (v > static_cast<std::uint64_t>(INT64_MAX))
                    return fail(i, "number '" + std::string(t.text) + "' does not fit in 63 bits");
                t.kind = Token::Kind::Integer;
                t.integer = static_cast<std::int64_t>(v);
            }
            i = j;
        } else if (c == '"') {
            const std::size_t close = line.find('"', i + 1);
            if (close == std::string_view::npos)
                return fail(i, "unterminated string: expected a closing '\"'");
            t.kind = Token::Kind::String;
            t.text = line.substr(i + 1, close - i - 1);
            // Names end up in every JSON we write and every label we draw: refuse what is not text.
            if (!text::isValidUtf8(t.text))
                return fail(i, "the string is not valid UTF-8 text");
            i = close + 1;
        } else if (isPunct(c)) {
            t.kind = Token::Kind::Punct;
            t.text = line.substr(i, 1);
            ++i;
        } else {
            return fail(i, std::string("unexpected character '") + c + "'");
        }
        tokens.push_back(t);
    }
    tokens.push_back(endToken(line.size() + 1));
    return {};
}

} // namespace xps::assembly

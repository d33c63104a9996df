#include "asm/lexer.h"

#include "util/utf8.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

namespace xps::assembly {
namespace {

bool isIdentStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool isIdentChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

} // namespace

LexResult lexLine(std::string_view line)
{
    LexResult result;
    auto fail = [&](std::size_t at, std::string message) {
        result.error = std::move(message);
        result.errorColumn = at + 1;
        result.tokens.clear();
        result.tokens.push_back({Token::Kind::End, {}, 0, 0.0, at + 1});
        return result;
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
        t.column = i + 1;
        if (isIdentStart(c)) {
            std::size_t j = i + 1;
            while (j < line.size() && isIdentChar(line[j]))
                ++j;
            t.kind = Token::Kind::Identifier;
            t.text = line.substr(i, j - i);
            i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t j = i;
            while (j < line.size() &&
                   (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_' || line[j] == '.' ||
                    ((line[j] == '+' || line[j] == '-') && (line[j - 1] == 'e' || line[j - 1] == 'E') &&
                     !(line[i] == '0' && i + 1 < line.size() && (line[i + 1] == 'x' || line[i + 1] == 'X')))))
                ++j;
            std::string digits;
            for (char d : line.substr(i, j - i))
                if (d != '_')
                    digits += d;
            t.text = line.substr(i, j - i);
            const bool isHex =
                digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
            const bool isBin =
                digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B');
            if (!isHex && !isBin && digits.find_first_of(".eE") != std::string::npos) {
                char* end = nullptr;
                t.real = std::strtod(digits.c_str(), &end);
                if (end != digits.c_str() + digits.size())
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
        } else if (std::string_view("[],+-*/%()={};:@").find(c) != std::string_view::npos) {
            t.kind = Token::Kind::Punct;
            t.text = line.substr(i, 1);
            ++i;
        } else {
            return fail(i, std::string("unexpected character '") + c + "'");
        }
        result.tokens.push_back(t);
    }
    result.tokens.push_back({Token::Kind::End, {}, 0, 0.0, line.size() + 1});
    return result;
}

} // namespace xps::assembly

#include "stablehlo/text_cursor.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace xps::shlo {

namespace {
bool isIdStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
// Characters of a suffix id after its sigil: %arg0, %0, %cst_1, @check.expect_close, #loc12.
bool isSuffixChar(char c)
{
    return isIdChar(c) || c == '-';
}
} // namespace

TextCursor::TextCursor(std::string_view text) : m_text(text)
{
    m_lineStarts.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
            m_lineStarts.push_back(i + 1);
}

void TextCursor::skipSpace()
{
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++m_pos;
        } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/') {
            const auto eol = m_text.find('\n', m_pos);
            m_pos = eol == std::string_view::npos ? m_text.size() : eol + 1;
        } else {
            break;
        }
    }
}

bool TextCursor::atEnd()
{
    skipSpace();
    return m_pos >= m_text.size();
}

char TextCursor::peek()
{
    skipSpace();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
}

char TextCursor::peekRaw() const
{
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
}

bool TextCursor::startsWith(std::string_view s)
{
    skipSpace();
    return m_text.substr(m_pos).substr(0, s.size()) == s;
}

bool TextCursor::consume(std::string_view token)
{
    if (!startsWith(token))
        return false;
    m_pos += token.size();
    return true;
}

bool TextCursor::consumeWord(std::string_view word)
{
    if (!startsWith(word))
        return false;
    const auto end = m_pos + word.size();
    if (end < m_text.size() && isIdChar(m_text[end]))
        return false;
    m_pos = end;
    return true;
}

void TextCursor::expect(std::string_view token, std::string_view what)
{
    if (!consume(token))
        fail("expected '" + std::string(token) + "' " + std::string(what) + ", found " + found());
}

bool TextCursor::atIdentifier()
{
    return isIdStart(peek());
}

std::string_view TextCursor::identifier(std::string_view what)
{
    if (!atIdentifier())
        fail("expected " + std::string(what) + ", found " + found());
    const auto start = m_pos;
    while (m_pos < m_text.size() && isIdChar(m_text[m_pos]))
        ++m_pos;
    return m_text.substr(start, m_pos - start);
}

std::string_view TextCursor::suffixId(char sigil, std::string_view what)
{
    if (peek() != sigil)
        fail("expected " + std::string(what) + ", found " + found());
    const auto start = ++m_pos;
    while (m_pos < m_text.size() && isSuffixChar(m_text[m_pos]))
        ++m_pos;
    if (m_pos == start)
        fail("expected a name after '" + std::string(1, sigil) + "'");
    return m_text.substr(start, m_pos - start);
}

std::string TextCursor::quotedString(std::string_view what)
{
    if (peek() != '"')
        fail("expected " + std::string(what) + " (a quoted string), found " + found());
    const auto start = m_pos++;
    std::string out;
    while (true) {
        if (m_pos >= m_text.size() || m_text[m_pos] == '\n')
            failAt(start, "string is not closed before the end of the line");
        const char c = m_text[m_pos++];
        if (c == '"')
            return out;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (m_pos >= m_text.size())
            failAt(start, "string is not closed");
        const char e = m_text[m_pos++];
        if (e == 'n')
            out += '\n';
        else if (e == 't')
            out += '\t';
        else if (e == '"' || e == '\\')
            out += e;
        else if (std::isxdigit(static_cast<unsigned char>(e)) && m_pos < m_text.size() &&
                 std::isxdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            out += static_cast<char>(std::stoi(std::string{e, m_text[m_pos++]}, nullptr, 16));
        } else
            fail(std::string("unknown escape '\\") + e + "' in a string");
    }
}

std::string_view TextCursor::numberText(std::string_view what)
{
    skipSpace();
    const auto start = m_pos;
    if (m_pos < m_text.size() && (m_text[m_pos] == '-' || m_text[m_pos] == '+'))
        ++m_pos;
    const auto body = m_pos;
    if (m_text.substr(m_pos, 2) == "0x" || m_text.substr(m_pos, 2) == "0X") {
        m_pos += 2;
        while (m_pos < m_text.size() && std::isxdigit(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    } else if (m_text.substr(m_pos, 3) == "inf" || m_text.substr(m_pos, 3) == "nan") {
        m_pos += 3;
    } else {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            const bool exponentSign =
                (c == '-' || c == '+') && (m_text[m_pos - 1] == 'e' || m_text[m_pos - 1] == 'E');
            if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
                  exponentSign))
                break;
            ++m_pos;
        }
    }
    if (m_pos == body || !std::isalnum(static_cast<unsigned char>(m_text[body])))
        failAt(start, "expected " + std::string(what) + " (a number), found " + (m_pos = start, found()));
    return m_text.substr(start, m_pos - start);
}

std::int64_t TextCursor::integer(std::string_view what, std::int64_t lo, std::int64_t hi)
{
    skipSpace();
    const auto start = m_pos;
    const auto text = numberText(what);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
        failAt(start, "expected " + std::string(what) + ", an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], found '" + std::string(text) + "'");
    return v;
}

std::string_view TextCursor::balanced(char open, char close)
{
    skipSpace();
    if (peekRaw() != open)
        fail(std::string("expected '") + open + "', found " + found());
    const auto start = m_pos;
    int depth = 0;
    bool inString = false;
    for (; m_pos < m_text.size(); ++m_pos) {
        const char c = m_text[m_pos];
        if (inString) {
            if (c == '\\')
                ++m_pos;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == open)
            ++depth;
        else if (c == close && --depth == 0) {
            ++m_pos;
            return m_text.substr(start + 1, m_pos - start - 2);
        }
    }
    failAt(start, std::string("'") + open + "' is not closed by '" + close + "'");
}

std::string TextCursor::found()
{
    skipSpace();
    if (m_pos >= m_text.size())
        return "the end of the file";
    auto piece = m_text.substr(m_pos, 24);
    piece = piece.substr(0, std::min(piece.find('\n'), piece.size()));
    return "'" + std::string(piece) + "'";
}

std::pair<std::uint32_t, std::uint32_t> TextCursor::lineColumn(std::size_t offset) const
{
    const auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
    const auto line = static_cast<std::size_t>(it - m_lineStarts.begin());
    return {static_cast<std::uint32_t>(line),
            static_cast<std::uint32_t>(offset - m_lineStarts[line - 1] + 1)};
}

} // namespace xps::shlo

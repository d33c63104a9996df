#include "import/json_reader.h"

#include "import/read_ahead_file.h"
#include "trace/trace_io.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xps::importing {
namespace {

constexpr std::size_t kBlock = 1u << 20;

std::string describeByte(int c)
{
    if (c < 0)
        return "the end of the file";
    if (c >= 0x20 && c < 0x7f)
        return std::string("'") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

} // namespace

Result<std::unique_ptr<JsonReader>> JsonReader::open(const std::string& path, std::uint64_t maxDecompressedBytes,
                                                     std::string expansionMessage)
{
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe)
            return Error(path, std::string("cannot open: ") + std::strerror(errno));
        unsigned char magic[2] = {0, 0};
        probe.read(reinterpret_cast<char*>(magic), 2);
        std::unique_ptr<JsonReader> r(new JsonReader);
        r->m_compressed = probe.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        r->m_path = path;
        if (r->m_compressed) {
            r->m_maxDecompressed = maxDecompressedBytes;
            r->m_expansionMessage = std::move(expansionMessage);
        }
        auto file = ReadAheadFile::open(path);
        if (!file)
            return file.error();
        r->m_file = std::move(file).value();
        return r;
    }
}

JsonReader::~JsonReader() = default;

std::uint64_t JsonReader::fileOffset() const
{
    return m_file->fileOffset();
}

bool JsonReader::refill()
{
    m_consumed += m_end;
    m_pos = m_end = 0;
    const ReadAheadFile::Block& block = m_file->next(); // read and inflated on the file's own thread
    if (!block.error.empty())
        fail("cannot read the compressed data: " + block.error);
    m_buffer = block.data;
    m_end = block.size;
    m_reachedEnd = m_end == 0; // a truncated gzip stream ends here too
    if (m_consumed + m_end > m_maxDecompressed)
        fail(m_expansionMessage);
    return m_end > 0;
}

void JsonReader::fail(const std::string& message) const
{
    throw JsonSyntaxError{offset(), message};
}

Error JsonReader::errorAt(std::uint64_t at, const std::string& message) const
{
    gzFile gz = gzopen(m_path.c_str(), "rb");
    std::uint64_t line = 1, column = 1, seen = 0;
    if (gz) {
        std::unique_ptr<char[]> buf = std::make_unique<char[]>(kBlock);
        while (seen < at) {
            const int n =
                gzread(gz, buf.get(), static_cast<unsigned>(std::min<std::uint64_t>(kBlock, at - seen)));
            if (n <= 0)
                break;
            for (int i = 0; i < n; ++i) {
                if (buf[i] == '\n') {
                    ++line;
                    column = 1;
                } else {
                    ++column;
                }
            }
            seen += static_cast<std::uint64_t>(n);
        }
        gzclose(gz);
    }
    return Error(m_path + ":" + std::to_string(line) + ":" + std::to_string(column), message);
}

void JsonReader::skipWhitespace()
{
    for (;;) {
        while (m_pos < m_end) {
            const char c = m_buffer[m_pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                return;
            ++m_pos;
        }
        if (!refill())
            return;
    }
}

int JsonReader::peekByte()
{
    skipWhitespace();
    return peekRaw();
}

JsonKind JsonReader::peek()
{
    const int c = peekByte();
    switch (c) {
    case -1: return JsonKind::End;
    case '{': return JsonKind::Object;
    case '[': return JsonKind::Array;
    case '"': return JsonKind::String;
    case 't': return JsonKind::True;
    case 'f': return JsonKind::False;
    case 'n': return JsonKind::Null;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return JsonKind::Number;
        fail("expected a JSON value, found " + describeByte(c));
    }
}

void JsonReader::expect(char c)
{
    const int got = peekByte();
    if (got != static_cast<unsigned char>(c))
        fail(std::string("expected '") + c + "', found " + describeByte(got));
    ++m_pos;
}

bool JsonReader::nextMember(std::string& key, bool& first)
{
    int c = peekByte();
    if (c == '}') {
        ++m_pos;
        return false;
    }
    if (!first) {
        if (c != ',')
            fail("expected ',' or '}' after an object member, found " + describeByte(c));
        ++m_pos;
        c = peekByte();
    }
    first = false;
    if (c != '"')
        fail("expected a member name in double quotes, found " + describeByte(c));
    readString(key);
    expect(':');
    return true;
}

bool JsonReader::nextElement(bool& first)
{
    int c = peekByte();
    if (c == ']') {
        ++m_pos;
        return false;
    }
    if (!first) {
        if (c != ',')
            fail("expected ',' or ']' after an array element, found " + describeByte(c));
        ++m_pos;
        c = peekByte();
        if (c == ']') // a trailing comma, as Chrome's own writer leaves before a missing ']'
            fail("expected an array element after ',', found ']'");
    }
    first = false;
    return true;
}

void JsonReader::readString(std::string& out)
{
    out.clear();
    expect('"');
    const std::uint64_t start = offset() - 1;
    readStringBody(out);
    if (!text::isAscii(out) && text::repairUtf8(out) > 0 && m_repairedStrings++ == 0)
        m_firstRepairOffset = start;
}

void JsonReader::appendCodePoint(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

void JsonReader::readStringBody(std::string& out)
{
    const auto hex4 = [&]() -> std::uint32_t {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const int c = get();
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= static_cast<std::uint32_t>(c - 'A' + 10);
            else
                fail("expected four hex digits after \\u, found " + describeByte(c));
        }
        return v;
    };
    for (;;) {
        // Fast path: copy the run of plain bytes in the buffer at once.
        std::size_t run = m_pos;
        while (run < m_end && m_buffer[run] != '"' && m_buffer[run] != '\\' &&
               static_cast<unsigned char>(m_buffer[run]) >= 0x20)
            ++run;
        out.append(m_buffer + m_pos, run - m_pos);
        m_pos = run;
        if (out.size() > kMaxString)
            fail("a string longer than " + std::to_string(kMaxString >> 20) + " MiB");
        const int c = get();
        if (c == '"')
            return;
        if (c < 0)
            fail("the file ends inside a string");
        if (c < 0x20)
            fail("a control character (" + describeByte(c) + ") inside a string");
        if (c != '\\') {
            out += static_cast<char>(c); // the fast path stopped at the buffer's end
            continue;
        }
        const int e = get();
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            std::uint32_t cp = hex4();
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (get() != '\\' || get() != 'u')
                    fail("expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate");
                const std::uint32_t low = hex4();
                if (low < 0xdc00 || low >= 0xe000)
                    fail("expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate");
                cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                fail("a low surrogate without a high surrogate before it");
            }
            appendCodePoint(out, cp);
            break;
        }
        default:
            fail("unknown escape \\" + (e < 0 ? std::string() : std::string(1, static_cast<char>(e))) +
                 " in a string");
        }
    }
}

std::string_view JsonReader::readNumberText()
{
    if (peek() != JsonKind::Number)
        fail("expected a number, found " + describeByte(peekRaw()));
    m_number.clear();
    for (;;) {
        const int c = peekRaw();
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
            break;
        m_number += static_cast<char>(c);
        ++m_pos;
        if (m_number.size() > 400)
            fail("a number of more than 400 characters");
    }
    return m_number;
}

bool JsonReader::readBool()
{
    const JsonKind k = peek();
    const char* word = k == JsonKind::True ? "true" : k == JsonKind::False ? "false" : nullptr;
    if (!word)
        fail("expected true or false, found " + describeByte(peekRaw()));
    for (const char* p = word; *p; ++p)
        if (get() != static_cast<unsigned char>(*p))
            fail(std::string("expected '") + word + "'");
    return k == JsonKind::True;
}

void JsonReader::readNull()
{
    for (const char* p = "null"; *p; ++p)
        if (get() != static_cast<unsigned char>(*p))
            fail("expected 'null'");
}

void JsonReader::skipValue(std::string* out)
{
    skipValueAt(out, 0);
}

void JsonReader::skipValueAt(std::string* out, int depth)
{
    if (depth > kMaxDepth)
        fail("values nested more than " + std::to_string(kMaxDepth) + " deep");
    static thread_local std::string text;
    switch (peek()) {
    case JsonKind::End: fail("the file ends where a value was expected");
    case JsonKind::Object: {
        ++m_pos;
        if (out)
            *out += '{';
        bool first = true;
        std::string key;
        while (nextMember(key, first)) {
            if (out) {
                if (out->back() != '{')
                    *out += ',';
                appendJsonString(*out, key);
                *out += ':';
            }
            skipValueAt(out, depth + 1);
        }
        if (out)
            *out += '}';
        return;
    }
    case JsonKind::Array: {
        ++m_pos;
        if (out)
            *out += '[';
        bool first = true;
        while (nextElement(first)) {
            if (out && out->back() != '[')
                *out += ',';
            skipValueAt(out, depth + 1);
        }
        if (out)
            *out += ']';
        return;
    }
    case JsonKind::String:
        readString(text);
        if (out)
            appendJsonString(*out, text);
        return;
    case JsonKind::Number: {
        const std::string_view n = readNumberText();
        if (out)
            out->append(n);
        return;
    }
    case JsonKind::True:
    case JsonKind::False: {
        const bool b = readBool();
        if (out)
            *out += b ? "true" : "false";
        return;
    }
    case JsonKind::Null:
        readNull();
        if (out)
            *out += "null";
        return;
    }
}

bool parseScaled(std::string_view text, std::int64_t scale, std::int64_t& out)
{
    // Integer and fraction digits exactly; an exponent shifts the decimal point.
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        negative = text[i] == '-';
        ++i;
    }
    std::string digits;
    long pointAt = -1;
    for (; i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.'); ++i) {
        if (text[i] == '.') {
            if (pointAt >= 0)
                return false;
            pointAt = static_cast<long>(digits.size());
        } else {
            digits += text[i];
        }
    }
    if (digits.empty())
        return false;
    if (pointAt < 0)
        pointAt = static_cast<long>(digits.size());
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            expNegative = text[i++] == '-';
        long exponent = 0;
        if (i >= text.size())
            return false;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 400)
                return false;
        }
        pointAt += expNegative ? -exponent : exponent;
    }
    if (i != text.size())
        return false;
    int scaleDigits = 0;
    for (std::int64_t s = scale; s > 1; s /= 10)
        ++scaleDigits;
    pointAt += scaleDigits;
    // digits[0, pointAt) is the integer part of value * scale; the next digit rounds.
    std::uint64_t value = 0;
    constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
    const long n = static_cast<long>(digits.size());
    for (long k = 0; k < pointAt; ++k) {
        const int digit = k < n ? digits[static_cast<std::size_t>(k)] - '0' : 0;
        if (value > (kMax - static_cast<std::uint64_t>(digit)) / 10)
            return false;
        value = value * 10 + static_cast<std::uint64_t>(digit);
    }
    if (pointAt >= 0 && pointAt < n && digits[static_cast<std::size_t>(pointAt)] >= '5')
        ++value;
    if (value > kMax)
        return false;
    out = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
    return true;
}

} // namespace xps::importing

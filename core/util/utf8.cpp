#include "util/utf8.h"

#include <cstdint>
#include <cstdio>

namespace xps::text {

namespace {

// The length of the valid sequence starting at s[i], or 0 if none does (Unicode 15, table 3-7).
std::size_t validSequenceAt(std::string_view s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80)
        return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf; // the allowed range of the second byte
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        n = 3;
        lo = b0 == 0xe0 ? 0xa0 : 0x80; // no overlong forms
        hi = b0 == 0xed ? 0x9f : 0xbf; // no surrogates
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        n = 4;
        lo = b0 == 0xf0 ? 0x90 : 0x80;
        hi = b0 == 0xf4 ? 0x8f : 0xbf; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + 1 >= s.size() || byte(i + 1) < lo || byte(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (i + k >= s.size() || (byte(i + k) & 0xc0) != 0x80)
            return 0;
    return n;
}

// How many bytes one replacement covers: the lead byte and the continuation bytes that still fit it (the
// maximal subpart), at least one.
std::size_t invalidSubpartAt(std::string_view s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b0 = byte(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        n = 3;
        lo = b0 == 0xe0 ? 0xa0 : 0x80;
        hi = b0 == 0xed ? 0x9f : 0xbf;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        n = 4;
        lo = b0 == 0xf0 ? 0x90 : 0x80;
        hi = b0 == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 1;
    }
    std::size_t k = 1;
    if (i + k < s.size() && byte(i + k) >= lo && byte(i + k) <= hi) {
        ++k;
        while (k < n && i + k < s.size() && (byte(i + k) & 0xc0) == 0x80)
            ++k;
    }
    return k;
}

} // namespace

bool isValidUtf8(std::string_view s)
{
    if (isAscii(s))
        return true;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = validSequenceAt(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::size_t repairUtf8(std::string& s)
{
    if (isValidUtf8(s))
        return 0;
    std::string out;
    out.reserve(s.size() + 8);
    std::size_t replaced = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (const std::size_t n = validSequenceAt(s, i); n > 0) {
            out.append(s, i, n);
            i += n;
        } else {
            out += "\xef\xbf\xbd"; // U+FFFD
            ++replaced;
            i += invalidSubpartAt(s, i);
        }
    }
    s = std::move(out);
    return replaced;
}

void appendJsonString(std::string& out, std::string_view s)
{
    std::string repaired;
    if (!isValidUtf8(s)) {
        repaired.assign(s);
        repairUtf8(repaired);
        s = repaired;
    }
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

} // namespace xps::text

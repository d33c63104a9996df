#include "util/text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <numeric>

namespace xps::text {

std::size_t editDistance(std::string_view a, std::string_view b)
{
    // Optimal string alignment: Levenshtein plus adjacent transpositions ("ifno" is one edit from "info").
    const std::size_t w = b.size() + 1;
    std::vector<std::size_t> d((a.size() + 1) * w);
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i * w] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            std::size_t v =
                std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = std::min(v, d[(i - 2) * w + j - 2] + 1);
            d[i * w + j] = v;
        }
    }
    return d[a.size() * w + b.size()];
}

namespace {
template <typename Range> std::string nearestIn(std::string_view word, const Range& candidates)
{
    std::string best;
    std::size_t bestDistance = SIZE_MAX;
    for (const auto& candidate : candidates) {
        const std::size_t d = editDistance(word, candidate);
        if (d < bestDistance) {
            bestDistance = d;
            best = std::string(candidate);
        }
    }
    // A third of the word may be wrong, at least one character: beyond that a suggestion is noise.
    const std::size_t tolerance = std::max<std::size_t>(1, word.size() / 3);
    return bestDistance <= tolerance ? best : std::string();
}
} // namespace

std::string nearest(std::string_view word, std::span<const std::string_view> candidates)
{
    return nearestIn(word, candidates);
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates)
{
    return nearestIn(word, candidates);
}

LineColumn lineColumnAt(std::string_view text, std::size_t offset)
{
    LineColumn lc;
    offset = std::min(offset, text.size());
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++lc.line;
            lc.column = 1;
        } else {
            ++lc.column;
        }
    }
    return lc;
}

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> makeDecodeTable()
{
    std::array<std::int8_t, 256> table{};
    table.fill(-1);
    for (int i = 0; i < 64; ++i)
        table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    return table;
}
constexpr auto kDecode = makeDecodeTable();
} // namespace

std::string base64Encode(std::span<const std::uint8_t> bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t v = bytes[i] << 16;
        if (rest == 2)
            v |= bytes[i + 1] << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::size_t base64DecodedSizeBound(std::size_t encodedLength)
{
    return encodedLength / 4 * 3;
}

bool base64Decode(std::string_view text, std::vector<std::uint8_t>& out)
{
    if (text.size() % 4 != 0)
        return false;
    out.clear();
    out.reserve(base64DecodedSizeBound(text.size()));
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        std::int32_t v[4];
        int padding = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && last && k >= 2) {
                v[k] = 0;
                ++padding;
                continue;
            }
            if (padding > 0)
                return false; // data after padding
            v[k] = kDecode[static_cast<unsigned char>(c)];
            if (v[k] < 0)
                return false;
        }
        const std::uint32_t word = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
        out.push_back(static_cast<std::uint8_t>(word >> 16));
        if (padding < 2)
            out.push_back(static_cast<std::uint8_t>(word >> 8));
        if (padding < 1)
            out.push_back(static_cast<std::uint8_t>(word));
    }
    return true;
}

std::string hex(std::uint64_t value)
{
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
    return buffer;
}

std::string formatBytes(std::uint64_t bytes)
{
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[32];
    if (unit == 0 || value == static_cast<double>(static_cast<std::uint64_t>(value)))
        std::snprintf(buffer, sizeof buffer, "%llu %s", static_cast<unsigned long long>(value), kUnits[unit]);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f %s", value, kUnits[unit]);
    return buffer;
}

std::optional<std::uint64_t> parseBytes(std::string_view text)
{
    // The number: digits, optionally a point and more digits.
    std::size_t end = 0;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9')
        ++end;
    const std::size_t wholeDigits = end;
    std::size_t fractionDigits = 0;
    if (end < text.size() && text[end] == '.') {
        ++end;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') {
            ++end;
            ++fractionDigits;
        }
        if (fractionDigits == 0)
            return std::nullopt;
    }
    if (wholeDigits == 0)
        return std::nullopt;
    std::string_view unit = text.substr(end);
    int shift = 0;
    if (unit == "B")
        unit = {};
    if (!unit.empty()) {
        static constexpr std::string_view kUnits = "KMGT";
        const std::size_t at =
            kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
        if (at == std::string_view::npos || !(unit.size() == 1 || unit.substr(1) == "iB"))
            return std::nullopt;
        shift = 10 * static_cast<int>(at + 1);
    }
    if (shift == 0 && fractionDigits > 0)
        return std::nullopt; // a fraction of a byte
    // Exact in integers: whole << shift, plus the fraction's share of 2^shift, rounded down.
    std::uint64_t whole = 0;
    for (std::size_t i = 0; i < wholeDigits; ++i) {
        const auto digit = static_cast<std::uint64_t>(text[i] - '0');
        if (whole > (UINT64_MAX - digit) / 10)
            return std::nullopt;
        whole = whole * 10 + digit;
    }
    if (shift > 0 && whole > (UINT64_MAX >> shift))
        return std::nullopt;
    std::uint64_t bytes = whole << shift;
    if (fractionDigits > 0) {
        // The fraction to six digits, a millionth of the unit (further digits are dropped): numerator <
        // 2^20, so numerator << shift (shift <= 40) fits in 64 bits.
        std::uint64_t numerator = 0, denominator = 1;
        for (std::size_t i = 0; i < std::min<std::size_t>(fractionDigits, 6); ++i) {
            numerator = numerator * 10 + static_cast<std::uint64_t>(text[wholeDigits + 1 + i] - '0');
            denominator *= 10;
        }
        const std::uint64_t part = (numerator << shift) / denominator;
        if (bytes > UINT64_MAX - part)
            return std::nullopt;
        bytes += part;
    }
    return bytes;
}

std::string withThousands(std::uint64_t value)
{
    std::string digits = std::to_string(value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return digits;
}

std::string formatDouble(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace xps::text

#include "stablehlo/tensor_value.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace xps::shlo {

std::int32_t wrapToInt32(std::int64_t value)
{
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
}

namespace {
// Rounds to nearest even in a binary format with `fractionBits` stored mantissa bits, smallest normal
// exponent `minExponent` (below it the quantum stays fixed: subnormals) and largest exponent `maxExponent`;
// past the largest finite value the result is infinity. Directly from the double, so nothing rounds twice.
double roundToFormat(double v, int fractionBits, int minExponent, int maxExponent)
{
    if (!std::isfinite(v) || v == 0)
        return v;
    const double a = std::fabs(v);
    int exponent = 0;
    std::frexp(a, &exponent); // a = m * 2^exponent, m in [0.5, 1)
    const int e = std::max(exponent - 1, minExponent);
    const double quantum = std::ldexp(1.0, e - fractionBits);
    double r = std::nearbyint(a / quantum) * quantum;
    if (r > std::ldexp(2.0 - std::ldexp(1.0, -fractionBits), maxExponent))
        r = std::numeric_limits<double>::infinity();
    return std::copysign(r, v);
}
} // namespace

std::uint16_t bfloat16Bits(double value)
{
    if (std::isnan(value))
        return static_cast<std::uint16_t>(std::signbit(value) ? 0xFFC0 : 0x7FC0);
    const auto f = static_cast<float>(roundToFormat(value, 7, -126, 127)); // exact in f32
    return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
}

double bfloat16Value(std::uint16_t bits)
{
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
}

std::uint16_t halfBits(double value)
{
    const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    if (std::isnan(value))
        return static_cast<std::uint16_t>(sign | 0x7E00);
    const double a = std::fabs(roundToFormat(value, 10, -14, 15));
    if (std::isinf(a))
        return static_cast<std::uint16_t>(sign | 0x7C00);
    if (a < std::ldexp(1.0, -14)) // zero or subnormal: multiples of 2^-24
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(a, 24)));
    int exponent = 0;
    std::frexp(a, &exponent);
    const int e = exponent - 1; // a = 1.f * 2^e
    const auto mantissa = static_cast<std::uint16_t>(std::ldexp(a, -e) * 1024.0 - 1024.0);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>((e + 15) << 10) | mantissa);
}

double halfValue(std::uint16_t bits)
{
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    const int exponent = (bits >> 10) & 0x1F;
    const int mantissa = bits & 0x3FF;
    if (exponent == 0x1F)
        return mantissa ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0)
        return sign * std::ldexp(mantissa, -24);
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double wrapInteger(ElementType type, double value)
{
    const int bits = integerBits(type);
    if (bits == 1)
        return value != 0 ? 1 : 0;
    if (!std::isfinite(value))
        return 0;
    const double whole = std::trunc(value);
    if (std::fabs(whole) < 9.0e18) { // exactly, through its two's complement bits
        const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
        return integerValue(type, static_cast<std::uint64_t>(static_cast<std::int64_t>(whole)) & mask);
    }
    const double modulus = std::ldexp(1.0, bits);
    double r = std::fmod(std::trunc(value), modulus); // (-2^bits, 2^bits), exact
    if (r < 0)
        r += modulus; // [0, 2^bits]: exact below 2^53
    if (r >= modulus)
        r = 0;
    if (!isUnsigned(type) && r >= modulus / 2)
        r -= modulus;
    return r;
}

std::uint64_t integerEncoding(ElementType type, double value)
{
    const int bits = integerBits(type);
    const double v = wrapInteger(type, value);
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if (v < 0)
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) & mask;
    // Unsigned 64-bit values from 2^63 on do not fit an int64.
    return (v >= 9223372036854775808.0 ? static_cast<std::uint64_t>(v)
                                       : static_cast<std::uint64_t>(static_cast<std::int64_t>(v))) &
           mask;
}

double integerValue(ElementType type, std::uint64_t encoding)
{
    const int bits = integerBits(type);
    if (bits < 64)
        encoding &= (std::uint64_t{1} << bits) - 1;
    if (bits == 1)
        return encoding != 0 ? 1 : 0;
    if (isUnsigned(type) || !(encoding >> (bits - 1) & 1))
        return static_cast<double>(encoding);
    return bits == 64 ? static_cast<double>(static_cast<std::int64_t>(encoding))
                      : static_cast<double>(encoding) - std::ldexp(1.0, bits);
}

double roundTo(ElementType type, double value)
{
    switch (type) {
    case ElementType::F32: return static_cast<double>(static_cast<float>(value));
    case ElementType::F16: return std::isnan(value) ? value : roundToFormat(value, 10, -14, 15);
    case ElementType::BF16: return std::isnan(value) ? value : roundToFormat(value, 7, -126, 127);
    default: return wrapInteger(type, value);
    }
}

std::uint64_t bitsOf(ElementType type, double value)
{
    switch (type) {
    case ElementType::F32: return std::bit_cast<std::uint32_t>(static_cast<float>(value));
    case ElementType::F16: return halfBits(value);
    case ElementType::BF16: return bfloat16Bits(value);
    default: return integerEncoding(type, value);
    }
}

std::uint64_t ulpDifference(ElementType type, double a, double b)
{
    const auto fa = bitsOf(type, a);
    const auto fb = bitsOf(type, b);
    if (fa == fb)
        return 0;
    if (!isFloat(type))
        return a > b ? static_cast<std::uint64_t>(a - b) : static_cast<std::uint64_t>(b - a);
    if (std::isnan(a) && std::isnan(b))
        return 0;
    if (!std::isfinite(a) || !std::isfinite(b))
        return std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t signBit = type == ElementType::F32 ? 0x80000000u : 0x8000u;
    const std::uint64_t ma = fa & ~signBit; // distance from zero in representable steps
    const std::uint64_t mb = fb & ~signBit;
    if (std::signbit(a) != std::signbit(b))
        return ma + mb;
    return ma > mb ? ma - mb : mb - ma;
}

namespace {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

// One element's text ("1.5", "-3", "0x7FC00000", "true") as a value of `type`; nothing if it is not one.
bool parseElement(std::string_view text, ElementType type, double& out)
{
    if (text == "true" || text == "false") {
        out = text == "true" ? 1 : 0;
        return type == ElementType::I1;
    }
    const bool negative = !text.empty() && text.front() == '-';
    const auto body = negative || (!text.empty() && text.front() == '+') ? text.substr(1) : text;
    if (body.substr(0, 2) == "0x" || body.substr(0, 2) == "0X") {
        std::uint64_t bits = 0;
        const auto digits = body.substr(2);
        if (digits.empty() || digits.size() > 16)
            return false;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
        if (ec != std::errc() || end != digits.data() + digits.size())
            return false;
        // For a float type the hex number is the element's bit pattern (how MLIR prints NaN and infinity).
        switch (type) {
        case ElementType::F32:
            if (bits > 0xFFFFFFFFu)
                return false;
            out = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
            return true;
        case ElementType::F16:
        case ElementType::BF16:
            if (bits > 0xFFFFu)
                return false;
            out = type == ElementType::F16 ? halfValue(static_cast<std::uint16_t>(bits))
                                           : bfloat16Value(static_cast<std::uint16_t>(bits));
            return true;
        default: {
            // An integer's hex text is its two's complement bits, or a magnitude after a minus sign.
            const int width = integerBits(type);
            if (width < 64 && (bits >> width) != 0)
                return false;
            if (negative) {
                out = -static_cast<double>(bits);
                return !isUnsigned(type) && width > 1 && out >= -std::ldexp(1.0, width - 1);
            }
            out = integerValue(type, bits);
            return true;
        }
        }
        return false;
    }
    if (!isFloat(type)) {
        const char* first = text.data() + (text.front() == '+');
        const char* last = text.data() + text.size();
        const int width = integerBits(type);
        if (isUnsigned(type)) {
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(first, last, v);
            if (ec != std::errc() || end != last)
                return false;
            out = static_cast<double>(v);
            return width == 64 || v < (std::uint64_t{1} << width);
        }
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || end != last)
            return false;
        if (type == ElementType::I1) {
            out = v != 0;
            return v == 0 || v == 1;
        }
        out = static_cast<double>(v);
        return width == 64 ||
               (v >= -(std::int64_t{1} << (width - 1)) && v < (std::int64_t{1} << (width - 1)));
    }
    char buffer[64];
    if (text.size() >= sizeof buffer)
        return false;
    std::memcpy(buffer, text.data(), text.size());
    buffer[text.size()] = '\0';
    char* end = nullptr;
    // f32 from its decimal text directly: decimal -> f64 -> f32 could round twice.
    out = type == ElementType::F32 ? static_cast<double>(std::strtof(buffer, &end))
                                   : roundTo(type, std::strtod(buffer, &end));
    return end == buffer + text.size();
}

} // namespace

Result<TensorValue> literalValue(const Attribute& attr, const TensorType& type, const std::string& where)
{
    if (attr.kind != Attribute::Kind::Dense || !attr.dense)
        return Error(where, "expected a dense<...> literal");
    const auto& literal = *attr.dense;
    TensorValue value{type, {}};
    const auto count = static_cast<std::size_t>(type.elementCount());
    if (!literal.hexBlob.empty()) {
        const std::size_t width = static_cast<std::size_t>(bytesOf(type.element));
        const std::size_t bytes = literal.hexBlob.size() / 2;
        if (bytes != count * width && bytes != width)
            return Error(where, "the hex literal has " + std::to_string(bytes) + " bytes; " +
                                    type.toString() + " needs " + std::to_string(count * width));
        value.data.reserve(count);
        for (std::size_t i = 0; i < bytes / width; ++i) {
            std::uint64_t bits = 0;
            for (std::size_t b = 0; b < width; ++b) { // little-endian
                const auto at = 2 * (i * width + b);
                const auto byte = static_cast<std::uint64_t>(hexDigit(literal.hexBlob[at]) * 16 +
                                                             hexDigit(literal.hexBlob[at + 1]));
                bits |= byte << (8 * b);
            }
            double v = 0;
            switch (type.element) {
            case ElementType::F32:
                v = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
                break;
            case ElementType::F16: v = halfValue(static_cast<std::uint16_t>(bits)); break;
            case ElementType::BF16: v = bfloat16Value(static_cast<std::uint16_t>(bits)); break;
            default: v = integerValue(type.element, bits); break;
            }
            value.data.push_back(v);
        }
        if (value.data.size() == 1 && count != 1)
            value.data.assign(count, value.data.front());
        return value;
    }
    if (literal.elements.size() != count && literal.elements.size() != 1)
        return Error(where, "the literal has " + std::to_string(literal.elements.size()) + " elements; " +
                                type.toString() + " has " + std::to_string(count));
    if (literal.elements.size() == count && count > 1) {
        // Nested lists must have the type's shape (a flat list of a 2-D type is MLIR's error too).
        std::vector<std::int64_t> shape = literal.nestedShape;
        if (shape != type.shape)
            return Error(where, "the literal's nesting does not match the shape of " + type.toString());
    }
    value.data.reserve(count);
    for (const auto text : literal.elements) {
        double v = 0;
        if (!parseElement(text, type.element, v))
            return Error(where, "'" + std::string(text) + "' is not a " +
                                    std::string(elementTypeName(type.element)) + " value");
        value.data.push_back(v);
    }
    if (value.data.size() == 1 && count != 1)
        value.data.assign(count, value.data.front());
    return value;
}

std::string formatElement(ElementType type, double value)
{
    if (type == ElementType::I1)
        return value != 0 ? "true" : "false";
    if (!isFloat(type)) {
        if (std::fabs(value) < 9.0e18)
            return std::to_string(static_cast<std::int64_t>(value));
        char wide[32]; // past 2^63 a double holds the value: printed whole, as the interpreter holds it
        std::snprintf(wide, sizeof wide, "%.0f", value);
        return wide;
    }
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buffer[48];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

std::string formatIndex(const std::vector<std::int64_t>& shape, std::int64_t linear)
{
    std::vector<std::int64_t> index(shape.size());
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        const auto size = shape[static_cast<std::size_t>(d)];
        index[static_cast<std::size_t>(d)] = size ? linear % size : 0;
        linear = size ? linear / size : 0;
    }
    std::string out = "[";
    for (std::size_t i = 0; i < index.size(); ++i)
        out += (i ? ", " : "") + std::to_string(index[i]);
    return out + "]";
}

} // namespace xps::shlo

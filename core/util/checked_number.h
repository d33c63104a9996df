#pragma once
// Numbers from files other programs wrote, converted without undefined behaviour: a double of 1e300 cast to
// an integer, or start + duration past INT64_MAX, is UB in C++ and was found by the fuzzer in four readers.
// Every conversion of an imported value to an integer, and every sum of imported times, goes through these.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

namespace xps::checked {

// `value` as an integer in [lo, hi] if it is a whole number there (an integral double such as 4096.0 counts);
// otherwise nothing.
template <typename Json>
std::optional<std::int64_t> integerIn(const Json& value, std::int64_t lo, std::int64_t hi)
{
    if (value.is_number_unsigned()) {
        const auto u = value.template get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::nullopt;
        const auto i = static_cast<std::int64_t>(u);
        return i >= lo && i <= hi ? std::optional(i) : std::nullopt;
    }
    if (value.is_number_integer()) {
        const auto i = value.template get<std::int64_t>();
        return i >= lo && i <= hi ? std::optional(i) : std::nullopt;
    }
    if (value.is_number_float()) {
        const double d = value.template get<double>();
        // 2^63 is exactly representable; every double below it converts without UB.
        if (!(d >= static_cast<double>(lo) && d < 9223372036854775808.0 && d <= static_cast<double>(hi)) ||
            d != std::floor(d))
            return std::nullopt;
        return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

// A double (a byte count, a time in some unit) as an integer, clamped to [0, max]; NaN gives 0.
inline std::uint64_t clampToUnsigned(double d, std::uint64_t max = std::numeric_limits<std::uint64_t>::max())
{
    if (!(d > 0.0))
        return 0;
    if (d >= static_cast<double>(max)) // max as a double rounds up; >= keeps the cast below in range
        return max;
    return static_cast<std::uint64_t>(d);
}

inline std::int64_t clampToSigned(double d)
{
    if (std::isnan(d))
        return 0;
    if (d >= 9223372036854775807.0)
        return std::numeric_limits<std::int64_t>::max();
    if (d <= -9223372036854775808.0)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}

// a + b, saturated at the int64 range instead of overflowing.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return sum;
}

// a - b, saturated likewise.
inline std::int64_t saturatingSub(std::int64_t a, std::int64_t b)
{
    std::int64_t diff = 0;
    if (__builtin_sub_overflow(a, b, &diff))
        return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return diff;
}

// a * b, saturated likewise.
inline std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
{
    std::int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product))
        return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min()
                                  : std::numeric_limits<std::int64_t>::max();
    return product;
}

} // namespace xps::checked

#pragma once
// Conversions between f32 and the 2-byte float formats (IEEE binary16 "f16" and bfloat16 "bf16") on their
// bit patterns, as a DMA engine converting elements applies them: widening is exact; narrowing rounds to
// nearest even, keeps the sign of zero and of NaN (quietened), and overflows to infinity.

#include <bit>
#include <cstdint>

namespace xps::half {

inline std::uint32_t bf16ToF32(std::uint16_t bits)
{
    return static_cast<std::uint32_t>(bits) << 16;
}

inline std::uint16_t f32ToBf16(std::uint32_t bits)
{
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u) // NaN: keep its sign and top payload bits, quiet
        return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
    // Round to nearest even on the 16 bits dropped; a carry into the exponent is the correct rounding
    // (up to the next binade, or to infinity past bf16's largest finite value).
    const std::uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>(rounded >> 16);
}

inline std::uint32_t f16ToF32(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    std::uint32_t mantissa = h & 0x3FFu;
    if (exponent == 0x1F) // infinity or NaN (payload kept)
        return sign | 0x7F800000u | (mantissa << 13);
    if (exponent != 0)
        return sign | ((exponent + 112) << 23) | (mantissa << 13);
    if (mantissa == 0)
        return sign;
    // A subnormal: m x 2^-24, normalised into f32.
    int e = 113;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --e;
    }
    return sign | (static_cast<std::uint32_t>(e) << 23) | ((mantissa & 0x3FFu) << 13);
}

inline std::uint16_t f32ToF16(std::uint32_t bits)
{
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u) // NaN: quiet, top payload bits kept
        return static_cast<std::uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
    if (magnitude >= 0x47800000u) // 65536 and above (and infinity): past the last rounding boundary
        return static_cast<std::uint16_t>(sign | 0x7C00u);
    const int exponent = static_cast<int>(magnitude >> 23) - 127;
    if (exponent >= -14) { // normal in f16: drop 13 bits, round to nearest even (a carry may reach infinity)
        const std::uint32_t rebased = magnitude - (112u << 23);
        const std::uint32_t rounded = rebased + 0xFFFu + ((rebased >> 13) & 1u);
        return static_cast<std::uint16_t>(sign | (rounded >> 13));
    }
    if (exponent < -25) // below half the smallest subnormal (2^-25): zero
        return sign;
    // Subnormal in f16: the value in units of 2^-24, from the 24-bit significand, rounded to nearest even.
    const std::uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const int shift =
        -exponent - 1; // significand x 2^(exponent - 23) / 2^-24 = significand >> (-exponent - 1)
    const std::uint32_t kept = significand >> shift;
    const std::uint32_t dropped = significand & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    const std::uint32_t result =
        kept + ((dropped > halfway || (dropped == halfway && (kept & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | result);
}

} // namespace xps::half

#pragma once
// Tensor values of the reference interpreter: a type and its elements in row-major order, each held as a
// double. A double holds every f32, f16, bf16, i1 and integer value of up to 32 bits exactly (64-bit
// integers up to 2^53; docs/stablehlo.md), and an operation computed in
// double and rounded once to the element type gives the correctly rounded f32/f16/bf16 result for
// + - * / and sqrt (53 >= 2 * 24 + 2 bits, so the double rounding is innocuous); transcendental
// functions are at least as accurate as an f32 libm. Integers wrap at their width where the op says so.

#include <cstdint>
#include <string>
#include <vector>

#include "stablehlo/attribute.h"
#include "stablehlo/tensor_type.h"
#include "util/result.h"

namespace xps::shlo {

struct TensorValue
{
    TensorType type;
    std::vector<double> data;
};

// A value rounded to what the element type can hold: f32/f16/bf16 to nearest even (NaN kept, overflow to
// infinity), an integer wrapped modulo 2^bits into its range, i1 as 0 or 1 (any non-zero is 1).
double roundTo(ElementType type, double value);
// The integer parts of roundTo and bitsOf, and back: a value of an integer type from its two's complement
// encoding (the low integerBits(type) bits of `encoding`). 64-bit values are exact up to 2^53 (a double).
double wrapInteger(ElementType type, double value);
std::uint64_t integerEncoding(ElementType type, double value);
double integerValue(ElementType type, std::uint64_t encoding);
std::int32_t wrapToInt32(std::int64_t value);

// f16 and bf16 encodings, for hex literals and ULP distances.
std::uint16_t halfBits(double value);
double halfValue(std::uint16_t bits);
std::uint16_t bfloat16Bits(double value);
double bfloat16Value(std::uint16_t bits);
std::uint64_t bitsOf(ElementType type, double value); // the element's encoding, of any element type

// The distance in units in the last place, as StableHLO's check.expect_close counts it: 0 for equal values
// and for two NaNs, the maximum for a non-finite value that differs from the other.
std::uint64_t ulpDifference(ElementType type, double a, double b);

// A dense literal's elements as values of `type` (a splat fills every element). `where` names the literal
// for messages. Integers out of the type's range, wrong element counts and bad text are errors.
Result<TensorValue> literalValue(const Attribute& dense, const TensorType& type, const std::string& where);

// Text of one element as the interpreter prints it in messages: "1.5", "-3", "true", "nan".
std::string formatElement(ElementType type, double value);
std::string formatIndex(const std::vector<std::int64_t>& shape, std::int64_t linear); // "[2, 0]"

} // namespace xps::shlo

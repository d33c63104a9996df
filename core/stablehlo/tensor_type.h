#pragma once
// Tensor types of the StableHLO subset xpushark compiles: a static shape and one of its element types:
// f32, f16, bf16, the signed and unsigned integers of 8, 16, 32 and 64 bits, and i1. Everything else (f64,
// i4, complex, dynamic dimensions, tokens) is refused where it is written.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xps::shlo {

// The order is that of the table in tensor_type.cpp; new types go at the end.
enum class ElementType : std::uint8_t { F32, F16, BF16, I32, I1, I8, I16, I64, UI8, UI16, UI32, UI64 };

// The element types accepted, in the spelling of the MLIR text: "f32, f16, bf16, i32, i1, ...".
std::string supportedElementTypes();
std::optional<ElementType> elementTypeNamed(std::string_view name);
std::string_view elementTypeName(ElementType type);
bool isFloat(ElementType type);
// An integer's width in bits (1 for i1), 0 for a float; whether it is unsigned.
int integerBits(ElementType type);
bool isUnsigned(ElementType type);
int bytesOf(ElementType type); // storage size in HBM/VMEM: f16 and bf16 take 2 bytes, i1 one byte
// An element's bytes in a compiled program's HBM tensors: f16 and bf16 2, the rest 4. Every integer is held
// as one 32-bit word, its value modulo 2^32: i1, 8- and 16-bit integers sign- or zero-extended, 64-bit ones
// as their low half (exact where the values fit 32 bits; see docs/stablehlo.md).
int storageBytes(ElementType type);

// The largest number of elements one tensor may have: 2^31, far past any tensor this machine can hold
// (HBM is at most a few GiB), so a shape whose product overflows is refused before anything is allocated.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 31;
inline constexpr int kMaxRank = 16;

struct TensorType
{
    std::vector<std::int64_t> shape;
    ElementType element = ElementType::F32;

    int rank() const { return static_cast<int>(shape.size()); }
    std::int64_t elementCount() const; // always <= kMaxTensorElements: the parser refuses larger shapes
    std::int64_t byteSize() const { return elementCount() * bytesOf(element); }
    std::string toString() const; // "tensor<2x3xf32>"
    bool operator==(const TensorType& other) const = default;
};

// Row-major strides of a shape, in elements.
std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t>& shape);

} // namespace xps::shlo

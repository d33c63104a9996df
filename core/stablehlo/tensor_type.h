#pragma once
// Tensor types of the StableHLO subset xpushark compiles: a static shape and one of five element types.
// Everything else (f64, i64, unsigned, complex, dynamic dimensions, tokens) is refused where it is written,
// because neither the lowering nor the vector unit has a meaning for it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xps::shlo {

enum class ElementType : std::uint8_t { F32, F16, BF16, I32, I1 };

// The element types accepted, in the spelling of the MLIR text: "f32, f16, bf16, i32, i1".
std::string supportedElementTypes();
std::optional<ElementType> elementTypeNamed(std::string_view name);
std::string_view elementTypeName(ElementType type);
bool isFloat(ElementType type);
int bytesOf(ElementType type); // storage size in HBM/VMEM: f16 and bf16 take 2 bytes, i1 one byte
// An element's bytes in a compiled program's HBM tensors: f16 and bf16 2, the rest 4 (i1 as an i32 0 or 1).
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

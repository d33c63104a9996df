#include "stablehlo/tensor_type.h"

#include <iterator>

namespace xps::shlo {

namespace {
struct ElementInfo
{
    ElementType type;
    std::string_view name;
    bool isFloat;
    int bytes;
    int bits; // integers: the width (i1: 1); floats: 0
    bool isUnsigned;
};
constexpr ElementInfo kElements[] = {
    {ElementType::F32, "f32", true, 4, 0, false},    {ElementType::F16, "f16", true, 2, 0, false},
    {ElementType::BF16, "bf16", true, 2, 0, false},  {ElementType::I32, "i32", false, 4, 32, false},
    {ElementType::I1, "i1", false, 1, 1, false},     {ElementType::I8, "i8", false, 1, 8, false},
    {ElementType::I16, "i16", false, 2, 16, false},  {ElementType::I64, "i64", false, 8, 64, false},
    {ElementType::UI8, "ui8", false, 1, 8, true},    {ElementType::UI16, "ui16", false, 2, 16, true},
    {ElementType::UI32, "ui32", false, 4, 32, true}, {ElementType::UI64, "ui64", false, 8, 64, true},
};
static_assert(std::size(kElements) == static_cast<std::size_t>(ElementType::UI64) + 1);
const ElementInfo& infoOf(ElementType type)
{
    return kElements[static_cast<int>(type)];
}
} // namespace

std::string supportedElementTypes()
{
    std::string out;
    for (const auto& e : kElements) {
        if (!out.empty())
            out += ", ";
        out += e.name;
    }
    return out;
}

std::optional<ElementType> elementTypeNamed(std::string_view name)
{
    for (const auto& e : kElements)
        if (e.name == name)
            return e.type;
    return std::nullopt;
}

std::string_view elementTypeName(ElementType type)
{
    return infoOf(type).name;
}
bool isFloat(ElementType type)
{
    return infoOf(type).isFloat;
}
int integerBits(ElementType type)
{
    return infoOf(type).bits;
}
bool isUnsigned(ElementType type)
{
    return infoOf(type).isUnsigned;
}
int bytesOf(ElementType type)
{
    return infoOf(type).bytes;
}

int storageBytes(ElementType type)
{
    return type == ElementType::F16 || type == ElementType::BF16 ? 2 : 4;
}

std::int64_t TensorType::elementCount() const
{
    std::int64_t n = 1;
    for (const auto d : shape)
        n *= d;
    return n;
}

std::string TensorType::toString() const
{
    std::string out = "tensor<";
    for (const auto d : shape)
        out += std::to_string(d) + "x";
    out += elementTypeName(element);
    out += ">";
    return out;
}

std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
        strides[static_cast<std::size_t>(i)] =
            strides[static_cast<std::size_t>(i) + 1] * shape[static_cast<std::size_t>(i) + 1];
    return strides;
}

} // namespace xps::shlo

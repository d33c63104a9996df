#pragma once
// Attribute values of StableHLO ops as written in MLIR text, in one small tree whatever the op's syntax:
// the pretty form (`dims = [1, 0]`, `batching_dims = [0] x [0]`, `window = {stride = [2, 2]}`) and the
// generic form (`{dimensions = array<i64: 1, 0>}`, `#stablehlo.dot<lhs_batching_dimensions = [0], ...>`)
// parse to the same nodes, so op semantics read one shape of data.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stablehlo/tensor_type.h"

namespace xps::shlo {

// A dense<...> literal as written: its elements' text (numbers, true/false, 0x bit patterns) in row-major
// order, or one hex blob. Converted to values once its type, written after it, is known.
struct DenseLiteral
{
    std::vector<std::string_view> elements; // views into the module's source text
    std::string_view hexBlob;               // dense<"0x...">: raw little-endian bytes, two hex digits each
    std::vector<std::int64_t> nestedShape;  // the bracket nesting: [[1,2],[3,4]] is {2, 2}; a scalar is {}
    bool isSplat() const { return hexBlob.empty() && nestedShape.empty() && elements.size() == 1; }
};

struct NamedAttribute;

struct Attribute
{
    enum class Kind : std::uint8_t { Integer, Float, Bool, String, Symbol, Word, List, Dict, Dense, Opaque };
    Kind kind = Kind::Opaque;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;                   // String, Symbol (without @), Word, List's joiner
    std::vector<Attribute> items;       // List; "[0] x [1]" is a List of two Lists, text "x"
    std::vector<NamedAttribute> fields; // Dict, and #dialect.name<key = value, ...>
    std::shared_ptr<const DenseLiteral> dense;
    // Dense: the shape and element type written after the literal. Attributes may use types tensors may
    // not (padding is `dense<...> : tensor<2x2xi64>`), so the element type stays a name here.
    std::vector<std::int64_t> denseShape;
    std::string denseElement;

    const Attribute* field(std::string_view name) const;
    // The integers of a List (`[1, 2]`, `array<i64: 1, 2>`) or of a dense integer literal; nothing if the
    // attribute is not one.
    std::optional<std::vector<std::int64_t>> integers() const;
};

// A List of integers (`[1, 2]`), as the parser makes of `dims = [1, 2]` or `array<i64: 1, 2>`.
Attribute integerList(const std::vector<std::int64_t>& values);

// std::pair of an incomplete type is ill-formed (libc++ and clang reject it); a struct is not.
struct NamedAttribute
{
    std::string name;
    Attribute value;
};

// Named attributes of one op, in the order written.
struct AttributeMap
{
    std::vector<NamedAttribute> entries;

    const Attribute* find(std::string_view name) const;
    void set(std::string name, Attribute value);
};

} // namespace xps::shlo

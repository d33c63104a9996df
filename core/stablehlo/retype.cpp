#include "stablehlo/retype.h"

#include <memory>

#include "stablehlo/attribute.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo {

namespace {

class Retyping
{
public:
    Retyping(Module& module, ElementType to) : m_module(module), m_to(to) {}

    void type(TensorType& t) const
    {
        if (isFloat(t.element))
            t.element = m_to;
    }

    void body(Body& b)
    {
        for (auto& t : b.argumentTypes)
            type(t);
        for (auto& t : b.valueTypes)
            type(t);
        for (auto& op : b.operations) {
            if (op.kind == OpKind::Constant && op.resultTypes.size() == 1 &&
                isFloat(op.resultTypes[0].element))
                constant(op);
            for (auto& t : op.resultTypes)
                type(t);
            for (auto& region : op.regions)
                body(region);
        }
    }

private:
    // The literal read as its own type, its values rounded to the new one and written back in hex: a splat
    // (one value for every element: a mask's fill, a scale) as that one value's bits, so that it stays one,
    // anything else as a blob of every element's bytes.
    void constant(Operation& op)
    {
        const auto* value = op.attributes.find("value");
        if (!value)
            return; // the interpreter and the lowering say what is missing
        const std::string where = m_module.fileName + ":" + std::to_string(op.location.line) + ":" +
                                  std::to_string(op.location.column);
        const bool splat = value->dense && value->dense->isSplat();
        TensorType readAs = op.resultTypes[0];
        if (splat)
            readAs.shape.clear();
        auto literal = literalValue(*value, readAs, where);
        if (!literal)
            throw literal.error();
        static constexpr char kHex[] = "0123456789ABCDEF";
        const int bytes = storageBytes(m_to); // 2 for bf16 and f16, 4 for f32
        auto text = std::make_shared<std::string>();
        auto dense = std::make_shared<DenseLiteral>();
        if (splat) {
            const auto bits = bitsOf(m_to, literal->data.at(0));
            *text = "0x";
            for (int digit = 2 * bytes - 1; digit >= 0; --digit)
                text->push_back(kHex[(bits >> (4 * digit)) & 0xFu]);
            *dense = *value->dense;
            dense->elements = {std::string_view(*text)};
        } else {
            text->reserve(literal->data.size() * 2 * static_cast<std::size_t>(bytes));
            for (const double v : literal->data) {
                const auto bits = bitsOf(m_to, v);
                for (int b = 0; b < bytes; ++b) { // little-endian
                    const auto byte = static_cast<unsigned>(bits >> (8 * b)) & 0xFFu;
                    text->push_back(kHex[byte >> 4]);
                    text->push_back(kHex[byte & 0xFu]);
                }
            }
            dense->hexBlob = *text;
        }
        m_module.rewrittenText.push_back(std::move(text));
        Attribute rewritten = *value;
        rewritten.dense = std::move(dense);
        rewritten.denseElement = std::string(elementTypeName(m_to));
        op.attributes.set("value", std::move(rewritten));
    }

    Module& m_module;
    ElementType m_to;
};

} // namespace

std::optional<ElementType> floatTypeNamed(const std::string& name)
{
    if (name == "bf16")
        return ElementType::BF16;
    if (name == "f16")
        return ElementType::F16;
    if (name == "f32")
        return ElementType::F32;
    return std::nullopt;
}

Result<bool> retypeFloats(Module& module, ElementType to)
{
    if (!isFloat(to) || storageBytes(to) > 4)
        return Error(module.fileName, "--dtype takes bf16, f16 or f32");
    Retyping r(module, to);
    try {
        for (auto& f : module.functions) {
            r.body(f.body);
            for (auto& t : f.resultTypes)
                r.type(t);
        }
    } catch (const Error& e) {
        return e;
    }
    return true;
}

} // namespace xps::shlo

#include "stablehlo/lower_expand.h"

#include <bit>
#include <cstring>
#include <memory>

#include "stablehlo/attribute.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

bool isBatchNorm(const Operation& op)
{
    return op.kind == OpKind::BatchNormTraining || op.kind == OpKind::BatchNormInference;
}

bool isExpanded(const Operation& op)
{
    return isBatchNorm(op) || isExpandedChlo(op.kind);
}

// A new body, op by op: the old body's values renumbered, an expanded op's results those of its expansion.
// The expansion's TensorRefs name values by their `address` (a value number here, not an HBM address).
class BodyExpansion
{
public:
    BodyExpansion(Module& module, const Body& old) : m_module(module), m_old(old)
    {
        m_body.argumentTypes = old.argumentTypes;
        m_body.valueTypes = old.argumentTypes;
        m_newId.resize(old.valueTypes.size());
        for (std::uint32_t a = 0; a < old.argumentTypes.size(); ++a)
            m_newId[a] = a;
    }

    Body run()
    {
        for (const Operation& op : m_old.operations) {
            if (!isExpanded(op)) {
                Operation copy = op;
                for (auto& v : copy.operands)
                    v = m_newId.at(v);
                const auto first = static_cast<std::uint32_t>(m_body.valueTypes.size());
                copy.firstResult = first;
                for (std::size_t r = 0; r < op.resultTypes.size(); ++r) {
                    m_newId.at(op.firstResult + r) = first + static_cast<std::uint32_t>(r);
                    m_body.valueTypes.push_back(op.resultTypes[r]);
                }
                m_body.operations.push_back(std::move(copy));
                continue;
            }
            std::vector<TensorRef> in;
            for (const auto v : op.operands) {
                TensorRef t;
                t.address = m_newId.at(v);
                t.type = m_body.valueTypes.at(m_newId.at(v));
                in.push_back(t);
            }
            const OpEmitter emit{
                [&](const Operation& piece, const std::vector<TensorRef>& operands) {
                    return append(piece, operands);
                },
                [&](const TensorValue& value, const std::string& what) { return constant(op, value, what); }};
            std::vector<TensorRef> out;
            try {
                out = isBatchNorm(op) ? lowerBatchNorm(op, in, emit) : lowerChlo(op, in, emit);
            } catch (const LoweringError& e) {
                throw LoweringError{m_module.fileName + ":" + std::to_string(op.location.line) + ":" +
                                    std::to_string(op.location.column) + ": " + std::string(opName(op.kind)) +
                                    ": " + e.message};
            }
            for (std::size_t r = 0; r < out.size() && r < op.resultTypes.size(); ++r)
                m_newId.at(op.firstResult + r) = static_cast<std::uint32_t>(out[r].address);
        }
        return std::move(m_body);
    }

private:
    std::vector<TensorRef> append(const Operation& piece, const std::vector<TensorRef>& operands)
    {
        Operation o = piece;
        o.operands.clear();
        for (const auto& t : operands)
            o.operands.push_back(static_cast<std::uint32_t>(t.address));
        o.firstResult = static_cast<std::uint32_t>(m_body.valueTypes.size());
        std::vector<TensorRef> out;
        for (const auto& type : o.resultTypes) {
            TensorRef t;
            t.address = m_body.valueTypes.size();
            t.type = type;
            m_body.valueTypes.push_back(type);
            out.push_back(t);
        }
        m_body.operations.push_back(std::move(o));
        return out;
    }

    // A constant op of `value` (f32), its literal the f32 bits in hex.
    TensorRef constant(const Operation& of, const TensorValue& value, const std::string& what)
    {
        static constexpr char kHex[] = "0123456789ABCDEF";
        auto hex = std::make_shared<std::string>();
        for (const double d : value.data) {
            const auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(d));
            for (int b = 0; b < 4; ++b) { // little-endian
                const unsigned byte = (bits >> (8 * b)) & 0xFFu;
                hex->push_back(kHex[byte >> 4]);
                hex->push_back(kHex[byte & 0xFu]);
            }
        }
        auto dense = std::make_shared<DenseLiteral>();
        dense->hexBlob = *hex;
        m_module.rewrittenText.push_back(std::move(hex));
        Attribute literal;
        literal.kind = Attribute::Kind::Dense;
        literal.dense = std::move(dense);
        literal.denseShape = value.type.shape;
        literal.denseElement = std::string(elementTypeName(value.type.element));
        Operation c;
        c.kind = OpKind::Constant;
        c.location = of.location;
        c.resultTypes = {value.type};
        c.resultName = of.resultName + "." + what;
        c.attributes.set("value", std::move(literal));
        return append(c, {}).at(0);
    }

    Module& m_module;
    const Body& m_old;
    Body m_body;
    std::vector<std::uint32_t> m_newId; // old value -> new value
};

bool hasExpanded(const Body& body)
{
    for (const auto& op : body.operations)
        if (isExpanded(op))
            return true;
    return false;
}

} // namespace

std::optional<Module> expandComposites(const Module& module)
{
    bool any = false;
    for (const auto& f : module.functions)
        any = any || hasExpanded(f.body);
    if (!any)
        return std::nullopt;
    Module expanded = module;
    for (auto& f : expanded.functions)
        if (hasExpanded(f.body))
            f.body = BodyExpansion(expanded, f.body).run();
    return expanded;
}

} // namespace xps::shlo::lower

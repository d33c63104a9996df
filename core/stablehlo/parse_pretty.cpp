// The pretty forms of the StableHLO parser (see parser_state.h): each op's own syntax, read into the same
// operands and attributes the generic form gives, under the generic form's attribute names.

#include "stablehlo/parser_state.h"

namespace xps::shlo::detail {

namespace {

bool isCheck(OpKind kind)
{
    return kind == OpKind::ExpectEq || kind == OpKind::ExpectEqConst || kind == OpKind::ExpectAlmostEq ||
           kind == OpKind::ExpectAlmostEqConst || kind == OpKind::ExpectClose;
}

void rename(AttributeMap& attrs, std::string_view from, const std::string& to)
{
    for (auto& [key, value] : attrs.entries)
        if (key == from)
            key = to;
}

// `batching_dims = [0] x [0]` to lhs_batching_dimensions and rhs_batching_dimensions.
void splitPair(AttributeMap& attrs, std::string_view pretty, const std::string& lhs, const std::string& rhs)
{
    const auto* pair = attrs.find(pretty);
    if (!pair || pair->kind != Attribute::Kind::List || pair->text != "x" || pair->items.size() != 2)
        return;
    const Attribute l = pair->items[0];
    const Attribute r = pair->items[1];
    attrs.set(lhs, l);
    attrs.set(rhs, r);
}

void flatten(AttributeMap& attrs, std::string_view dictName)
{
    const auto* dict = attrs.find(dictName);
    if (!dict || dict->kind != Attribute::Kind::Dict)
        return;
    const auto fields = dict->fields;
    for (const auto& [k, v] : fields)
        attrs.set(k, v);
}

} // namespace

// One spelling per attribute, whichever form the op was written in.
void normalizeAttributes(Operation& op)
{
    auto& a = op.attributes;
    switch (op.kind) {
    case OpKind::BroadcastInDim: rename(a, "dims", "broadcast_dimensions"); break;
    case OpKind::Transpose: rename(a, "dims", "permutation"); break;
    case OpKind::Reverse: rename(a, "dims", "dimensions"); break;
    case OpKind::Concatenate: rename(a, "dim", "dimension"); break;
    case OpKind::Iota: rename(a, "dim", "iota_dimension"); break;
    case OpKind::Pad:
        rename(a, "low", "edge_padding_low");
        rename(a, "high", "edge_padding_high");
        rename(a, "interior", "interior_padding");
        break;
    case OpKind::DotGeneral:
        splitPair(a, "batching_dims", "lhs_batching_dimensions", "rhs_batching_dimensions");
        splitPair(a, "contracting_dims", "lhs_contracting_dimensions", "rhs_contracting_dimensions");
        flatten(a, "dot_dimension_numbers");
        break;
    case OpKind::Convolution:
        rename(a, "dim_numbers", "dimension_numbers");
        flatten(a, "window");
        rename(a, "stride", "window_strides");
        rename(a, "pad", "padding");
        rename(a, "lhs_dilate", "lhs_dilation");
        rename(a, "rhs_dilate", "rhs_dilation");
        rename(a, "reverse", "window_reversal");
        break;
    case OpKind::Gather: flatten(a, "dimension_numbers"); break;
    case OpKind::Scatter: flatten(a, "scatter_dimension_numbers"); break;
    case OpKind::DynamicSlice: rename(a, "sizes", "slice_sizes"); break;
    case OpKind::ReducePrecision: {
        // `format = e5m10`: exponent and mantissa bits (a malformed one is left for the op to refuse).
        const auto* f = a.find("format");
        const std::string_view t = f && f->kind == Attribute::Kind::Word ? f->text : std::string_view();
        const auto m = t.find('m');
        const auto digits = [](std::string_view s) {
            return !s.empty() && s.size() <= 3 && s.find_first_not_of("0123456789") == std::string_view::npos;
        };
        if (t.starts_with('e') && m != std::string_view::npos && digits(t.substr(1, m - 1)) &&
            digits(t.substr(m + 1))) {
            Attribute e, mm;
            e.kind = mm.kind = Attribute::Kind::Integer;
            e.integer = std::stoll(std::string(t.substr(1, m - 1)));
            mm.integer = std::stoll(std::string(t.substr(m + 1)));
            a.set("exponent_bits", e);
            a.set("mantissa_bits", mm);
        }
        break;
    }
    case OpKind::CustomCall:
        // torch_xla writes erf as a call of XLA's own erf: the same op as chlo.erf.
        if (op.callee == "mhlo.erf")
            op.kind = OpKind::Erf;
        break;
    default: break;
    }
}

void Parser::applyResultTypes(Operation& op, const TypeSignature& sig, std::size_t offset)
{
    if (op.kind == OpKind::Return || isCheck(op.kind))
        return;
    if (sig.functional) {
        op.resultTypes = sig.results;
        return;
    }
    if (sig.inputs.empty())
        cursor.failAt(offset, "expected the op's type");
    op.resultTypes = {sig.inputs.back()};
}

PrettyParts Parser::parsePrettyParts(Operation& op, Scope& scope)
{
    PrettyParts parts;
    while (true) {
        const char c = cursor.peek();
        if (c == ':' || c == '{' || c == '}' || c == '\0' || cursor.startsWith("loc("))
            break;
        if (c == '%') {
            op.operands.push_back(useValue(scope));
            if (op.kind == OpKind::Slice && cursor.peek() == '[') {
                std::vector<std::int64_t> start, limit, stride;
                cursor.consume("[");
                if (!cursor.consume("]")) {
                    do {
                        start.push_back(cursor.integer("a slice start", 0, kMaxTensorElements));
                        cursor.expect(":", "between a slice's start and limit");
                        limit.push_back(cursor.integer("a slice limit", 0, kMaxTensorElements));
                        stride.push_back(cursor.consume(":")
                                             ? cursor.integer("a slice stride", 1, kMaxTensorElements)
                                             : 1);
                    } while (cursor.consume(","));
                    cursor.expect("]", "to close the slice");
                }
                op.attributes.set("start_indices", integerList(start));
                op.attributes.set("limit_indices", integerList(limit));
                op.attributes.set("strides", integerList(stride));
            }
        } else if (c == '(') {
            cursor.consume("(");
            if (!cursor.consume(")")) {
                do {
                    const auto v = useValue(scope);
                    if (cursor.consumeWord("init")) {
                        cursor.expect(":", "after init");
                        parts.inits.push_back(useValue(scope));
                    }
                    op.operands.push_back(v);
                } while (cursor.consume(","));
                cursor.expect(")", "to close the operands");
            }
        } else if (c == '@') {
            op.callee = std::string(cursor.suffixId('@', "a function or call target"));
        } else if (cursor.startsWith("dense<")) {
            op.attributes.set("value", parseAttribute());
            // `check.expect_eq_const %x, dense<...> : type`: the literal's type ends the op.
            if (op.kind == OpKind::ExpectEqConst || op.kind == OpKind::ExpectAlmostEqConst)
                break;
        } else if (cursor.atIdentifier()) {
            const auto save = cursor.offset();
            const auto word = std::string(cursor.identifier("an attribute or keyword"));
            if (word == "applies" || word == "across" || word == "reducer") {
                cursor.seek(save);
                break;
            }
            if (cursor.consume("=")) {
                op.attributes.set(word, parseAttribute());
            } else {
                parts.words.push_back(word);
                parts.wordOffsets.push_back(save);
            }
        } else {
            cursor.fail("unexpected " + cursor.found() + " in " + std::string(opName(op.kind)));
        }
        (void)cursor.consume(",");
    }
    return parts;
}

void Parser::parsePrettyReduce(Operation& op, Body& body, Scope& scope)
{
    const auto parts = parsePrettyParts(op, scope);
    if (parts.inits.size() != op.operands.size() || op.operands.empty())
        cursor.fail("stablehlo.reduce needs (%input init: %initial) for each input");
    const auto inputs = op.operands;
    op.operands.insert(op.operands.end(), parts.inits.begin(), parts.inits.end());
    OpKind applied = OpKind::Add;
    bool applies = false;
    std::size_t appliesAt = 0;
    if (cursor.consumeWord("applies")) {
        cursor.skipSpace();
        appliesAt = cursor.offset();
        const auto name = std::string(cursor.identifier("the reducing op"));
        if (!opKindNamed(name, applied) || elementwiseArity(applied) != 2 || applied == OpKind::Compare)
            cursor.failAt(appliesAt, "'" + name + "' cannot reduce: expected a two-operand element-wise op");
        applies = true;
    }
    if (!cursor.consumeWord("across") || !cursor.consumeWord("dimensions"))
        cursor.fail("expected 'across dimensions = [...]', found " + cursor.found());
    cursor.expect("=", "after 'across dimensions'");
    op.attributes.set("dimensions", parseAttribute());
    if (cursor.peek() == '{')
        for (auto& [k, v] : parseAttributeDict().entries)
            op.attributes.set(k, std::move(v));
    cursor.skipSpace();
    const auto sigAt = cursor.offset();
    cursor.expect(":", "before the reduce's type");
    const auto sig = parseTypeSignature();
    if (!sig.functional)
        cursor.failAt(sigAt, "stablehlo.reduce needs a function type: (operand types) -> result types");
    applyResultTypes(op, sig, sigAt);
    const auto n = inputs.size();
    std::vector<TensorType> scalars;
    for (std::size_t i = 0; i < n; ++i)
        scalars.push_back(TensorType{{}, body.valueTypes[parts.inits[i]].element});
    if (applies) {
        if (n != 1)
            cursor.failAt(appliesAt, "'applies' reduces one input; this reduce has " + std::to_string(n));
        Body region;
        region.argumentTypes = {scalars[0], scalars[0]};
        region.valueTypes = {scalars[0], scalars[0], scalars[0]};
        Operation combine;
        combine.kind = applied;
        combine.location = op.location;
        combine.operands = {0, 1};
        combine.resultTypes = {scalars[0]};
        combine.firstResult = 2;
        Operation ret;
        ret.kind = OpKind::Return;
        ret.location = op.location;
        ret.operands = {2};
        region.operations = {std::move(combine), std::move(ret)};
        op.regions.push_back(std::move(region));
        return;
    }
    if (!cursor.consumeWord("reducer"))
        cursor.fail("expected 'applies OP' or 'reducer(...)' after stablehlo.reduce's type, found " +
                    cursor.found());
    // reducer(%acc0: t, %x0: t) (%acc1: t, %x1: t): the block takes every accumulator, then every element.
    std::vector<std::pair<std::string, TensorType>> accumulators, elements;
    for (std::size_t i = 0; i < n; ++i) {
        cursor.expect("(", "to open the reducer's arguments");
        for (int k = 0; k < 2; ++k) {
            if (k == 1)
                cursor.expect(",", "between the reducer's arguments");
            auto name = std::string(cursor.suffixId('%', "a reducer argument"));
            cursor.expect(":", "after %" + name);
            auto type = parseTensorType();
            (k == 0 ? accumulators : elements).emplace_back(std::move(name), type);
        }
        cursor.expect(")", "to close the reducer's arguments");
    }
    accumulators.insert(accumulators.end(), elements.begin(), elements.end());
    parseRegion(op, scope, accumulators);
}

void Parser::parsePrettyOperation(Operation& op, Body& body, Scope& scope)
{
    if (op.kind == OpKind::Reduce) {
        parsePrettyReduce(op, body, scope);
        normalizeAttributes(op);
        return;
    }
    if (op.kind == OpKind::Constant) {
        // `stablehlo.constant dense<...> : tensor<...>`: the literal's type is the result's.
        if (cursor.peek() == '{')
            (void)parseAttributeDict();
        if (!cursor.startsWith("dense<"))
            cursor.fail("expected dense<...> after stablehlo.constant, found " + cursor.found());
        cursor.consumeWord("dense");
        cursor.consume("<");
        auto literal = std::make_shared<DenseLiteral>();
        parseDenseBody(*literal);
        cursor.expect(":", "and the constant's type");
        Attribute value;
        value.kind = Attribute::Kind::Dense;
        value.dense = std::move(literal);
        const auto type = parseTensorType();
        value.denseShape = type.shape;
        value.denseElement = std::string(elementTypeName(type.element));
        op.attributes.set("value", std::move(value));
        op.resultTypes = {type};
        return;
    }
    const auto parts = parsePrettyParts(op, scope);
    if (!parts.inits.empty())
        cursor.fail(std::string(opName(op.kind)) + " takes no 'init:' operands");
    if (op.kind == OpKind::Compare) {
        if (parts.words.empty())
            cursor.fail("stablehlo.compare needs a direction (EQ, NE, LT, LE, GT, GE)");
        Attribute direction;
        direction.kind = Attribute::Kind::Word;
        direction.text = parts.words[0];
        op.attributes.set("comparison_direction", direction);
        if (parts.words.size() > 1) {
            Attribute type = direction;
            type.text = parts.words[1];
            op.attributes.set("compare_type", type);
        }
    } else if (!parts.words.empty()) {
        cursor.failAt(parts.wordOffsets[0],
                      "unexpected '" + parts.words[0] + "' in " + std::string(opName(op.kind)));
    }
    if (cursor.peek() == '{')
        for (auto& [k, v] : parseAttributeDict().entries)
            op.attributes.set(k, std::move(v));
    if ((op.kind == OpKind::ExpectEqConst || op.kind == OpKind::ExpectAlmostEqConst) &&
        op.attributes.find("value") && cursor.peek() != ':') {
        if (cursor.peek() == '{')
            for (auto& [k, v] : parseAttributeDict().entries)
                op.attributes.set(k, std::move(v));
        return;
    }
    if (op.kind == OpKind::Return && cursor.peek() != ':') {
        if (!op.operands.empty())
            cursor.fail("expected ':' and the returned values' types, found " + cursor.found());
        return;
    }
    cursor.skipSpace();
    const auto sigAt = cursor.offset();
    cursor.expect(":", "before the op's type");
    const auto sig = parseTypeSignature();
    // The check dialect writes options after the type: `: tensor<f64> {tolerance = 0.1 : f64}`.
    if (isCheck(op.kind) && cursor.peek() == '{')
        for (auto& [k, v] : parseAttributeDict().entries)
            op.attributes.set(k, std::move(v));
    if (sig.functional) {
        checkOperandTypes(op, body, sig, sigAt);
    } else if (op.kind == OpKind::Return) {
        if (sig.inputs.size() != op.operands.size())
            cursor.failAt(sigAt, "return lists " + std::to_string(sig.inputs.size()) + " types for " +
                                     std::to_string(op.operands.size()) + " values");
    }
    applyResultTypes(op, sig, sigAt);
    normalizeAttributes(op);
}

} // namespace xps::shlo::detail

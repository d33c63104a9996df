// Attributes, types and dense literals of the StableHLO parser (see parser_state.h).

#include <cctype>

#include "stablehlo/parser_state.h"

namespace xps::shlo::detail {

namespace {
bool isScalarTypeName(std::string_view w)
{
    if (w == "index" || w == "bf16")
        return true;
    std::size_t i = 0;
    if (w.substr(0, 2) == "ui" || w.substr(0, 2) == "si")
        i = 2;
    else if (!w.empty() && (w[0] == 'i' || w[0] == 'f'))
        i = 1;
    else
        return false;
    if (i >= w.size())
        return false;
    for (; i < w.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(w[i])))
            return false;
    return true;
}
} // namespace

bool Parser::atType()
{
    return cursor.startsWith("tensor<");
}

void Parser::skipOptionalScalarType()
{
    const auto at = cursor.offset();
    if (!cursor.consume(":"))
        return;
    if (cursor.atIdentifier()) {
        const auto save = cursor.offset();
        const auto word = cursor.identifier("a type");
        if (isScalarTypeName(word))
            return;
        cursor.seek(save);
    }
    cursor.seek(at);
}

TensorType Parser::parseTensorType(bool allowAnyElement, std::string* elementName,
                                   std::vector<std::int64_t>* shapeOut)
{
    cursor.skipSpace();
    const auto start = cursor.offset();
    if (!cursor.consume("tensor<")) {
        if (cursor.atIdentifier()) {
            const auto save = cursor.offset();
            const auto word = cursor.identifier("a type");
            if (isScalarTypeName(word))
                cursor.failAt(save, "expected a tensor type, found the scalar type '" + std::string(word) +
                                        "'; write tensor<" + std::string(word) + ">");
        }
        if (cursor.startsWith("!"))
            cursor.fail("unsupported type " + cursor.found() + "; the subset has tensors of " +
                        supportedElementTypes());
        cursor.fail("expected a tensor type (tensor<2x3xf32>), found " + cursor.found());
    }
    TensorType type;
    std::int64_t count = 1;
    while (true) {
        cursor.skipSpace();
        const char c = cursor.peekRaw();
        if (c == '?')
            cursor.fail("dynamic dimensions ('?') are not supported: every shape must be static");
        if (!std::isdigit(static_cast<unsigned char>(c)))
            break;
        // Digits by hand: "0x6" is a dimension 0 then 'x', not a hex number.
        std::int64_t d = 0;
        while (std::isdigit(static_cast<unsigned char>(cursor.peekRaw()))) {
            d = d * 10 + (cursor.peekRaw() - '0');
            if (d > kMaxTensorElements)
                cursor.failAt(start, "a dimension over " + std::to_string(kMaxTensorElements));
            cursor.seek(cursor.offset() + 1);
        }
        if (type.shape.size() >= static_cast<std::size_t>(kMaxRank))
            cursor.failAt(start, "a tensor of rank over " + std::to_string(kMaxRank));
        if (d != 0 && count > kMaxTensorElements / d)
            cursor.failAt(start,
                          "the shape has more than " + std::to_string(kMaxTensorElements) + " elements");
        count *= d;
        type.shape.push_back(d);
        if (cursor.peekRaw() != 'x')
            cursor.fail("expected 'x' after a dimension, found " + cursor.found());
        cursor.seek(cursor.offset() + 1);
    }
    cursor.skipSpace();
    const auto elementOffset = cursor.offset();
    std::string name;
    if (cursor.startsWith("complex<")) {
        name = "complex<" + std::string((cursor.consumeWord("complex"), cursor.balanced('<', '>'))) + ">";
    } else if (cursor.startsWith("!")) {
        cursor.consume("!");
        name = "!" + std::string(cursor.identifier("a type"));
    } else {
        name = std::string(cursor.identifier("an element type"));
    }
    const auto element = elementTypeNamed(name);
    if (!element && !allowAnyElement)
        cursor.failAt(elementOffset,
                      "unsupported element type '" + name + "'; the subset has " + supportedElementTypes());
    if (element)
        type.element = *element;
    if (elementName)
        *elementName = name;
    if (cursor.consume(",")) // an encoding: tensor<4xf32, #sparse> or a sharding
        cursor.fail("tensor encodings are not supported");
    cursor.expect(">", "to close the tensor type");
    if (shapeOut)
        *shapeOut = type.shape;
    return type;
}

TypeSignature Parser::parseTypeSignature()
{
    TypeSignature sig;
    if (cursor.peek() == '(') {
        sig.functional = true;
        cursor.consume("(");
        if (!cursor.consume(")")) {
            do
                sig.inputs.push_back(parseTensorType());
            while (cursor.consume(","));
            cursor.expect(")", "to close the operand types");
        }
        cursor.expect("->", "in a function type");
        if (cursor.consume("(")) {
            if (!cursor.consume(")")) {
                do
                    sig.results.push_back(parseTensorType());
                while (cursor.consume(","));
                cursor.expect(")", "to close the result types");
            }
        } else {
            sig.results.push_back(parseTensorType());
        }
        return sig;
    }
    sig.inputs.push_back(parseTensorType());
    while (true) {
        const auto save = cursor.offset();
        if (!cursor.consume(","))
            break;
        if (!atType()) {
            cursor.seek(save);
            break;
        }
        sig.inputs.push_back(parseTensorType());
    }
    // chlo's pretty form: `chlo.erf %x : tensor<4xf32> -> tensor<4xf32>` (one operand type, one result).
    if (sig.inputs.size() == 1 && cursor.consume("->")) {
        sig.functional = true;
        sig.results.push_back(parseTensorType());
    }
    return sig;
}

AttributeMap Parser::parseAttributeDict()
{
    DepthGuard guard(*this);
    AttributeMap map;
    cursor.expect("{", "to open an attribute dictionary");
    if (cursor.consume("}"))
        return map;
    do {
        std::string key;
        if (cursor.peek() == '"')
            key = cursor.quotedString("an attribute name");
        else
            key = std::string(cursor.identifier("an attribute name"));
        if (cursor.consume("=")) {
            map.set(key, parseAttribute());
        } else {
            Attribute unit;
            unit.kind = Attribute::Kind::Bool;
            unit.integer = 1;
            map.set(key, unit);
        }
    } while (cursor.consume(","));
    cursor.expect("}", "to close the attribute dictionary");
    return map;
}

void Parser::parseDenseElement(DenseLiteral& literal)
{
    cursor.skipSpace();
    const auto begin = cursor.offset();
    if (cursor.peek() == '(')
        cursor.fail("complex literals are not supported");
    if (cursor.consumeWord("true") || cursor.consumeWord("false"))
        literal.elements.push_back(cursor.text().substr(begin, cursor.offset() - begin));
    else
        literal.elements.push_back(cursor.numberText("a literal element"));
    if (literal.elements.size() > limits.maxDenseElements)
        cursor.fail("a dense literal with more than " + std::to_string(limits.maxDenseElements) +
                    " elements");
}

// One bracketed list at `level` (0 outermost). Every element must sit at the same depth and every list at
// one level must have the same length: the literal is a rectangular array whose shape is nestedShape.
void Parser::parseDenseList(DenseLiteral& literal, int level, int& leafDepth)
{
    if (level >= kMaxRank)
        cursor.fail("a dense literal nested deeper than " + std::to_string(kMaxRank) + " levels");
    cursor.expect("[", "in a dense literal");
    const auto at = static_cast<std::size_t>(level);
    if (literal.nestedShape.size() == at) {
        if (leafDepth >= 0 && level >= leafDepth)
            cursor.fail("a dense literal whose lists are not all nested equally deep");
        literal.nestedShape.push_back(-1);
    }
    std::int64_t count = 0;
    if (!cursor.consume("]")) {
        do {
            if (cursor.peek() == '[') {
                parseDenseList(literal, level + 1, leafDepth);
            } else {
                if (leafDepth < 0)
                    leafDepth = level + 1;
                if (leafDepth != level + 1 || literal.nestedShape.size() != at + 1)
                    cursor.fail("a dense literal whose lists are not all nested equally deep");
                parseDenseElement(literal);
            }
            ++count;
        } while (cursor.consume(","));
        cursor.expect("]", "to close a list in the dense literal");
    }
    auto& expected = literal.nestedShape[at];
    if (expected >= 0 && expected != count)
        cursor.fail("a dense literal whose lists differ in length (" + std::to_string(count) + " after " +
                    std::to_string(expected) + ")");
    expected = count;
}

void Parser::parseDenseBody(DenseLiteral& literal)
{
    // After "dense<": a hex blob, a nested list or one element, then '>'.
    if (cursor.peek() == '"') {
        cursor.skipSpace();
        const auto at = cursor.offset();
        cursor.seek(at + 1);
        const auto close = cursor.text().find('"', at + 1);
        if (close == std::string_view::npos)
            cursor.failAt(at, "the hex blob is not closed");
        const auto blob = cursor.text().substr(at + 1, close - at - 1);
        if (blob.substr(0, 2) != "0x" || blob.size() % 2 != 0)
            cursor.failAt(at, "expected a hex blob \"0x...\" with two digits a byte");
        for (const char c : blob.substr(2))
            if (!std::isxdigit(static_cast<unsigned char>(c)))
                cursor.failAt(at, "the hex blob has a character that is not a hex digit");
        literal.hexBlob = blob.substr(2);
        cursor.seek(close + 1);
    } else if (cursor.peek() != '>') {
        if (cursor.peek() == '[') {
            int leafDepth = -1;
            parseDenseList(literal, 0, leafDepth);
        } else {
            parseDenseElement(literal);
        }
    }
    cursor.expect(">", "to close the dense literal");
}

Attribute Parser::parseAttribute()
{
    DepthGuard guard(*this);
    Attribute a;
    cursor.skipSpace();
    const char c = cursor.peek();
    if (c == '[') {
        cursor.consume("[");
        a.kind = Attribute::Kind::List;
        if (!cursor.consume("]")) {
            do
                a.items.push_back(parseAttribute());
            while (cursor.consume(","));
            cursor.expect("]", "to close the list");
        }
        // dot_general's `[0] x [1]` and convolution's `[b, 0, f]x[0, i, o]->[b, 0, f]`.
        if (cursor.consumeWord("x") || (cursor.startsWith("x[") && cursor.consume("x"))) {
            Attribute pair;
            pair.kind = Attribute::Kind::List;
            pair.text = "x";
            pair.items.push_back(std::move(a));
            pair.items.push_back(parseAttribute());
            if (cursor.consume("->")) {
                pair.text = "conv";
                pair.items.push_back(parseAttribute());
            }
            return pair;
        }
        return a;
    }
    if (c == '{') {
        a.kind = Attribute::Kind::Dict;
        for (auto& [k, v] : parseAttributeDict().entries)
            a.fields.push_back({std::move(k), std::move(v)});
        return a;
    }
    if (c == '"') {
        a.kind = Attribute::Kind::String;
        a.text = cursor.quotedString("a string");
        skipOptionalScalarType();
        return a;
    }
    if (c == '@') {
        a.kind = Attribute::Kind::Symbol;
        a.text = std::string(cursor.suffixId('@', "a symbol"));
        return a;
    }
    if (c == '<') {
        a.kind = Attribute::Kind::Opaque;
        a.text = std::string(cursor.balanced('<', '>'));
        return a;
    }
    if (c == '#') {
        const auto name = std::string(cursor.suffixId('#', "an attribute"));
        a.text = name;
        if (cursor.peekRaw() != '<') {
            a.kind = Attribute::Kind::Opaque; // an alias
            return a;
        }
        cursor.consume("<");
        if (name.find('.') == std::string::npos) { // #stablehlo<comparison_direction GT>
            std::string last;
            while (cursor.atIdentifier())
                last = std::string(cursor.identifier("an enum"));
            a.kind = Attribute::Kind::Word;
            a.text = last;
        } else if (cursor.peek() == '[') { // #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>
            a = parseAttribute();
        } else if (cursor.consumeWord("raw")) {
            a = parseAttribute();
        } else {
            a.kind = Attribute::Kind::Dict;
            if (cursor.peek() != '>') {
                do {
                    const auto key = std::string(cursor.identifier("a field name"));
                    cursor.expect("=", "after field " + key);
                    a.fields.push_back({key, parseAttribute()});
                } while (cursor.consume(","));
            }
        }
        cursor.expect(">", "to close #" + name + "<...>");
        return a;
    }
    if (cursor.startsWith("dense<")) {
        cursor.consumeWord("dense");
        cursor.consume("<");
        auto literal = std::make_shared<DenseLiteral>();
        parseDenseBody(*literal);
        cursor.expect(":", "and the dense literal's type");
        parseTensorType(true, &a.denseElement, &a.denseShape);
        a.kind = Attribute::Kind::Dense;
        a.dense = std::move(literal);
        return a;
    }
    if (cursor.startsWith("dense_resource<"))
        cursor.fail("dense_resource literals are not supported: print the module with its constants inline");
    if (cursor.startsWith("array<")) {
        cursor.consumeWord("array");
        cursor.consume("<");
        (void)cursor.identifier("the array's element type");
        a.kind = Attribute::Kind::List;
        if (cursor.consume(":")) {
            do {
                Attribute item;
                if (cursor.consumeWord("true") || cursor.consumeWord("false")) {
                    item.kind = Attribute::Kind::Bool;
                } else {
                    item.kind = Attribute::Kind::Integer;
                    item.integer = cursor.integer("an array element", INT64_MIN, INT64_MAX);
                }
                a.items.push_back(item);
            } while (cursor.consume(","));
        }
        cursor.expect(">", "to close the array");
        return a;
    }
    if (atType()) {
        a.kind = Attribute::Kind::Opaque;
        parseTensorType(true);
        return a;
    }
    if (cursor.consumeWord("true") || cursor.consumeWord("unit")) {
        a.kind = Attribute::Kind::Bool;
        a.integer = 1;
        return a;
    }
    if (cursor.consumeWord("false")) {
        a.kind = Attribute::Kind::Bool;
        return a;
    }
    if (cursor.atIdentifier()) {
        a.kind = Attribute::Kind::Word;
        a.text = std::string(cursor.identifier("a word"));
        return a;
    }
    const auto at = cursor.offset();
    const auto text = std::string(cursor.numberText("an attribute"));
    const bool isInteger =
        text.find_first_of(".eEn") == std::string::npos || text.rfind("0x", 1) != std::string::npos;
    try {
        if (isInteger && text.find("0x") == std::string::npos) {
            a.kind = Attribute::Kind::Integer;
            a.integer = std::stoll(text);
        } else {
            a.kind = Attribute::Kind::Float;
            a.real = std::stod(text);
        }
    } catch (const std::exception&) {
        cursor.failAt(at, "the number '" + text + "' is out of range");
    }
    skipOptionalScalarType();
    return a;
}

namespace {
// A loc(...) text as a person would name the place: "model.py:12" or a name JAX gives, with its place.
std::string displayName(std::string_view text, const std::unordered_map<std::string, std::string>& aliases,
                        int depth)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n'))
        text.remove_prefix(1);
    if (depth > 8 || text.empty() || text.substr(0, 7) == "unknown")
        return {};
    if (text.front() == '#') {
        auto end = text.find_first_of(" ,)]");
        const auto alias =
            std::string(text.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
        const auto it = aliases.find(alias);
        return it == aliases.end() ? std::string{} : displayName(it->second, aliases, depth + 1);
    }
    const auto quote = text.find('"');
    const auto alias = text.find('#');
    if (quote == std::string_view::npos || (alias != std::string_view::npos && alias < quote))
        return alias == std::string_view::npos ? std::string{}
                                               : displayName(text.substr(alias), aliases, depth + 1);
    const auto close = text.find('"', quote + 1);
    if (close == std::string_view::npos)
        return {};
    const auto name = std::string(text.substr(quote + 1, close - quote - 1));
    auto rest = text.substr(close + 1);
    if (!rest.empty() && rest.front() == ':') { // "file":line:col
        const auto lineEnd = rest.find(':', 1);
        return name + ":" +
               std::string(rest.substr(1, lineEnd == std::string_view::npos ? rest.size() : lineEnd - 1));
    }
    if (!rest.empty() && rest.front() == '(') { // "name"(inner)
        const auto inner = displayName(rest.substr(1), aliases, depth + 1);
        return inner.empty() || inner == name ? name : name + " (" + inner + ")";
    }
    return name;
}

void resolveBody(Body& body, const std::unordered_map<std::string, std::string>& aliases)
{
    for (auto& op : body.operations) {
        if (!op.location.name.empty())
            op.location.name = displayName(op.location.name, aliases, 0);
        for (auto& region : op.regions)
            resolveBody(region, aliases);
    }
}
} // namespace

void Parser::resolveLocations()
{
    for (auto& f : module.functions)
        resolveBody(f.body, locAliases);
}

} // namespace xps::shlo::detail

#pragma once
// The StableHLO parser's state, shared by its three files: parser.cpp (modules, functions, bodies and
// the generic op form), parse_attributes.cpp (attributes, types, dense literals) and parse_pretty.cpp
// (each op's pretty form). Internal to core/stablehlo.

#include <memory>
#include <string>
#include <unordered_map>

#include "stablehlo/module.h"
#include "stablehlo/parser.h"
#include "stablehlo/text_cursor.h"

namespace xps::shlo::detail {

// What a name in %-syntax refers to: `count` values from `first` (`%0:2` defines two, used as %0#0, %0#1).
struct NameBinding
{
    std::uint32_t first = 0;
    std::uint32_t count = 1;
};

// Names visible in one body. Region bodies look outward only to report a capture, which the subset refuses.
struct Scope
{
    Body* body = nullptr;
    std::unordered_map<std::string, NameBinding> names;
    Scope* outer = nullptr;
};

// The pieces of a pretty op form before the op's own rules make sense of them.
struct PrettyParts
{
    std::vector<std::uint32_t> operands;
    std::vector<std::uint32_t> inits; // reduce's `(%x init: %y)`
    std::vector<std::string> words;   // bare enum words: GT, FLOAT
    std::vector<std::size_t> wordOffsets;
};

struct TypeSignature
{
    std::vector<TensorType> inputs;
    std::vector<TensorType> results;
    bool functional = false; // written as (inputs) -> results
};

class Parser;

// Bounds recursion (regions in regions, lists in lists) so hostile nesting is an error, not a stack overflow.
struct DepthGuard
{
    Parser& parser;
    explicit DepthGuard(Parser& p);
    ~DepthGuard();
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
};

class Parser
{
public:
    Parser(std::string_view text, std::string fileName, const ParseLimits& limits);
    Module parse(); // throws ParseError
    std::string locationOf(std::size_t offset) const;

    TextCursor cursor;
    std::string fileName;
    ParseLimits limits;
    int depth = 0;
    Module module;
    // #loc3 -> its loc(...) text. Aliases are defined after their uses (at the end of the file), so an op's
    // location keeps its loc(...) text in `name` until resolveLocations() turns it into a display name.
    std::unordered_map<std::string, std::string> locAliases;

    // parser.cpp
    void parseTopLevel();
    void parseFunction();
    void parseBody(Body& body, Scope& scope); // ops up to and including the closing '}'
    void parseOperation(Body& body, Scope& scope);
    void parseGenericOperation(Operation& op, Body& body, Scope& scope);
    // A function type's operand types must be those of the operands written.
    void checkOperandTypes(const Operation& op, const Body& body, const TypeSignature& sig,
                           std::size_t offset);
    // '{' [^bb0(args):] ops '}'; a pretty reducer declares its arguments before the brace, in `args`.
    void parseRegion(Operation& op, Scope& scope,
                     const std::vector<std::pair<std::string, TensorType>>& args = {});
    std::uint32_t useValue(Scope& scope, std::vector<TensorType>* typeOut = nullptr);
    std::uint32_t defineArgument(Body& body, Scope& scope, std::string_view name, const TensorType& type);
    void parseOptionalLocation(SourceLocation* location);
    void resolveLocations();

    // parse_attributes.cpp
    Attribute parseAttribute();
    AttributeMap parseAttributeDict(); // '{' (name ['=' attr]) , ... '}'
    void parseDenseBody(DenseLiteral& literal);
    void parseDenseList(DenseLiteral& literal, int level, int& leafDepth);
    void parseDenseElement(DenseLiteral& literal);
    TensorType parseTensorType(bool allowAnyElement = false, std::string* elementName = nullptr,
                               std::vector<std::int64_t>* shapeOut = nullptr);
    TypeSignature parseTypeSignature();
    bool atType();
    void skipOptionalScalarType(); // `: i64` after an integer attribute

    // parse_pretty.cpp
    void parsePrettyOperation(Operation& op, Body& body, Scope& scope);
    PrettyParts parsePrettyParts(Operation& op, Scope& scope);
    void parsePrettyReduce(Operation& op, Body& body, Scope& scope);
    void applyResultTypes(Operation& op, const TypeSignature& sig, std::size_t offset);
};

void normalizeAttributes(Operation& op); // parse_pretty.cpp: one attribute name whichever form was written

} // namespace xps::shlo::detail

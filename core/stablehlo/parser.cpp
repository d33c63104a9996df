#include "stablehlo/parser.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "stablehlo/parser_state.h"

namespace xps::shlo {

using detail::NameBinding;
using detail::Parser;
using detail::Scope;

namespace detail {

DepthGuard::DepthGuard(Parser& p) : parser(p)
{
    if (++parser.depth > parser.limits.maxNesting) {
        --parser.depth;
        parser.cursor.fail("nesting deeper than " + std::to_string(parser.limits.maxNesting) + " levels");
    }
}
DepthGuard::~DepthGuard()
{
    --parser.depth;
}

namespace {

std::int64_t attributeInteger(const AttributeMap& attrs, std::string_view name, std::int64_t fallback)
{
    const auto* a = attrs.find(name);
    return a && a->kind == Attribute::Kind::Integer ? a->integer : fallback;
}
} // namespace

Parser::Parser(std::string_view text, std::string file, const ParseLimits& parseLimits)
    : cursor(text), fileName(std::move(file)), limits(parseLimits)
{
}

std::string Parser::locationOf(std::size_t offset) const
{
    const auto [line, column] = cursor.lineColumn(offset);
    return fileName + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Module Parser::parse()
{
    module.fileName = fileName;
    while (!cursor.atEnd())
        parseTopLevel();
    if (module.functions.empty())
        cursor.fail("expected at least one func.func; the file has none");
    resolveLocations();
    return std::move(module);
}

void Parser::parseTopLevel()
{
    if (cursor.consumeWord("module")) {
        if (cursor.peek() == '@')
            module.name = std::string(cursor.suffixId('@', "the module's name"));
        if (cursor.consumeWord("attributes")) {
            const auto attrs = parseAttributeDict();
            module.numReplicas = static_cast<int>(attributeInteger(attrs, "mhlo.num_replicas", 1));
            module.numPartitions = static_cast<int>(attributeInteger(attrs, "mhlo.num_partitions", 1));
            if (module.numReplicas < 1 || module.numPartitions < 1 || module.numReplicas > 4096 ||
                module.numPartitions > 4096)
                cursor.fail("mhlo.num_replicas and mhlo.num_partitions must be in [1, 4096]");
        }
        cursor.expect("{", "to open the module's body");
        while (!cursor.consume("}")) {
            if (cursor.atEnd())
                cursor.fail("the module is not closed: expected '}'");
            if (!cursor.startsWith("func.func"))
                cursor.fail("expected func.func or '}' in the module, found " + cursor.found());
            parseFunction();
        }
        parseOptionalLocation(nullptr);
        return;
    }
    if (cursor.startsWith("func.func")) {
        parseFunction();
        return;
    }
    if (cursor.peek() == '#') {
        const auto alias = std::string(cursor.suffixId('#', "an alias"));
        cursor.expect("=", "after the alias #" + alias);
        if (cursor.startsWith("loc(")) {
            cursor.consumeWord("loc");
            locAliases[alias] = std::string(cursor.balanced('(', ')'));
        } else {
            (void)parseAttribute();
        }
        return;
    }
    cursor.fail("expected 'module', 'func.func' or an #alias, found " + cursor.found());
}

void Parser::parseFunction()
{
    const auto start = (cursor.skipSpace(), cursor.offset());
    cursor.consume("func.func");
    Function f;
    if (cursor.consumeWord("private"))
        f.isPublic = false;
    else if (!cursor.consumeWord("public"))
        (void)cursor.consumeWord("nested");
    f.name = std::string(cursor.suffixId('@', "the function's name (@name)"));
    const auto [line, column] = cursor.lineColumn(start);
    f.location = {line, column, f.name};
    if (module.function(f.name))
        cursor.failAt(start, "function @" + f.name + " is defined twice");
    Scope scope{&f.body, {}, nullptr};
    cursor.expect("(", "to open @" + f.name + "'s arguments");
    if (!cursor.consume(")")) {
        while (true) {
            const auto name = std::string(cursor.suffixId('%', "an argument name (%name)"));
            cursor.expect(":", "after argument %" + name);
            const auto type = parseTensorType();
            f.argumentAttributes.push_back(cursor.peek() == '{' ? parseAttributeDict() : AttributeMap{});
            parseOptionalLocation(nullptr);
            defineArgument(f.body, scope, name, type);
            if (cursor.consume(","))
                continue;
            cursor.expect(")", "to close the arguments");
            break;
        }
    }
    if (cursor.consume("->")) {
        const bool list = cursor.consume("(");
        if (!list || !cursor.consume(")")) {
            while (true) {
                f.resultTypes.push_back(parseTensorType());
                if (list && cursor.peek() == '{') // without parentheses a '{' opens the body
                    (void)parseAttributeDict();
                if (!list || !cursor.consume(","))
                    break;
            }
            if (list)
                cursor.expect(")", "to close the result types");
        }
    }
    if (cursor.consumeWord("attributes"))
        (void)parseAttributeDict();
    cursor.expect("{", "to open @" + f.name + "'s body");
    parseBody(f.body, scope);
    parseOptionalLocation(nullptr);
    const auto& ret = f.body.operations.back();
    if (ret.operands.size() != f.resultTypes.size())
        cursor.failAt(start, "@" + f.name + " returns " + std::to_string(ret.operands.size()) +
                                 " values; its signature declares " + std::to_string(f.resultTypes.size()));
    for (std::size_t i = 0; i < ret.operands.size(); ++i)
        if (f.body.valueTypes[ret.operands[i]] != f.resultTypes[i])
            cursor.failAt(start, "@" + f.name + " returns " + f.body.valueTypes[ret.operands[i]].toString() +
                                     " as result " + std::to_string(i) + "; its signature declares " +
                                     f.resultTypes[i].toString());
    module.functions.push_back(std::move(f));
}

void Parser::parseBody(Body& body, Scope& scope)
{
    DepthGuard guard(*this);
    while (true) {
        cursor.skipSpace();
        const auto at = cursor.offset();
        if (cursor.consume("}")) {
            if (body.operations.empty() || body.operations.back().kind != OpKind::Return)
                cursor.failAt(at, "a body must end with a return op");
            return;
        }
        if (cursor.atEnd())
            cursor.fail("a body is not closed: expected '}'");
        if (!body.operations.empty() && body.operations.back().kind == OpKind::Return)
            cursor.fail("an op after the return that ends this body");
        parseOperation(body, scope);
    }
}

void Parser::parseOperation(Body& body, Scope& scope)
{
    if (limits.stop.stop_requested())
        cursor.fail("cancelled");
    cursor.skipSpace();
    const auto start = cursor.offset();
    struct ResultName
    {
        std::string name;
        std::uint32_t count;
    };
    std::vector<ResultName> names;
    if (cursor.peek() == '%') {
        while (true) {
            ResultName r{std::string(cursor.suffixId('%', "a result name")), 1};
            if (cursor.peekRaw() == ':') {
                cursor.consume(":");
                r.count = static_cast<std::uint32_t>(cursor.integer("the number of results", 1, 1 << 16));
            }
            names.push_back(std::move(r));
            if (!cursor.consume(","))
                break;
        }
        cursor.expect("=", "after the op's results");
    }
    cursor.skipSpace();
    const auto nameOffset = cursor.offset();
    const bool generic = cursor.peek() == '"';
    const std::string name =
        generic ? cursor.quotedString("an op name") : std::string(cursor.identifier("an op"));
    Operation op;
    if (!opKindNamed(name, op.kind))
        cursor.failAt(nameOffset, "unsupported op '" + name +
                                      "'; the StableHLO subset xpushark compiles has: " + supportedOps());
    const auto [line, column] = cursor.lineColumn(nameOffset);
    op.location = {line, column, {}};
    if (generic)
        parseGenericOperation(op, body, scope);
    else
        parsePrettyOperation(op, body, scope);
    parseOptionalLocation(&op.location);

    std::uint32_t named = 0;
    for (const auto& r : names)
        named += r.count;
    if (named != op.resultTypes.size())
        cursor.failAt(start, std::string(opName(op.kind)) + " has " + std::to_string(op.resultTypes.size()) +
                                 " results; " + std::to_string(named) + " are named");
    op.firstResult = static_cast<std::uint32_t>(body.valueTypes.size());
    for (const auto& t : op.resultTypes)
        body.valueTypes.push_back(t);
    std::uint32_t next = op.firstResult;
    for (const auto& r : names) {
        if (!scope.names.emplace(r.name, NameBinding{next, r.count}).second)
            cursor.failAt(start, "%" + r.name + " is defined twice");
        next += r.count;
    }
    if (!names.empty())
        op.resultName = "%" + names.front().name;
    body.operations.push_back(std::move(op));
}

void Parser::parseGenericOperation(Operation& op, Body& body, Scope& scope)
{
    cursor.expect("(", "to open the operands of " + std::string(opName(op.kind)));
    if (!cursor.consume(")")) {
        do
            op.operands.push_back(useValue(scope));
        while (cursor.consume(","));
        cursor.expect(")", "to close the operands");
    }
    if (cursor.startsWith("<{")) {
        cursor.consume("<");
        for (auto& [k, v] : parseAttributeDict().entries)
            op.attributes.set(k, std::move(v));
        cursor.expect(">", "to close the op's properties");
    }
    const auto afterOperands = cursor.offset();
    if (cursor.consume("(") && cursor.peek() == '{') {
        do
            parseRegion(op, scope);
        while (cursor.consume(","));
        cursor.expect(")", "to close the op's regions");
    } else {
        cursor.seek(afterOperands);
    }
    if (cursor.peek() == '{')
        for (auto& [k, v] : parseAttributeDict().entries)
            op.attributes.set(k, std::move(v));
    if (const auto* target = op.attributes.find("call_target_name"))
        op.callee = target->text;
    if (const auto* callee = op.attributes.find("callee"))
        op.callee = callee->text;
    cursor.skipSpace();
    const auto sigOffset = cursor.offset();
    cursor.expect(":", "before the op's type");
    const auto sig = parseTypeSignature();
    if (!sig.functional)
        cursor.failAt(sigOffset,
                      "the generic op form needs a function type: (operand types) -> result types");
    checkOperandTypes(op, body, sig, sigOffset);
    applyResultTypes(op, sig, sigOffset);
    normalizeAttributes(op);
}

void Parser::checkOperandTypes(const Operation& op, const Body& body, const TypeSignature& sig,
                               std::size_t offset)
{
    if (sig.inputs.size() != op.operands.size())
        cursor.failAt(offset, "the type lists " + std::to_string(sig.inputs.size()) +
                                  " operands; the op has " + std::to_string(op.operands.size()));
    for (std::size_t i = 0; i < sig.inputs.size(); ++i)
        if (body.valueTypes[op.operands[i]] != sig.inputs[i])
            cursor.failAt(offset, "operand " + std::to_string(i) + " is " +
                                      body.valueTypes[op.operands[i]].toString() + "; the type says " +
                                      sig.inputs[i].toString());
}

void Parser::parseRegion(Operation& op, Scope& scope,
                         const std::vector<std::pair<std::string, TensorType>>& args)
{
    DepthGuard guard(*this);
    Body region;
    Scope inner{&region, {}, &scope};
    for (const auto& [name, type] : args)
        defineArgument(region, inner, name, type);
    cursor.expect("{", "to open a region");
    if (cursor.peek() == '^') {
        (void)cursor.suffixId('^', "a block label");
        if (cursor.consume("(") && !cursor.consume(")")) {
            do {
                const auto name = std::string(cursor.suffixId('%', "a block argument"));
                cursor.expect(":", "after block argument %" + name);
                const auto type = parseTensorType();
                parseOptionalLocation(nullptr);
                defineArgument(region, inner, name, type);
            } while (cursor.consume(","));
            cursor.expect(")", "to close the block arguments");
        }
        cursor.expect(":", "after the block label");
    }
    parseBody(region, inner);
    op.regions.push_back(std::move(region));
}

std::uint32_t Parser::useValue(Scope& scope, std::vector<TensorType>* typeOut)
{
    cursor.skipSpace();
    const auto at = cursor.offset();
    const auto name = std::string(cursor.suffixId('%', "a value (%name)"));
    std::uint32_t index = 0;
    if (cursor.peekRaw() == '#') {
        cursor.seek(cursor.offset() + 1);
        index = static_cast<std::uint32_t>(cursor.integer("a result number", 0, 1 << 16));
    }
    const auto it = scope.names.find(name);
    if (it == scope.names.end()) {
        for (const Scope* s = scope.outer; s; s = s->outer)
            if (s->names.count(name))
                cursor.failAt(at, "%" + name +
                                      " is defined outside this region; regions that use values of "
                                      "the enclosing body are not supported");
        cursor.failAt(at, "use of undefined value %" + name);
    }
    if (index >= it->second.count)
        cursor.failAt(at, "%" + name + " has " + std::to_string(it->second.count) + " results; #" +
                              std::to_string(index) + " does not exist");
    const auto value = it->second.first + index;
    if (typeOut)
        typeOut->push_back(scope.body->valueTypes[value]);
    return value;
}

std::uint32_t Parser::defineArgument(Body& body, Scope& scope, std::string_view name, const TensorType& type)
{
    const auto index = static_cast<std::uint32_t>(body.valueTypes.size());
    if (!scope.names.emplace(std::string(name), NameBinding{index, 1}).second)
        cursor.fail("%" + std::string(name) + " is defined twice");
    body.argumentTypes.push_back(type);
    body.valueTypes.push_back(type);
    return index;
}

void Parser::parseOptionalLocation(SourceLocation* location)
{
    if (!cursor.startsWith("loc("))
        return;
    cursor.consumeWord("loc");
    const auto text = cursor.balanced('(', ')');
    if (location)
        location->name = std::string(text);
}

} // namespace detail

std::vector<SourcePart> splitInputFile(std::string_view text)
{
    std::vector<SourcePart> parts;
    std::string current;
    std::uint32_t line = 1;
    std::uint32_t partStart = 1;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        const auto lineText = text.substr(pos, eol - pos);
        if (lineText.rfind("// -----", 0) == 0) {
            parts.push_back({std::move(current), partStart});
            // Blank lines keep every part's line numbers those of the file.
            current.assign(line, '\n');
            partStart = line + 1;
        } else {
            current += lineText;
            current += '\n';
        }
        pos = eol + 1;
        ++line;
    }
    parts.push_back({std::move(current), partStart});
    return parts;
}

Result<Module> parseModule(std::string text, std::string fileName, const ParseLimits& limits)
{
    if (text.size() > limits.maxSourceBytes)
        return Error(fileName, "the file has " + std::to_string(text.size()) + " bytes; the limit is " +
                                   std::to_string(limits.maxSourceBytes));
    auto source = std::make_shared<const std::string>(std::move(text));
    Parser parser(*source, fileName, limits);
    try {
        auto module = parser.parse();
        module.source = std::move(source);
        return module;
    } catch (const ParseError& e) {
        return Error(parser.locationOf(e.offset), e.message);
    }
}

Result<std::vector<Module>> parseFile(const std::string& path, const ParseLimits& limits)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return Error(path, "cannot open: not a readable file");
    if (static_cast<std::uint64_t>(st.st_size) > limits.maxSourceBytes)
        return Error(path, "the file has " + std::to_string(st.st_size) + " bytes; the limit is " +
                               std::to_string(limits.maxSourceBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error(path, "cannot open");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    std::vector<Module> modules;
    auto parts = splitInputFile(buffer.str());
    for (auto& part : parts) {
        // A split file's part with no function (after a trailing separator) is not an error.
        if (parts.size() > 1 && part.text.find("func.func") == std::string::npos)
            continue;
        auto module = parseModule(std::move(part.text), path, limits);
        if (!module)
            return module.error();
        modules.push_back(std::move(*module));
    }
    return modules;
}

} // namespace xps::shlo

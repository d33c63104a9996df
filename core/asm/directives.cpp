// The .xasm directives: machine parameters, constants, chip sections, buffers, regions, source lines,
// initial state and outputs. Each is documented in docs/isa.md ("Assembly language").
#include "asm/assembler_state.h"

#include "isa/machine_config.h"
#include "util/text.h"

#include <cstring>
#include <limits>

namespace xps::assembly::detail {
namespace {

constexpr std::string_view kDirectives[] = {".name", ".machine", ".const",  ".chip", ".vmem",
                                            ".hbm",  ".smem",    ".region", ".loc",  ".init",
                                            ".sreg", ".flag",    ".output"};

std::string tokenText(const Token& t)
{
    return t.kind == Token::Kind::End ? "end of line" : "'" + std::string(t.text) + "'";
}

Token expectIdentifier(TokenCursor& c, std::string_view what)
{
    const Token t = c.next();
    if (t.kind != Token::Kind::Identifier)
        throw ParseError{t.column, "expected " + std::string(what) + ", found " + tokenText(t)};
    return t;
}

void expectEnd(TokenCursor& c, std::string_view directive)
{
    if (!c.atEnd())
        throw ParseError{c.peek().column,
                         "unexpected " + tokenText(c.peek()) + " after " + std::string(directive)};
}

std::int64_t expectNonNegative(TokenCursor& c, const Scope& scope, std::string_view what)
{
    const std::size_t column = c.peek().column;
    const std::int64_t v = parseExpression(c, scope);
    if (v < 0)
        throw ParseError{column, std::string(what) + " must not be negative, got " + std::to_string(v)};
    return v;
}

double expectReal(TokenCursor& c, const Scope& scope)
{
    bool negative = false;
    if (c.peek().is('-') && c.peek(1).kind == Token::Kind::Float) {
        c.next();
        negative = true;
    }
    if (c.peek().kind == Token::Kind::Float) {
        const double v = c.next().real;
        return negative ? -v : v;
    }
    return static_cast<double>(parseExpression(c, scope));
}

bool isRegisterName(std::string_view n)
{
    return n.size() >= 2 && (n[0] == 's' || n[0] == 'v') &&
           n.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

void checkNewName(AssemblerState& s, const Token& name)
{
    if (isRegisterName(name.text))
        throw ParseError{name.column,
                         "'" + std::string(name.text) + "' is a register name and cannot name a symbol"};
    const Scope& scope = s.scopeFor(s.current());
    if (scope.constants.contains(name.text))
        throw ParseError{name.column, "'" + std::string(name.text) + "' is already a constant"};
    if (scope.findBuffer(name.text))
        throw ParseError{name.column, "buffer '" + std::string(name.text) + "' is already declared"};
}

void machineDirective(AssemblerState& s, TokenCursor& c, const SourceRef& at)
{
    if (s.hasSections)
        throw ParseError{s.column(at), ".machine must come before the first .chip section"};
    do {
        const Token key = expectIdentifier(c, "a machine parameter name");
        c.expect('=', "'=' after the parameter name");
        const Token value = c.next();
        std::string valueText(value.text);
        if (value.is('-')) {
            valueText = "-" + std::string(c.next().text);
        }
        if (value.kind == Token::Kind::End)
            throw ParseError{value.column, "expected a value for '" + std::string(key.text) + "'"};
        if (value.kind == Token::Kind::Integer)
            valueText = std::to_string(value.integer);
        if (Status st = isa::setMachineParam(s.trace.machine, key.text, valueText); !st)
            throw ParseError{key.column, st.error().message()};
    } while (c.accept(','));
    expectEnd(c, ".machine");
}

void chipDirective(AssemblerState& s, TokenCursor& c, const SourceRef& at)
{
    if (!s.hasSections && !s.global.bundles.empty())
        throw ParseError{s.column(at), ".chip after instructions: put all code in .chip sections"};
    s.hasSections = true;
    Section section;
    section.declaredAt = at;
    // Regions declared before the first .chip apply to every chip, with their levels, like the other
    // directives there (a section used to re-declare them on first use, without a level).
    section.regions = s.global.regions;
    // Plain integers only: `0-3` is a range here, not the expression 0 - 3.
    const auto chipIndex = [&c]() {
        const Token t = c.next();
        if (t.kind != Token::Kind::Integer || t.integer >= 4096)
            throw ParseError{t.column,
                             "expected a chip index (0..4095), found '" + std::string(t.text) + "'"};
        return static_cast<int>(t.integer);
    };
    do {
        const std::size_t column = c.peek().column;
        const int first = chipIndex();
        const int last = c.accept('-') ? chipIndex() : first;
        if (last < first)
            throw ParseError{column, "chip range " + std::to_string(first) + "-" + std::to_string(last) +
                                         " is empty"};
        for (int chip = first; chip <= last; ++chip)
            section.chips.push_back(chip);
    } while (c.accept(','));
    expectEnd(c, ".chip");
    s.sections.push_back(std::move(section));
}

void bufferDirective(AssemblerState& s, TokenCursor& c, const SourceRef& at, isa::Space space)
{
    const Token name = expectIdentifier(c, "a buffer name");
    checkNewName(s, name);
    Section& section = s.current();
    const Scope& scope = s.scopeFor(section);
    trace::Buffer b;
    b.name = std::string(name.text);
    b.space = space;
    c.expect(',', "',' and the buffer's address");
    b.address = static_cast<std::uint64_t>(expectNonNegative(c, scope, "buffer address"));
    c.expect(',', "',' and the buffer's size in bytes");
    const std::size_t sizeColumn = c.peek().column;
    const std::int64_t size = expectNonNegative(c, scope, "buffer size");
    if (size == 0)
        throw ParseError{sizeColumn, "buffer size must be at least 1 byte"};
    b.size = static_cast<std::uint64_t>(size);
    while (c.accept(',')) {
        const Token key = expectIdentifier(c, "dtype=, shape= or alias=");
        c.expect('=', "'=' after " + std::string(key.text));
        if (key.text == "dtype") {
            b.dtype = std::string(expectIdentifier(c, "a dtype such as f32").text);
        } else if (key.text == "alias") {
            b.aliasOf = std::string(expectIdentifier(c, "the name of the buffer this one aliases").text);
        } else if (key.text == "shape") {
            c.expect('[', "'[' to start the shape, as in shape=[128, 128]");
            do
                b.shape.push_back(expectNonNegative(c, scope, "dimension"));
            while (c.accept(','));
            c.expect(']', "']' to close the shape");
        } else {
            std::string message = "unknown buffer attribute '" + std::string(key.text) + "'";
            constexpr std::string_view attrs[] = {"dtype", "shape", "alias"};
            if (std::string guess = text::nearest(key.text, attrs); !guess.empty())
                message += "; did you mean '" + guess + "'?";
            throw ParseError{key.column, message};
        }
    }
    expectEnd(c, "the buffer declaration");
    section.buffers.push_back(std::move(b));
    section.bufferRefs.push_back(at);
}

} // namespace

void handleDirective(AssemblerState& s, TokenCursor& c, const SourceRef& at)
{
    const Token directive = c.next();
    const std::string_view d = directive.text;
    Section& section = s.current();
    if (d == ".name") {
        const Token t = c.next();
        if (t.kind != Token::Kind::String)
            throw ParseError{t.column, "expected a quoted trace name"};
        s.trace.name = std::string(t.text);
        expectEnd(c, ".name");
    } else if (d == ".machine") {
        machineDirective(s, c, at);
    } else if (d == ".const") {
        const Token name = expectIdentifier(c, "a constant name");
        checkNewName(s, name);
        c.expect('=', "'=' after the constant name");
        const std::int64_t v = parseExpression(c, s.scopeFor(section));
        expectEnd(c, ".const");
        section.constants[std::string(name.text)] = v;
    } else if (d == ".chip") {
        chipDirective(s, c, at);
    } else if (d == ".vmem" || d == ".hbm" || d == ".smem") {
        bufferDirective(s, c, at, *isa::spaceFromName(d.substr(1)));
    } else if (d == ".region") {
        const Token name = c.next();
        if (name.kind != Token::Kind::Identifier && name.kind != Token::Kind::String)
            throw ParseError{name.column, "expected a region name"};
        trace::RegionSymbol r{std::string(name.text), {}};
        if (c.accept(',')) {
            const Token key = expectIdentifier(c, "level=");
            if (key.text != "level")
                throw ParseError{key.column, "expected level=layer|op|loop"};
            c.expect('=', "'=' after level");
            r.level = std::string(expectIdentifier(c, "a level name (layer, op, loop)").text);
        }
        expectEnd(c, ".region");
        for (const auto& existing : section.regions)
            if (existing.name == r.name)
                throw ParseError{name.column, "region '" + r.name + "' declared twice"};
        section.regions.push_back(std::move(r));
    } else if (d == ".loc") {
        const Token file = c.next();
        if (file.kind != Token::Kind::String)
            throw ParseError{file.column, "expected a quoted file name"};
        c.expect(',', "',' and a line number");
        const std::int64_t line = expectNonNegative(c, s.scopeFor(section), "line number");
        expectEnd(c, ".loc");
        section.sourceLines.push_back({static_cast<std::uint32_t>(section.bundles.size()),
                                       std::string(file.text),
                                       static_cast<std::uint32_t>(std::min<std::int64_t>(line, UINT32_MAX))});
    } else if (d == ".init" || d == ".sreg" || d == ".flag" || d == ".output") {
        section.deferred.push_back(at);
    } else {
        std::string message = "unknown directive '" + std::string(d) + "'";
        if (std::string guess = text::nearest(d, kDirectives); !guess.empty())
            message += "; did you mean '" + guess + "'?";
        throw ParseError{directive.column, message};
    }
}

namespace {

trace::Payload parseGenerator(TokenCursor& c, const Scope& scope)
{
    const Token kindToken = expectIdentifier(c, "a generator (zero, const_f32, const_u32, random_f32, "
                                                "random_f16, random_bf16, random_u32, iota_s32)");
    const auto kind = trace::generatorKindFromName(kindToken.text);
    if (!kind) {
        std::string message = "unknown generator '" + std::string(kindToken.text) + "'";
        constexpr std::string_view kinds[] = {"zero",       "const_f32",   "const_u32",  "random_f32",
                                              "random_f16", "random_bf16", "random_u32", "iota_s32"};
        if (std::string guess = text::nearest(kindToken.text, kinds); !guess.empty())
            message += "; did you mean '" + guess + "'?";
        throw ParseError{kindToken.column, message};
    }
    trace::Payload p;
    p.isGenerator = true;
    p.generator.kind = *kind;
    if (trace::isRandomFloat(*kind)) {
        p.generator.a = -1.0;
        p.generator.b = 1.0;
    }
    if (*kind == trace::Generator::Kind::ConstF32 || *kind == trace::Generator::Kind::ConstU32) {
        c.expect(',', "',' and the constant value");
        if (*kind == trace::Generator::Kind::ConstF32) {
            p.generator.a = expectReal(c, scope);
        } else {
            const std::size_t column = c.peek().column;
            const std::int64_t v = parseExpression(c, scope);
            if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::uint32_t>::max())
                throw ParseError{column, "const_u32 value does not fit in 32 bits"};
            p.generator.bits = static_cast<std::uint32_t>(v);
        }
    }
    while (c.accept(',')) {
        const Token key = expectIdentifier(c, "seed=, lo= or hi=");
        c.expect('=', "'=' after " + std::string(key.text));
        const bool integers = *kind == trace::Generator::Kind::RandomS32;
        const bool random =
            trace::isRandomFloat(*kind) || *kind == trace::Generator::Kind::RandomU32 || integers;
        if (key.text == "seed" && random)
            p.generator.seed = static_cast<std::uint64_t>(expectNonNegative(c, scope, "seed"));
        else if ((key.text == "lo" || key.text == "hi") && integers) {
            const std::size_t column = c.peek().column;
            const std::int64_t bound = parseExpression(c, scope);
            if (bound < std::numeric_limits<std::int32_t>::min() ||
                bound > std::numeric_limits<std::int32_t>::max())
                throw ParseError{column, "random_s32 bounds must fit a signed 32-bit integer"};
            (key.text == "lo" ? p.generator.a : p.generator.b) = static_cast<double>(bound);
        } else if (key.text == "lo" && trace::isRandomFloat(*kind))
            p.generator.a = expectReal(c, scope);
        else if (key.text == "hi" && trace::isRandomFloat(*kind))
            p.generator.b = expectReal(c, scope);
        else
            throw ParseError{key.column, "generator " + std::string(kindToken.text) + " takes no '" +
                                             std::string(key.text) + "'"};
    }
    if (trace::isRandomFloat(*kind) && !(p.generator.a < p.generator.b))
        throw ParseError{kindToken.column, std::string(kindToken.text) + " needs lo < hi"};
    if (*kind == trace::Generator::Kind::RandomS32 && !(p.generator.a <= p.generator.b))
        throw ParseError{kindToken.column, "random_s32 needs lo <= hi"};
    return p;
}

} // namespace

void resolveDeferred(AssemblerState& s, Section& section, const SourceRef& at)
{
    std::vector<Token> tokens;
    TokenCursor c(s.relex(at.line, tokens), at.token);
    const Token directive = c.next();
    const Scope& scope = s.scopeFor(section);
    if (directive.text == ".output") {
        const Token name = expectIdentifier(c, "an output buffer name");
        expectEnd(c, ".output");
        if (!scope.findBuffer(name.text))
            throw ParseError{name.column, "output '" + std::string(name.text) + "' is not a declared buffer"};
        section.outputs.push_back(std::string(name.text));
        section.outputRefs.push_back(at);
        return;
    }
    if (directive.text == ".sreg") {
        const Token reg = expectIdentifier(c, "a scalar register");
        const bool valid = reg.text.size() >= 2 && reg.text[0] == 's' && isRegisterName(reg.text);
        const int r = valid ? std::atoi(std::string(reg.text.substr(1)).c_str()) : -1;
        if (r < 0 || r >= isa::kScalarRegisters)
            throw ParseError{reg.column,
                             "expected a scalar register (s0..s31), found '" + std::string(reg.text) + "'"};
        c.expect(',', "',' and the initial value");
        const std::size_t column = c.peek().column;
        const std::int64_t v = parseExpression(c, scope);
        if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::uint32_t>::max())
            throw ParseError{column, "initial value does not fit in 32 bits"};
        expectEnd(c, ".sreg");
        section.initial.scalarRegisters[r] = static_cast<std::uint32_t>(v);
        return;
    }
    if (directive.text == ".flag") {
        const std::int64_t flag = expectNonNegative(c, scope, "flag index");
        c.expect(',', "',' and the initial value");
        const std::int64_t v = expectNonNegative(c, scope, "flag value");
        expectEnd(c, ".flag");
        if (flag > INT32_MAX || v > UINT32_MAX)
            throw ParseError{directive.column, "flag index or value out of range"};
        section.initial.flags[static_cast<int>(flag)] = static_cast<std::uint32_t>(v);
        return;
    }
    // .init TARGET, GENERATOR...
    const Token target = expectIdentifier(c, "a buffer name or a vector register");
    c.expect(',', "',' and a generator");
    trace::Payload payload = parseGenerator(c, scope);
    expectEnd(c, ".init");
    if (target.text.size() >= 2 && target.text[0] == 'v' && isRegisterName(target.text)) {
        const int r = std::atoi(std::string(target.text.substr(1)).c_str());
        if (r >= isa::kVectorRegisters)
            throw ParseError{target.column, "expected a vector register (v0..v31)"};
        section.initial.vectorRegisters[r] = std::move(payload);
        return;
    }
    if (const trace::Buffer* b = scope.findBuffer(target.text)) {
        section.initial.memory.push_back({b->space, b->address, b->size, std::move(payload)});
        section.memoryInitRefs.push_back(at);
        return;
    }
    throw ParseError{target.column,
                     "'" + std::string(target.text) + "' is neither a declared buffer nor a vector register"};
}

} // namespace xps::assembly::detail

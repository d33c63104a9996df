#include "asm/parser.h"

#include "util/text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>

namespace xps::assembly {

using isa::Operand;
using isa::OperandKind;

const Token& TokenCursor::peek(std::size_t ahead) const
{
    return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)];
}

const Token& TokenCursor::next()
{
    const Token& t = peek();
    if (m_pos + 1 < m_tokens.size())
        ++m_pos;
    return t;
}

bool TokenCursor::accept(char punct)
{
    if (!peek().is(punct))
        return false;
    next();
    return true;
}

void TokenCursor::expect(char punct, std::string_view what)
{
    if (!accept(punct))
        throw ParseError{peek().column, "expected " + std::string(what)};
}

namespace {

std::string describe(const Token& t)
{
    switch (t.kind) {
    case Token::Kind::End: return "end of line";
    case Token::Kind::String: return "string \"" + std::string(t.text) + "\"";
    default: return "'" + std::string(t.text) + "'";
    }
}

// "s12" -> 12 for prefix 's'; -1 if the identifier is not a register name of that file.
int registerNumber(std::string_view ident, char prefix)
{
    if (ident.size() < 2 || ident.size() > 3 || ident[0] != prefix)
        return -1;
    int n = 0;
    const auto [ptr, ec] = std::from_chars(ident.data() + 1, ident.data() + ident.size(), n);
    if (ec != std::errc() || ptr != ident.data() + ident.size())
        return -1;
    if (ident.size() == 3 && ident[1] == '0')
        return -1; // "s05" is not a register name
    return n;
}

int expectRegister(TokenCursor& c, char prefix)
{
    const Token& t = c.peek();
    const int limit = prefix == 's' ? isa::kScalarRegisters : isa::kVectorRegisters;
    const char* file = prefix == 's' ? "a scalar register (s0..s31)" : "a vector register (v0..v31)";
    if (t.kind == Token::Kind::Identifier) {
        const int n = registerNumber(t.text, prefix);
        if (n >= limit)
            throw ParseError{t.column,
                             "register '" + std::string(t.text) + "' out of range: expected " + file};
        if (n >= 0) {
            c.next();
            return n;
        }
    }
    throw ParseError{t.column, std::string("expected ") + file + ", found " + describe(t)};
}

class ExpressionParser
{
public:
    ExpressionParser(TokenCursor& c, const Scope& s) : m_c(c), m_scope(s) {}

    std::int64_t parse() { return additive(); }

private:
    std::int64_t additive()
    {
        std::int64_t v = multiplicative();
        for (;;) {
            const Token& t = m_c.peek();
            if (t.is('+')) {
                m_c.next();
                v = wrapAdd(v, multiplicative(), t.column);
            } else if (t.is('-')) {
                m_c.next();
                v = wrapAdd(v, negate(multiplicative(), t.column), t.column);
            } else {
                return v;
            }
        }
    }

    std::int64_t multiplicative()
    {
        std::int64_t v = unary();
        for (;;) {
            const Token& t = m_c.peek();
            if (!(t.is('*') || t.is('/') || t.is('%')))
                return v;
            m_c.next();
            const std::int64_t rhs = unary();
            if (t.is('*')) {
                std::int64_t out;
                if (__builtin_mul_overflow(v, rhs, &out))
                    throw ParseError{t.column, "expression overflows 64 bits"};
                v = out;
            } else {
                if (rhs == 0)
                    throw ParseError{t.column, "division by zero in expression"};
                if (v == std::numeric_limits<std::int64_t>::min() && rhs == -1)
                    throw ParseError{t.column, "expression overflows 64 bits"};
                v = t.is('/') ? v / rhs : v % rhs;
            }
        }
    }

    std::int64_t unary()
    {
        const Token& t = m_c.peek();
        if (t.is('-')) {
            m_c.next();
            return negate(unary(), t.column);
        }
        if (t.is('+')) {
            m_c.next();
            return unary();
        }
        return primary();
    }

    std::int64_t primary()
    {
        const Token t = m_c.next();
        switch (t.kind) {
        case Token::Kind::Integer: return t.integer;
        case Token::Kind::Float:
            throw ParseError{t.column,
                             "a floating-point literal must be a whole operand, not part of an expression"};
        case Token::Kind::Identifier: return name(t);
        case Token::Kind::Punct:
            if (t.is('(')) {
                const std::int64_t v = additive();
                m_c.expect(')', "')' to close the parenthesis");
                return v;
            }
            [[fallthrough]];
        default: throw ParseError{t.column, "expected an expression, found " + describe(t)};
        }
    }

    std::int64_t name(const Token& t)
    {
        if (t.text == "sizeof" || t.text == "end") {
            m_c.expect('(', "'(' after " + std::string(t.text));
            const Token b = m_c.next();
            const trace::Buffer* buffer = b.kind == Token::Kind::Identifier ? findBuffer(b.text) : nullptr;
            if (!buffer)
                throw ParseError{b.column,
                                 std::string(t.text) + "() expects a buffer name, found " + describe(b)};
            m_c.expect(')', "')' after the buffer name");
            return static_cast<std::int64_t>(t.text == "sizeof" ? buffer->size
                                                                : buffer->address + buffer->size);
        }
        if (registerNumber(t.text, 's') >= 0 || registerNumber(t.text, 'v') >= 0)
            throw ParseError{t.column,
                             "register '" + std::string(t.text) + "' is not allowed in an expression here"};
        if (auto it = m_scope.constants.find(t.text); it != m_scope.constants.end())
            return it->second;
        if (const trace::Buffer* b = findBuffer(t.text))
            return static_cast<std::int64_t>(b->address);
        if (auto it = m_scope.labels.find(t.text); it != m_scope.labels.end())
            return it->second;
        std::string message = "undefined symbol '" + std::string(t.text) + "'";
        const std::string guess = text::nearest(t.text, scopeNames(m_scope));
        if (!guess.empty())
            message += "; did you mean '" + guess + "'?";
        throw ParseError{t.column, message};
    }

    const trace::Buffer* findBuffer(std::string_view n) const { return m_scope.findBuffer(n); }

    static std::int64_t negate(std::int64_t v, std::size_t column)
    {
        if (v == std::numeric_limits<std::int64_t>::min())
            throw ParseError{column, "expression overflows 64 bits"};
        return -v;
    }
    static std::int64_t wrapAdd(std::int64_t a, std::int64_t b, std::size_t column)
    {
        std::int64_t out;
        if (__builtin_add_overflow(a, b, &out))
            throw ParseError{column, "expression overflows 64 bits"};
        return out;
    }

    TokenCursor& m_c;
    const Scope& m_scope;
};

// An immediate that becomes a 32-bit register value: signed or unsigned 32-bit, or a float literal
// (stored as its IEEE-754 single-precision bits).
std::int64_t parseImmediate32(TokenCursor& c, const Scope& scope, std::string_view operandName)
{
    const Token& first = c.peek();
    const bool negativeFloat = first.is('-') && c.peek(1).kind == Token::Kind::Float;
    if (first.kind == Token::Kind::Float || negativeFloat) {
        if (negativeFloat)
            c.next();
        const Token t = c.next();
        const float f = static_cast<float>(negativeFloat ? -t.real : t.real);
        std::uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    const std::size_t column = first.column;
    const std::int64_t v = parseExpression(c, scope);
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::uint32_t>::max())
        throw ParseError{column, "immediate " + std::to_string(v) + " for '" + std::string(operandName) +
                                     "' does not fit in 32 bits"};
    // Canonical form: the value as a 32-bit register would hold it, read as signed.
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
}

// An operand's value within what isa::Operand holds (39 bits with the sign).
std::int64_t operandValue(std::int64_t v, std::size_t column, std::string_view what)
{
    if (!Operand::fits(v))
        throw ParseError{column, std::string(what) + " " + std::to_string(v) +
                                     " is out of range: an operand holds " +
                                     std::to_string(-Operand::kValueLimit - 1) + " to " +
                                     std::to_string(Operand::kValueLimit)};
    return v;
}

Operand parseAddress(TokenCursor& c, const Scope& scope, isa::Space space)
{
    c.expect('[', "'[' to start an address");
    int base = -1;
    std::int64_t offset = 0;
    const Token& t = c.peek();
    const std::size_t column = t.column;
    if (t.kind == Token::Kind::Identifier && registerNumber(t.text, 's') >= 0) {
        base = expectRegister(c, 's');
        if (c.peek().is('+')) {
            c.next();
            offset = parseExpression(c, scope);
        } else if (c.peek().is('-')) {
            c.next();
            offset = -parseExpression(c, scope);
        }
    } else {
        offset = parseExpression(c, scope);
    }
    c.expect(']', "']' to close the address");
    return Operand::mem(space, base, operandValue(offset, column, "address offset"));
}

Operand parseOperand(TokenCursor& c, const Scope& scope, const isa::OperandSpec& spec,
                     const isa::OpcodeInfo& op)
{
    const Token& t = c.peek();
    switch (spec.kind) {
    case OperandKind::SReg: return Operand::sreg(expectRegister(c, 's'));
    case OperandKind::VReg: return Operand::vreg(expectRegister(c, 'v'));
    case OperandKind::SRegOrImm:
        if (t.kind == Token::Kind::Identifier && registerNumber(t.text, 's') >= 0)
            return Operand::sreg(expectRegister(c, 's'));
        if (t.kind == Token::Kind::Identifier && registerNumber(t.text, 'v') >= 0)
            throw ParseError{t.column, "expected a scalar register or an immediate for '" +
                                           std::string(spec.name) + "', found vector register '" +
                                           std::string(t.text) + "'"};
        return Operand::imm(parseImmediate32(c, scope, spec.name));
    case OperandKind::Imm: {
        const std::size_t column = t.column;
        return Operand::imm(operandValue(parseExpression(c, scope), column, "immediate"));
    }
    case OperandKind::Label: {
        if (t.kind == Token::Kind::Identifier && !scope.labels.contains(t.text) &&
            !scope.constants.contains(t.text)) {
            std::vector<std::string> labels;
            for (const auto& [name, pc] : scope.labels)
                labels.push_back(name);
            std::string message = "undefined label '" + std::string(t.text) + "'";
            if (std::string guess = text::nearest(t.text, labels); !guess.empty())
                message += "; did you mean '" + guess + "'?";
            throw ParseError{t.column, message};
        }
        const std::int64_t pc = parseExpression(c, scope);
        if (pc < 0 || pc > std::numeric_limits<std::uint32_t>::max())
            throw ParseError{t.column, "branch target " + std::to_string(pc) + " is not a valid pc"};
        return Operand::imm(pc);
    }
    case OperandKind::Addr: return parseAddress(c, scope, op.memorySpace);
    case OperandKind::SpaceAddr: {
        const auto space = t.kind == Token::Kind::Identifier ? isa::spaceFromName(t.text) : std::nullopt;
        if (!space)
            throw ParseError{t.column, "expected a memory operand hbm[...], vmem[...] or smem[...] for '" +
                                           std::string(spec.name) + "', found " + describe(t)};
        c.next();
        return parseAddress(c, scope, *space);
    }
    case OperandKind::Region: {
        const Token r = c.next();
        if (r.kind != Token::Kind::Identifier && r.kind != Token::Kind::String)
            throw ParseError{r.column, "expected a region name, found " + describe(r)};
        if (r.text.empty())
            throw ParseError{r.column, "region name must not be empty"};
        auto& regions = *scope.regions;
        for (std::size_t i = 0; i < regions.size(); ++i)
            if (regions[i].name == r.text)
                return Operand::imm(static_cast<std::int64_t>(i));
        if (!scope.declareRegions)
            throw ParseError{r.column, "undefined region '" + std::string(r.text) +
                                           "': the symbol table declares no such region"};
        regions.push_back({std::string(r.text), {}});
        return Operand::imm(static_cast<std::int64_t>(regions.size() - 1));
    }
    }
    throw ParseError{t.column, "unsupported operand kind"};
}

bool atInstructionEnd(const TokenCursor& c)
{
    const Token& t = c.peek();
    return t.kind == Token::Kind::End || t.is(';') || t.is('}');
}

std::vector<std::string_view> allMnemonics()
{
    std::vector<std::string_view> names;
    for (const isa::OpcodeInfo& i : isa::allOpcodes())
        names.push_back(i.mnemonic);
    return names;
}

} // namespace

std::int64_t parseExpression(TokenCursor& cursor, const Scope& scope)
{
    return ExpressionParser(cursor, scope).parse();
}

isa::Instruction parseInstruction(TokenCursor& c, const Scope& scope)
{
    const Token head = c.next();
    if (head.kind != Token::Kind::Identifier)
        throw ParseError{head.column, "expected an instruction mnemonic, found " + describe(head)};
    const auto opcode = isa::opcodeFromMnemonic(head.text);
    if (!opcode) {
        std::string message = "unknown opcode '" + std::string(head.text) + "'";
        const auto names = allMnemonics();
        if (std::string guess = text::nearest(head.text, names); !guess.empty())
            message += "; did you mean '" + guess + "'?";
        throw ParseError{head.column, message};
    }
    const isa::OpcodeInfo& op = isa::info(*opcode);
    isa::Instruction insn;
    insn.opcode = *opcode;
    const auto specs = op.operandSpecs();
    const int positional = op.positionalCount();

    for (int i = 0; i < positional; ++i) {
        // The message is built only on failure: this loop is the assembler's hot path.
        if (i > 0 && !c.accept(','))
            throw ParseError{c.peek().column, "expected ',' and operand '" + std::string(specs[i].name) +
                                                  "' (" +
                                                  std::string(isa::operandKindDescription(specs[i].kind)) +
                                                  ") of " + std::string(op.mnemonic)};
        if (atInstructionEnd(c))
            throw ParseError{c.peek().column, "missing operand '" + std::string(specs[i].name) + "' (" +
                                                  std::string(isa::operandKindDescription(specs[i].kind)) +
                                                  ") of " + std::string(op.mnemonic)};
        insn.operands[static_cast<std::size_t>(i)] = parseOperand(c, scope, specs[i], op);
    }
    // keyword operands: `, name=value` in any order (the first without its comma when there are no
    // positional operands: `mxu.wcommit mxu=1`)
    for (bool first = true; !atInstructionEnd(c); first = false) {
        const Token& sep = c.peek();
        const bool bare = first && positional == 0 && sep.kind == Token::Kind::Identifier;
        if (!bare && !sep.is(','))
            throw ParseError{sep.column, "expected ';' or end of line after " + std::string(op.mnemonic) +
                                             " operands, found " + describe(sep)};
        if (!bare)
            c.next();
        const Token key = c.next();
        std::vector<std::string_view> keywords;
        for (const auto& s : specs)
            if (s.keyword)
                keywords.push_back(s.name);
        if (key.kind != Token::Kind::Identifier || !c.peek().is('=')) {
            std::string message = std::string(op.mnemonic) + " takes " + std::to_string(positional) +
                                  " operand" + (positional == 1 ? "" : "s");
            if (!keywords.empty())
                message += " and optional keyword operands (name=value)";
            throw ParseError{key.column, message + ", found extra " + describe(key)};
        }
        c.next(); // '='
        int index = -1;
        for (int i = positional; i < static_cast<int>(specs.size()); ++i)
            if (specs[i].name == key.text)
                index = i;
        if (index < 0) {
            std::string message =
                "unknown keyword operand '" + std::string(key.text) + "' for " + std::string(op.mnemonic);
            if (std::string guess = text::nearest(key.text, keywords); !guess.empty())
                message += "; did you mean '" + guess + "'?";
            throw ParseError{key.column, message};
        }
        if (insn.operands[static_cast<std::size_t>(index)].present())
            throw ParseError{key.column, "keyword operand '" + std::string(key.text) + "' given twice"};
        insn.operands[static_cast<std::size_t>(index)] = parseOperand(c, scope, specs[index], op);
    }
    return insn;
}

const trace::Buffer* Scope::findBuffer(std::string_view name) const
{
    if (m_indexed > buffers.size()) { // replaced by a shorter list: index it afresh
        m_bufferIndex.clear();
        m_indexed = 0;
    }
    for (; m_indexed < buffers.size(); ++m_indexed)
        m_bufferIndex.emplace(buffers[m_indexed].name, m_indexed); // keeps the first of a name
    const auto it = m_bufferIndex.find(name);
    return it == m_bufferIndex.end() ? nullptr : &buffers[it->second];
}

isa::Bundle makeBundle(const std::vector<PlacedInstruction>& placed)
{
    std::array<int, isa::kSlotKinds> used{};
    int branches = 0;
    for (const PlacedInstruction& p : placed) {
        const isa::OpcodeInfo& op = p.instruction.info();
        int& n = used[static_cast<std::size_t>(op.slot)];
        if (++n > isa::slotCount(op.slot))
            throw ParseError{p.column, "slot conflict: " + std::string(op.mnemonic) + " needs a " +
                                           std::string(isa::slotName(op.slot)) + " slot, and the bundle's " +
                                           std::to_string(isa::slotCount(op.slot)) + " " +
                                           (isa::slotCount(op.slot) == 1 ? "is" : "are") + " taken"};
        if (op.isBranch && ++branches > 1)
            throw ParseError{p.column, "a bundle may hold at most one branch"};
    }
    // In slot order, keeping the written order within a slot: an insertion sort, as a bundle holds a few
    // instructions and std::stable_sort would allocate a buffer for each of a million bundles.
    isa::Bundle bundle;
    bundle.instructions.reserve(placed.size());
    for (const PlacedInstruction& p : placed) {
        auto at = bundle.instructions.end();
        while (at != bundle.instructions.begin() && p.instruction.info().slot < (at - 1)->info().slot)
            --at;
        bundle.instructions.insert(at, p.instruction);
    }
    return bundle;
}

Result<isa::Bundle> parseBundleLine(std::string_view line, const Scope& scope,
                                    const std::function<std::string(std::size_t column)>& where)
{
    const LexResult lexed = lexLine(line);
    if (!lexed.error.empty())
        return Error(where(lexed.errorColumn), lexed.error);
    try {
        TokenCursor c(lexed.tokens);
        std::vector<PlacedInstruction> placed;
        if (c.peek().kind == Token::Kind::Identifier && c.peek().text == "nop" &&
            c.peek(1).kind == Token::Kind::End)
            return isa::Bundle{};
        while (!c.atEnd()) {
            const std::size_t column = c.peek().column;
            placed.push_back({parseInstruction(c, scope), column});
            if (!c.atEnd())
                c.expect(';', "';' between instructions");
        }
        return makeBundle(placed);
    } catch (const ParseError& e) {
        return Error(where(e.column), e.message);
    }
}

std::vector<std::string> scopeNames(const Scope& scope)
{
    std::vector<std::string> names;
    for (const auto& [n, v] : scope.constants)
        names.push_back(n);
    for (const auto& b : scope.buffers)
        names.push_back(b.name);
    for (const auto& [n, pc] : scope.labels)
        names.push_back(n);
    return names;
}

} // namespace xps::assembly

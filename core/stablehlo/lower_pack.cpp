#include "stablehlo/lower_pack.h"

#include "asm/lexer.h"
#include "asm/parser.h"
#include "isa/register_use.h"

#include <algorithm>

namespace xps::shlo::lower {

namespace {

using isa::Opcode;
using isa::Unit;

constexpr std::uint64_t kPage = 4096;

// The units whose instructions the packer models: everything but DMA, sync, markers, control and scalar
// memory.
bool packableUnit(Unit unit)
{
    switch (unit) {
    case Unit::VectorAlu:
    case Unit::Transcendental:
    case Unit::CrossLane:
    case Unit::MxuWeights:
    case Unit::MxuMatmul:
    case Unit::MxuResult:
    case Unit::ScalarAlu:
    case Unit::VectorLoad:
    case Unit::VectorStore: return true;
    default: return false;
    }
}

bool vmemAccess(Opcode op)
{
    return op == Opcode::VLd || op == Opcode::VSt || op == Opcode::VLdS || op == Opcode::VStS ||
           op == Opcode::VLdSH;
}

bool packable(const isa::Instruction& insn)
{
    if (!vmemAccess(insn.opcode)) {
        // Memory the packer does not track (scalar, a register stride): left alone, whatever its unit.
        for (const isa::OperandSpec& spec : insn.info().operandSpecs())
            if (spec.kind == isa::OperandKind::Addr)
                return false;
        return packableUnit(insn.info().unit);
    }
    // Unit-stride at a fixed VMEM address, or at a fixed offset from a loop's register: the range it
    // touches is known (see pageKey).
    // A strided access (a 128 x 128 weight block's 8 rows out of a wider matrix) with a fixed stride too.
    const isa::Operand& a = insn.operands[1];
    const bool strided =
        insn.opcode == Opcode::VLdS || insn.opcode == Opcode::VStS || insn.opcode == Opcode::VLdSH;
    return a.form == isa::Operand::Form::Mem && a.space == isa::Space::Vmem && a.value >= 0 &&
           (!strided || (insn.operands[2].form == isa::Operand::Form::Imm && insn.operands[2].value >= 0));
}

// The key of a 4 KiB page an access touches. A loop body addresses each buffer through one register of its
// own ([sN + offset], the lowering's loops), which the body does not change until its increments at the
// end: accesses through the same register overlap as their offsets do, and accesses through different
// registers, or one at a fixed address, never overlap (they are different buffers). Pages are keyed by
// the register too.
std::uint64_t pageKey(const isa::Operand& a, std::uint64_t page)
{
    return (a.hasBase ? (static_cast<std::uint64_t>(a.reg) + 1) << 56 : 0) | page;
}

// The 4 KiB pages an access touches (keyed as pageKey does): one 4 KiB run, 8 rows of 512 B `stride`
// apart, or (vld.sh) 16 half rows of 256 B.
void touchedPages(const isa::Instruction& insn, std::vector<std::uint64_t>& pages)
{
    pages.clear();
    const auto address = static_cast<std::uint64_t>(insn.operands[1].value);
    const bool halves = insn.opcode == Opcode::VLdSH;
    const bool strided = insn.opcode == Opcode::VLdS || insn.opcode == Opcode::VStS || halves;
    const std::uint64_t rows = halves    ? 2 * isa::kSublanes
                               : strided ? isa::kSublanes
                                         : 1,
                        rowBytes = halves    ? 256
                                   : strided ? 512
                                             : isa::kVectorBytes,
                        stride = strided ? static_cast<std::uint64_t>(insn.operands[2].value) : 0;
    for (std::uint64_t r = 0; r < rows; ++r)
        for (std::uint64_t page = (address + r * stride) / kPage;
             page <= (address + r * stride + rowBytes - 1) / kPage; ++page)
            if (pages.empty() || pages.back() != pageKey(insn.operands[1], page))
                pages.push_back(pageKey(insn.operands[1], page));
}

} // namespace

BundlePacker::BundlePacker(const isa::MachineConfig& machine) : m_machine(machine), m_cycles(machine)
{
    flush();
}

int BundlePacker::latency(const isa::Instruction& insn) const
{
    return std::max(m_cycles.latency(insn.opcode), 1);
}

int BundlePacker::occupancy(const isa::Instruction& insn) const
{
    return m_cycles.occupancy(insn);
}

void BundlePacker::require(Place& p, int strictlyAfter) const
{
    p.after = std::max(p.after, strictlyAfter);
}

bool BundlePacker::add(const std::string& text)
{
    if (text.find(';') != std::string::npos)
        return false;
    // By the mnemonic first: what the packer leaves alone (DMA, sync, regions, ...) is not parsed here.
    const auto opcode = isa::opcodeFromMnemonic(std::string_view(text).substr(0, text.find(' ')));
    if (!opcode)
        return false;
    if (!packableUnit(isa::info(*opcode).unit))
        return false;
    m_tokens.clear();
    if (!assembly::lexLineInto(text, m_tokens).message.empty())
        return false;
    isa::Instruction insn;
    try {
        assembly::TokenCursor cursor(m_tokens);
        static const assembly::Scope kNoNames;
        insn = assembly::parseInstruction(cursor, kNoNames);
        if (!cursor.atEnd())
            return false;
    } catch (const assembly::ParseError&) {
        return false; // names or forms the packer does not resolve: the assembler will
    }
    if (!packable(insn))
        return false;

    const isa::OpcodeInfo& info = insn.info();
    const isa::RegisterUse use = isa::registerUse(insn);
    Place p;
    for (std::uint32_t m = use.readsV; m; m &= m - 1) {
        const int r = __builtin_ctz(m);
        require(p, m_vWrite[r]);
        p.ready = std::max(p.ready, m_vReady[r]);
    }
    for (std::uint32_t m = use.readsS; m; m &= m - 1) {
        const int r = __builtin_ctz(m);
        require(p, m_sWrite[r]);
        p.ready = std::max(p.ready, m_sReady[r]);
    }
    if (use.writesV >= 0) {
        require(p, m_vWrite[use.writesV]);
        p.atLeast = std::max(p.atLeast, m_vRead[use.writesV]);
    }
    if (use.writesS >= 0) {
        require(p, m_sWrite[use.writesS]);
        p.atLeast = std::max(p.atLeast, m_sRead[use.writesS]);
    }
    const auto unit = static_cast<std::size_t>(info.unit);
    // The instruction's MXU (any other instruction gets MXU 0's, and leaves it alone).
    MxuTrack& mxu =
        m_mxus[static_cast<std::size_t>(std::clamp<std::int64_t>(isa::mxuIndex(insn), 0, isa::kMaxMxus - 1))];
    int& unitFree = info.unit == Unit::MxuWeights  ? mxu.unitFree[0]
                    : info.unit == Unit::MxuMatmul ? mxu.unitFree[1]
                                                   : m_unitFree[unit];
    p.ready = std::max(p.ready, unitFree);

    // VMEM: the 4 KiB pages the access touches, in order with the other accesses that touch them.
    const bool isStore = insn.opcode == Opcode::VSt || insn.opcode == Opcode::VStS;
    m_touched.clear();
    if (vmemAccess(insn.opcode))
        touchedPages(insn, m_touched);
    for (const std::uint64_t key : m_touched) {
        const auto it = m_pages.find(key);
        if (it == m_pages.end())
            continue;
        require(p, it->second.lastStore);
        if (isStore)
            require(p, it->second.lastLoad);
    }

    // The MXU, in program order where its state is shared.
    std::uint64_t matmulNumber = 0, popNumber = 0;
    switch (insn.opcode) {
    case Opcode::MxuWPush:
    case Opcode::MxuWPushT: require(p, std::max(mxu.lastCommit, mxu.lastPush)); break;
    case Opcode::MxuWCommit: require(p, std::max({mxu.lastPush, mxu.lastMatmul, mxu.lastCommit})); break;
    case Opcode::MxuMm: {
        // Results are numbered as the pops that take them: 16 packed rows (fmt=) are two.
        matmulNumber = mxu.matmuls;
        mxu.matmuls +=
            static_cast<std::uint64_t>(isa::mxuRowsPerRegister(isa::mxuFormat(insn)) / isa::kSublanes);
        require(p, std::max(mxu.lastMatmul, mxu.lastCommit));
        p.ready = std::max(p.ready, mxu.commitReady);
        // Room in the result FIFO: the pop `depth` places before its last result must have been issued.
        const auto depth =
            static_cast<std::uint64_t>(std::max<std::int64_t>(m_machine.mxuResultFifoDepth, 1));
        if (mxu.matmuls > depth)
            for (const auto& [number, bundle] : mxu.popBundles)
                if (number == mxu.matmuls - 1 - depth)
                    require(p, bundle);
        break;
    }
    case Opcode::MxuPop: {
        popNumber = mxu.pops++;
        require(p, mxu.lastPop);
        // Not above the matmul written before it (the kernels pop tile j just before multiplying tile j +
        // depth): hoisted further, to the top of a loop body whose matmuls were issued before the window,
        // pops bunch up and the in-order core waits at each for its product (a 5% slower projection).
        p.atLeast = std::max(p.atLeast, mxu.lastMatmul);
        for (const auto& [number, bundle] : mxu.matmulBundles)
            if (number == popNumber) {
                require(p, bundle);
                p.ready = std::max(p.ready, bundle + m_cycles.latency(Opcode::MxuMm));
            }
        break;
    }
    default: break;
    }

    // The earliest bundle that keeps every dependence and has a free slot, not before the operands are
    // ready, even past the window's end: the bundles between are left for later instructions that do not
    // depend on it (a lane's sum waiting on its add while the next lane's pops go on). Bundles nothing
    // fills are dropped (flush): the core waits for the operands there as it would in an empty bundle.
    const int legal = std::max(p.after + 1, p.atLeast);
    auto b = static_cast<std::size_t>(std::max({legal, p.ready, 0}));
    const auto slot = static_cast<std::size_t>(info.slot);
    while (b < m_windowSize && m_window[b].used[slot] >= isa::slotCount(info.slot))
        ++b;
    if (b >= m_window.size())
        m_window.resize(b + 1);
    for (; m_windowSize <= b; ++m_windowSize) { // bundles taken into the window start empty
        m_window[m_windowSize].used.fill(0);
        m_window[m_windowSize].placed.clear();
    }
    Bundle& bundle = m_window[b];
    ++bundle.used[slot];
    bundle.placed.push_back({insn, 0});
    const int at = static_cast<int>(b);

    for (std::uint32_t m = use.readsV; m; m &= m - 1)
        m_vRead[__builtin_ctz(m)] = std::max(m_vRead[__builtin_ctz(m)], at);
    for (std::uint32_t m = use.readsS; m; m &= m - 1)
        m_sRead[__builtin_ctz(m)] = std::max(m_sRead[__builtin_ctz(m)], at);
    if (use.writesV >= 0) {
        m_vWrite[use.writesV] = at;
        m_vReady[use.writesV] = at + latency(insn);
    }
    if (use.writesS >= 0) {
        m_sWrite[use.writesS] = at;
        m_sReady[use.writesS] = at + latency(insn);
    }
    if (occupancy(insn) > 0)
        unitFree = std::max(unitFree, at + occupancy(insn));
    for (const std::uint64_t key : m_touched) {
        PageUse& u = m_pages[key];
        (isStore ? u.lastStore : u.lastLoad) = std::max(isStore ? u.lastStore : u.lastLoad, at);
    }
    switch (insn.opcode) {
    case Opcode::MxuWPush:
    case Opcode::MxuWPushT: mxu.lastPush = std::max(mxu.lastPush, at); break;
    case Opcode::MxuWCommit:
        mxu.lastCommit = at;
        mxu.commitReady = at + latency(insn);
        break;
    case Opcode::MxuMm:
        mxu.lastMatmul = at;
        for (std::uint64_t n = matmulNumber; n < mxu.matmuls; ++n)
            mxu.matmulBundles.emplace_back(n, at);
        break;
    case Opcode::MxuPop:
        mxu.lastPop = at;
        mxu.popBundles.emplace_back(popNumber, at);
        while (!mxu.matmulBundles.empty() && mxu.matmulBundles.front().first <= popNumber)
            mxu.matmulBundles.pop_front();
        break;
    default: break;
    }
    return true;
}

std::vector<isa::Bundle> BundlePacker::flush()
{
    std::vector<isa::Bundle> bundles;
    bundles.reserve(m_windowSize);
    for (std::size_t b = 0; b < m_windowSize; ++b)
        if (!m_window[b].placed.empty())
            bundles.push_back(assembly::makeBundle(m_window[b].placed)); // within the slots: never throws
    m_windowSize = 0; // the bundles keep their storage for the next window
    // Everything in the window is now before whatever comes next: no dependence reaches past it.
    m_vWrite.fill(-1);
    m_vRead.fill(-1);
    m_vReady.fill(0);
    m_sWrite.fill(-1);
    m_sRead.fill(-1);
    m_sReady.fill(0);
    m_unitFree.fill(0);
    m_pages.clear();
    for (MxuTrack& mxu : m_mxus) {
        mxu.matmulBundles.clear();
        mxu.popBundles.clear();
        mxu.lastMatmul = mxu.lastPop = mxu.lastPush = mxu.lastCommit = -1;
        mxu.commitReady = 0;
        mxu.unitFree.fill(0);
    }
    return bundles;
}

} // namespace xps::shlo::lower

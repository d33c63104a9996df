// The state every suggestion rule reads and the checks several share; see proposal_context.h.

#include "suggest/proposal_context.h"

#include "isa/register_use.h"
#include "suggest/program_edit.h"
#include "suggest/transform.h"
#include "util/text.h"

#include <algorithm>
#include <cstdio>

namespace xps::suggest::detail {

namespace {

PcVmem vmemByPc(const analysis::ReplayView& replay, const analysis::ChipIndex& index,
                const events::BundleSnapshot& bundles, ChipId chip)
{
    PcVmem out;
    const std::size_t n = replay.trace.chips[chip.value].program.bundles.size();
    out.reads.resize(n);
    out.writes.resize(n);
    const events::VmemSnapshot accesses = replay.store.vmemAccesses();
    for (const auto& chunk : accesses.chunks()) {
        throwIfStopped(replay.stop); // per chunk of 65,536 accesses
        for (std::size_t k = 0; k < chunk->size; ++k) {
            if (chunk->chip[k] != chip || (chunk->kind[k] & 2))
                continue;
            const std::uint32_t seq = chunk->source[k];
            if (seq >= index.count(chip))
                continue;
            const std::uint32_t pc = bundles[index.event(chip, seq)].pc;
            if (pc >= n)
                continue;
            (chunk->kind[k] & 1 ? out.writes : out.reads)[pc].add(
                chunk->address[k], std::uint64_t{chunk->address[k]} + chunk->bytes[k]);
        }
    }
    return out;
}

} // namespace

std::string cyclesText(std::uint64_t c)
{
    return text::withThousands(c) + " cycles";
}

std::string percentText(double fraction)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * fraction);
    return b;
}

ProposalContext::ProposalContext(const analysis::ReplayView& replayed, const analysis::Analyses& analysed)
    : replay(replayed), analyses(analysed), m_bundles(replayed.store.bundles()),
      m_index(m_bundles, static_cast<int>(replayed.trace.chips.size()), replayed.stop),
      m_cancel(replayed.cancelPoint())
{
    replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
        m_cancel();
        if (w.satisfiedBy >= 0)
            m_waitDmas[{w.chip, w.pc}].push_back(static_cast<std::uint32_t>(w.satisfiedBy));
    });
    for (const analysis::DmaFacts& f : analyses.dma.dmas) {
        m_cancel();
        m_dmasAt[{f.record.chip, f.record.pc}].push_back(&f.record);
    }
}

Severity ProposalContext::severityFor(std::uint64_t cycles) const
{
    const double f = static_cast<double>(cycles) / total();
    return f >= 0.10 ? Severity::High : f >= 0.02 ? Severity::Medium : Severity::Low;
}

const PcVmem& ProposalContext::vmem(ChipId c)
{
    auto it = m_vmem.find(c);
    if (it == m_vmem.end())
        it = m_vmem.emplace(c, vmemByPc(replay, m_index, m_bundles, c)).first;
    return it->second;
}

// Where in its basic block, before `pc`, the dma.start at `pc` can move: the earliest legal bundle,
// into its misc slot if free, else into a new bundle inserted there. pc -1: nowhere.
ProposalContext::Target ProposalContext::hoistTarget(ChipId c, std::uint32_t pc)
{
    const auto [earliest, earliestFree] = legalRange(c, pc);
    if (earliest < 0)
        return {};
    if (earliestFree == earliest)
        return {earliest, false};
    return {earliest, true};
}

std::pair<std::int64_t, std::int64_t> ProposalContext::legalRange(ChipId c, std::uint32_t pc)
{
    const std::pair<std::int64_t, std::int64_t> none{-1, -1};
    const isa::Program& program = chip(c).program;
    const isa::Bundle& bundle = program.bundles[pc];
    const int at = findInstruction(bundle, isa::Opcode::DmaStart);
    if (at < 0)
        return none;
    const isa::Instruction& dma = bundle.instructions[static_cast<std::size_t>(at)];
    const std::uint32_t reads = isa::registerUse(dma).readsS;
    const isa::Operand& flag = dma.operands[dma_operand::kFlag];
    const auto records = m_dmasAt.find({c, pc});
    if (records == m_dmasAt.end())
        return none;
    Span src, dst;
    for (const events::DmaRecord* d : records->second) {
        m_cancel();
        if (d->dstChip != d->chip)
            return none; // a remote destination's readers are on another chip: not checked here
        if (d->srcSpace == static_cast<int>(isa::Space::Vmem))
            src.add(d->srcAddress, d->srcAddress + events::dmaSourceBytes(*d));
        if (d->dstSpace == static_cast<int>(isa::Space::Vmem))
            dst.add(d->dstAddress, d->dstAddress + events::dmaDestinationBytes(*d));
        if (d->srcSpace == static_cast<int>(isa::Space::Smem) ||
            d->dstSpace == static_cast<int>(isa::Space::Smem))
            return none;
    }
    const std::vector<bool> targets = branchTargets(program);
    const PcVmem& touched = vmem(c);
    std::int64_t earliest = -1, earliestFree = -1;
    for (std::int64_t q = static_cast<std::int64_t>(pc) - 1; q >= 0; --q) {
        if (targets[static_cast<std::size_t>(q) + 1])
            break; // q + 1 starts a basic block
        const isa::Bundle& b = program.bundles[static_cast<std::size_t>(q)];
        if (hasBranch(b) || !canCross(c, static_cast<std::uint32_t>(q), b, reads, flag, pc))
            break;
        if (touched.writes[static_cast<std::size_t>(q)].overlaps(src) ||
            touched.reads[static_cast<std::size_t>(q)].overlaps(dst) ||
            touched.writes[static_cast<std::size_t>(q)].overlaps(dst))
            break;
        earliest = q;
        if (slotFree(b, isa::SlotKind::Misc))
            earliestFree = q;
    }
    return {earliest, earliestFree};
}

bool ProposalContext::canCross(ChipId c, std::uint32_t q, const isa::Bundle& b, std::uint32_t reads,
                               const isa::Operand& flag, std::uint32_t pc)
{
    for (const isa::Instruction& insn : b.instructions) {
        const isa::RegisterUse use = isa::registerUse(insn);
        if (use.writesS >= 0 && (reads >> use.writesS) & 1u)
            return false;
        switch (insn.opcode) {
        case isa::Opcode::DmaStart:
        case isa::Opcode::SyncSet:
        case isa::Opcode::SyncAdd:
        case isa::Opcode::SSt: return false;
        case isa::Opcode::SyncWait: {
            // Crossing a wait is legal only if the waited flag is another one and every DMA that ended
            // this wait is independent of the moved DMA's transfers.
            const isa::Operand& waited = insn.operands[0];
            if (flag.form != isa::Operand::Form::Imm || waited.form != isa::Operand::Form::Imm ||
                waited.value == flag.value)
                return false;
            const auto ended = m_waitDmas.find({c, q});
            if (ended == m_waitDmas.end())
                return false;
            for (std::uint32_t id : ended->second) {
                const analysis::DmaFacts* a = analyses.dma.find(id);
                if (!a)
                    return false;
                for (const events::DmaRecord* d : m_dmasAt[{c, pc}])
                    if (overlapping(a->record, *d))
                        return false;
            }
            break;
        }
        default: break;
        }
    }
    return true;
}

bool ProposalContext::overlapping(const events::DmaRecord& a, const events::DmaRecord& b)
{
    const auto ov = [](ChipId ca, int sa, std::uint64_t aa, ChipId cb, int sb, std::uint64_t ab,
                       std::uint64_t n,
                       std::uint64_t m) { return ca == cb && sa == sb && aa < ab + m && ab < aa + n; };
    using events::dmaDestinationBytes, events::dmaSourceBytes;
    return ov(a.dstChip, a.dstSpace, a.dstAddress, b.chip, b.srcSpace, b.srcAddress, dmaDestinationBytes(a),
              dmaSourceBytes(b)) ||
           ov(a.dstChip, a.dstSpace, a.dstAddress, b.dstChip, b.dstSpace, b.dstAddress,
              dmaDestinationBytes(a), dmaDestinationBytes(b)) ||
           ov(a.chip, a.srcSpace, a.srcAddress, b.dstChip, b.dstSpace, b.dstAddress, dmaSourceBytes(a),
              dmaDestinationBytes(b));
}

int ProposalContext::leastBusyEngine(ChipId c, int except) const
{
    const int engines = static_cast<int>(replay.trace.machine.dmaEngines);
    std::vector<std::uint64_t> busy(static_cast<std::size_t>(engines), 0);
    for (const analysis::EngineUse& e : analyses.dma.engines)
        if (e.chip == c && e.engine < engines)
            busy[static_cast<std::size_t>(e.engine)] = e.busyCycles;
    int best = except == 0 ? 1 : 0;
    for (int e = 0; e < engines; ++e)
        if (e != except && busy[static_cast<std::size_t>(e)] < busy[static_cast<std::size_t>(best)])
            best = e;
    return best;
}

// The end of the highest VMEM address the chip's kernel declares or touches.
std::uint64_t ProposalContext::highestVmemUsed(ChipId c) const
{
    std::uint64_t top = 0;
    for (const trace::Buffer& b : chip(c).symbols.buffers)
        if (b.space == isa::Space::Vmem)
            top = std::max(top, b.address + b.size);
    for (const analysis::VmemChipUse& u : analyses.vmem.chips)
        if (u.chip == c)
            top = std::max(top, u.highestAddress);
    return top;
}

void ProposalContext::addDmaEvidence(Suggestion& s, const std::vector<ChipId>& chips, std::uint32_t pc)
{
    std::uint64_t from = UINT64_MAX, to = 0;
    for (ChipId c : chips) {
        const auto it = m_dmasAt.find({c, pc});
        if (it == m_dmasAt.end())
            continue;
        for (const events::DmaRecord* d : it->second) {
            m_cancel();
            if (s.evidence.dmas.size() < 64)
                s.evidence.dmas.push_back(d->id);
            from = std::min(from, d->issue);
            to = std::max(to, d->end);
        }
    }
    s.evidence.fromCycle = from == UINT64_MAX ? 0 : from;
    s.evidence.toCycle = to;
}

} // namespace xps::suggest::detail

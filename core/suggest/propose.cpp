#include "suggest/propose.h"

#include "analysis/chip_index.h"
#include "isa/register_use.h"
#include "isa/topology.h"
#include "suggest/program_edit.h"
#include "suggest/transform.h"
#include "util/text.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace xps::suggest {
namespace {

using analysis::Analyses;
using analysis::DmaPcGroup;
using analysis::ReplayView;

struct Span
{
    std::uint64_t begin = UINT64_MAX, end = 0; // bounding range; empty when begin >= end
    void add(std::uint64_t b, std::uint64_t e)
    {
        begin = std::min(begin, b);
        end = std::max(end, e);
    }
    bool overlaps(const Span& o) const { return begin < end && o.begin < o.end && begin < o.end && o.begin < end; }
};

// Per pc of one chip: the VMEM its bundle's loads and stores touched over the whole replay.
struct PcVmem
{
    std::vector<Span> reads, writes;
};

PcVmem vmemByPc(const ReplayView& replay, const analysis::ChipIndex& index, const events::BundleSnapshot& bundles, int chip)
{
    PcVmem out;
    const std::size_t n = replay.trace.chips[static_cast<std::size_t>(chip)].program.bundles.size();
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
            (chunk->kind[k] & 1 ? out.writes : out.reads)[pc].add(chunk->address[k], std::uint64_t{chunk->address[k]} + chunk->bytes[k]);
        }
    }
    return out;
}

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

constexpr std::uint64_t kMinHideableCycles = 8;

class Proposer
{
public:
    Proposer(const ReplayView& replay, const Analyses& a)
        : m_replay(replay), m_a(a), m_bundles(replay.store.bundles()),
          m_index(m_bundles, static_cast<int>(replay.trace.chips.size()), replay.stop),
          m_cancel(replay.cancelPoint())
    {
        replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            m_cancel();
            if (w.satisfiedBy >= 0)
                m_waitDmas[{w.chip, w.pc}].push_back(static_cast<std::uint32_t>(w.satisfiedBy));
        });
        for (const analysis::DmaFacts& f : a.dma.dmas) {
            m_cancel();
            m_dmasAt[{f.record.chip, f.record.pc}].push_back(&f.record);
        }
    }

    std::vector<Suggestion> run()
    {
        // Each rule's own loops poll m_cancel; between rules, the token itself.
        for (void (Proposer::*rule)() :
             {&Proposer::proposeHoists, &Proposer::proposeSplits, &Proposer::proposeRouteSplits,
              &Proposer::proposeDoubleBuffers, &Proposer::proposeRelaxedWaits, &Proposer::proposeRebalance,
              &Proposer::proposeWhatIfs, &Proposer::proposeTileSize}) {
            throwIfStopped(m_replay.stop);
            (this->*rule)();
        }
        for (std::size_t i = 0; i < m_out.size(); ++i)
            m_out[i].id = "S" + std::to_string(i + 1);
        return std::move(m_out);
    }

private:
    const trace::ChipTrace& chip(int c) const { return m_replay.trace.chips[static_cast<std::size_t>(c)]; }
    double total() const { return static_cast<double>(std::max<std::uint64_t>(m_replay.totalCycles, 1)); }
    Severity severityFor(std::uint64_t cycles) const
    {
        const double f = static_cast<double>(cycles) / total();
        return f >= 0.10 ? Severity::High : f >= 0.02 ? Severity::Medium : Severity::Low;
    }
    const PcVmem& vmem(int c)
    {
        auto it = m_vmem.find(c);
        if (it == m_vmem.end())
            it = m_vmem.emplace(c, vmemByPc(m_replay, m_index, m_bundles, c)).first;
        return it->second;
    }

    struct Target
    {
        std::int64_t pc = -1;
        bool newBundle = false;
        bool operator==(const Target&) const = default;
    };
    // Where in its basic block, before `pc`, the dma.start at `pc` can move: the earliest legal bundle,
    // into its misc slot if free, else into a new bundle inserted there. pc -1: nowhere.
    Target hoistTarget(int c, std::uint32_t pc)
    {
        const auto [earliest, earliestFree] = legalRange(c, pc);
        if (earliest < 0)
            return {};
        if (earliestFree == earliest)
            return {earliest, false};
        return {earliest, true};
    }

    std::pair<std::int64_t, std::int64_t> legalRange(int c, std::uint32_t pc)
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
                src.add(d->srcAddress, d->srcAddress + d->bytes);
            if (d->dstSpace == static_cast<int>(isa::Space::Vmem))
                dst.add(d->dstAddress, d->dstAddress + d->bytes);
            if (d->srcSpace == static_cast<int>(isa::Space::Smem) || d->dstSpace == static_cast<int>(isa::Space::Smem))
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

    bool canCross(int c, std::uint32_t q, const isa::Bundle& b, std::uint32_t reads, const isa::Operand& flag, std::uint32_t pc)
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
                if (flag.form != isa::Operand::Form::Imm || waited.form != isa::Operand::Form::Imm || waited.value == flag.value)
                    return false;
                const auto ended = m_waitDmas.find({c, q});
                if (ended == m_waitDmas.end())
                    return false;
                for (std::uint32_t id : ended->second) {
                    const analysis::DmaFacts* a = m_a.dma.find(id);
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

    static bool overlapping(const events::DmaRecord& a, const events::DmaRecord& b)
    {
        const auto ov = [](int ca, int sa, std::uint64_t aa, int cb, int sb, std::uint64_t ab, std::uint64_t n, std::uint64_t m) {
            return ca == cb && sa == sb && aa < ab + m && ab < aa + n;
        };
        return ov(a.dstChip, a.dstSpace, a.dstAddress, b.chip, b.srcSpace, b.srcAddress, a.bytes, b.bytes) ||
               ov(a.dstChip, a.dstSpace, a.dstAddress, b.dstChip, b.dstSpace, b.dstAddress, a.bytes, b.bytes) ||
               ov(a.chip, a.srcSpace, a.srcAddress, b.dstChip, b.dstSpace, b.dstAddress, a.bytes, b.bytes);
    }

    // Chips whose program has the same bundle at `pc` as `c` (SPMD code), with their groups; with
    // `anyRemoteChip`, dma.starts may name different destination chips.
    template <typename Pred>
    std::vector<const DmaPcGroup*> sameCode(const DmaPcGroup& g, Pred pred, bool anyRemoteChip = false) const
    {
        const auto normalized = [&](int c) {
            isa::Bundle b = chip(c).program.bundles[g.pc];
            if (anyRemoteChip)
                for (isa::Instruction& insn : b.instructions)
                    if (insn.opcode == isa::Opcode::DmaStart)
                        insn.operands[dma_operand::kChip] = isa::Operand::imm(0);
            return b;
        };
        const isa::Bundle mine = normalized(g.chip);
        std::vector<const DmaPcGroup*> out;
        for (const DmaPcGroup& o : m_a.dma.byPc)
            if (o.pc == g.pc && pred(o) && o.pc < chip(o.chip).program.bundles.size() && normalized(o.chip) == mine)
                out.push_back(&o);
        std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->chip < b->chip; });
        return out;
    }

    void proposeHoists()
    {
        std::map<std::pair<std::uint32_t, std::int64_t>, bool> done;
        for (const DmaPcGroup& g : m_a.dma.byPc) {
            // A few cycles of slack are not worth a change (nor a line in the list).
            if (g.hideableCycles < kMinHideableCycles || g.pc >= chip(g.chip).program.bundles.size())
                continue;
            const Target target = hoistTarget(g.chip, g.pc);
            const std::int64_t to = target.pc;
            if (to < 0 || done[{g.pc, to}])
                continue;
            done[{g.pc, to}] = true;
            Suggestion s;
            s.kind = "late-dma";
            s.change.kind = ChangeKind::HoistDma;
            s.change.pc = g.pc;
            s.change.toPc = static_cast<std::uint32_t>(to);
            s.change.newBundle = target.newBundle;
            std::uint64_t exposed = 0, late = 0, transfers = 0;
            for (const DmaPcGroup* o : sameCode(g, [](const DmaPcGroup& x) { return x.hideableCycles > 0; })) {
                if (!(hoistTarget(o->chip, o->pc) == target))
                    continue;
                s.change.chips.push_back(o->chip);
                s.evidence.pcs.push_back({o->chip, o->pc});
                s.estimatedCycles = std::max(s.estimatedCycles, o->hideableCycles);
                exposed += o->exposedCycles;
                late += o->lateCycles;
                transfers += o->transfers;
            }
            addDmaEvidence(s, s.change.chips, g.pc);
            s.severity = severityFor(s.estimatedCycles);
            s.title = "Issue the DMA at pc " + std::to_string(g.pc) + " earlier (pc " + std::to_string(to) + ")";
            s.explanation = "The dma.start at pc " + std::to_string(g.pc) + " (" + std::to_string(transfers) +
                            (transfers == 1 ? " transfer" : " transfers") + ") is issued on average " + cyclesText(late / std::max<std::uint64_t>(transfers, 1)) +
                            " after its source was written and its destination last used, and the core waited " +
                            cyclesText(exposed) + " for it in sync.wait. Nothing between pc " + std::to_string(to) +
                            " and pc " + std::to_string(g.pc) +
                            " writes its registers, its source or its destination, so it can start there.";
            m_out.push_back(std::move(s));
        }
    }

    void proposeSplits()
    {
        const isa::MachineConfig& m = m_replay.trace.machine;
        std::map<std::uint32_t, bool> done;
        for (const DmaPcGroup& g : m_a.dma.byPc) {
            if (g.exposedCycles == 0 || done[g.pc] || m.dmaEngines < 2)
                continue;
            const auto records = m_dmasAt.find({g.chip, g.pc});
            if (records == m_dmasAt.end())
                continue;
            bool local = true, touchesHbm = false;
            for (const events::DmaRecord* d : records->second) {
                m_cancel();
                local = local && d->dstChip == d->chip;
                touchesHbm = touchesHbm || d->srcSpace == static_cast<int>(isa::Space::Hbm) || d->dstSpace == static_cast<int>(isa::Space::Hbm);
            }
            // One engine can only be the bottleneck if the path behind it is faster.
            const double path = touchesHbm ? m.hbmBandwidthGBs : m.vmemDmaBandwidthGBs;
            if (!local || m.dmaEnginePeakGBs >= path)
                continue;
            const int engine = leastBusyEngine(g.chip, g.engine);
            Suggestion s;
            s.kind = "engine-bound-dma";
            s.change.kind = ChangeKind::SplitDma;
            s.change.pc = g.pc;
            s.change.engine = engine;
            for (const DmaPcGroup* o : sameCode(g, [](const DmaPcGroup& x) { return x.exposedCycles > 0; })) {
                s.change.chips.push_back(o->chip);
                s.evidence.pcs.push_back({o->chip, o->pc});
                s.estimatedCycles = std::max(s.estimatedCycles, o->exposedCycles / 2);
            }
            const isa::Bundle& bundle = chip(g.chip).program.bundles[g.pc];
            const int at = findInstruction(bundle, isa::Opcode::DmaStart);
            if (at < 0 || !splitHalfBytes(bundle.instructions[static_cast<std::size_t>(at)], m).ok())
                continue; // e.g. a register byte count or halves that are not whole chunks
            done[g.pc] = true;
            addDmaEvidence(s, s.change.chips, g.pc);
            s.severity = severityFor(s.estimatedCycles);
            s.title = "Split the DMA at pc " + std::to_string(g.pc) + " over engines " + std::to_string(g.engine) +
                      " and " + std::to_string(engine);
            s.explanation = "The transfers of pc " + std::to_string(g.pc) + " (" + text::formatBytes(g.bytes / std::max<std::uint64_t>(g.transfers, 1)) +
                            " each) run on one engine, whose peak (" + text::formatDouble(m.dmaEnginePeakGBs) +
                            " GB/s) is below the " + (touchesHbm ? "HBM" : "VMEM copy") + " bandwidth (" +
                            text::formatDouble(path) + " GB/s), and the core waited " + cyclesText(g.exposedCycles) +
                            " for them. Two halves on two engines move at up to twice the rate.";
            m_out.push_back(std::move(s));
        }
    }

    // Loops that refill their one buffer and wait for it (the VMEM analysis's single-buffered loops), when
    // VMEM has room for a second: one change per chip and buffer, covering every such loop, applied on a
    // copy first so only changes the transformation accepts are proposed.
    void proposeDoubleBuffers()
    {
        const std::uint64_t capacity = static_cast<std::uint64_t>(m_replay.trace.machine.vmemBytes);
        std::map<std::tuple<int, std::string, std::uint64_t>, std::vector<const analysis::SingleBufferedLoop*>> groups;
        for (const analysis::SingleBufferedLoop& l : m_a.vmem.singleBuffered) {
            const auto records = m_dmasAt.find({l.chip, l.dmaPc});
            if (!l.fitsTwice || records == m_dmasAt.end() || records->second.empty())
                continue;
            groups[{l.chip, l.buffer, records->second.front()->dstAddress}].push_back(&l);
        }
        for (const auto& [key, loops] : groups) {
            const auto& [c, buffer, first] = key;
            std::uint64_t bytes = 0, exposed = 0, refills = 0;
            for (const analysis::SingleBufferedLoop* l : loops) {
                bytes = std::max(bytes, l->bufferBytes);
                exposed += l->exposedCycles;
                refills += l->refills;
            }
            const std::uint64_t second = (highestVmemUsed(c) + 4095) / 4096 * 4096;
            const std::uint32_t used = scalarRegistersUsed(chip(c));
            int spare = -1;
            for (int r = isa::kScalarRegisters - 1; r >= 1 && spare < 0; --r)
                if (!((used >> r) & 1u))
                    spare = r;
            if (spare < 0 || second + bytes > capacity)
                continue;
            Suggestion s;
            s.kind = "single-buffered";
            s.change.kind = ChangeKind::DoubleBuffer;
            s.change.chips = {c};
            s.change.firstBuffer = first;
            s.change.secondBuffer = second;
            s.change.spareRegister = spare;
            for (const analysis::SingleBufferedLoop* l : loops)
                s.change.pcs.push_back(l->dmaPc);
            std::sort(s.change.pcs.begin(), s.change.pcs.end());
            // Tried on a copy of the program alone (the chip's memory image can be large).
            trace::ChipTrace probe;
            probe.chip = c;
            probe.program = chip(c).program;
            probe.symbols = chip(c).symbols;
            probe.initial.scalarRegisters = chip(c).initial.scalarRegisters;
            if (!applyProgramChange(probe, s.change, m_replay.trace.machine).ok())
                continue; // e.g. a loop of several basic blocks
            for (std::uint32_t pc : s.change.pcs) {
                s.evidence.pcs.push_back({c, pc});
                addDmaEvidence(s, {c}, pc);
            }
            s.evidence.fromCycle = 0;
            s.evidence.toCycle = m_replay.totalCycles;
            s.estimatedCycles = exposed;
            s.severity = severityFor(exposed);
            s.title = "Double-buffer " + buffer + (loops.size() > 1 ? " in " + std::to_string(loops.size()) + " loops" : "") +
                      " on chip " + std::to_string(c);
            s.explanation = std::string(loops.size() > 1 ? "Loops refill " : "A loop refills ") + buffer + " (" +
                            text::formatBytes(bytes) + ") " + std::to_string(refills) + " times and the core waited " +
                            cyclesText(exposed) + " for the refills, because each block is fetched only after the previous one was "
                            "used. VMEM has room for a second buffer at " + text::hex(second) +
                            ": fetching the next block into it at the top of each iteration overlaps the transfer with the "
                            "iteration's work.";
            m_out.push_back(std::move(s));
        }
    }

    // A sync.wait, executed once, that waits for every chunk of one DMA into VMEM while the bundles after
    // it (in its basic block) read the chunks one after another: wait for each chunk just before its first
    // use instead, and for the whole transfer at the block's end (what follows may rely on it).
    void proposeRelaxedWaits()
    {
        struct WaitUse
        {
            std::uint64_t executions = 0, exposed = 0;
            std::int64_t dma = -1;
        };
        std::map<std::pair<int, std::uint32_t>, WaitUse> waits;
        m_replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
            m_cancel();
            WaitUse& u = waits[{w.chip, w.pc}];
            ++u.executions;
            u.exposed += w.end - w.start;
            u.dma = w.satisfiedBy;
        });
        for (const auto& [key, use] : waits) {
            const auto [c, pc] = key;
            if (use.executions != 1 || use.exposed == 0 || use.dma < 0)
                continue;
            const analysis::DmaFacts* f = m_a.dma.find(static_cast<std::uint32_t>(use.dma));
            if (!f || f->record.chunks < 2 || f->record.dstChip != c || f->record.dstSpace != static_cast<int>(isa::Space::Vmem))
                continue;
            const isa::Program& program = chip(c).program;
            const int at = findInstruction(program.bundles[pc], isa::Opcode::SyncWait);
            const int dmaAt = f->record.chip == c ? findInstruction(program.bundles[f->record.pc], isa::Opcode::DmaStart) : -1;
            if (at < 0 || dmaAt < 0)
                continue;
            const isa::Instruction& wait = program.bundles[pc].instructions[static_cast<std::size_t>(at)];
            const isa::Operand& rows = program.bundles[f->record.pc].instructions[static_cast<std::size_t>(dmaAt)].operands[dma_operand::kRows];
            if (wait.operands[0].form != isa::Operand::Form::Imm || wait.operands[1].form != isa::Operand::Form::Imm ||
                (rows.present() && !(rows.form == isa::Operand::Form::Imm && rows.value == 1)))
                continue; // a register target (a loop's), or a strided copy whose chunks are not contiguous
            const std::int64_t target = wait.operands[1].value;
            const std::int64_t chunks = f->record.chunks;
            const std::uint64_t chunkBytes = (f->record.bytes + static_cast<std::uint64_t>(chunks) - 1) / static_cast<std::uint64_t>(chunks);
            const std::uint64_t dst = f->record.dstAddress;
            // The last chunk (0-based) a bundle touches, or -1.
            const auto lastChunk = [&](const Span& x) -> std::int64_t {
                if (x.begin >= x.end || x.end <= dst || x.begin >= dst + f->record.bytes)
                    return -1;
                return static_cast<std::int64_t>((std::min(x.end, dst + f->record.bytes) - 1 - dst) / chunkBytes);
            };
            const std::vector<bool> targets = branchTargets(program);
            const PcVmem& touched = vmem(c);
            Suggestion s;
            std::int64_t landed = 0; // chunks the new waits have required so far
            std::uint32_t q = pc + 1;
            for (; q < program.bundles.size() && !targets[q]; ++q) {
                const isa::Bundle& b = program.bundles[q];
                bool sameFlag = hasBranch(b);
                for (const isa::Instruction& insn : b.instructions)
                    sameFlag = sameFlag || ((insn.opcode == isa::Opcode::SyncWait || insn.opcode == isa::Opcode::SyncSet ||
                                             insn.opcode == isa::Opcode::SyncAdd) &&
                                            !(insn.operands[0].form == isa::Operand::Form::Imm && insn.operands[0].value != wait.operands[0].value));
                if (sameFlag)
                    break; // the block ends, or its flag is used again: the whole transfer is waited for here
                std::int64_t need = std::max(lastChunk(touched.reads[q]), lastChunk(touched.writes[q]));
                if (const auto d = m_dmasAt.find({c, q}); d != m_dmasAt.end())
                    for (const events::DmaRecord* r : d->second)
                        if (r->srcSpace == static_cast<int>(isa::Space::Vmem) && r->chip == c)
                            need = std::max(need, lastChunk({r->srcAddress, r->srcAddress + r->bytes}));
                if (need + 1 > landed) {
                    landed = need + 1;
                    s.change.pcs.push_back(q);
                    s.change.targets.push_back(target - chunks + landed);
                }
                if (landed == chunks)
                    break;
            }
            if (s.change.pcs.empty() || s.change.targets.front() >= target)
                continue; // the first use needs the whole transfer already
            if (landed < chunks) {
                s.change.pcs.push_back(q);
                s.change.targets.push_back(target);
            }
            s.kind = "whole-transfer-wait";
            s.change.kind = ChangeKind::RelaxWait;
            s.change.chips = {c};
            s.change.pc = pc;
            s.evidence.pcs = {{c, pc}, {c, f->record.pc}};
            s.evidence.dmas = {f->record.id};
            s.evidence.fromCycle = f->record.issue;
            s.evidence.toCycle = f->record.end;
            s.estimatedCycles = use.exposed;
            s.severity = severityFor(use.exposed);
            s.title = "Wait for each chunk of the DMA at pc " + std::to_string(f->record.pc) + ", not the whole transfer";
            s.explanation = "The sync.wait at pc " + std::to_string(pc) + " waits " + cyclesText(use.exposed) + " for all " +
                            std::to_string(chunks) + " chunks (" + text::formatBytes(chunkBytes) + " each) of the DMA at pc " +
                            std::to_string(f->record.pc) + ", but the bundles after it use them one after another. "
                            "Waiting for each chunk just before its first use (" + std::to_string(s.change.pcs.size()) +
                            " waits) lets the work on the first chunks overlap the rest of the transfer.";
            m_out.push_back(std::move(s));
        }
    }

    // The end of the highest VMEM address the chip's kernel declares or touches.
    std::uint64_t highestVmemUsed(int c) const
    {
        std::uint64_t top = 0;
        for (const trace::Buffer& b : chip(c).symbols.buffers)
            if (b.space == isa::Space::Vmem)
                top = std::max(top, b.address + b.size);
        for (const analysis::VmemChipUse& u : m_a.vmem.chips)
            if (u.chip == c)
                top = std::max(top, u.highestAddress);
        return top;
    }

    // A remote transfer whose shortest route is busy while the link directions of the way back round the
    // ring sit idle (a one-way ring collective): send some of its chunks the long way. With every chip doing
    // the same, k of n chunks sent the long way make each short link carry (n - k) chunks over h hops and
    // each long link k chunks over H hops; k minimises the later of the two parts' ends, latency included.
    void proposeRouteSplits()
    {
        const isa::MachineConfig& m = m_replay.trace.machine;
        std::vector<std::uint64_t> linkBytes(static_cast<std::size_t>(isa::linkCount(m)), 0);
        for (const analysis::LinkUse& l : m_a.collectives.links)
            if (l.link >= 0 && static_cast<std::size_t>(l.link) < linkBytes.size())
                linkBytes[static_cast<std::size_t>(l.link)] = l.bytes;
        std::map<std::uint32_t, bool> done;
        for (const DmaPcGroup& g : m_a.dma.byPc) {
            if (g.exposedCycles == 0 || done[g.pc] || m.dmaEngines < 2)
                continue;
            const auto records = m_dmasAt.find({g.chip, g.pc});
            if (records == m_dmasAt.end())
                continue;
            std::uint64_t shortBytes = 0, longBytes = 0;
            std::size_t shortHops = 0, longHops = 0;
            bool eligible = true;
            for (const events::DmaRecord* d : records->second) {
                m_cancel();
                eligible = eligible && d->dstChip != d->chip && !d->longWay;
                if (!eligible)
                    break;
                const std::vector<int> shortRoute = isa::iciRoute(m, d->chip, d->dstChip);
                const std::vector<int> longRoute = isa::iciRoute(m, d->chip, d->dstChip, true);
                shortHops = std::max(shortHops, shortRoute.size());
                longHops = std::max(longHops, longRoute.size());
                for (int l : shortRoute)
                    shortBytes = std::max(shortBytes, linkBytes[static_cast<std::size_t>(l)]);
                for (int l : longRoute)
                    longBytes = std::max(longBytes, linkBytes[static_cast<std::size_t>(l)]);
            }
            // The way back must be mostly idle: under a quarter of what the busiest short link carried.
            if (!eligible || shortHops == 0 || longHops == 0 || longBytes * 4 >= shortBytes)
                continue;
            const isa::Bundle& bundle = chip(g.chip).program.bundles[g.pc];
            const int at = findInstruction(bundle, isa::Opcode::DmaStart);
            if (at < 0)
                continue;
            const isa::Instruction& insn = bundle.instructions[static_cast<std::size_t>(at)];
            const Result<std::int64_t> chunk = wholeChunkBytes(insn, m);
            if (!chunk.ok())
                continue;
            const std::int64_t bytes = insn.operands[dma_operand::kBytes].value;
            const std::int64_t chunks = bytes / chunk.value();
            if (chunks < 2 || bytes % chunk.value() != 0)
                continue;
            const double perChunk = static_cast<double>(chunk.value()) / m.bytesPerCycle(m.iciLinkGBs);
            const auto finish = [&](std::int64_t k) {
                const double latency = static_cast<double>(m.iciLatencyCycles);
                const double shortEnd = static_cast<double>(shortHops) * (latency + static_cast<double>(chunks - k) * perChunk);
                const double longEnd = k == 0 ? 0.0 : static_cast<double>(longHops) * (latency + static_cast<double>(k) * perChunk);
                return std::max(shortEnd, longEnd);
            };
            std::int64_t longChunks = 0;
            for (std::int64_t k = 1; k < chunks; ++k)
                if (finish(k) < finish(longChunks))
                    longChunks = k;
            if (longChunks == 0)
                continue; // the long way's latency eats what the idle links would give
            const double f = 1.0 - finish(longChunks) / finish(0);
            done[g.pc] = true;
            Suggestion s;
            s.kind = "one-way-ring";
            s.change.kind = ChangeKind::SplitRoute;
            s.change.pc = g.pc;
            s.change.engine = leastBusyEngine(g.chip, g.engine);
            s.change.firstBytes = (chunks - longChunks) * chunk.value();
            std::uint64_t exposed = 0, transfers = 0;
            // Ring code names each chip's neighbour in chip=, so the chips' bundles differ only there.
            for (const DmaPcGroup* o : sameCode(g, [](const DmaPcGroup& x) { return x.exposedCycles > 0; }, true)) {
                s.change.chips.push_back(o->chip);
                s.evidence.pcs.push_back({o->chip, o->pc});
                exposed += o->exposedCycles;
                transfers += o->transfers;
                s.estimatedCycles = std::max(s.estimatedCycles, static_cast<std::uint64_t>(static_cast<double>(o->exposedCycles) * f));
                // (the share of each step the model expects to save, applied to the time waited for it)
            }
            addDmaEvidence(s, s.change.chips, g.pc);
            s.severity = severityFor(s.estimatedCycles);
            s.title = "Send part of the DMA at pc " + std::to_string(g.pc) + " the other way round the ring";
            s.explanation =
                "The " + std::to_string(transfers) + " transfers of pc " + std::to_string(g.pc) + " (" +
                text::formatBytes(g.bytes / std::max<std::uint64_t>(g.transfers, 1)) + " each, " + std::to_string(shortHops) +
                (shortHops == 1 ? " hop" : " hops") + ") all cross the same ICI link directions, one step after another, "
                "while the directions back round the ring carried " + text::formatBytes(longBytes) + " against " +
                text::formatBytes(shortBytes) + ": " + std::to_string(m_a.collectives.usedLinks) + " of " +
                std::to_string(m_a.collectives.links.size()) + " link directions carried data, and the cores waited " +
                cyclesText(exposed) + " for these transfers. Sending " + std::to_string(longChunks) + " of each transfer's " +
                std::to_string(chunks) + " chunks the long way (" + std::to_string(longHops) +
                (longHops == 1 ? " hop" : " hops") + ") on engine " + std::to_string(s.change.engine) +
                " puts the idle directions to work; the link model expects each step to take " +
                percentText(1.0 - f) + " of its time.";
            m_out.push_back(std::move(s));
        }
    }

    int leastBusyEngine(int c, int except) const
    {
        const int engines = static_cast<int>(m_replay.trace.machine.dmaEngines);
        std::vector<std::uint64_t> busy(static_cast<std::size_t>(engines), 0);
        for (const analysis::EngineUse& e : m_a.dma.engines)
            if (e.chip == c && e.engine < engines)
                busy[static_cast<std::size_t>(e.engine)] = e.busyCycles;
        int best = except == 0 ? 1 : 0;
        for (int e = 0; e < engines; ++e)
            if (e != except && busy[static_cast<std::size_t>(e)] < busy[static_cast<std::size_t>(best)])
                best = e;
        return best;
    }

    void proposeRebalance()
    {
        const int engines = static_cast<int>(m_replay.trace.machine.dmaEngines);
        for (const analysis::EngineBalance& b : m_a.dma.balance) {
            if (b.queueDelayCycles == 0 || b.enginesUsed >= engines || engines < 2)
                continue;
            // The chip's dma.start pcs, in program order, dealt round-robin over every engine.
            std::vector<std::uint32_t> pcs;
            for (const DmaPcGroup& g : m_a.dma.byPc)
                if (g.chip == b.chip && g.transfers > 0)
                    pcs.push_back(g.pc);
            std::sort(pcs.begin(), pcs.end());
            if (pcs.size() < 2)
                continue;
            Suggestion s;
            s.kind = "engine-imbalance";
            s.change.kind = ChangeKind::RebalanceEngines;
            s.change.chips = {b.chip};
            for (std::size_t i = 0; i < pcs.size(); ++i)
                s.change.engines.push_back({pcs[i], static_cast<int>(i % static_cast<std::size_t>(engines))});
            for (std::uint32_t pc : pcs)
                s.evidence.pcs.push_back({b.chip, pc});
            s.estimatedCycles = b.queueDelayCycles;
            s.severity = severityFor(s.estimatedCycles);
            s.title = "Spread chip " + std::to_string(b.chip) + "'s DMAs over its " + std::to_string(engines) + " engines";
            s.explanation = "Chip " + std::to_string(b.chip) + " uses " + std::to_string(b.enginesUsed) + " of " +
                            std::to_string(engines) + " DMA engines (busiest engine at " + text::formatDouble(b.imbalance) +
                            "x the mean); its transfers waited " + cyclesText(b.queueDelayCycles) +
                            " in queues behind each other while other engines were idle.";
            m_out.push_back(std::move(s));
        }
    }

    void addWhatIf(const std::string& kind, const std::string& param, double value, const std::string& title,
                   const std::string& why)
    {
        addWhatIf(kind, param, text::formatDouble(value), title, why);
    }
    void addWhatIf(const std::string& kind, const std::string& param, const std::string& value, const std::string& title,
                   const std::string& why)
    {
        Suggestion s;
        s.kind = kind;
        s.whatIf = true;
        s.severity = Severity::Low;
        s.change.kind = ChangeKind::MachineParam;
        s.change.param = param;
        s.change.value = value;
        s.title = title;
        s.explanation = why;
        s.evidence.toCycle = m_replay.totalCycles;
        m_out.push_back(std::move(s));
    }

    void proposeWhatIfs()
    {
        const isa::MachineConfig& m = m_replay.trace.machine;
        const double exposed = static_cast<double>(m_a.dma.exposedCycles) / total() / static_cast<double>(std::max<std::size_t>(m_replay.chips.size(), 1));
        if (m_a.summary.hbmUtilization > 0.25 || exposed > 0.05)
            addWhatIf("hbm-bandwidth", "hbm_bandwidth_gbs", m.hbmBandwidthGBs * 2, "What if HBM bandwidth doubled?",
                      "HBM utilization is " + percentText(m_a.summary.hbmUtilization) + " and the cores waited on DMAs for " +
                          percentText(exposed) + " of the run.");
        if (exposed > 0.05)
            addWhatIf("dma-engine-peak", "dma_engine_peak_gbs", m.dmaEnginePeakGBs * 2, "What if each DMA engine were twice as fast?",
                      "The cores waited on DMAs for " + percentText(exposed) + " of the run.");
        if (m_a.collectives.usedLinks > 0)
            addWhatIf("ici-bandwidth", "ici_link_gbs", m.iciLinkGBs * 2, "What if ICI links were twice as fast?",
                      std::to_string(m_a.collectives.usedLinks) + " ICI link directions carried data.");
        // Capacity planning the other way: would a smaller chip run this kernel as fast?
        std::uint64_t vmemTop = 0;
        for (std::size_t c = 0; c < m_replay.trace.chips.size(); ++c)
            vmemTop = std::max(vmemTop, highestVmemUsed(static_cast<int>(c)));
        const auto vmemBytes = static_cast<std::uint64_t>(m.vmemBytes);
        if (vmemTop > 0 && vmemTop <= vmemBytes / 2)
            addWhatIf("vmem-size", "vmem_bytes", std::to_string(vmemBytes / 2),
                      "What if VMEM were half the size (" + text::formatBytes(vmemBytes / 2) + ")?",
                      "Every VMEM address the kernel uses is below " + text::formatBytes(vmemTop) + " of " +
                          text::formatBytes(vmemBytes) + ": a chip with half the VMEM holds it (the replay measures "
                          "whether it also runs as fast).");
        int enginesUsed = 0;
        for (const analysis::EngineUse& e : m_a.dma.engines)
            enginesUsed = std::max(enginesUsed, e.engine + 1);
        if (enginesUsed > 0 && m.dmaEngines >= 2 && enginesUsed <= m.dmaEngines / 2)
            addWhatIf("dma-engines", "dma_engines", std::to_string(m.dmaEngines / 2),
                      "What if the chip had " + std::to_string(m.dmaEngines / 2) + " DMA engines instead of " +
                          std::to_string(m.dmaEngines) + "?",
                      "The kernel only queues work on engines 0-" + std::to_string(enginesUsed - 1) + " of " +
                          std::to_string(m.dmaEngines) + ": the replay measures what the others are worth to it.");
    }

    // A generated kernel whose tile is far smaller than VMEM allows, paying a DMA setup and a sync round
    // trip per tile: re-generate it with the largest tile (up to 64x) whose kernel still builds (the
    // generator checks that it fits VMEM and divides the data) and measure the round trips saved.
    void proposeTileSize()
    {
        const auto& generated = m_replay.trace.generatedBy;
        const workloads::Workload* w = generated ? workloads::findWorkload(generated->workload) : nullptr;
        if (!w || w->tileParameter.empty() || !generated->params.count(w->tileParameter))
            return;
        const std::uint64_t capacity = std::max<std::uint64_t>(m_a.vmem.capacity, 1);
        const double used = static_cast<double>(m_a.vmem.peakLiveBytes) / static_cast<double>(capacity);
        std::uint64_t small = 0, transfers = 0, setup = 0;
        for (const DmaPcGroup& g : m_a.dma.byPc) {
            small += g.smallTransfers;
            transfers += g.transfers;
            setup += g.setupCycles;
        }
        if (used >= 0.10 || small == 0)
            return;
        const std::int64_t tile = generated->params.at(w->tileParameter);
        std::int64_t best = 0;
        for (std::int64_t factor = 64; factor >= 4 && best == 0; factor /= 2) {
            std::map<std::string, std::int64_t> params = generated->params;
            params[w->tileParameter] = tile * factor;
            if (workloads::generateAssembly(generated->workload, generated->variant, params))
                best = tile * factor;
        }
        if (best == 0)
            return;
        Suggestion s;
        s.kind = "tile-size";
        s.whatIf = true;
        s.severity = severityFor(setup);
        s.change.kind = ChangeKind::Regenerate;
        s.change.param = w->tileParameter;
        s.change.value = std::to_string(best);
        s.estimatedCycles = setup;
        s.evidence.toCycle = m_replay.totalCycles;
        const std::uint64_t after = transfers * static_cast<std::uint64_t>(tile) / static_cast<std::uint64_t>(best);
        s.title = "What if the tile were " + text::formatBytes(static_cast<std::uint64_t>(best)) + " instead of " +
                  text::formatBytes(static_cast<std::uint64_t>(tile)) + "?";
        s.explanation = "The kernel uses " + text::formatBytes(m_a.vmem.peakLiveBytes) + " of " + text::formatBytes(capacity) +
                        " of VMEM (" + percentText(1.0 - used) + " unused) and moves its data in " + std::to_string(transfers) +
                        " DMAs, " + std::to_string(small) + " of them too small to reach bandwidth (" + cyclesText(setup) +
                        " of setup). Re-generating " + generated->workload + " with " + w->tileParameter + " = " +
                        std::to_string(best) + " makes it about " + std::to_string(after) + " DMAs: " +
                        std::to_string(transfers - std::min(transfers, after)) + " round trips saved.";
        m_out.push_back(std::move(s));
    }

    void addDmaEvidence(Suggestion& s, const std::vector<int>& chips, std::uint32_t pc)
    {
        std::uint64_t from = UINT64_MAX, to = 0;
        for (int c : chips) {
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

    const ReplayView& m_replay;
    const Analyses& m_a;
    events::BundleSnapshot m_bundles;
    analysis::ChipIndex m_index;
    std::map<std::pair<int, std::uint32_t>, std::vector<std::uint32_t>> m_waitDmas;
    std::map<std::pair<int, std::uint32_t>, std::vector<const events::DmaRecord*>> m_dmasAt;
    std::map<int, PcVmem> m_vmem;
    std::vector<Suggestion> m_out;
    CancelPoint m_cancel;
};

} // namespace

std::vector<Suggestion> proposeSuggestions(const analysis::ReplayView& replay, const analysis::Analyses& analyses)
{
    return Proposer(replay, analyses).run();
}

} // namespace xps::suggest

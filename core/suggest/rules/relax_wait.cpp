// A sync.wait for every chunk of a DMA whose chunks the following bundles use one after another: wait for
// each chunk before its first use.

#include "suggest/rules/rules.h"

#include "suggest/program_edit.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

// A sync.wait, executed once, that waits for every chunk of one DMA into VMEM while the bundles after
// it (in its basic block) read the chunks one after another: wait for each chunk just before its first
// use instead, and for the whole transfer at the block's end (what follows may rely on it).
void proposeRelaxedWaits(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    struct WaitUse
    {
        std::uint64_t executions = 0, exposed = 0;
        std::int64_t dma = -1;
    };
    std::map<std::pair<ChipId, std::uint32_t>, WaitUse> waits;
    ctx.replay.store.forEachSyncWait([&](const events::SyncWaitRecord& w) {
        ctx.cancel();
        WaitUse& u = waits[{w.chip, w.pc}];
        ++u.executions;
        u.exposed += w.end - w.start;
        u.dma = w.satisfiedBy;
    });
    for (const auto& [key, use] : waits) {
        const auto [c, pc] = key;
        if (use.executions != 1 || use.exposed == 0 || use.dma < 0)
            continue;
        const analysis::DmaFacts* f = ctx.analyses.dma.find(static_cast<std::uint32_t>(use.dma));
        if (!f || f->record.chunks < 2 || f->record.dstChip != c ||
            f->record.dstSpace != static_cast<int>(isa::Space::Vmem))
            continue;
        const isa::Program& program = ctx.chip(c).program;
        const int at = findInstruction(program.bundles[pc], isa::Opcode::SyncWait);
        const int dmaAt =
            f->record.chip == c ? findInstruction(program.bundles[f->record.pc], isa::Opcode::DmaStart) : -1;
        if (at < 0 || dmaAt < 0)
            continue;
        const isa::Instruction& wait = program.bundles[pc].instructions[static_cast<std::size_t>(at)];
        const isa::Operand& rows = program.bundles[f->record.pc]
                                       .instructions[static_cast<std::size_t>(dmaAt)]
                                       .operands[dma_operand::kRows];
        if (wait.operands[0].form != isa::Operand::Form::Imm ||
            wait.operands[1].form != isa::Operand::Form::Imm ||
            (rows.present() && !(rows.form == isa::Operand::Form::Imm && rows.value == 1)))
            continue; // a register target (a loop's), or a strided copy whose chunks are not contiguous
        const std::int64_t target = wait.operands[1].value;
        const std::int64_t chunks = f->record.chunks;
        const std::uint64_t chunkBytes =
            (f->record.bytes + static_cast<std::uint64_t>(chunks) - 1) / static_cast<std::uint64_t>(chunks);
        const std::uint64_t dst = f->record.dstAddress;
        // The last chunk (0-based) a bundle touches, or -1.
        const auto lastChunk = [&](const Span& x) -> std::int64_t {
            if (x.begin >= x.end || x.end <= dst || x.begin >= dst + f->record.bytes)
                return -1;
            return static_cast<std::int64_t>((std::min(x.end, dst + f->record.bytes) - 1 - dst) / chunkBytes);
        };
        const std::vector<bool> targets = branchTargets(program);
        const PcVmem& touched = ctx.vmem(c);
        Suggestion s;
        std::int64_t landed = 0; // chunks the new waits have required so far
        std::uint32_t q = pc + 1;
        for (; q < program.bundles.size() && !targets[q]; ++q) {
            const isa::Bundle& b = program.bundles[q];
            bool sameFlag = hasBranch(b);
            for (const isa::Instruction& insn : b.instructions)
                sameFlag = sameFlag ||
                           ((insn.opcode == isa::Opcode::SyncWait || insn.opcode == isa::Opcode::SyncSet ||
                             insn.opcode == isa::Opcode::SyncAdd) &&
                            !(insn.operands[0].form == isa::Operand::Form::Imm &&
                              insn.operands[0].value != wait.operands[0].value));
            if (sameFlag)
                break; // the block ends, or its flag is used again: the whole transfer is waited for here
            std::int64_t need = std::max(lastChunk(touched.reads[q]), lastChunk(touched.writes[q]));
            if (const auto d = ctx.dmasAt.find({c, q}); d != ctx.dmasAt.end())
                for (const events::DmaRecord* r : d->second)
                    if (r->srcSpace == static_cast<int>(isa::Space::Vmem) && r->chip == c)
                        need = std::max(
                            need, lastChunk({r->srcAddress, r->srcAddress + events::dmaSourceBytes(*r)}));
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
        s.severity = ctx.severityFor(use.exposed);
        s.title = "Wait for each chunk of the DMA at pc " + std::to_string(f->record.pc) +
                  ", not the whole transfer";
        s.explanation = "The sync.wait at pc " + std::to_string(pc) + " waits " + cyclesText(use.exposed) +
                        " for all " + std::to_string(chunks) + " chunks (" + text::formatBytes(chunkBytes) +
                        " each) of the DMA at pc " + std::to_string(f->record.pc) +
                        ", but the bundles after it use them one after another. "
                        "Waiting for each chunk just before its first use (" +
                        std::to_string(s.change.pcs.size()) +
                        " waits) lets the work on the first chunks overlap the rest of the transfer.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

// A loop that refills its one VMEM buffer and waits for it: fetch the next block into a second buffer.

#include "suggest/rules/rules.h"

#include "isa/register_use.h"
#include "suggest/program_edit.h"
#include "suggest/transform.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

// Loops that refill their one buffer and wait for it (the VMEM analysis's single-buffered loops), when
// VMEM has room for a second: one change per chip and buffer, covering every such loop, applied on a
// copy first so only changes the transformation accepts are proposed.
void proposeDoubleBuffers(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const std::uint64_t capacity = static_cast<std::uint64_t>(ctx.replay.trace.machine.vmemBytes);
    std::map<std::tuple<ChipId, std::string, std::uint64_t>, std::vector<const analysis::SingleBufferedLoop*>>
        groups;
    for (const analysis::SingleBufferedLoop& l : ctx.analyses.vmem.singleBuffered) {
        const auto records = ctx.dmasAt.find({l.chip, l.dmaPc});
        if (!l.fitsTwice || records == ctx.dmasAt.end() || records->second.empty())
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
        const std::uint64_t second = (ctx.highestVmemUsed(c) + 4095) / 4096 * 4096;
        const std::uint32_t used = scalarRegistersUsed(ctx.chip(c));
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
        probe.program = ctx.chip(c).program;
        probe.symbols = ctx.chip(c).symbols;
        probe.initial.scalarRegisters = ctx.chip(c).initial.scalarRegisters;
        if (!applyProgramChange(probe, s.change, ctx.replay.trace.machine).ok())
            continue; // e.g. a loop of several basic blocks
        for (std::uint32_t pc : s.change.pcs) {
            s.evidence.pcs.push_back({c, pc});
            ctx.addDmaEvidence(s, {c}, pc);
        }
        s.evidence.fromCycle = 0;
        s.evidence.toCycle = ctx.replay.totalCycles;
        s.estimatedCycles = exposed;
        s.severity = ctx.severityFor(exposed);
        s.title = "Double-buffer " + buffer +
                  (loops.size() > 1 ? " in " + std::to_string(loops.size()) + " loops" : "") + " on chip " +
                  std::to_string(c.value);
        s.explanation =
            std::string(loops.size() > 1 ? "Loops refill " : "A loop refills ") + buffer + " (" +
            text::formatBytes(bytes) + ") " + std::to_string(refills) + " times and the core waited " +
            cyclesText(exposed) +
            " for the refills, because each block is fetched only after the previous one was "
            "used. VMEM has room for a second buffer at " +
            text::hex(second) +
            ": fetching the next block into it at the top of each iteration overlaps the transfer with the "
            "iteration's work.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

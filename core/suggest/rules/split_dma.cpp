// An engine-bound transfer (one engine slower than the path behind it) the core waited for: split it in
// halves over two engines.

#include "suggest/rules/rules.h"

#include "suggest/program_edit.h"
#include "suggest/transform.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

void proposeSplits(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const isa::MachineConfig& m = ctx.replay.trace.machine;
    std::map<std::uint32_t, bool> done;
    for (const DmaPcGroup& g : ctx.analyses.dma.byPc) {
        if (g.exposedCycles == 0 || done[g.pc] || m.dmaEngines < 2)
            continue;
        const auto records = ctx.dmasAt.find({g.chip, g.pc});
        if (records == ctx.dmasAt.end())
            continue;
        bool local = true, touchesHbm = false;
        for (const events::DmaRecord* d : records->second) {
            ctx.cancel();
            local = local && d->dstChip == d->chip;
            touchesHbm = touchesHbm || d->srcSpace == static_cast<int>(isa::Space::Hbm) ||
                         d->dstSpace == static_cast<int>(isa::Space::Hbm);
        }
        // One engine can only be the bottleneck if the path behind it is faster.
        const double path = touchesHbm ? m.hbmBandwidthGBs : m.vmemDmaBandwidthGBs;
        if (!local || m.dmaEnginePeakGBs >= path)
            continue;
        const int engine = ctx.leastBusyEngine(g.chip, g.engine);
        Suggestion s;
        s.kind = "engine-bound-dma";
        s.change.kind = ChangeKind::SplitDma;
        s.change.pc = g.pc;
        s.change.engine = engine;
        for (const DmaPcGroup* o : ctx.sameCode(g, [](const DmaPcGroup& x) { return x.exposedCycles > 0; })) {
            s.change.chips.push_back(o->chip);
            s.evidence.pcs.push_back({o->chip, o->pc});
            s.estimatedCycles = std::max(s.estimatedCycles, o->exposedCycles / 2);
        }
        const isa::Bundle& bundle = ctx.chip(g.chip).program.bundles[g.pc];
        const int at = findInstruction(bundle, isa::Opcode::DmaStart);
        if (at < 0 || !splitHalfBytes(bundle.instructions[static_cast<std::size_t>(at)], m).ok())
            continue; // e.g. a register byte count or halves that are not whole chunks
        done[g.pc] = true;
        ctx.addDmaEvidence(s, s.change.chips, g.pc);
        s.severity = ctx.severityFor(s.estimatedCycles);
        s.title = "Split the DMA at pc " + std::to_string(g.pc) + " over engines " +
                  std::to_string(g.engine) + " and " + std::to_string(engine);
        s.explanation = "The transfers of pc " + std::to_string(g.pc) + " (" +
                        text::formatBytes(g.bytes / std::max<std::uint64_t>(g.transfers, 1)) +
                        " each) run on one engine, whose peak (" + text::formatDouble(m.dmaEnginePeakGBs) +
                        " GB/s) is below the " + (touchesHbm ? "HBM" : "VMEM copy") + " bandwidth (" +
                        text::formatDouble(path) + " GB/s), and the core waited " +
                        cyclesText(g.exposedCycles) +
                        " for them. Two halves on two engines move at up to twice the rate.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

// A chip that queues its DMAs on a few engines while others sit idle: deal its dma.starts over every engine.

#include "suggest/rules/rules.h"

#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

void proposeRebalance(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const int engines = static_cast<int>(ctx.replay.trace.machine.dmaEngines);
    for (const analysis::EngineBalance& b : ctx.analyses.dma.balance) {
        if (b.queueDelayCycles == 0 || b.enginesUsed >= engines || engines < 2)
            continue;
        // The chip's dma.start pcs, in program order, dealt round-robin over every engine.
        std::vector<std::uint32_t> pcs;
        for (const DmaPcGroup& g : ctx.analyses.dma.byPc)
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
        s.severity = ctx.severityFor(s.estimatedCycles);
        s.title = "Spread chip " + std::to_string(b.chip.value) + "'s DMAs over its " +
                  std::to_string(engines) + " engines";
        s.explanation = "Chip " + std::to_string(b.chip.value) + " uses " + std::to_string(b.enginesUsed) +
                        " of " + std::to_string(engines) + " DMA engines (busiest engine at " +
                        text::formatDouble(b.imbalance) + "x the mean); its transfers waited " +
                        cyclesText(b.queueDelayCycles) +
                        " in queues behind each other while other engines were idle.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

// A dma.start issued later than its data flow allows while the core waited for it: move it up its basic block
// (also across a sync.wait on DMAs it does not depend on: the fix for a serialized pair).

#include "suggest/rules/rules.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

void proposeHoists(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    std::map<std::pair<std::uint32_t, std::int64_t>, bool> done;
    for (const DmaPcGroup& g : ctx.analyses.dma.byPc) {
        // A few cycles of slack are not worth a change (nor a line in the list).
        if (g.hideableCycles < kMinHideableCycles || g.pc >= ctx.chip(g.chip).program.bundles.size())
            continue;
        const ProposalContext::Target target = ctx.hoistTarget(g.chip, g.pc);
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
        for (const DmaPcGroup* o :
             ctx.sameCode(g, [](const DmaPcGroup& x) { return x.hideableCycles > 0; })) {
            if (!(ctx.hoistTarget(o->chip, o->pc) == target))
                continue;
            s.change.chips.push_back(o->chip);
            s.evidence.pcs.push_back({o->chip, o->pc});
            s.estimatedCycles = std::max(s.estimatedCycles, o->hideableCycles);
            exposed += o->exposedCycles;
            late += o->lateCycles;
            transfers += o->transfers;
        }
        ctx.addDmaEvidence(s, s.change.chips, g.pc);
        s.severity = ctx.severityFor(s.estimatedCycles);
        s.title = "Issue the DMA at pc " + std::to_string(g.pc) + " earlier (pc " + std::to_string(to) + ")";
        s.explanation = "The dma.start at pc " + std::to_string(g.pc) + " (" + std::to_string(transfers) +
                        (transfers == 1 ? " transfer" : " transfers") + ") is issued on average " +
                        cyclesText(late / std::max<std::uint64_t>(transfers, 1)) +
                        " after its source was written and its destination last used, and the core waited " +
                        cyclesText(exposed) + " for it in sync.wait. Nothing between pc " +
                        std::to_string(to) + " and pc " + std::to_string(g.pc) +
                        " writes its registers, its source or its destination, so it can start there.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

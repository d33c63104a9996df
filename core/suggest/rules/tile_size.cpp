// A generated kernel whose tile is far smaller than VMEM allows: re-generate it with a larger tile.

#include "suggest/rules/rules.h"

#include "util/text.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

// A generated kernel whose tile is far smaller than VMEM allows, paying a DMA setup and a sync round
// trip per tile: re-generate it with the largest tile (up to 64x) whose kernel still builds (the
// generator checks that it fits VMEM and divides the data) and measure the round trips saved.
void proposeTileSize(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const auto& generated = ctx.replay.trace.generatedBy;
    const workloads::Workload* w = generated ? workloads::findWorkload(generated->workload) : nullptr;
    if (!w || w->tileParameter.empty() || !generated->params.count(w->tileParameter))
        return;
    const std::uint64_t capacity = std::max<std::uint64_t>(ctx.analyses.vmem.capacity, 1);
    const double used = static_cast<double>(ctx.analyses.vmem.peakLiveBytes) / static_cast<double>(capacity);
    std::uint64_t small = 0, transfers = 0, setup = 0;
    for (const DmaPcGroup& g : ctx.analyses.dma.byPc) {
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
    s.severity = ctx.severityFor(setup);
    s.change.kind = ChangeKind::Regenerate;
    s.change.param = w->tileParameter;
    s.change.value = std::to_string(best);
    s.estimatedCycles = setup;
    s.evidence.toCycle = ctx.replay.totalCycles;
    const std::uint64_t after =
        transfers * static_cast<std::uint64_t>(tile) / static_cast<std::uint64_t>(best);
    s.title = "What if the tile were " + text::formatBytes(static_cast<std::uint64_t>(best)) +
              " instead of " + text::formatBytes(static_cast<std::uint64_t>(tile)) + "?";
    s.explanation = "The kernel uses " + text::formatBytes(ctx.analyses.vmem.peakLiveBytes) + " of " +
                    text::formatBytes(capacity) + " of VMEM (" + percentText(1.0 - used) +
                    " unused) and moves its data in " + std::to_string(transfers) + " DMAs, " +
                    std::to_string(small) + " of them too small to reach bandwidth (" + cyclesText(setup) +
                    " of setup). Re-generating " + generated->workload + " with " + w->tileParameter + " = " +
                    std::to_string(best) + " makes it about " + std::to_string(after) +
                    " DMAs: " + std::to_string(transfers - std::min(transfers, after)) +
                    " round trips saved.";
    out.push_back(std::move(s));
}

} // namespace xps::suggest::detail

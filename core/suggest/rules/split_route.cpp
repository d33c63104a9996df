// A one-way ring collective: send part of a remote transfer the long way round the ring, over the idle link
// directions.

#include "suggest/rules/rules.h"

#include "isa/topology.h"
#include "suggest/program_edit.h"
#include "suggest/transform.h"
#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

// A remote transfer whose shortest route is busy while the link directions of the way back round the
// ring sit idle (a one-way ring collective): send some of its chunks the long way. With every chip doing
// the same, k of n chunks sent the long way make each short link carry (n - k) chunks over h hops and
// each long link k chunks over H hops; k minimises the later of the two parts' ends, latency included.
void proposeRouteSplits(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const isa::MachineConfig& m = ctx.replay.trace.machine;
    std::vector<std::uint64_t> linkBytes(static_cast<std::size_t>(isa::linkCount(m)), 0);
    for (const analysis::LinkUse& l : ctx.analyses.collectives.links)
        if (l.link >= 0 && static_cast<std::size_t>(l.link) < linkBytes.size())
            linkBytes[static_cast<std::size_t>(l.link)] = l.bytes;
    std::map<std::uint32_t, bool> done;
    for (const DmaPcGroup& g : ctx.analyses.dma.byPc) {
        if (g.exposedCycles == 0 || done[g.pc] || m.dmaEngines < 2)
            continue;
        const auto records = ctx.dmasAt.find({g.chip, g.pc});
        if (records == ctx.dmasAt.end())
            continue;
        std::uint64_t shortBytes = 0, longBytes = 0;
        std::size_t shortHops = 0, longHops = 0;
        bool eligible = true;
        for (const events::DmaRecord* d : records->second) {
            ctx.cancel();
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
        const isa::Bundle& bundle = ctx.chip(g.chip).program.bundles[g.pc];
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
            const double shortEnd =
                static_cast<double>(shortHops) * (latency + static_cast<double>(chunks - k) * perChunk);
            const double longEnd =
                k == 0 ? 0.0 : static_cast<double>(longHops) * (latency + static_cast<double>(k) * perChunk);
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
        s.change.engine = ctx.leastBusyEngine(g.chip, g.engine);
        s.change.firstBytes = (chunks - longChunks) * chunk.value();
        std::uint64_t exposed = 0, transfers = 0;
        // Ring code names each chip's neighbour in chip=, so the chips' bundles differ only there.
        for (const DmaPcGroup* o : ctx.sameCode(
                 g, [](const DmaPcGroup& x) { return x.exposedCycles > 0; }, true)) {
            s.change.chips.push_back(o->chip);
            s.evidence.pcs.push_back({o->chip, o->pc});
            exposed += o->exposedCycles;
            transfers += o->transfers;
            s.estimatedCycles = std::max(
                s.estimatedCycles, static_cast<std::uint64_t>(static_cast<double>(o->exposedCycles) * f));
            // (the share of each step the model expects to save, applied to the time waited for it)
        }
        ctx.addDmaEvidence(s, s.change.chips, g.pc);
        s.severity = ctx.severityFor(s.estimatedCycles);
        s.title = "Send part of the DMA at pc " + std::to_string(g.pc) + " the other way round the ring";
        s.explanation = "The " + std::to_string(transfers) + " transfers of pc " + std::to_string(g.pc) +
                        " (" + text::formatBytes(g.bytes / std::max<std::uint64_t>(g.transfers, 1)) +
                        " each, " + std::to_string(shortHops) + (shortHops == 1 ? " hop" : " hops") +
                        ") all cross the same ICI link directions, one step after another, "
                        "while the directions back round the ring carried " +
                        text::formatBytes(longBytes) + " against " + text::formatBytes(shortBytes) + ": " +
                        std::to_string(ctx.analyses.collectives.usedLinks) + " of " +
                        std::to_string(ctx.analyses.collectives.links.size()) +
                        " link directions carried data, and the cores waited " + cyclesText(exposed) +
                        " for these transfers. Sending " + std::to_string(longChunks) +
                        " of each transfer's " + std::to_string(chunks) + " chunks the long way (" +
                        std::to_string(longHops) + (longHops == 1 ? " hop" : " hops") + ") on engine " +
                        std::to_string(s.change.engine) +
                        " puts the idle directions to work; the link model expects each step to take " +
                        percentText(1.0 - f) + " of its time.";
        out.push_back(std::move(s));
    }
}

} // namespace xps::suggest::detail

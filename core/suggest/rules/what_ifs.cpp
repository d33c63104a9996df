// Hardware what-ifs for capacity planning: HBM, DMA engine and ICI bandwidth doubled; half the VMEM or DMA
// engines when the kernel leaves them unused.

#include "suggest/rules/rules.h"

#include "util/text.h"

#include <algorithm>
#include <map>

namespace xps::suggest::detail {

namespace {

// A machine parameter changed, measured by replaying on the changed machine.
void addWhatIf(ProposalContext& ctx, std::vector<Suggestion>& out, const std::string& kind,
               const std::string& param, const std::string& value, const std::string& title,
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
    s.evidence.toCycle = ctx.replay.totalCycles;
    out.push_back(std::move(s));
}

void addWhatIf(ProposalContext& ctx, std::vector<Suggestion>& out, const std::string& kind,
               const std::string& param, double value, const std::string& title, const std::string& why)
{
    addWhatIf(ctx, out, kind, param, text::formatDouble(value), title, why);
}

} // namespace

void proposeWhatIfs(ProposalContext& ctx, std::vector<Suggestion>& out)
{
    const isa::MachineConfig& m = ctx.replay.trace.machine;
    const double exposed = static_cast<double>(ctx.analyses.dma.exposedCycles) / ctx.total() /
                           static_cast<double>(std::max<std::size_t>(ctx.replay.chips.size(), 1));
    if (ctx.analyses.summary.hbmUtilization > 0.25 || exposed > 0.05)
        addWhatIf(ctx, out, "hbm-bandwidth", "hbm_bandwidth_gbs", m.hbmBandwidthGBs * 2,
                  "What if HBM bandwidth doubled?",
                  "HBM utilization is " + percentText(ctx.analyses.summary.hbmUtilization) +
                      " and the cores waited on DMAs for " + percentText(exposed) + " of the run.");
    if (exposed > 0.05)
        addWhatIf(ctx, out, "dma-engine-peak", "dma_engine_peak_gbs", m.dmaEnginePeakGBs * 2,
                  "What if each DMA engine were twice as fast?",
                  "The cores waited on DMAs for " + percentText(exposed) + " of the run.");
    if (ctx.analyses.collectives.usedLinks > 0)
        addWhatIf(ctx, out, "ici-bandwidth", "ici_link_gbs", m.iciLinkGBs * 2,
                  "What if ICI links were twice as fast?",
                  std::to_string(ctx.analyses.collectives.usedLinks) + " ICI link directions carried data.");
    // Capacity planning the other way: would a smaller chip run this kernel as fast?
    std::uint64_t vmemTop = 0;
    for (std::size_t c = 0; c < ctx.replay.trace.chips.size(); ++c)
        vmemTop = std::max(vmemTop, ctx.highestVmemUsed(chipIdAt(c)));
    const auto vmemBytes = static_cast<std::uint64_t>(m.vmemBytes);
    if (vmemTop > 0 && vmemTop <= vmemBytes / 2)
        addWhatIf(ctx, out, "vmem-size", "vmem_bytes", std::to_string(vmemBytes / 2),
                  "What if VMEM were half the size (" + text::formatBytes(vmemBytes / 2) + ")?",
                  "Every VMEM address the kernel uses is below " + text::formatBytes(vmemTop) + " of " +
                      text::formatBytes(vmemBytes) +
                      ": a chip with half the VMEM holds it (the replay measures "
                      "whether it also runs as fast).");
    int enginesUsed = 0;
    for (const analysis::EngineUse& e : ctx.analyses.dma.engines)
        enginesUsed = std::max(enginesUsed, e.engine + 1);
    if (enginesUsed > 0 && m.dmaEngines >= 2 && enginesUsed <= m.dmaEngines / 2)
        addWhatIf(ctx, out, "dma-engines", "dma_engines", std::to_string(m.dmaEngines / 2),
                  "What if the chip had " + std::to_string(m.dmaEngines / 2) + " DMA engines instead of " +
                      std::to_string(m.dmaEngines) + "?",
                  "The kernel only queues work on engines 0-" + std::to_string(enginesUsed - 1) + " of " +
                      std::to_string(m.dmaEngines) +
                      ": the replay measures what the others are worth to it.");
}

} // namespace xps::suggest::detail

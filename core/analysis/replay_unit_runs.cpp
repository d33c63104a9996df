#include "analysis/replay_unit_runs.h"

#include <algorithm>

namespace xps::analysis {

std::vector<ChipUnitRuns> unitRunsOf(const ReplayView& replay, CancelPoint& cancel)
{
    struct Open
    {
        UnitRun run;
        std::uint64_t bundles = 0;
    };
    const std::size_t chips = replay.trace.chips.size();
    std::vector<std::vector<std::array<std::uint32_t, kUnitGroupCount>>> busy;
    for (std::size_t c = 0; c < chips; ++c)
        busy.push_back(unitGroupBusyPerPc(replay.trace, chipIdAt(c)));
    std::vector<std::array<Open, kProfiledUnits.size()>> open(chips);
    // Kept per chip and unit: a reader writes them track by track, each in time order, which needs no sort.
    std::vector<ChipUnitRuns> runs(chips);
    const auto close = [&](std::size_t chip, std::size_t u) {
        Open& o = open[chip][u];
        if (o.bundles == 0)
            return;
        runs[chip][u].push_back(o.run);
        o = Open{};
    };
    const events::BundleSnapshot bundles = replay.store.bundles();
    for (const auto& chunk : bundles.chunks()) {
        for (std::size_t i = 0; i < chunk->size; ++i) {
            cancel();
            const std::size_t chip = chunk->chip[i].value;
            const std::uint32_t pc = chunk->pc[i];
            const events::Cycle cycle = chunk->cycleAt(i);
            if (chip >= chips || pc >= busy[chip].size())
                continue;
            for (std::size_t u = 0; u < kProfiledUnits.size(); ++u) {
                const std::uint32_t cycles = busy[chip][pc][static_cast<std::size_t>(kProfiledUnits[u])];
                if (cycles == 0)
                    continue;
                Open& o = open[chip][u];
                if (o.bundles > 0 && cycle > o.run.end)
                    close(chip, u);
                if (o.bundles == 0) {
                    o.run.start = cycle;
                    o.run.firstPc = pc;
                }
                o.run.end = std::max(o.run.end, cycle + cycles);
                ++o.bundles;
            }
        }
    }
    for (std::size_t c = 0; c < chips; ++c)
        for (std::size_t u = 0; u < kProfiledUnits.size(); ++u)
            close(c, u);
    return runs;
}

} // namespace xps::analysis

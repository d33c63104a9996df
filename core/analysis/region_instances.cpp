#include "analysis/region_instances.h"

#include <vector>

namespace xps::analysis {

std::optional<CycleRange> firstInstanceOfRegion(const ReplayView& replay, const std::string& path)
{
    std::optional<CycleRange> first;
    for (const ChipId chip : idsBelow<ChipId>(replay.trace.chips.size())) {
        // As the summary sweeps them: by entry, the outer of two that enter together first.
        const auto& symbols = replay.trace.chips[chip.value].symbols.regions;
        std::vector<std::pair<events::Cycle, std::string>> open; // exit and path of the regions open
        for (const events::StoreSlice& r : replay.store.regionsByEntry(chip)) {
            if (first && r.start >= first->from)
                break; // a later instance cannot be the first
            while (!open.empty() && open.back().first < r.start)
                open.pop_back();
            const std::uint32_t region = events::regionOf(r);
            const std::string name =
                region < symbols.size() ? symbols[region].name : "region " + std::to_string(region);
            std::string own = open.empty() ? name : open.back().second + " > " + name;
            if (own == path) {
                first = CycleRange{r.start, r.end()};
                break;
            }
            open.emplace_back(r.end(), std::move(own));
        }
    }
    return first;
}

} // namespace xps::analysis

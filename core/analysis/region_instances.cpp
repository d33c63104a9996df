#include "analysis/region_instances.h"

#include <algorithm>
#include <vector>

namespace xps::analysis {

std::optional<CycleRange> firstInstanceOfRegion(const ReplayView& replay, const std::string& path)
{
    const std::size_t chips = replay.trace.chips.size();
    std::vector<std::vector<events::RegionRecord>> byChip(chips);
    for (const events::RegionRecord& r : replay.store.regions())
        if (r.chip.value < chips)
            byChip[r.chip.value].push_back(r);
    std::optional<CycleRange> first;
    for (std::size_t chip = 0; chip < chips; ++chip) {
        std::vector<events::RegionRecord>& list = byChip[chip];
        // As the summary sweeps them: by entry, the outer of two that enter together first.
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
            return a.enter != b.enter ? a.enter < b.enter : a.depth < b.depth;
        });
        const auto& symbols = replay.trace.chips[chip].symbols.regions;
        std::vector<std::pair<events::Cycle, std::string>> open; // exit and path of the regions open
        for (const events::RegionRecord& r : list) {
            if (first && r.enter >= first->from)
                break; // a later instance cannot be the first
            while (!open.empty() && open.back().first < r.enter)
                open.pop_back();
            const std::string name =
                r.region < symbols.size() ? symbols[r.region].name : "region " + std::to_string(r.region);
            std::string own = open.empty() ? name : open.back().second + " > " + name;
            if (own == path) {
                first = CycleRange{r.enter, r.exit};
                break;
            }
            open.emplace_back(r.exit, std::move(own));
        }
    }
    return first;
}

} // namespace xps::analysis

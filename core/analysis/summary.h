#pragma once
// The first screen of a replay: how long it took, how busy each unit was, how well the MXU and HBM were
// used, where the DMA bytes went, why the cores stalled, and the same broken down per region
// (layer > op > loop).

#include "analysis/replay_view.h"

#include <string>
#include <vector>

namespace xps::analysis {

struct ChipSummary
{
    ChipId chip = ChipId(0);
    std::uint64_t bundles = 0;
    std::uint64_t instructions = 0;
    std::uint64_t activeCycles = 0; // to halt (or to the end of the replay)
    std::uint64_t unitBusyCycles[events::kUnitCount] = {};
    std::uint64_t stallCycles[events::kStallReasonCount] = {};
    double mxuUtilization = 0.0; // MXU matmul stream busy / total cycles
    std::uint64_t hbmBytes = 0;  // read from or written to this chip's HBM by DMAs
    double hbmUtilization = 0.0; // hbmBytes / (HBM bandwidth x total cycles)
};

// DMA bytes per path: source space -> destination space, local or over ICI.
struct DmaPath
{
    isa::Space src = isa::Space::Hbm;
    isa::Space dst = isa::Space::Vmem;
    bool remote = false;
    std::uint64_t transfers = 0;
    std::uint64_t bytes = 0;
    std::string name() const; // "HBM->VMEM", "HBM->HBM (ICI)"
};

// One region, aggregated over its instances on every chip. Inclusive: a region's numbers include those of
// the regions nested in it. `path` names the nesting ("decode > mlp > tile").
struct RegionSummary
{
    std::string path;
    std::string name;
    std::string level;
    int depth = 0;
    std::uint64_t instances = 0;
    std::uint64_t cycles = 0; // sum over instances of (exit - enter)
    std::uint64_t bundles = 0;
    std::uint64_t stallCycles[events::kStallReasonCount] = {};
    std::uint64_t mxuBusyCycles = 0; // summed over the core's MXUs
    std::uint64_t mxus = 1;          // the machine's mxu_count
    std::uint64_t dmaBytes = 0;      // issued from within the region
    double mxuUtilization() const
    {
        return cycles ? static_cast<double>(mxuBusyCycles) / static_cast<double>(cycles * mxus) : 0.0;
    }
    std::uint64_t totalStallCycles() const;
};

struct Summary
{
    std::uint64_t totalCycles = 0;
    double microseconds = 0.0;
    std::vector<ChipSummary> chips;
    double mxuUtilization = 0.0; // mean over chips
    double hbmUtilization = 0.0; // mean over chips
    std::uint64_t stallCycles[events::kStallReasonCount] = {};
    std::vector<DmaPath> dmaPaths;
    std::vector<RegionSummary> regions; // in order of first entry, parents before children
};

Summary summarize(const ReplayView& replay);

} // namespace xps::analysis

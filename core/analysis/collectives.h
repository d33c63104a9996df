#pragma once
// Multi-chip behaviour: how much each ICI link direction carried and for how long, each step of a
// collective per chip (the instances of the innermost regions, matched across chips by name and instance
// number) and how far the chips drifted apart (skew).

#include "analysis/replay_view.h"

#include <string>
#include <vector>

namespace xps::analysis {

struct LinkUse
{
    int link = 0; // isa::topology numbering
    std::string name;
    int to = 0;
    std::uint64_t transfers = 0;
    std::uint64_t bytes = 0;
    std::uint64_t busyCycles = 0; // some transfer crossing it was moving bytes
    double utilization = 0.0;     // bytes / (link bandwidth x total cycles)
};

struct CollectiveStep
{
    std::string region;
    std::uint64_t instance = 0;
    std::vector<std::int64_t> enter; // per chip; -1 if the chip has no such instance
    std::vector<std::int64_t> exit;
    std::uint64_t skew = 0;        // latest exit - earliest exit
    std::uint64_t maxDuration = 0; // the slowest chip's exit - enter
};

struct CollectiveAnalysis
{
    std::vector<LinkUse> links; // every link direction of the topology
    int usedLinks = 0;
    std::vector<CollectiveStep> steps;
    std::uint64_t maxSkew = 0;
};

CollectiveAnalysis analyzeCollectives(const ReplayView& replay);

} // namespace xps::analysis

#include "isa/topology.h"

namespace xps::isa {
namespace {

int rowWidth(const MachineConfig& config)
{
    const int n = static_cast<int>(config.chips);
    return config.topology == Topology::Ring ? n : static_cast<int>(config.torusWidth);
}

} // namespace

int linkCount(const MachineConfig& config)
{
    return static_cast<int>(config.chips) * kLinkDirectionsPerChip;
}

std::vector<int> iciRoute(const MachineConfig& config, ChipId from, ChipId to, bool longWay)
{
    std::vector<int> links;
    const int width = rowWidth(config);
    const int height = static_cast<int>(config.chips) / width;
    const auto walk = [&](int& at, int target, int size, int stride, int forwardDir) {
        const int pos = (at / stride) % size;
        const int goal = (target / stride) % size;
        const int forward = (goal - pos + size) % size;
        if (forward == 0)
            return;
        const bool shortForward = forward <= size - forward;
        const bool goForward = longWay ? !shortForward : shortForward;
        const int steps = goForward ? forward : size - forward;
        for (int k = 0; k < steps; ++k) {
            const int p = (at / stride) % size;
            links.push_back(at * kLinkDirectionsPerChip + forwardDir + (goForward ? 0 : 1));
            const int next = goForward ? (p + 1) % size : (p + size - 1) % size;
            at += (next - p) * stride;
        }
    };
    int at = from.value;
    walk(at, to.value, width, 1, 0);
    if (height > 1)
        walk(at, to.value, height, width, 2);
    return links;
}

std::string linkName(int link)
{
    static const char* const kDirections[] = {"+x", "-x", "+y", "-y"};
    return "chip " + std::to_string(link / kLinkDirectionsPerChip) + " " +
           kDirections[link % kLinkDirectionsPerChip];
}

int linkDestination(const MachineConfig& config, int link)
{
    const int chip = link / kLinkDirectionsPerChip;
    const int d = link % kLinkDirectionsPerChip;
    const int width = rowWidth(config);
    const int height = static_cast<int>(config.chips) / width;
    const int x = chip % width, y = chip / width;
    switch (d) {
    case 0: return y * width + (x + 1) % width;
    case 1: return y * width + (x + width - 1) % width;
    case 2: return ((y + 1) % height) * width + x;
    default: return ((y + height - 1) % height) * width + x;
    }
}

} // namespace xps::isa

#pragma once
// How VMEM was used: each declared buffer's live range (first to last access) and traffic, live bytes
// over time and their peak against capacity, and buffers whose loads (DMA-in) and compute serialize
// because the buffer is single: the double-buffering candidates.

#include "analysis/dma_analysis.h"
#include "analysis/replay_view.h"

#include <string>
#include <vector>

namespace xps::analysis {

struct BufferLiveRange
{
    ChipId chip = ChipId(0);
    std::string name;
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    bool alias = false;      // a view of another buffer: not counted in live bytes
    bool accessed = false;
    std::uint64_t firstAccess = 0;
    std::uint64_t lastAccess = 0;
    std::uint64_t readBytes = 0;
    std::uint64_t writeBytes = 0;
};

// A buffer refilled by DMA several times while the core waited for each refill: load and compute take
// turns instead of overlapping.
struct SingleBufferedLoop
{
    ChipId chip = ChipId(0);
    std::string buffer;
    std::uint64_t bufferBytes = 0;
    std::uint32_t dmaPc = 0;
    std::uint64_t refills = 0;
    std::uint64_t exposedCycles = 0; // the core's wait on these refills
    bool fitsTwice = false;          // peak live bytes + the buffer still fit in VMEM
    std::uint64_t dstAddress = 0;    // where every refill lands
    bool sameAddress = true;
};

struct VmemChipUse
{
    ChipId chip = ChipId(0);
    std::uint64_t peakLiveBytes = 0; // declared buffers, or touched bytes when none are declared
    std::uint64_t peakCycle = 0;
    std::uint64_t touchedBytes = 0;  // distinct 512-byte rows accessed at least once
    std::uint64_t highestAddress = 0; // end of the highest row accessed (by the core or a DMA), 0 if none
    std::vector<std::pair<std::uint64_t, std::uint64_t>> liveBytes; // (cycle, bytes from then on)
};

struct VmemAnalysis
{
    std::uint64_t capacity = 0;
    std::vector<BufferLiveRange> buffers;
    std::vector<VmemChipUse> chips;
    std::uint64_t peakLiveBytes = 0; // the largest over chips
    double unusedFraction() const
    {
        return capacity ? 1.0 - static_cast<double>(peakLiveBytes) / static_cast<double>(capacity) : 0.0;
    }
    std::vector<SingleBufferedLoop> singleBuffered;
};

VmemAnalysis analyzeVmem(const ReplayView& replay, const DmaAnalysis& dmas);

} // namespace xps::analysis

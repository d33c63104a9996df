#pragma once
// VMEM traffic binned over (time, address) while a replay runs, in a fixed amount of memory: a grid of
// kTimeBins x kAddressBins read and write byte counts. When the replay outgrows the time range, adjacent
// time bins merge pairwise and each bin covers twice the cycles, so a long replay costs what a short one
// does. An access spanning several bins is split in proportion to its bytes in each. The grid (1 MiB) is
// allocated at a chip's first access: a 4,096-chip machine whose chips never touch VMEM costs nothing (it
// once cost 4 GiB before the first bundle, found by fuzz_replay). A machine of many chips gets fewer time
// bins per chip (timeBinsFor): 4,096 chips that all touch VMEM once took 8 GiB of grids and their published
// copies (fuzz_replay again); they now share a fixed budget.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xps::events {

class VmemHeatmap
{
public:
    static constexpr int kTimeBins = 512; // at most; fewer when many chips share the budget
    static constexpr int kAddressBins = 128;
    static constexpr std::size_t kBudgetBytes = 64u << 20; // all chips' grids (the store keeps a copy too)

    VmemHeatmap() = default;
    explicit VmemHeatmap(std::uint64_t vmemBytes, int timeBins = kTimeBins);
    // The time bins each chip's grid gets on a machine of `chips`: kTimeBins up to 64 chips, then halved as
    // the chips double, down to 16 from 2,048 chips on (4,096 chips: 128 MiB of grids in all).
    static int timeBinsFor(int chips);

    // `dataBytes` moved within [address, address + rangeBytes), spread evenly (a strided access touches
    // a range larger than the bytes it moves).
    // Inline for the common case (every vld, vst and DMA chunk of a replay lands here): a grid already
    // allocated, a cycle inside its time range and a range within one address bin.
    void add(std::uint64_t cycle, std::uint64_t address, std::uint64_t rangeBytes, std::uint64_t dataBytes,
             bool write)
    {
        const std::uint64_t t = cycle >> m_cycleShift;
        if (m_binShift >= 0 && !m_cells.empty() && t < static_cast<std::uint64_t>(m_timeBins) &&
            rangeBytes != 0 && dataBytes != 0) [[likely]] {
            const std::uint64_t bin = address >> m_binShift;
            if (bin < kAddressBins - 1 && ((address + rangeBytes - 1) >> m_binShift) == bin) {
                m_usedTimeBins = std::max(m_usedTimeBins, static_cast<int>(t) + 1);
                (write ? m_totalWritten : m_totalRead) += dataBytes;
                m_cells[index(static_cast<int>(t), static_cast<int>(bin), write)] += dataBytes;
                return;
            }
        }
        addSlow(cycle, address, rangeBytes, dataBytes, write);
    }

    std::uint64_t cyclesPerBin() const { return m_cyclesPerBin; }
    std::uint64_t bytesPerAddressBin() const { return m_bytesPerBin; }
    int usedTimeBins() const { return m_usedTimeBins; }
    int timeBins() const { return m_timeBins; }
    std::uint64_t readBytes(int timeBin, int addressBin) const
    {
        return m_cells.empty() ? 0 : m_cells[index(timeBin, addressBin, false)];
    }
    std::uint64_t writeBytes(int timeBin, int addressBin) const
    {
        return m_cells.empty() ? 0 : m_cells[index(timeBin, addressBin, true)];
    }
    std::uint64_t totalRead() const { return m_totalRead; }
    // Bytes the grid holds: 0 until the chip's first VMEM access.
    std::size_t heldBytes() const { return m_cells.capacity() * sizeof(std::uint64_t); }
    std::uint64_t totalWritten() const { return m_totalWritten; }

private:
    // A bin's read and write counts lie side by side: a replay adds to both of a few bins, over and over,
    // and as two grids their lines sat in the same cache set for every chip (each grid is mapped on a page
    // boundary), with other hot lines of a 4-chip replay.
    static std::size_t index(int t, int a, bool write)
    {
        return (static_cast<std::size_t>(t) * kAddressBins + static_cast<std::size_t>(a)) * 2 +
               (write ? 1 : 0);
    }
    void coarsen();
    void addSlow(std::uint64_t cycle, std::uint64_t address, std::uint64_t rangeBytes,
                 std::uint64_t dataBytes, bool write);

    std::uint64_t addressBin(std::uint64_t address) const
    {
        return m_binShift >= 0 ? address >> m_binShift
                               : address / m_bytesPerBin; // VMEM sizes are powers of two
    }

    std::uint64_t m_bytesPerBin = 1;
    int m_binShift = 0;                // log2(m_bytesPerBin) when it is a power of two, else -1
    std::uint64_t m_cyclesPerBin = 16; // always a power of two: 16 << m_cycleShift - 4
    int m_cycleShift = 4;
    int m_usedTimeBins = 0;
    int m_timeBins = kTimeBins;         // a power of two: coarsening merges pairs
    bool m_configured = false;          // sized for a VMEM (the default-constructed map takes nothing)
    std::vector<std::uint64_t> m_cells; // read and write bytes by index(); empty until the first access
    std::uint64_t m_totalRead = 0;
    std::uint64_t m_totalWritten = 0;
};

} // namespace xps::events

#include "events/vmem_heatmap.h"

#include <algorithm>
#include <bit>

namespace xps::events {

VmemHeatmap::VmemHeatmap(std::uint64_t vmemBytes, int timeBins)
    : m_bytesPerBin(std::max<std::uint64_t>(1, (vmemBytes + kAddressBins - 1) / kAddressBins)),
      m_binShift(std::has_single_bit(m_bytesPerBin) ? std::countr_zero(m_bytesPerBin) : -1),
      m_timeBins(static_cast<int>(std::bit_floor(static_cast<unsigned>(std::clamp(timeBins, 2, kTimeBins))))),
      m_configured(true)
{
}

int VmemHeatmap::timeBinsFor(int chips)
{
    constexpr std::size_t bytesPerTimeBin = kAddressBins * 2 * sizeof(std::uint64_t); // read and write
    const std::size_t perChip = kBudgetBytes / static_cast<std::size_t>(std::max(chips, 1));
    const std::size_t bins = std::clamp<std::size_t>(perChip / bytesPerTimeBin, 16, kTimeBins);
    return static_cast<int>(std::bit_floor(bins));
}

void VmemHeatmap::coarsen()
{
    // Time bin t's cells (read and write of every address bin) are one run of 2 x kAddressBins.
    constexpr std::size_t perTimeBin = 2 * kAddressBins;
    for (int t = 0; t < m_timeBins / 2; ++t)
        for (std::size_t i = 0; i < perTimeBin; ++i)
            m_cells[index(t, 0, false) + i] =
                m_cells[index(2 * t, 0, false) + i] + m_cells[index(2 * t + 1, 0, false) + i];
    std::fill(m_cells.begin() + static_cast<long>(index(m_timeBins / 2, 0, false)), m_cells.end(), 0);
    m_cyclesPerBin *= 2;
    ++m_cycleShift;
    m_usedTimeBins = (m_usedTimeBins + 1) / 2;
}

void VmemHeatmap::addSlow(std::uint64_t cycle, std::uint64_t address, std::uint64_t bytes,
                          std::uint64_t dataBytes, bool write)
{
    if (!m_configured || bytes == 0 || dataBytes == 0)
        return;
    if (m_cells.empty()) // the chip's first VMEM access: only chips that touch VMEM hold a grid
        m_cells.assign(static_cast<std::size_t>(m_timeBins) * kAddressBins * 2, 0);
    while ((cycle >> m_cycleShift) >= static_cast<std::uint64_t>(m_timeBins))
        coarsen();
    const int t = static_cast<int>(cycle >> m_cycleShift);
    m_usedTimeBins = std::max(m_usedTimeBins, t + 1);
    (write ? m_totalWritten : m_totalRead) += dataBytes;
    // Most accesses (a vector row, a DMA chunk) fall within one address bin: all their bytes go there.
    const std::uint64_t firstBin = std::min<std::uint64_t>(addressBin(address), kAddressBins - 1);
    if (firstBin == kAddressBins - 1 || addressBin(address + bytes - 1) == firstBin) {
        m_cells[index(t, static_cast<int>(firstBin), write)] += dataBytes;
        return;
    }
    std::uint64_t at = address;
    const std::uint64_t end = address + bytes;
    while (at < end) {
        const std::uint64_t bin = std::min<std::uint64_t>(at / m_bytesPerBin, kAddressBins - 1);
        const std::uint64_t binEnd = bin == kAddressBins - 1 ? end : std::min(end, (bin + 1) * m_bytesPerBin);
        // Both factors are below 2^32 (VMEM is at most 4 GiB), so the product fits in 64 bits.
        m_cells[index(t, static_cast<int>(bin), write)] += (binEnd - at) * dataBytes / bytes;
        at = binEnd;
    }
}

} // namespace xps::events

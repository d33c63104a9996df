#include "chip_state.h"

namespace xps::sim {

void Staleness::mark(isa::Space space, std::uint64_t address, std::uint64_t bytes, std::uint64_t smemBytes)
{
    if (bytes == 0)
        return;
    if (space == isa::Space::Smem) {
        if (m_smemWords.empty())
            m_smemWords.assign(static_cast<std::size_t>((smemBytes + 3) / 4), false);
        for (std::uint64_t w = address / 4; w <= (address + bytes - 1) / 4 && w < m_smemWords.size(); ++w)
            m_smemWords[static_cast<std::size_t>(w)] = true;
        return;
    }
    auto& pages = m_pages[space == isa::Space::Hbm ? 0 : 1];
    for (std::uint64_t p = address / SparseMemory::kPageBytes;
         p <= (address + bytes - 1) / SparseMemory::kPageBytes; ++p)
        pages.insert(p);
}

bool Staleness::any(isa::Space space, std::uint64_t address, std::uint64_t bytes) const
{
    if (bytes == 0)
        return false;
    if (space == isa::Space::Smem) {
        for (std::uint64_t w = address / 4; w <= (address + bytes - 1) / 4 && w < m_smemWords.size(); ++w)
            if (m_smemWords[static_cast<std::size_t>(w)])
                return true;
        return false;
    }
    const auto& pages = m_pages[space == isa::Space::Hbm ? 0 : 1];
    if (pages.empty())
        return false;
    for (std::uint64_t p = address / SparseMemory::kPageBytes;
         p <= (address + bytes - 1) / SparseMemory::kPageBytes; ++p)
        if (pages.contains(p))
            return true;
    return false;
}

void Staleness::clearSmem(std::uint64_t address, std::uint64_t bytes)
{
    for (std::uint64_t w = address / 4; w <= (address + bytes - 1) / 4 && w < m_smemWords.size(); ++w)
        m_smemWords[static_cast<std::size_t>(w)] = false;
}

} // namespace xps::sim

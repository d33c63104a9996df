#pragma once
// A memory space of the GRM: byte-addressed, materialised in 64 KiB pages on first touch, so a 32 GiB HBM
// costs only what a replay touches. Initial contents (literal snapshots and generators) are attached as
// sources and copied into a page when it is first materialised; untouched bytes read as zero.

#include "trace/trace.h"

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace xps::sim {

class SparseMemory
{
public:
    static constexpr std::uint64_t kPageBytes = 64 * 1024;

    explicit SparseMemory(std::uint64_t size = 0) : m_size(size) {}
    SparseMemory(const SparseMemory&) = delete;
    SparseMemory& operator=(const SparseMemory&) = delete;
    SparseMemory(SparseMemory&&) noexcept = default;
    SparseMemory& operator=(SparseMemory&&) noexcept = default;

    std::uint64_t size() const { return m_size; }
    bool contains(std::uint64_t address, std::uint64_t bytes) const
    {
        return bytes <= m_size && address <= m_size - bytes;
    }

    // `payload` must outlive this memory (it lives in the Trace being replayed).
    void addSource(std::uint64_t address, std::uint64_t size, const trace::Payload& payload);

    // The caller checks bounds with contains() first.
    void read(std::uint64_t address, std::span<std::uint8_t> out);
    void write(std::uint64_t address, std::span<const std::uint8_t> in);
    // read() without materialising a page that was never touched (its bytes come from the sources, or
    // are zero): several threads may peek at one memory at once while nothing writes it (what-ifs measured
    // side by side compare their outputs with the same baseline).
    void peek(std::uint64_t address, std::span<std::uint8_t> out) const;
    std::uint32_t read32(std::uint64_t address);
    void write32(std::uint64_t address, std::uint32_t value);

    std::size_t materialisedPages() const { return m_pages.size(); }

private:
    std::uint8_t* page(std::uint64_t index);
    // Bytes [pageStart, pageStart + out.size()) as the sources give them (zero where none does).
    void fillFromSources(std::uint64_t pageStart, std::span<std::uint8_t> out) const;

    struct Source
    {
        std::uint64_t address;
        std::uint64_t size;
        const trace::Payload* payload;
    };
    std::uint64_t m_size;
    std::vector<Source> m_sources;
    std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> m_pages;
    std::uint64_t m_lastIndex = UINT64_MAX;
    std::uint8_t* m_lastPage = nullptr;
};

// Fills `out` with bytes [offset, offset + out.size()) of what `generator` produces. Deterministic and
// random-access: element i (4 bytes) depends only on the generator and i, so any page can be produced alone.
void generateBytes(const trace::Generator& generator, std::uint64_t offset, std::span<std::uint8_t> out);

} // namespace xps::sim

#include "sparse_memory.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "util/half_float.h"

namespace xps::sim {
namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A uniform draw in [a, b) for element `index`: 24 random bits give every representable step of a float.
double uniform(const trace::Generator& g, std::uint64_t index)
{
    const double unit = static_cast<double>(splitmix64(g.seed * 0x100000001b3ull ^ index) >> 40) / 16777216.0;
    return g.a + (g.b - g.a) * unit;
}

// Element `index` of a generator (2-byte kinds in the low half).
std::uint32_t element(const trace::Generator& g, std::uint64_t index)
{
    using Kind = trace::Generator::Kind;
    switch (g.kind) {
    case Kind::RandomF16:
        return half::f32ToF16(std::bit_cast<std::uint32_t>(static_cast<float>(uniform(g, index))));
    case Kind::RandomBF16:
        return half::f32ToBf16(std::bit_cast<std::uint32_t>(static_cast<float>(uniform(g, index))));
    case Kind::Zero: return 0;
    case Kind::ConstU32: return g.bits;
    case Kind::ConstF32: return std::bit_cast<std::uint32_t>(static_cast<float>(g.a));
    case Kind::RandomU32: return static_cast<std::uint32_t>(splitmix64(g.seed * 0x100000001b3ull ^ index));
    case Kind::RandomF32: return std::bit_cast<std::uint32_t>(static_cast<float>(uniform(g, index)));
    case Kind::IotaS32: return static_cast<std::uint32_t>(index);
    case Kind::RandomS32: {
        // The readers refuse bounds outside 32 bits and lo > hi; a trace built in code gets lo, or 0.
        if (!(g.a >= -2147483648.0 && g.a <= 2147483647.0))
            return 0;
        const auto lo = static_cast<std::int64_t>(g.a);
        if (!(g.b > g.a && g.b <= 2147483647.0))
            return static_cast<std::uint32_t>(lo);
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(g.b) - lo) + 1;
        const auto draw = splitmix64(g.seed * 0x100000001b3ull ^ index) % span;
        return static_cast<std::uint32_t>(lo + static_cast<std::int64_t>(draw));
    }
    }
    return 0;
}

} // namespace

void generateBytes(const trace::Generator& generator, std::uint64_t offset, std::span<std::uint8_t> out)
{
    const std::uint64_t size = generator.kind == trace::Generator::Kind::RandomF16 ||
                                       generator.kind == trace::Generator::Kind::RandomBF16
                                   ? 2
                                   : 4;
    std::uint64_t i = 0;
    while (i < out.size()) {
        const std::uint64_t at = offset + i;
        const std::uint32_t value = element(generator, at / size);
        std::uint8_t bytes[4];
        std::memcpy(bytes, &value, 4); // little-endian: a 2-byte element is the first two
        const std::uint64_t within = at % size;
        const std::uint64_t n = std::min<std::uint64_t>(size - within, out.size() - i);
        std::memcpy(out.data() + i, bytes + within, n);
        i += n;
    }
}

void SparseMemory::addSource(std::uint64_t address, std::uint64_t size, const trace::Payload& payload)
{
    m_sources.push_back({address, size, &payload});
}

void SparseMemory::fillFromSources(std::uint64_t start, std::span<std::uint8_t> out) const
{
    std::fill(out.begin(), out.end(), std::uint8_t{0});
    const std::uint64_t end = start + out.size();
    // Later sources override earlier ones where they overlap, as the trace lists them.
    for (const Source& s : m_sources) {
        const std::uint64_t from = std::max(start, s.address);
        const std::uint64_t to = std::min(end, s.address + s.size);
        if (from >= to)
            continue;
        std::span<std::uint8_t> part = out.subspan(from - start, to - from);
        if (s.payload->isGenerator)
            generateBytes(s.payload->generator, from - s.address, part);
        else
            std::memcpy(part.data(), s.payload->bytes.data() + (from - s.address), part.size());
    }
}

std::uint8_t* SparseMemory::page(std::uint64_t index)
{
    if (index == m_lastIndex)
        return m_lastPage;
    auto& slot = m_pages[index];
    if (!slot) {
        slot = std::make_unique_for_overwrite<std::uint8_t[]>(kPageBytes);
        fillFromSources(index * kPageBytes, {slot.get(), kPageBytes});
    }
    m_lastIndex = index;
    m_lastPage = slot.get();
    return m_lastPage;
}

void SparseMemory::peek(std::uint64_t address, std::span<std::uint8_t> out) const
{
    std::uint64_t done = 0;
    while (done < out.size()) {
        const std::uint64_t at = address + done;
        const std::uint64_t within = at % kPageBytes;
        const std::uint64_t n = std::min<std::uint64_t>(kPageBytes - within, out.size() - done);
        const auto found = m_pages.find(at / kPageBytes);
        if (found != m_pages.end())
            std::memcpy(out.data() + done, found->second.get() + within, n);
        else
            fillFromSources(at, out.subspan(done, n));
        done += n;
    }
}

void SparseMemory::read(std::uint64_t address, std::span<std::uint8_t> out)
{
    std::uint64_t done = 0;
    while (done < out.size()) {
        const std::uint64_t at = address + done;
        const std::uint64_t within = at % kPageBytes;
        const std::uint64_t n = std::min<std::uint64_t>(kPageBytes - within, out.size() - done);
        std::memcpy(out.data() + done, page(at / kPageBytes) + within, n);
        done += n;
    }
}

void SparseMemory::write(std::uint64_t address, std::span<const std::uint8_t> in)
{
    std::uint64_t done = 0;
    while (done < in.size()) {
        const std::uint64_t at = address + done;
        const std::uint64_t within = at % kPageBytes;
        const std::uint64_t n = std::min<std::uint64_t>(kPageBytes - within, in.size() - done);
        std::memcpy(page(at / kPageBytes) + within, in.data() + done, n);
        done += n;
    }
}

std::uint32_t SparseMemory::read32(std::uint64_t address)
{
    std::uint32_t v;
    read(address, {reinterpret_cast<std::uint8_t*>(&v), 4});
    return v;
}

void SparseMemory::write32(std::uint64_t address, std::uint32_t value)
{
    write(address, {reinterpret_cast<const std::uint8_t*>(&value), 4});
}

} // namespace xps::sim

#pragma once
// A 32-bit index that knows what it indexes (heaptrack's Index<Tag>, Perfetto's typed row ids): a TrackId
// cannot be passed where a SliceId is meant, nor added to. `value` is explicit at every use as an index.

#include <compare>
#include <cstdint>
#include <functional>

namespace xps {

template <typename Tag> struct StrongId
{
    static constexpr std::uint32_t kInvalid = UINT32_MAX;
    std::uint32_t value = kInvalid;

    constexpr StrongId() = default;
    constexpr explicit StrongId(std::uint32_t v) : value(v) {}
    constexpr bool valid() const { return value != kInvalid; }
    auto operator<=>(const StrongId&) const = default;
};

} // namespace xps

template <typename Tag> struct std::hash<xps::StrongId<Tag>>
{
    std::size_t operator()(xps::StrongId<Tag> id) const noexcept
    {
        return std::hash<std::uint32_t>()(id.value);
    }
};

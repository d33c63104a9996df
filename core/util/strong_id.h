#pragma once
// An index that knows what it indexes (heaptrack's Index<Tag>, Perfetto's typed row ids): a TrackId cannot
// be passed where a SliceId is meant, nor a ChipId where a pc is, nor added to. `value` is explicit at every
// use as an index. `Rep` is the stored integer: 32 bits by default, 16 for a chip, so that records and
// columns that held a uint16_t keep their size.

#include <cstdint>
#include <functional>
#include <limits>

namespace xps {

template <typename Tag, typename Rep = std::uint32_t> struct StrongId
{
    using rep_type = Rep;
    static constexpr Rep kInvalid = std::numeric_limits<Rep>::max();
    Rep value = kInvalid;

    constexpr StrongId() = default;
    constexpr explicit StrongId(Rep v) : value(v) {}
    constexpr bool valid() const { return value != kInvalid; }
    // Spelled out rather than a defaulted operator<=>: <compare> stops Qt's moc, and every header the
    // explorer's Q_OBJECT classes include reaches this one.
    friend constexpr bool operator==(StrongId a, StrongId b) { return a.value == b.value; }
    friend constexpr bool operator<(StrongId a, StrongId b) { return a.value < b.value; }
    friend constexpr bool operator>(StrongId a, StrongId b) { return b.value < a.value; }
    friend constexpr bool operator<=(StrongId a, StrongId b) { return !(b.value < a.value); }
    friend constexpr bool operator>=(StrongId a, StrongId b) { return !(a.value < b.value); }
};

// Every id below `count`, in order: `for (ChipId chip : idsBelow<ChipId>(trace.chips.size()))`. The one
// place ids are counted, so that loops over chips need no arithmetic on the id itself.
template <typename Id> class IdRange
{
public:
    class iterator
    {
    public:
        constexpr explicit iterator(std::size_t i) : m_i(i) {}
        constexpr Id operator*() const { return Id(static_cast<typename Id::rep_type>(m_i)); }
        constexpr iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        constexpr bool operator==(const iterator&) const = default;

    private:
        std::size_t m_i;
    };
    constexpr explicit IdRange(std::size_t count) : m_count(count) {}
    constexpr iterator begin() const { return iterator(0); }
    constexpr iterator end() const { return iterator(m_count); }

private:
    std::size_t m_count;
};
template <typename Id> constexpr IdRange<Id> idsBelow(std::size_t count)
{
    return IdRange<Id>(count);
}

} // namespace xps

template <typename Tag, typename Rep> struct std::hash<xps::StrongId<Tag, Rep>>
{
    std::size_t operator()(xps::StrongId<Tag, Rep> id) const noexcept { return std::hash<Rep>()(id.value); }
};

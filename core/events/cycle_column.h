#pragma once
// A chunk's cycle column in 4 bytes an event instead of 8. Events arrive in cycle order, so a chunk of
// kChunkEvents nearly always lies inside one window of 2^32 cycles (4.1 s of chip time at 1.05 GHz): the
// column keeps each cycle's low half and the window once. The chunk in which a window ends, and any whose
// events lie billions of cycles apart or out of order (a store filled by hand), keeps its cycles whole from
// the first event outside its window on, in a column beside it.

#include "events/events.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace xps::events {

inline constexpr std::size_t kChunkEvents = 1u << 16;

template <typename T, typename F>
void unusedTail(const std::array<T, kChunkEvents>& column, std::size_t used, F& f)
{
    f(static_cast<const void*>(column.data() + used), (kChunkEvents - used) * sizeof(T));
}

struct CycleColumn
{
    std::array<std::uint32_t, kChunkEvents> low;
    std::uint32_t window = 0; // the high half of every cycle, unless `whole` holds them
    Cycle* whole = nullptr;   // kChunkEvents whole cycles, or none

    Cycle at(std::size_t k) const { return whole ? whole[k] : Cycle{window} << 32 | low[k]; }
    // Writer side: `c` is in the window, or the column is whole.
    void set(std::size_t k, Cycle c)
    {
        low[k] = static_cast<std::uint32_t>(c);
        if (whole) [[unlikely]]
            whole[k] = c;
    }
    // Keeps the first `used` cycles and every later one whole in `column` (kChunkEvents slots).
    void makeWhole(Cycle* column, std::size_t used)
    {
        for (std::size_t k = 0; k < used; ++k)
            column[k] = at(k);
        whole = column;
    }
    // For the store's writer: the window a cycle must be in to take the fast way, or one no cycle has.
    static constexpr std::uint64_t kNoWindow = UINT64_MAX;
    std::uint64_t fastWindow() const { return whole ? kNoWindow : window; }
    template <typename F> void forEachUnusedTail(std::size_t used, F& f) const
    {
        unusedTail(low, used, f);
        if (whole)
            f(static_cast<const void*>(whole + used), (kChunkEvents - used) * sizeof(Cycle));
    }
    std::size_t outOfLineBytes() const { return whole ? kChunkEvents * sizeof(Cycle) : 0; }
};

} // namespace xps::events

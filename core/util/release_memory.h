#pragma once
// Gives a container's memory back. `v = {}` does not: for a std::vector it picks operator=(initializer_list),
// which empties the vector and keeps its capacity, so a permutation or a chunk meant to be freed early stayed
// allocated until its owner died (measured: an XSpace import's peak held every slice twice).

#include <utility>

namespace xps {

template <typename Container> void releaseMemory(Container& c)
{
    Container().swap(c);
}

// Gives back a vector's spare capacity when it is more than an eighth of what it holds: a vector grown by
// doubling may hold twice its size, but one reserved for a close upper bound (a replay's counts) would be
// copied whole, a quarter of a second at ten million slices that no one could cancel, to free a few percent.
template <typename Vector> void shrinkIfWasteful(Vector& v)
{
    if (v.capacity() - v.size() > v.size() / 8)
        v.shrink_to_fit();
}

} // namespace xps

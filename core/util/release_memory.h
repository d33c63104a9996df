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

} // namespace xps

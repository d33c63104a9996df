#pragma once
// Sorting what is already in order, or in a few ordered runs. The replay emits its records in time order
// per chip, engine or track, and the analyses gather them per device or profile: std::sort then spends
// O(n log n) re-deriving an order that was there (at 10 M bundles, sorts were a fifth of everything after
// the replay). This finds the ascending runs in one pass: none out of order costs that pass only; a few runs
// (one per track appended) are merged pairwise, O(n log runs); many runs (no order to speak of) go to
// std::sort.

#include "util/cancel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

namespace xps {

template <typename RandomIt, typename Less = std::less<>>
void sortRuns(RandomIt first, RandomIt last, Less less = {})
{
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    if (n < 2)
        return;
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 1; i < n; ++i)
        if (less(first[static_cast<std::ptrdiff_t>(i)], first[static_cast<std::ptrdiff_t>(i - 1)])) {
            starts.push_back(i);
            if (starts.size() > 64 && starts.size() * 32 > i) { // no order to speak of
                std::sort(first, last, less);
                return;
            }
        }
    if (starts.size() == 1)
        return;
    // Bottom-up: merge neighbouring runs until one is left. Stable within and between runs.
    starts.push_back(n);
    while (starts.size() > 2) {
        std::vector<std::size_t> merged{0};
        for (std::size_t r = 0; r + 2 < starts.size(); r += 2) {
            std::inplace_merge(first + static_cast<std::ptrdiff_t>(starts[r]),
                               first + static_cast<std::ptrdiff_t>(starts[r + 1]),
                               first + static_cast<std::ptrdiff_t>(starts[r + 2]), less);
            merged.push_back(starts[r + 2]);
        }
        if (starts.size() % 2 == 0) // an odd run out: carried to the next round as it is
            merged.push_back(starts.back());
        starts = std::move(merged);
    }
}

template <typename Container, typename Less = std::less<>> void sortRuns(Container& c, Less less = {})
{
    sortRuns(c.begin(), c.end(), less);
}

// (key, value) pairs with keys below `keyCount`, sorted as std::sort sorts them (by key, then value) in
// O(n + keyCount): a counting sort by key, then each key's few values in order. For edges by slice (a
// profile's flows by the slice they lead to), whose keys are dense and whose order nothing gives.
// `cancel`, if given, is polled per pair and per key.
template <typename Value>
void sortPairsByKey(std::vector<std::pair<std::uint32_t, Value>>& pairs, std::size_t keyCount,
                    CancelPoint* cancel = nullptr)
{
    const auto poll = [cancel] {
        if (cancel)
            (*cancel)();
    };
    if (pairs.size() < 2)
        return;
    std::vector<std::uint32_t> start(keyCount + 1, 0);
    for (const auto& p : pairs) {
        poll();
        if (p.first >= keyCount) { // not dense after all
            std::sort(pairs.begin(), pairs.end());
            return;
        }
        ++start[p.first + 1];
    }
    for (std::size_t k = 0; k < keyCount; ++k)
        start[k + 1] += start[k];
    std::vector<std::pair<std::uint32_t, Value>> out(pairs.size());
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (const auto& p : pairs) {
        poll();
        out[next[p.first]++] = p;
    }
    for (std::size_t k = 0; k < keyCount; ++k)
        if (poll(); start[k + 1] - start[k] > 1)
            std::sort(out.begin() + start[k], out.begin() + start[k + 1]);
    pairs = std::move(out);
}

} // namespace xps

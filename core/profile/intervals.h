#pragma once
// Time as unions of intervals [start, end) in nanoseconds: what the profile analyses measure busy, overlapped
// and exposed time with.

#include "profile/profile.h"
#include "util/cancel.h"
#include "util/sort_runs.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace xps::profile {

using Intervals = std::vector<std::pair<Ticks, Ticks>>;

// Sorted, disjoint intervals covering the input (empty ones dropped).
// `cancel`, if given, is polled per interval and per comparison (lists of millions of device slices).
inline Intervals merged(Intervals v, CancelPoint* cancel = nullptr)
{
    if (cancel) // gathered track by track, each in time order
        sortRuns(v, cancel->polling(std::less<>()));
    else
        sortRuns(v);
    Intervals out;
    for (const auto& [a, b] : v) {
        if (cancel)
            (*cancel)();
        if (b <= a)
            continue;
        if (!out.empty() && a <= out.back().second)
            out.back().second = std::max(out.back().second, b);
        else
            out.emplace_back(a, b);
    }
    return out;
}

inline Ticks total(const Intervals& v)
{
    Ticks t = 0;
    for (const auto& [a, b] : v)
        t += b - a;
    return t;
}

// Length of the intersection of two merged lists.
inline Ticks overlap(const Intervals& x, const Intervals& y)
{
    Ticks t = 0;
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
        const Ticks a = std::max(x[i].first, y[j].first), b = std::min(x[i].second, y[j].second);
        if (b > a)
            t += b - a;
        if (x[i].second < y[j].second)
            ++i;
        else
            ++j;
    }
    return t;
}

// Length of a merged list's intersection with [from, to).
inline Ticks overlapWith(const Intervals& merged, Ticks from, Ticks to)
{
    Ticks t = 0;
    for (const auto& [a, b] : merged)
        if (b > from && a < to)
            t += std::min(b, to) - std::max(a, from);
    return t;
}

// The intersection of two merged lists (merged).
inline Intervals intersected(const Intervals& x, const Intervals& y)
{
    Intervals out;
    std::size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
        const Ticks a = std::max(x[i].first, y[j].first), b = std::min(x[i].second, y[j].second);
        if (b > a)
            out.emplace_back(a, b);
        if (x[i].second < y[j].second)
            ++i;
        else
            ++j;
    }
    return out;
}

// x minus y, both merged (merged).
inline Intervals subtracted(const Intervals& x, const Intervals& y)
{
    Intervals out;
    std::size_t j = 0;
    for (auto [a, b] : x) {
        while (j < y.size() && y[j].second <= a)
            ++j;
        for (std::size_t k = j; k < y.size() && y[k].first < b; ++k) {
            if (y[k].first > a)
                out.emplace_back(a, y[k].first);
            a = std::max(a, y[k].second);
            if (a >= b)
                break;
        }
        if (a < b)
            out.emplace_back(a, b);
    }
    return out;
}

} // namespace xps::profile

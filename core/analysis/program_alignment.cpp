#include "analysis/program_alignment.h"

#include <algorithm>
#include <unordered_map>

namespace xps::analysis {
namespace {

// Myers' greedy shortest edit script between a[0, n) and b[0, m) (integers: the texts interned), as
// matched pairs and single insertions and removals, appended to `out` with pcs offset by `from`.
bool shortestEdits(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                   std::size_t maxEdits, std::uint32_t fromA, std::uint32_t fromB,
                   std::vector<AlignedPc>& out)
{
    const auto n = static_cast<std::int64_t>(a.size()), m = static_cast<std::int64_t>(b.size());
    const std::int64_t limit = std::min<std::int64_t>(n + m, static_cast<std::int64_t>(maxEdits));
    const std::int64_t offset = limit + 1;
    std::vector<std::int64_t> v(static_cast<std::size_t>(2 * limit + 3), 0);
    const auto at = [&](std::vector<std::int64_t>& row, std::int64_t k) -> std::int64_t& {
        return row[static_cast<std::size_t>(k + offset)];
    };
    // trace[d] holds v[-d .. d] before round d, for the walk back.
    std::vector<std::vector<std::int64_t>> trace;
    std::int64_t found = -1;
    for (std::int64_t d = 0; d <= limit && found < 0; ++d) {
        trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
        for (std::int64_t k = -d; k <= d; k += 2) {
            std::int64_t x =
                (k == -d || (k != d && at(v, k - 1) < at(v, k + 1))) ? at(v, k + 1) : at(v, k - 1) + 1;
            std::int64_t y = x - k;
            while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)])
                ++x, ++y;
            at(v, k) = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0)
        return false;
    // Walk back from (n, m), collecting the steps in reverse.
    std::vector<AlignedPc> steps;
    std::int64_t x = n, y = m;
    for (std::int64_t d = found; d >= 0; --d) {
        const std::vector<std::int64_t>& row = trace[static_cast<std::size_t>(d)];
        const auto before = [&](std::int64_t k) { return row[static_cast<std::size_t>(k + d)]; };
        const std::int64_t k = x - y;
        const bool down = d > 0 && (k == -d || (k != d && before(k - 1) < before(k + 1)));
        const std::int64_t prevK = d == 0 ? 0 : down ? k + 1 : k - 1;
        const std::int64_t prevX = d == 0 ? 0 : before(prevK), prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            --x, --y;
            steps.push_back({fromA + static_cast<std::uint32_t>(x), fromB + static_cast<std::uint32_t>(y)});
        }
        if (d > 0) {
            if (down)
                steps.push_back(
                    {std::nullopt, fromB + static_cast<std::uint32_t>(prevY)}); // inserted b[prevY]
            else
                steps.push_back(
                    {fromA + static_cast<std::uint32_t>(prevX), std::nullopt}); // removed a[prevX]
            x = prevX, y = prevY;
        }
    }
    out.insert(out.end(), steps.rbegin(), steps.rend());
    return true;
}

} // namespace

std::optional<std::vector<AlignedPc>> alignPrograms(const std::vector<std::string>& baseline,
                                                    const std::vector<std::string>& other,
                                                    std::size_t maxEdits)
{
    // Texts as integers, so the search compares words.
    std::unordered_map<std::string, std::uint32_t> ids;
    const auto intern = [&](const std::vector<std::string>& texts) {
        std::vector<std::uint32_t> out;
        out.reserve(texts.size());
        for (const std::string& t : texts)
            out.push_back(ids.try_emplace(t, static_cast<std::uint32_t>(ids.size())).first->second);
        return out;
    };
    const std::vector<std::uint32_t> a = intern(baseline), b = intern(other);
    std::size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    std::size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    std::vector<AlignedPc> out;
    out.reserve(std::max(a.size(), b.size()));
    for (std::uint32_t pc = 0; pc < prefix; ++pc)
        out.push_back({pc, pc});
    const std::vector<std::uint32_t> middleA(a.begin() + static_cast<std::ptrdiff_t>(prefix),
                                             a.end() - static_cast<std::ptrdiff_t>(suffix));
    const std::vector<std::uint32_t> middleB(b.begin() + static_cast<std::ptrdiff_t>(prefix),
                                             b.end() - static_cast<std::ptrdiff_t>(suffix));
    if (!shortestEdits(middleA, middleB, maxEdits, static_cast<std::uint32_t>(prefix),
                       static_cast<std::uint32_t>(prefix), out))
        return std::nullopt;
    for (std::size_t i = suffix; i > 0; --i)
        out.push_back({static_cast<std::uint32_t>(a.size() - i), static_cast<std::uint32_t>(b.size() - i)});
    return out;
}

} // namespace xps::analysis

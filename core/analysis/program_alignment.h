#pragma once
// Two versions of a chip's program matched bundle by bundle (a suggestion inserts, removes or
// moves a few bundles, and the comparison of the two runs must say which bundle of one is which of the
// other). A longest common subsequence of the bundles' texts, found with Myers' O((N+M)D) algorithm after
// the common prefix and suffix are set aside: two equal programs cost one pass, a suggestion's few edits
// a few passes. Past `maxEdits` edits the programs are not aligned (they are not versions of one program).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xps::analysis {

// One step of the alignment: a bundle both programs have (both pcs), or one only the baseline has
// (removed) or only the other has (inserted). In program order of both.
struct AlignedPc
{
    std::optional<std::uint32_t> baseline;
    std::optional<std::uint32_t> other;
};

// Bundles compare equal when their texts are equal. Memory: O(maxEdits^2) integers at most (32 MB at
// 2,000 edits). Empty optional: more than `maxEdits` insertions and removals would be needed.
std::optional<std::vector<AlignedPc>> alignPrograms(const std::vector<std::string>& baseline,
                                                    const std::vector<std::string>& other,
                                                    std::size_t maxEdits = 2000);

} // namespace xps::analysis

#pragma once
// XLA's transpose folding (internal to core/stablehlo): a transpose that only a dot_general reads (through
// a reshape that only adds or drops dimensions of size 1, as exporters write one between them) is never
// run: the dot reads the transpose's operand, its batching and contracting dimensions mapped through the
// permutation. The MXU kernel reads its operands through strides (lower_dot.cpp), so any order serves, as
// long as the free dimensions keep their order (they lay out the result). GPT-2's attention transposes
// its keys so; its LM head transposes the 50257 x 768 embedding.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "stablehlo/module.h"

namespace xps::shlo::lower {

struct TransposeFold
{
    std::uint32_t source = 0;        // the value the dot reads instead: the transpose's operand,
    std::vector<std::int64_t> shape; // read as this shape (its dimensions of size 1 dropped: the same bytes)
    std::vector<std::int64_t> batching, contracting; // dimensions of that shape
};

struct TransposeFolds
{
    std::map<std::pair<std::size_t, int>, TransposeFold> byOperand; // (dot's op index, operand 0 or 1)
    std::vector<bool> skipped;                                      // per op: a transpose or reshape not run
};

// `excluded`: ops folded to constants, which take part in nothing.
TransposeFolds planTransposeFolds(const Body& body, const std::vector<bool>& excluded = {});

// The dot_general `op` (op `index` of `body`) reading its operands as `folds` says: its operands and
// dimension numbers rewritten, and its result type the one those give (the original's, but for dimensions
// of size 1 a folded operand no longer has: the same bytes).
Operation withFolds(const Body& body, const Operation& op, std::size_t index, const TransposeFolds& folds);

} // namespace xps::shlo::lower

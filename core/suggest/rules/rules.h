#pragma once
// The suggestion rules, one per file: each reads the replay and its analyses through the shared context and
// appends the suggestions it finds, each with a change the tool can apply (suggest/transform.h) and the
// evidence behind it. proposeSuggestions (suggest/propose.cpp) runs them in this order, which is the order
// of their ids before measuring ranks them.

#include "suggest/proposal_context.h"

#include <vector>

namespace xps::suggest::detail {

using Rule = void (*)(ProposalContext& context, std::vector<Suggestion>& out);

void proposeHoists(ProposalContext& ctx, std::vector<Suggestion>& out);        // rules/hoist_dma.cpp
void proposeSplits(ProposalContext& ctx, std::vector<Suggestion>& out);        // rules/split_dma.cpp
void proposeRouteSplits(ProposalContext& ctx, std::vector<Suggestion>& out);   // rules/split_route.cpp
void proposeDoubleBuffers(ProposalContext& ctx, std::vector<Suggestion>& out); // rules/double_buffer.cpp
void proposeRelaxedWaits(ProposalContext& ctx, std::vector<Suggestion>& out);  // rules/relax_wait.cpp
void proposeRebalance(ProposalContext& ctx, std::vector<Suggestion>& out);     // rules/rebalance_engines.cpp
void proposeWhatIfs(ProposalContext& ctx, std::vector<Suggestion>& out);       // rules/what_ifs.cpp
void proposeTileSize(ProposalContext& ctx, std::vector<Suggestion>& out);      // rules/tile_size.cpp

inline constexpr Rule kRules[] = {proposeHoists,        proposeSplits,       proposeRouteSplits,
                                  proposeDoubleBuffers, proposeRelaxedWaits, proposeRebalance,
                                  proposeWhatIfs,       proposeTileSize};

} // namespace xps::suggest::detail

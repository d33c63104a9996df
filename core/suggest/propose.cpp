#include "suggest/propose.h"

#include "suggest/rules/rules.h"

namespace xps::suggest {

std::vector<Suggestion> proposeSuggestions(const analysis::ReplayView& replay, const analysis::Analyses& analyses)
{
    detail::ProposalContext context(replay, analyses);
    std::vector<Suggestion> out;
    // Each rule's own loops poll the context's cancel point; between rules, the token itself.
    for (const detail::Rule rule : detail::kRules) {
        throwIfStopped(replay.stop);
        rule(context, out);
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].id = "S" + std::to_string(i + 1);
    return out;
}

} // namespace xps::suggest

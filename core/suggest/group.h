#pragma once
// Suggestions of one kind taken as one decision. On decode_naive 22 of 24 suggestions were "Issue the DMA at
// pc X earlier": a review reads that as one change (hoist the late DMAs) whose worth is what applying all of
// them together gains, not 22 entries of 0.9% each. A group is two or more program changes of one kind that
// each improved on their own; its combined measurement replays the program with all of them applied.

#include "suggest/suggestion.h"
#include "trace/trace.h"
#include "util/result.h"

#include <optional>
#include <string>
#include <vector>

namespace xps::suggest {

struct SuggestionGroup
{
    std::string kind;                    // the members' ("late-dma")
    std::string title;                   // "Issue 22 DMAs earlier"
    std::vector<std::string> members;    // ids, largest measured gain first
    std::vector<std::string> applied;    // the members whose changes went in together (see applyChanges)
    std::optional<Measurement> combined; // all of `applied` at once, when measured
};

// The groups among `suggestions` (measured ones: only improving changes are grouped), largest member gain
// first. Suggestions in no group are not listed.
std::vector<SuggestionGroup> groupSuggestions(const std::vector<Suggestion>& suggestions);

// `trace` with every change of `changes` that can go in alongside the others: applied from the highest pcs
// down, each program change touching only bundles below those already changed (an inserted or removed
// bundle shifts only what follows it). A change whose pcs overlap one already applied, or that does not
// apply, is left out; `applied` receives the indices of those that went in. Fails only if none did.
Result<trace::Trace> applyChanges(const trace::Trace& trace, const std::vector<Change>& changes,
                                  std::vector<std::size_t>* applied = nullptr);

} // namespace xps::suggest

#pragma once
// The JSON form of an analysis (`xpushark-cli analyze --json`): stable and documented in
// docs/analysis-json.md, because CI gates consume it. Bump kAnalysisJsonVersion on any incompatible change.

#include "analysis/analyze.h"
#include "suggest/group.h"
#include "suggest/suggestion.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace xps::report {

inline constexpr int kAnalysisJsonVersion = 1;

// `groups`: suggestions of one kind measured applied together (sim::measureGroups); none without measuring.
nlohmann::json analysisToJson(const analysis::ReplayView& replay, const analysis::Analyses& analyses,
                              const std::vector<suggest::Suggestion>& suggestions,
                              const std::vector<suggest::SuggestionGroup>& groups = {});
nlohmann::json suggestionToJson(const suggest::Suggestion& s);

} // namespace xps::report

#pragma once
// The JSON form of an analysis (`xpushark-cli analyze --json`): stable and documented in
// docs/analysis-json.md, because CI gates consume it. Bump kAnalysisJsonVersion on any incompatible change.

#include "analysis/analyze.h"
#include "suggest/suggestion.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace xps::report {

inline constexpr int kAnalysisJsonVersion = 1;

nlohmann::json analysisToJson(const analysis::ReplayView& replay, const analysis::Analyses& analyses,
                              const std::vector<suggest::Suggestion>& suggestions);
nlohmann::json suggestionToJson(const suggest::Suggestion& s);

} // namespace xps::report

#pragma once
// The JSON form of a comparison of two runs (`xpushark-cli diff A B --json`): stable and documented in
// docs/diff-json.md, because CI gates consume it. Bump kDiffJsonVersion on any incompatible change.

#include "analysis/run_diff.h"
#include "profile/profile_diff.h"

#include <nlohmann/json.hpp>

namespace xps::report {

inline constexpr int kDiffJsonVersion = 1;

nlohmann::ordered_json diffToJson(const analysis::RunDiff& diff);
// Two imported profiles (`kind` "profiles"): the same envelope, the span, devices and operations.
nlohmann::ordered_json profileDiffToJson(const profile::ProfileDiff& diff);

} // namespace xps::report

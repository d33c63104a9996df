#pragma once
// A report with a baseline (`xpushark-cli report A --baseline B`): what a review or a CI job
// passes around after a change. From the same diff `xpushark-cli diff` prints (analysis/run_diff.h for two
// replays, profile/profile_diff.h for two imported profiles), so its numbers are the two runs' own: the
// totals side by side with their deltas, figures of both runs bar beside bar, the largest changes with
// their evidence in words, and the diff's JSON (docs/diff-json.md) in the JSON report.

#include "analysis/run_diff.h"
#include "profile/profile_diff.h"
#include "report/report.h"

namespace xps::report {

Comparison compareReplays(const analysis::RunDiff& diff);
Comparison compareProfiles(const profile::ProfileDiff& diff);

// Sets the report's comparison and says so in its title ("..., compared with its baseline").
void attachComparison(Report& report, Comparison comparison);

} // namespace xps::report

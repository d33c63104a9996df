#pragma once
// An imported profile and its analysis in words (`xpushark-cli info` and `analyze`) and as the stable JSON
// that `analyze --json` prints for CI gates (docs/import.md, "analyze --json").

#include "profile/profile.h"
#include "profile/profile_analysis.h"

#include <nlohmann/json.hpp>

#include <string>

namespace xps::profile {

// Format, span, tracks, events, bytes per event, warnings.
std::string describeProfile(const Profile& profile);
// Device breakdown, streams, launches, top operations, critical path, findings.
std::string formatProfileAnalysis(const Profile& profile, const ProfileAnalysis& analysis,
                                  std::size_t topOps = 20);
nlohmann::json profileAnalysisJson(const Profile& profile, const ProfileAnalysis& analysis,
                                   std::size_t topOps = 50);

// The devices that ran nothing at all, in one line ("6 devices ran nothing: GPU 1, GPU 2, ..."; at most
// eight named), or "" when every device worked. A JAX profile has a plane for every GPU of the host, busy
// or not: six empty breakdowns pushed the two that mattered out of sight.
std::string idleDevicesLine(const ProfileAnalysis& analysis);

// What the findings of `profile` are, as a caption: estimates from an import (there is no program to
// re-simulate), or, for a replay seen as a profile, estimates beside the replay's measured suggestions.
std::string findingsCaption(const Profile& profile);

} // namespace xps::profile

#pragma once
// What a Chrome trace JSON cannot say of a profile, written beside its events so that an export re-imports
// as the same profile: the class of every slice type the Chrome importer would classify differently (an
// XSpace's "XLA Ops", a Chakra COMP_NODE are kernels; Chrome categories alone would say "other"), which
// process and thread tracks are devices, the source's format, and the timebase of a profile whose tick is
// not a nanosecond (a replay's cycles), whose times are then written in picoseconds. Written by the Chrome
// exporter as the top-level member "xpushark_semantics" (other tools ignore unknown top-level keys); read
// back by the Chrome importer, which then trusts it over its own guesses.

#include "profile/profile.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace xps::importing {

inline constexpr std::string_view kSemanticsKey = "xpushark_semantics";

nlohmann::json profileSemantics(const profile::Profile& profile);

// The timebase the export's times are in ("timebase": [ns numerator, ns denominator] a tick: a replay's
// cycles, written in picoseconds), or nullopt for nanoseconds; `wrong` says why a malformed one was not
// taken.
std::optional<profile::Timebase> declaredTimebase(const nlohmann::json& semantics, std::string& wrong);

// Applies what `semantics` says to a profile just read from Chrome JSON (before Profile::finish() or after:
// it changes types and track flags only). Malformed entries are skipped; returns how many were.
std::size_t applyProfileSemantics(profile::Profile& profile, const nlohmann::json& semantics);

} // namespace xps::importing

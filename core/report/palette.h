#pragma once
// The colours that mean one thing everywhere xpushark draws: the explorer's views (ui/theme) and the
// report's figures. Okabe & Ito (2008), "Color Universal Design": distinguishable for the common
// colour-vision deficiencies and on a projected screen.

#include "analysis/dependencies.h"
#include "events/events.h"
#include "profile/critical_path.h"

#include <cstdint>
#include <string>

namespace xps::palette {

using Rgb = std::uint32_t; // 0xRRGGBB

inline constexpr Rgb kOrange = 0xE69F00;
inline constexpr Rgb kSkyBlue = 0x56B4E9;
inline constexpr Rgb kGreen = 0x009E73;
inline constexpr Rgb kYellow = 0xF0E442;
inline constexpr Rgb kBlue = 0x0072B2;
inline constexpr Rgb kVermillion = 0xD55E00;
inline constexpr Rgb kPurple = 0xCC79A7;
inline constexpr Rgb kGrey = 0x999999;

Rgb stallColour(events::StallReason reason);
Rgb pathKindColour(analysis::PathKind kind); // a critical-path segment's kind
// An imported profile's critical-path segment: the device breakdown's colours where they mean the same
// (kernels blue, communication purple, copies orange, idle grey).
Rgb pathSegmentColour(profile::PathSegmentKind kind);
std::string hex(Rgb colour);                 // "#e69f00"
// The colour of the `index`-th series of a plot with one per chip or device (bandwidth per chip, ...).
Rgb seriesColour(std::size_t index);

} // namespace xps::palette

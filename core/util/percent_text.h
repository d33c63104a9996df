#pragma once
// A share as a person reads it: one decimal ("12.3%"), and two significant digits under a tenth of a
// percent ("0.045%"), so that a device busy for 3.6 ms of an 8 s profile does not read "0.0%". Exactly
// nothing is "0.0%".

#include <cstdio>
#include <string>

namespace xps::text {

inline std::string percentText(double percent)
{
    char number[32];
    std::snprintf(number, sizeof number, percent > 0 && percent < 0.1 ? "%.2g%%" : "%.1f%%", percent);
    return number;
}

} // namespace xps::text

#pragma once
// How the TensorBoard plugin's kernel utilization (gpu_metrics.h) is said in words, the same in the text
// report and the explorer: "12.3% within the steps", or, for a profile with no ProfilerStep#N annotations,
// what the plugin then measures against: "0.026% of the host operators' span", or, with no host operators
// either (a device-only XSpace), "0.045% of the profile" (util/percent_text.h).

#include "profile/gpu_metrics.h"
#include "profile/profile.h"
#include "util/percent_text.h"

#include <string>

namespace xps::profile {

inline std::string kernelUtilizationText(const Profile& p, const DeviceUtilization& u)
{
    const bool wholeProfile = u.stepsStart == p.startTime() && u.stepsEnd == p.endTime();
    return text::percentText(100 * u.utilization) + (u.annotatedSteps ? " within the steps"
                                                     : wholeProfile   ? " of the profile"
                                                                      : " of the host operators' span");
}

} // namespace xps::profile

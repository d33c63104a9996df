#pragma once
// How the TensorBoard plugin's kernel utilization (gpu_metrics.h) is said in words, the same in the text
// report and the explorer: "12.3% within the steps", or, for a profile with no ProfilerStep#N annotations
// (JAX, XProf), what the plugin then measures against: "0.045% of the profile" (util/percent_text.h).

#include "profile/gpu_metrics.h"
#include "profile/profile.h"
#include "util/percent_text.h"

#include <string>

namespace xps::profile {

inline std::string kernelUtilizationText(const Profile& p, const DeviceUtilization& u)
{
    const bool wholeProfile = u.stepsStart == p.startTime() && u.stepsEnd == p.endTime();
    return text::percentText(100 * u.utilization) + (wholeProfile ? " of the profile" : " within the steps");
}

} // namespace xps::profile

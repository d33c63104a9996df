#pragma once
// Which runtime call launched each piece of device work: the flows from a runtime call (cudaLaunchKernel,
// hipMemcpyAsync, ...) to a kernel, copy or set on a stream, as Kineto writes them and PyTorch's tools read
// them. The one definition the analyses, the TensorBoard plugin's steps and the queue lengths share.

#include "profile/profile.h"
#include "util/cancel.h"

#include <cstdint>
#include <vector>

namespace xps::profile {

// For every slice, the slice index of the runtime call that launched it, or kNone (host slices, and
// device work no flow reaches). A file may repeat a flow or link one piece of work twice: the first flow
// counts. Polls `cancel` per flow.
std::vector<std::uint32_t> launchers(const Profile& profile, CancelPoint& cancel);

} // namespace xps::profile

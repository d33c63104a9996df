#pragma once
// XProf XSpace (*.xplane.pb, what JAX's and TensorFlow's profilers write for TPUs and GPUs) into a
// profile::Profile, read with libprotobuf from the schema in import/proto/xplane.proto.
//
// A plane becomes a process (devices "/device:TPU:0" are device processes, listed first, "/host:CPU" the
// host; a plane whose id another already has gets a new one), a line a thread ("XLA Ops", "XLA Modules",
// "Steps", host threads), an event a slice at line timestamp + offset (picoseconds, rounded to the
// nanosecond), or on a device at its device timespan (xplane_ops.h). The line's name is the slice's
// category, and decides with the plane what a slice is: on a device, "XLA Ops" and "Async XLA Ops" are
// kernels, communication or copies by their hlo_category, and modules, steps and name scopes are
// annotations; on the host, slices are CPU ops. Stats become arguments (a reference stat names its value;
// an op's HLO text is "long_name"); per-event ids (group_id, run_id) stay beside the slice and
// correlation_id is its link; producer/consumer stats (_p/_c with _pt/_ct) become flows, and so do the
// start -> done pairs of asynchronous ops.

#include "import/chrome_json.h"
#include "profile/profile.h"
#include "util/result.h"

#include <string>

namespace xps::importing {

Result<profile::Profile> importXSpace(const std::string& path, const ImportOptions& options = {});

} // namespace xps::importing

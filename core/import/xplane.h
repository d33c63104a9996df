#pragma once
// XProf XSpace (*.xplane.pb, what JAX's and TensorFlow's profilers write for TPUs and GPUs) into a
// profile::Profile, read with libprotobuf from the schema in import/proto/xplane.proto.
//
// A plane becomes a process (devices "/device:TPU:0" are device processes, "/host:CPU" the host), a line a
// thread ("XLA Ops", "XLA Modules", "Steps", host threads), an event a slice at line timestamp + offset
// (picoseconds, rounded to the nanosecond). The line's name is the slice's category, and decides with the
// plane what a slice is: on a device, "XLA Ops" are kernels (collectives: communication; copies: memcpy)
// and modules, steps and name scopes are annotations; on the host, slices are CPU ops. Stats become
// arguments (a reference stat names its value); per-event ids (group_id, run_id) stay beside the slice
// and correlation_id is its link; producer/consumer stats (_p/_c with _pt/_ct) become flows.

#include "import/chrome_json.h"
#include "profile/profile.h"
#include "util/result.h"

#include <string>

namespace xps::importing {

Result<profile::Profile> importXSpace(const std::string& path, const ImportOptions& options = {});

// What an event on `line` of `plane` is.
profile::SliceClass classifyXProfEvent(std::string_view plane, std::string_view line, std::string_view name);

} // namespace xps::importing

#pragma once
// Chrome Trace Event JSON, as written by chrome://tracing, Perfetto's JSON exporter, the PyTorch profiler
// (Kineto; the 2021 and current schemas, CUDA and ROCm) and many other tools, into a profile::Profile.
//
// Read: both the array form and the object form ({"traceEvents": [...], ...}); phases B/E, X, i/I/n
// (instants), C (counters), M (process and thread names and sort order), b/e and S/F (async slices),
// s/t/f (flows, binding to the enclosing or next slice) and flow v2 (bind_id, flow_in, flow_out),
// R (marks, as instants); string or numeric pids and tids; timestamps in microseconds with fractions
// kept to the nanosecond exactly. Gzip-compressed files open directly.
//
// Best effort, said in words: a file cut off inside its event list keeps the events before the cut; an
// event with a field of the wrong type is skipped; B without E is closed at the trace's end; every such
// repair is one line in Profile::warnings with a count and the JSON path of the first case. A file that
// is not JSON at all, or has no event list, is an error naming line and column.

#include "profile/profile.h"
#include "import/input_limits.h"
#include "util/result.h"

#include <functional>
#include <string>

namespace xps::importing {

struct ImportOptions
{
    // Called about every 16 MiB of input with the bytes of the file read so far; returning false stops the
    // import (the result is an error saying it was cancelled).
    std::function<bool(std::uint64_t fileBytesRead)> progress;
    InputLimits limits;
};

Result<profile::Profile> importChromeJson(const std::string& path, const ImportOptions& options = {});

// Decides what a slice is from its category and name (Kineto's categories, old and new, for CUDA, ROCm and
// MTIA; NCCL/RCCL/HCCL kernels are communication, MTIA's DMA requests copies).
profile::SliceClass classifySlice(std::string_view name, std::string_view category);

} // namespace xps::importing

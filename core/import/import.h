#pragma once
// Which reader a file needs, and the profile importers behind one call. xpushark's own traces (.xtrace.json,
// .xps, .xasm) are replayed; everything else the explorer and the CLI open is imported as a
// profile::Profile: Chrome / Perfetto JSON and the PyTorch profiler's Kineto JSON, plain or gzip-compressed,
// XProf's XSpace (*.xplane.pb) and Chakra execution traces (*.et, replayed by their dependencies).

#include "import/chakra.h"
#include "import/chrome_json.h"
#include "import/xplane.h"
#include "profile/profile.h"
#include "util/result.h"

#include <string>

namespace xps::importing {

// PyTorchExecutionTrace: PyTorch's own execution trace (ExecutionTraceObserver's JSON), which is the input of
// Chakra's converter, not Chakra: known, so that importProfile can say what to do with it, not read.
enum class InputKind { XpuTrace, ChromeJson, XSpace, Chakra, PyTorchExecutionTrace };

// By name first (.xps, .xasm, .xtrace.json are ours; .xplane.pb is XProf's XSpace), then by content (the first 64 KiB, decompressed):
// a JSON array or an object with "traceEvents" is a Chrome trace; "format": "xpushark-trace" is ours.
// Errors: missing or unreadable file, or a file that is neither.
Result<InputKind> detectInput(const std::string& path);

Result<profile::Profile> importProfile(const std::string& path, const ImportOptions& options = {});

} // namespace xps::importing

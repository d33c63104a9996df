#pragma once
// Saving without ever losing what the user had: the new content goes to a temporary file beside the
// target, which is synced to disk and renamed over the target only when complete. Readers, and a crash
// at any moment, see either the previous complete file or the new complete one.

#include "util/result.h"

#include <functional>
#include <string>

namespace xps {

// `write` fills the temporary file (given its path) and returns Ok or the reason it could not. The
// temporary file is removed whenever the target is not replaced, an exception from `write` included (which
// is then rethrown; a stream `write` opened is its own to close).
Status writeFileAtomically(const std::string& path,
                           const std::function<Status(const std::string& temporaryPath)>& write);
// The same for a file whose whole content is in memory.
Status writeTextFileAtomically(const std::string& path, const std::string& content);

} // namespace xps

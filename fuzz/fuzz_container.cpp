// The .xps container (SQLite): the trace tables, blobs, and the session tables (notes, bookmarks, suggestion
// states, notes pinned to an imported profile's slices) that sit beside them or, for a session on an
// imported profile, alone.
#include "fuzz_support.h"
#include "session/session.h"
#include "trace/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = xps::fuzz::scratchFile(data, size, "in.xps");
    (void)xps::trace::loadTrace(path);
    (void)xps::session::readSessionTables(path);
    (void)xps::session::isProfileSession(path);
    return 0;
}

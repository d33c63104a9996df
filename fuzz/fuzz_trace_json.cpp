// The xpushark trace JSON reader (.xtrace.json): text in memory, as loadTrace hands it over.
#include "fuzz_support.h"
#include "trace/trace_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto trace = xps::trace::readTraceJson(text, "fuzz.xtrace.json");
    if (trace.ok()) // what loads must write back as valid JSON that loads again
        xps::fuzz::requireValidUtf8(xps::trace::writeTraceJson(*trace));
    return 0;
}

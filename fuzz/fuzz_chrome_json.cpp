// Chrome / Perfetto and PyTorch profiler (Kineto) JSON, plain or gzip (the reader sniffs the magic), then
// every profile analysis and the JSON it writes.
#include "fuzz_support.h"
#include "import/chrome_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = xps::fuzz::scratchFile(data, size, "in.json");
    xps::importing::ImportOptions options;
    options.limits.maxEvents = 1u << 20; // keeps each run small; the limit itself is under test too
    if (auto p = xps::importing::importChromeJson(path, options); p.ok())
        xps::fuzz::analyzeAndWrite(*p);
    return 0;
}

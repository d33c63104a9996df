// Chakra's JSON forms (what its jsonizer writes, plain or gzip, split object by object; and the feeder's
// "workload_graph" document), then scheduled and analysed like .et.
#include "fuzz_support.h"
#include "import/chakra.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = xps::fuzz::scratchFile(data, size, "in.chakra.json");
    xps::importing::ImportOptions options;
    options.limits.maxEvents = 1u << 18;
    if (auto p = xps::importing::importChakra(path, options); p.ok())
        xps::fuzz::analyzeAndWrite(*p);
    return 0;
}

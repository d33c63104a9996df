// XProf's XSpace protobuf (.xplane.pb, plain or gzip), read plane by plane, then the profile analyses and
// calibration's reading of its XLA ops as measurements (their HLO text parsed for op names and shapes).
#include "calibrate/profile_measurements.h"
#include "fuzz_support.h"
#include "import/xplane.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = xps::fuzz::scratchFile(data, size, "in.xplane.pb");
    xps::importing::ImportOptions options;
    options.limits.maxEvents = 1u << 20;
    if (auto p = xps::importing::importXSpace(path, options); p.ok()) {
        (void)xps::calibrate::measurementsFromProfile(*p, path);
        xps::fuzz::analyzeAndWrite(*p);
    }
    return 0;
}

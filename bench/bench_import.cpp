// bench_import [MiB=1024] [DIR=/tmp] [kineto|xspace]: writes a PyTorch-profiler-shaped (Kineto) trace of
// about MiB mebibytes (host ops with nested launches, kernels with Kineto's full argument sets, copies, ac2g
// flows), then times importing it (plain and gzip-compressed), the analyses and the export to Chrome JSON,
// and prints the resident bytes per event. `xspace` writes an XProf-shaped XSpace of 8 TPU planes instead and
// times its import. The page cache is dropped before each read when run as root.
#include "export/chrome_trace.h"
#include "import/import.h"
#include "kineto_writer.h"
#include "profile/profile_analysis.h"
#include "xspace_writer.h"

#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace xps;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point from)
{
    return std::chrono::duration<double>(Clock::now() - from).count();
}

double rssMiB(const char* field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field, 0) == 0)
            return std::strtod(line.c_str() + std::strlen(field), nullptr) / 1024.0;
    return 0;
}

// Resets VmHWM to the current RSS (Linux 4.0+), so that the next peak is this step's.
void resetPeakRss()
{
    if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
        std::fputs("5", f);
        std::fclose(f);
    }
}

void dropPageCache()
{
    ::sync();
    if (FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) {
        std::fputs("3", f);
        std::fclose(f);
    }
}

void importOnce(const std::string& path, std::uint64_t bytes, const char* what, const char* format = "JSON")
{
    dropPageCache();
    const double rssBefore = rssMiB("VmRSS:");
    resetPeakRss();
    const auto start = Clock::now();
    auto p = importing::importProfile(path);
    const double peak = (rssMiB("VmHWM:") - rssBefore) * 1048576.0;
    const double s = seconds(start);
    if (!p) {
        std::printf("import failed: %s\n", p.error().toString().c_str());
        std::exit(1);
    }
    const double grew = (rssMiB("VmRSS:") - rssBefore) * 1048576.0;
    std::printf("import %-10s: %.0f MB in %.2f s = %.0f MB/s of %s; %zu events (%zu slices, %zu flows); "
                "%.1f bytes/event by the "
                "model's accounting, %.1f as RSS growth\n",
                what, static_cast<double>(bytes) / 1e6, s, static_cast<double>(bytes) / 1e6 / s, format,
                p->eventCount(), p->slices.size(), p->flows.size(),
                static_cast<double>(p->residentBytes()) / static_cast<double>(p->eventCount()),
                grew / static_cast<double>(p->eventCount()));
    // The bar: the import's peak within 1.5x of what it keeps.
    std::printf("import %-10s: peak RSS growth %.0f MiB = %.2fx the %.0f MiB kept (model's accounting)\n",
                what, peak / 1048576.0, peak / static_cast<double>(p->residentBytes()),
                static_cast<double>(p->residentBytes()) / 1048576.0);
    if (std::string(what) != "plain")
        return;
    auto t = Clock::now();
    const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
    std::printf("analyses        : %.2f s (%zu findings, critical path %zu segments)\n", seconds(t),
                a.findings.size(), a.criticalPath.segments.size());
    t = Clock::now();
    const std::string out = path + ".export.json";
    if (!exporting::writeChromeTrace(*p, out)) {
        std::printf("export failed\n");
        std::exit(1);
    }
    const auto exported = std::filesystem::file_size(out);
    std::printf("export to JSON  : %.0f MB in %.2f s = %.0f MB/s\n", static_cast<double>(exported) / 1e6,
                seconds(t), static_cast<double>(exported) / 1e6 / seconds(t));
    std::filesystem::remove(out);
}

} // namespace

int main(int argc, char** argv)
{
    const std::uint64_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
    const std::string dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path().string();
    if (argc > 3 && std::string(argv[3]) == "xspace") {
        const std::string path = dir + "/bench_import.xplane.pb";
        std::uint64_t events = 0;
        const std::uint64_t bytes = bench::writeXSpace(path, mib << 20, 8, events);
        std::printf("XProf-shaped XSpace: %.0f MB, 8 TPU planes and a host plane, %llu events\n",
                    static_cast<double>(bytes) / 1e6, static_cast<unsigned long long>(events));
        importOnce(path, bytes, "xspace", "XSpace");
        std::printf("peak RSS: %.0f MiB\n", rssMiB("VmHWM:"));
        std::filesystem::remove(path);
        return 0;
    }
    const std::string plain = dir + "/bench_import.pt.trace.json", packed = plain + ".gz";
    const std::uint64_t bytes = bench::writeKineto(plain, mib << 20, nullptr);
    gzFile gz = gzopen(packed.c_str(), "wb1");
    bench::writeKineto(packed, mib << 20, gz);
    gzclose(gz);
    std::printf("Kineto-shaped trace: %.0f MB JSON, %.0f MB gzip-compressed\n",
                static_cast<double>(bytes) / 1e6,
                static_cast<double>(std::filesystem::file_size(packed)) / 1e6);
    importOnce(plain, bytes, "plain");
    importOnce(packed, bytes, "gzip");
    std::printf("peak RSS: %.0f MiB\n", rssMiB("VmHWM:"));
    std::filesystem::remove(plain);
    std::filesystem::remove(packed);
    return 0;
}

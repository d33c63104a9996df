// bench_import [MiB=1024] [DIR=/tmp]: writes a PyTorch-profiler-shaped (Kineto) trace of about MiB
// mebibytes (host ops with nested launches, kernels with Kineto's full argument sets, copies, ac2g flows),
// then times importing it (plain and gzip-compressed), the analyses and the export to Chrome JSON, and
// prints the resident bytes per event. The page cache is dropped before each read when run as root.
#include "export/profile_chrome.h"
#include "import/import.h"
#include "profile/profile_analysis.h"

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

void dropPageCache()
{
    ::sync();
    if (FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) {
        std::fputs("3", f);
        std::fclose(f);
    }
}

// One training-step-like stream of events; returns the bytes written.
std::uint64_t writeKineto(const std::string& path, std::uint64_t targetBytes, gzFile gz)
{
    std::FILE* f = gz ? nullptr : std::fopen(path.c_str(), "wb");
    std::uint64_t written = 0;
    char b[2048];
    const auto put = [&](int n) {
        if (gz)
            gzwrite(gz, b, static_cast<unsigned>(n));
        else
            std::fwrite(b, 1, static_cast<std::size_t>(n), f);
        written += static_cast<std::uint64_t>(n);
    };
    static const char* kernels[] = {
        "ampere_sgemm_128x64_tn",
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
        "float>>>",
        "ncclKernel_AllReduce_RING_LL_Sum_float",
        "void at::native::(anonymous namespace)::layer_norm_kernel<float>"};
    static const char* ops[] = {"aten::linear", "aten::gelu",       "aten::matmul",
                                "aten::mean",   "c10d::allreduce_", "aten::layer_norm"};
    put(std::snprintf(b, sizeof b,
                      "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"Bench "
                      "GPU\"}],\n  \"traceEvents\": [\n"
                      "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": "
                      "{\"name\": \"GPU 0\"}}"));
    std::uint64_t t = 1'700'000'000'000'000ull, gpu = t + 50'000; // ns
    std::uint64_t corr = 1;
    for (std::uint64_t i = 0; written < targetBytes; ++i) {
        const int k = static_cast<int>(i % 6);
        const std::uint64_t opStart = t, launch = t + 3'000, opEnd = t + 9'000;
        const auto us = [](std::uint64_t ns) {
            return std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1);
        };
        put(std::snprintf(b, sizeof b,
                          ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 4242, "
                          "\"tid\": 4242, \"ts\": %s, \"dur\": 9.000, "
                          "\"args\": {\"External id\": %llu, \"Sequence number\": %llu, \"Fwd thread id\": "
                          "0, \"Record function id\": 0, \"Ev Idx\": %llu}}",
                          ops[k], us(opStart).c_str(), static_cast<unsigned long long>(corr),
                          static_cast<unsigned long long>(i), static_cast<unsigned long long>(i * 3)));
        put(std::snprintf(b, sizeof b,
                          ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                          "\"pid\": 4242, \"tid\": 4242, \"ts\": %s, \"dur\": 4.500, "
                          "\"args\": {\"External id\": %llu, \"cbid\": 211, \"correlation\": %llu}}",
                          us(launch).c_str(), static_cast<unsigned long long>(corr),
                          static_cast<unsigned long long>(corr)));
        gpu = std::max(gpu, launch + 6'000);
        const std::uint64_t dur = 4'000 + (i * 7919 % 30'000);
        put(std::snprintf(
            b, sizeof b,
            ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %s, "
            "\"dur\": %s, "
            "\"args\": {\"External id\": %llu, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
            "\"correlation\": %llu, "
            "\"registers per thread\": 128, \"shared memory\": 16384, \"blocks per SM\": 1.5, \"warps per "
            "SM\": 12, "
            "\"grid\": [%d, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %%\": 25}}",
            kernels[k], us(gpu).c_str(), us(dur).c_str(), static_cast<unsigned long long>(corr),
            static_cast<unsigned long long>(corr), 64 << k));
        put(std::snprintf(b, sizeof b,
                          ",\n  {\"ph\": \"s\", \"id\": %llu, \"pid\": 4242, \"tid\": 4242, \"ts\": %s, "
                          "\"cat\": \"ac2g\", \"name\": \"ac2g\"}"
                          ",\n  {\"ph\": \"f\", \"id\": %llu, \"pid\": 0, \"tid\": 7, \"ts\": %s, \"cat\": "
                          "\"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
                          static_cast<unsigned long long>(corr), us(launch).c_str(),
                          static_cast<unsigned long long>(corr), us(gpu).c_str()));
        gpu += dur + 1'000;
        ++corr;
        t = opEnd + 1'000;
    }
    put(std::snprintf(b, sizeof b, "\n  ]\n}\n"));
    if (f)
        std::fclose(f);
    return written;
}

void importOnce(const std::string& path, std::uint64_t bytes, const char* what)
{
    dropPageCache();
    const double rssBefore = rssMiB("VmRSS:");
    const auto start = Clock::now();
    auto p = importing::importProfile(path);
    const double s = seconds(start);
    if (!p) {
        std::printf("import failed: %s\n", p.error().toString().c_str());
        std::exit(1);
    }
    const double grew = (rssMiB("VmRSS:") - rssBefore) * 1048576.0;
    std::printf("import %-10s: %.0f MB in %.2f s = %.0f MB/s of JSON; %zu events (%zu slices, %zu flows); "
                "%.1f bytes/event by the "
                "model's accounting, %.1f as RSS growth\n",
                what, static_cast<double>(bytes) / 1e6, s, static_cast<double>(bytes) / 1e6 / s,
                p->eventCount(), p->slices.size(), p->flows.size(),
                static_cast<double>(p->residentBytes()) / static_cast<double>(p->eventCount()),
                grew / static_cast<double>(p->eventCount()));
    if (std::string(what) != "plain")
        return;
    auto t = Clock::now();
    const profile::ProfileAnalysis a = profile::analyzeProfile(*p);
    std::printf("analyses        : %.2f s (%zu findings, critical path %zu segments)\n", seconds(t),
                a.findings.size(), a.criticalPath.segments.size());
    t = Clock::now();
    const std::string out = path + ".export.json";
    if (!exporting::writeProfileChromeTrace(*p, out)) {
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
    const std::string plain = dir + "/bench_import.pt.trace.json", packed = plain + ".gz";
    const std::uint64_t bytes = writeKineto(plain, mib << 20, nullptr);
    gzFile gz = gzopen(packed.c_str(), "wb1");
    writeKineto(packed, mib << 20, gz);
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

// Trace I/O throughput: a large literal snapshot through the .xps container (write, load) compared with a
// plain read of the same file, and the assembler and JSON reader on a program that fills the instruction
// memory. Prints one line per measurement; bench/README.md explains how to run it for the README.
#include "asm/assembler.h"
#include "trace/trace_container.h"
#include "trace/trace_io.h"
#include "trace/trace_json.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace xps;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point from)
{
    return std::chrono::duration<double>(Clock::now() - from).count();
}

double mbPerSecond(std::uint64_t bytes, double s)
{
    return static_cast<double>(bytes) / 1e6 / s;
}

// Reads the file with plain read() calls into one buffer: the disk (or page cache) speed to compare with.
double rawReadSeconds(const std::string& path, std::uint64_t& bytes)
{
    const auto start = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    std::vector<char> buffer(std::filesystem::file_size(path));
    std::size_t done = 0;
    ssize_t n;
    while ((n = ::read(fd, buffer.data() + done, buffer.size() - done)) > 0)
        done += static_cast<std::size_t>(n);
    ::close(fd);
    bytes = done;
    return seconds(start);
}

void dropPageCache()
{
    // Needs root; harmless when refused (then both reads come from the page cache, which the output says).
    ::sync();
    if (FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) {
        std::fputs("3", f);
        std::fclose(f);
        std::printf("  (page cache dropped before each read)\n");
    }
}

} // namespace

int main(int argc, char** argv)
{
    const std::uint64_t snapshotMiB = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
    const std::string dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path().string();
    const std::string path = dir + "/bench_snapshot.xps";

    std::printf("snapshot container, %llu MiB literal HBM snapshot\n",
                static_cast<unsigned long long>(snapshotMiB));
    trace::Trace t;
    t.chips.resize(1);
    trace::MemoryInit m;
    m.space = isa::Space::Hbm;
    m.size = snapshotMiB << 20;
    m.payload.bytes.resize(m.size);
    for (std::size_t i = 0; i < m.payload.bytes.size(); i += 4096)
        m.payload.bytes[i] = static_cast<std::uint8_t>(i >> 12);
    t.chips[0].initial.memory.push_back(std::move(m));

    auto start = Clock::now();
    if (Status s = trace::saveTrace(t, path); !s) {
        std::fprintf(stderr, "%s\n", s.error().toString().c_str());
        return 1;
    }
    const double write = seconds(start);
    std::printf("  write: %.2f s, %.0f MB/s\n", write, mbPerSecond(snapshotMiB << 20, write));

    dropPageCache();
    std::uint64_t fileBytes = 0;
    const double raw = rawReadSeconds(path, fileBytes);
    dropPageCache();
    start = Clock::now();
    auto loaded = trace::loadTrace(path);
    const double load = seconds(start);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().toString().c_str());
        return 1;
    }
    std::printf("  plain read() of the file: %.2f s, %.0f MB/s\n", raw, mbPerSecond(fileBytes, raw));
    std::printf("  load:  %.2f s, %.0f MB/s (%.0f%% of plain read)\n", load,
                mbPerSecond(snapshotMiB << 20, load), 100.0 * raw / load);
    std::filesystem::remove(path);
    loaded = Error();
    t = {};

    // A program that fills the default instruction memory: 65,536 bundles of 3 instructions.
    std::string source = ".vmem buf, 0, 65536\n";
    const int bundles = 65535;
    for (int i = 0; i < bundles; ++i)
        source += "sadd s1, s1, " + std::to_string(i % 100) + " ; vadd.f32 v1, v2, v3 ; vld v4, [s2 + " +
                  std::to_string((i % 64) * 512) + "]\n";
    source += "halt\n";
    start = Clock::now();
    auto assembled = assembly::assemble(source, "bench.xasm");
    const double assemble = seconds(start);
    if (!assembled)
        return 1;
    std::printf("assembler: %d bundles in %.3f s, %.2f M bundles/s\n", bundles + 1, assemble,
                (bundles + 1) / assemble / 1e6);
    const std::string json = trace::writeTraceJson(*assembled);
    start = Clock::now();
    auto fromJson = trace::readTraceJson(json, "bench.json");
    const double jsonRead = seconds(start);
    std::printf("JSON reader: %.1f MB in %.3f s, %.0f MB/s, %.2f M bundles/s\n", json.size() / 1e6, jsonRead,
                mbPerSecond(json.size(), jsonRead), (bundles + 1) / jsonRead / 1e6);
    return fromJson ? 0 : 1;
}

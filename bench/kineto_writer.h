#pragma once
// A PyTorch-profiler-shaped (Kineto) trace for the benchmarks: per step a host op with a nested launch, a
// kernel with Kineto's full argument set on stream 7, and the ac2g flow between them.

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace bench {

// One training-step-like stream of events; returns the bytes written.
inline std::uint64_t writeKineto(const std::string& path, std::uint64_t targetBytes, gzFile gz)
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


} // namespace bench

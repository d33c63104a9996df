#pragma once
// Internal to the workload generators: one function per workload, returning its assembly.

#include <cstdint>
#include <string>

namespace xps::workloads::detail {

// The bytes of one 8 x 128 f32 vector register: the tile the generated kernels move and compute on.
inline constexpr std::int64_t kTile = 4096;

std::string allGatherAssembly(const std::string& variant, std::int64_t chips, std::int64_t shardBytes,
                              std::int64_t chunkBytes);

// Tiled matmul (matmul.cpp): an unrolled kernel of about matmulBundleEstimate bundles.
std::string matmulAssembly(const std::string& variant, std::int64_t m, std::int64_t k, std::int64_t n);
std::int64_t matmulBundleEstimate(std::int64_t m, std::int64_t k, std::int64_t n);

// LLM decode step (decode.cpp); the VMEM its tuned variant needs (every stream prefetched whole).
std::string decodeAssembly(const std::string& variant, std::int64_t batch, std::int64_t seq, std::int64_t heads);
std::int64_t decodeVmemBytes(std::int64_t batch, std::int64_t seq, std::int64_t heads);

// Streaming kernel with small tiles (smalltile.cpp); the tile its tuned variant uses.
std::string smallTileAssembly(const std::string& variant, std::int64_t totalBytes, std::int64_t tileBytes);
std::int64_t smallTileTunedTile(std::int64_t totalBytes);

// The benchmarks' stress loop (stress.cpp): at least `bundles` bundles over all chips.
std::string stressAssembly(std::int64_t chips, std::int64_t bundles);

} // namespace xps::workloads::detail

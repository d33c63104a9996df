#pragma once
// Internal to the workload generators: one function per workload, returning its assembly.

#include <cstdint>
#include <string>

namespace xps::workloads::detail {

std::string allGatherAssembly(const std::string& variant, std::int64_t chips, std::int64_t shardBytes,
                              std::int64_t chunkBytes);

} // namespace xps::workloads::detail

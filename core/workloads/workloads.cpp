#include "workloads/workloads.h"

#include "asm/assembler.h"
#include "util/text.h"
#include "workloads_detail.h"

#include <algorithm>

namespace xps::workloads {

const std::vector<Workload>& workloads()
{
    static const std::vector<Workload> all = {
        {"allgather",
         "ring All-Gather: every chip ends with every chip's shard; naive sends whole shards one way, tuned "
         "sends halves both ways",
         {{"chips", 4, 2, 64, "chips in the ring"},
          {"shard_bytes", 1 << 20, 1024, 64 << 20,
           "bytes each chip contributes (a multiple of 2 x chunk_bytes)"},
          {"chunk_bytes", 64 << 10, 512, 16 << 20, "DMA chunk: the flag granularity a receiver waits on"}},
         {"naive", "tuned"}},
        {"matmul",
         "tiled matmul C = A x B on the MXU (f32, row-major in HBM): tuned double-buffers the weight blocks and is "
         "close to the MXU roofline (the negative control); naive fetches each block just before it is needed",
         {{"m", 256, 128, 2048, "rows of A and C (a multiple of 32)"},
          {"k", 1024, 128, 4096, "columns of A, rows of B (a multiple of 128)"},
          {"n", 1024, 128, 4096, "columns of B and C (a multiple of 128)"}},
         {"naive", "tuned"}},
        {"decode",
         "LLM decode step: one transformer layer (qkv projection, attention over a KV cache, output projection, "
         "MLP) for a small batch, every weight and cache block streamed from HBM; naive fetches each block late "
         "through one buffer, tuned prefetches everything at the start of the layer",
         {{"batch", 4, 1, 8, "sequences decoded together"},
          {"seq", 512, 128, 1024, "cached tokens per sequence (a multiple of 128)"},
          {"heads", 2, 1, 4, "attention heads of 128 dimensions (d = 128 x heads, MLP 4 x d)"}},
         {"naive", "tuned"}},
        {"smalltile",
         "streaming y = 1.5 x + 0.25 with double-buffered tiles far smaller than VMEM: naive uses tile_bytes, tuned "
         "tiles of min(total_bytes / 4, 1 MiB)",
         {{"total_bytes", 4 << 20, 64 << 10, 256 << 20, "bytes of x (and of y)"},
          {"tile_bytes", 8192, 8192, 4 << 20, "bytes per tile (a multiple of 8 KiB dividing total_bytes)"}},
         {"naive", "tuned"},
         "tile_bytes"},
        {"stress",
         "the benchmarks' multi-chip loop: scalar, vector, load/store work, a 4 KiB DMA and a flag wait every 8 "
         "bundles on every chip",
         {{"chips", 4, 1, 64, "chips, each running the loop"},
          {"bundles", 10'000'000, 1000, 2'000'000'000, "bundles to replay, over all chips"}},
         {"default"}},
    };
    return all;
}

const Workload* findWorkload(const std::string& name)
{
    for (const Workload& w : workloads())
        if (w.name == name)
            return &w;
    return nullptr;
}

Result<std::string> generateAssembly(const std::string& name, const std::string& variantName,
                                     const std::map<std::string, std::int64_t>& values)
{
    const Workload* w = findWorkload(name);
    if (!w) {
        std::vector<std::string> names;
        for (const Workload& x : workloads())
            names.push_back(x.name);
        std::string message = "unknown workload '" + name + "'";
        if (std::string guess = text::nearest(name, names); !guess.empty())
            message += "; did you mean '" + guess + "'?";
        return Error({}, message);
    }
    const std::string variant = variantName.empty() ? w->variants.front() : variantName;
    if (std::find(w->variants.begin(), w->variants.end(), variant) == w->variants.end()) {
        std::string list;
        for (const std::string& v : w->variants)
            list += (list.empty() ? "" : ", ") + v;
        return Error({}, name + ": unknown variant '" + variant + "': expected " + list);
    }
    std::map<std::string, std::int64_t> p;
    for (const Parameter& param : w->parameters)
        p[param.name] = param.defaultValue;
    for (const auto& [key, value] : values) {
        const auto it = std::find_if(w->parameters.begin(), w->parameters.end(),
                                     [&key = key](const Parameter& x) { return x.name == key; });
        if (it == w->parameters.end()) {
            std::vector<std::string> names;
            for (const Parameter& x : w->parameters)
                names.push_back(x.name);
            std::string message = name + ": unknown parameter '" + key + "'";
            if (std::string guess = text::nearest(key, names); !guess.empty())
                message += "; did you mean '" + guess + "'?";
            return Error({}, message);
        }
        if (value < it->minimum || value > it->maximum)
            return Error({}, name + ": " + key + " must be from " + std::to_string(it->minimum) + " to " +
                                 std::to_string(it->maximum) + ", got " + std::to_string(value));
        p[key] = value;
    }
    if (name == "allgather") {
        if (p["shard_bytes"] % (2 * p["chunk_bytes"]) != 0)
            return Error({}, "allgather: shard_bytes (" + std::to_string(p["shard_bytes"]) +
                                 ") must be a multiple of 2 x chunk_bytes (" +
                                 std::to_string(2 * p["chunk_bytes"]) + ")");
        if (p["chips"] * p["shard_bytes"] > (std::int64_t(1) << 32) - 1)
            return Error({},
                         "allgather: chips x shard_bytes must stay below 4 GiB (32-bit scalar addresses)");
        return detail::allGatherAssembly(variant, p["chips"], p["shard_bytes"], p["chunk_bytes"]);
    }
    if (name == "matmul") {
        const std::int64_t m = p["m"], k = p["k"], n = p["n"];
        if (m % 32 != 0 || k % 128 != 0 || n % 128 != 0)
            return Error({}, "matmul: m must be a multiple of 32 and k, n multiples of 128, got m=" + std::to_string(m) +
                                 " k=" + std::to_string(k) + " n=" + std::to_string(n));
        if (const std::int64_t bundles = detail::matmulBundleEstimate(m, k, n); bundles > 65536)
            return Error({}, "matmul: m x k x n is too large for one unrolled kernel (about " + std::to_string(bundles) +
                                 " bundles; the instruction memory holds 65,536)");
        if (m * k * 4 + 2 * 65536 + 2 * m * 512 > (std::int64_t(32) << 20))
            return Error({}, "matmul: A (m x k x 4 bytes) and the buffers must fit the 32 MiB VMEM");
        return detail::matmulAssembly(variant, m, k, n);
    }
    if (name == "smalltile") {
        const std::int64_t total = p["total_bytes"], tile = p["tile_bytes"];
        if (tile % 8192 != 0 || total % tile != 0)
            return Error({}, "smalltile: tile_bytes (" + std::to_string(tile) +
                                 ") must be a multiple of 8192 that divides total_bytes (" + std::to_string(total) + ")");
        if (total % 8192 != 0 || (variant == "tuned" && total % detail::smallTileTunedTile(total) != 0))
            return Error({}, "smalltile: total_bytes must be a multiple of 32 KiB, got " + std::to_string(total));
        if (4 * tile > (std::int64_t(32) << 20))
            return Error({}, "smalltile: four tiles (two in, two out) must fit the 32 MiB VMEM");
        return detail::smallTileAssembly(variant, total, tile);
    }
    if (name == "stress")
        return detail::stressAssembly(p["chips"], p["bundles"]);
    if (name == "decode") {
        if (p["seq"] % 128 != 0)
            return Error({}, "decode: seq must be a multiple of 128, got " + std::to_string(p["seq"]));
        if (const std::int64_t bytes = detail::decodeVmemBytes(p["batch"], p["seq"], p["heads"]); bytes > (std::int64_t(32) << 20))
            return Error({}, "decode: the layer's weights and KV cache (" + std::to_string(bytes >> 20) +
                                 " MiB) must fit the 32 MiB VMEM; use fewer heads, a smaller batch or a shorter seq");
        return detail::decodeAssembly(variant, p["batch"], p["seq"], p["heads"]);
    }
    return Error({}, "workload '" + name + "' has no generator");
}

Result<trace::Trace> generate(const std::string& name, const std::string& variant,
                              const std::map<std::string, std::int64_t>& values)
{
    auto source = generateAssembly(name, variant, values);
    if (!source)
        return source.error();
    auto trace = assembly::assemble(*source, name + ".xasm");
    if (!trace)
        return trace;
    const Workload* w = findWorkload(name);
    trace::GeneratedBy by{name, variant.empty() ? w->variants.front() : variant, {}};
    for (const Parameter& p : w->parameters)
        by.params[p.name] = p.defaultValue;
    for (const auto& [key, value] : values)
        by.params[key] = value;
    trace.value().generatedBy = std::move(by);
    return trace;
}

} // namespace xps::workloads

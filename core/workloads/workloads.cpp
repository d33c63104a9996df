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
    };
    return all;
}

namespace {

const Workload* find(const std::string& name)
{
    for (const Workload& w : workloads())
        if (w.name == name)
            return &w;
    return nullptr;
}

} // namespace

Result<std::string> generateAssembly(const std::string& name, const std::string& variantName,
                                     const std::map<std::string, std::int64_t>& values)
{
    const Workload* w = find(name);
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
                                     [&](const Parameter& x) { return x.name == key; });
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
    return Error({}, "workload '" + name + "' has no generator");
}

Result<trace::Trace> generate(const std::string& name, const std::string& variant,
                              const std::map<std::string, std::int64_t>& values)
{
    auto source = generateAssembly(name, variant, values);
    if (!source)
        return source.error();
    return assembly::assemble(*source, name + ".xasm");
}

} // namespace xps::workloads

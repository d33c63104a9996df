#pragma once
// Reference workloads: parameterised xpu-v1 kernels, each in a naive and a tuned variant, written as
// assembly (so a kernel author can read exactly what runs) and assembled into traces. `xpushark-cli
// generate` and the sample traces come from here.

#include "trace/trace.h"
#include "util/result.h"

#include <map>
#include <string>
#include <vector>

namespace xps::workloads {

struct Parameter
{
    std::string name;
    std::int64_t defaultValue;
    std::int64_t minimum;
    std::int64_t maximum;
    std::string description;
};

struct Workload
{
    std::string name;
    std::string description;
    std::vector<Parameter> parameters;
    std::vector<std::string> variants = {}; // the first is the default
    std::string tileParameter = {};    // the kernel's tile size parameter, if a tile-size what-if applies
};

const Workload* findWorkload(const std::string& name);

const std::vector<Workload>& workloads();

// Generates the workload's assembly with `values` over the defaults; unknown names, out-of-range values
// and unknown variants are errors naming what is accepted.
Result<std::string> generateAssembly(const std::string& workload, const std::string& variant,
                                     const std::map<std::string, std::int64_t>& values);
Result<trace::Trace> generate(const std::string& workload, const std::string& variant,
                              const std::map<std::string, std::int64_t>& values);

} // namespace xps::workloads

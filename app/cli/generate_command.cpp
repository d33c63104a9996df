// `xpushark-cli generate`: writes a reference workload as a trace (or its assembly).
#include "commands.h"

#include "trace/trace_io.h"
#include "workloads/workloads.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace xps::cli {

int runGenerate(const std::vector<std::string>& args, Streams io)
{
    if (args.size() == 1 && args[0] == "--list") {
        for (const workloads::Workload& w : workloads::workloads()) {
            io.out << w.name << ": " << w.description << "\n  variants:";
            for (const std::string& v : w.variants)
                io.out << " " << v;
            io.out << "\n";
            for (const workloads::Parameter& p : w.parameters) {
                std::string flag = "--" + p.name + " N";
                std::replace(flag.begin(), flag.end(), '_', '-');
                flag.resize(std::max<std::size_t>(flag.size() + 2, 20), ' ');
                io.out << "  " << flag << p.description << " (default " << p.defaultValue << ", " << p.minimum
                       << ".." << p.maximum << ")\n";
            }
        }
        return kExitOk;
    }
    std::string name, variant, output;
    std::map<std::string, std::int64_t> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-o" || a == "--output" || a == "--variant") {
            if (i + 1 >= args.size())
                return usageError(io, "generate: " + a + " needs a value");
            (a == "--variant" ? variant : output) = args[++i];
        } else if (a.starts_with("--")) {
            std::string key = a.substr(2);
            std::replace(key.begin(), key.end(), '-', '_');
            const std::string value = i + 1 < args.size() ? args[++i] : std::string();
            char* end = nullptr;
            const long long v = std::strtoll(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0')
                return usageError(io, "generate: " + a + " needs a whole number, got '" + value + "'");
            values[key] = v;
        } else if (name.empty()) {
            name = a;
        } else {
            return usageError(io, "generate: expected one WORKLOAD, got '" + name + "' and '" + a + "'");
        }
    }
    if (name.empty())
        return usageError(io, "generate: expected a WORKLOAD (see `xpushark-cli generate --list`)");
    if (output.empty())
        return usageError(io, "generate: missing -o OUT (.xtrace.json, .xps or .xasm)");
    if (output.ends_with(".xasm")) {
        auto source = workloads::generateAssembly(name, variant, values);
        if (!source)
            return usageError(io, "generate: " + source.error().message());
        std::ofstream out(output, std::ios::binary);
        out << *source;
        if (!out)
            return inputError(io, Error(output, "cannot write"));
    } else {
        auto trace = workloads::generate(name, variant, values);
        if (!trace)
            return trace.error().location().empty() ? usageError(io, "generate: " + trace.error().message())
                                                    : inputError(io, trace.error());
        if (Status saved = trace::saveTrace(*trace, output); !saved)
            return inputError(io, saved.error());
    }
    io.out << "wrote " << output << "\n";
    return kExitOk;
}

} // namespace xps::cli

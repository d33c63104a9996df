#include "trace/trace_info.h"

#include "util/text.h"

#include <algorithm>
#include <cstdio>

namespace xps::trace {
namespace {

std::string pad(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

} // namespace

std::string describeTrace(const Trace& t)
{
    std::string out;
    out += "trace:     " + (t.name.empty() ? std::string("(unnamed)") : t.name) + "\n";
    char clock[64];
    std::snprintf(clock, sizeof clock, "%g MHz", t.machine.clockMhz);
    out += "machine:   xpu-v1, " + std::to_string(t.machine.chips) + " chip(s), " +
           std::string(isa::topologyName(t.machine.topology)) + ", " + clock + ", VMEM " +
           text::formatBytes(static_cast<std::uint64_t>(t.machine.vmemBytes)) + ", HBM " +
           text::formatBytes(static_cast<std::uint64_t>(t.machine.hbmBytes)) + ", " +
           std::to_string(t.machine.dmaEngines) + " DMA engines\n";
    if (!t.machine.overridden.empty()) {
        out += "overrides:";
        for (const std::string& key : t.machine.overridden)
            out += " " + key + "=" + isa::machineParamText(t.machine, key);
        out += "\n";
    }
    if (t.generatedBy) {
        out += "generated: xpushark-cli generate " + t.generatedBy->workload + " --variant " + t.generatedBy->variant;
        for (const auto& [key, value] : t.generatedBy->params) {
            std::string flag = key;
            std::replace(flag.begin(), flag.end(), '_', '-');
            out += " --" + flag + " " + std::to_string(value);
        }
        out += "\n";
    }
    out += "snapshot:  " + text::formatBytes(t.snapshotBytes()) + " of literal initial data\n";
    for (const ChipTrace& c : t.chips) {
        std::size_t instructions = 0;
        for (const isa::Bundle& b : c.program.bundles)
            instructions += b.instructions.size();
        std::uint64_t generated = 0, literal = 0;
        for (const MemoryInit& m : c.initial.memory)
            (m.payload.isGenerator ? generated : literal) += m.size;
        out += "\nchip " + std::to_string(c.chip.value) + ": " + std::to_string(c.program.bundles.size()) +
               " bundles, " + std::to_string(instructions) + " instructions; initial memory " +
               text::formatBytes(literal) + " literal + " + text::formatBytes(generated) + " generated; " +
               std::to_string(c.initial.scalarRegisters.size()) + " scalar, " +
               std::to_string(c.initial.vectorRegisters.size()) + " vector registers set\n";
        if (!c.symbols.buffers.empty()) {
            out += "  buffers:\n";
            for (const Buffer& b : c.symbols.buffers) {
                std::string shape;
                for (std::size_t i = 0; i < b.shape.size(); ++i)
                    shape += (i ? "x" : "") + std::to_string(b.shape[i]);
                const bool isOutput =
                    std::find(c.outputs.begin(), c.outputs.end(), b.name) != c.outputs.end();
                out += "    " + pad(b.name, 16) + pad(std::string(isa::spaceName(b.space)), 5) +
                       pad(text::hex(b.address), 12) + pad(text::formatBytes(b.size), 11) + pad(b.dtype, 5) +
                       pad(shape, 12) + (isOutput ? "output" : "") +
                       (b.aliasOf.empty() ? "" : " alias of " + b.aliasOf) + "\n";
            }
        }
        if (!c.symbols.regions.empty()) {
            out += "  regions:";
            for (const RegionSymbol& r : c.symbols.regions)
                out += " " + r.name + (r.level.empty() ? "" : "(" + r.level + ")");
            out += "\n";
        }
    }
    if (t.recorded)
        out += "\nrecorded timing: " + std::to_string(t.recorded->regions.size()) + " region durations, " +
               std::to_string(t.recorded->samples.size()) + " (pc, cycle) samples\n";
    return out;
}

} // namespace xps::trace

// The StableHLO frontend's cost: parse, compile and replay (timing mode) of generated models of 1,000,
// 3,000 and 10,000 ops (each block: a dot_general, a bias broadcast and add, a ReLU, a row sum and its
// broadcast, a scale), and of the bundled transformer block. Compiling must grow linearly with the ops
// (the target: 10,000 ops in under a second); the replay runs at the GRM's usual rate. Compiled code moves
// every operand by DMA, and a strided DMA records a VMEM access per row: its events per bundle are printed
// beside the rate, since the GRM's cost follows events (bench_replay's loop makes 1.6 per bundle).
#include "events/event_store.h"
#include "replayer.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"
#include "trace/trace_io.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace xps;

namespace {

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// `blocks` blocks of 10 ops on a [64, 128] activation.
std::string model(int blocks)
{
    const std::string t = "tensor<64x128xf32>";
    std::string s = "module @bench {\n  func.func public @main(%x: " + t +
                    ", %w: tensor<128x128xf32>, %b: tensor<128xf32>) -> " + t + " {\n";
    s += "    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n";
    s += "    %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> " + t + "\n";
    s += "    %scale = stablehlo.constant dense<7.812500e-03> : " + t + "\n";
    std::string x = "%x";
    for (int i = 0; i < blocks; ++i) {
        const auto n = std::to_string(i);
        s += "    %d" + n + " = stablehlo.dot_general " + x + ", %w, contracting_dims = [1] x [0] : (" + t +
             ", tensor<128x128xf32>) -> " + t + "\n";
        s +=
            "    %bb" + n + " = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<128xf32>) -> " + t + "\n";
        s += "    %a" + n + " = stablehlo.add %d" + n + ", %bb" + n + " : " + t + "\n";
        s += "    %r" + n + " = stablehlo.maximum %a" + n + ", %zeros : " + t + "\n";
        s += "    %s" + n + " = stablehlo.reduce(%r" + n +
             " init: %zero) applies stablehlo.add across dimensions = [1] : (" + t +
             ", tensor<f32>) -> tensor<64xf32>\n";
        s += "    %sb" + n + " = stablehlo.broadcast_in_dim %s" + n + ", dims = [0] : (tensor<64xf32>) -> " +
             t + "\n";
        s += "    %m" + n + " = stablehlo.multiply %sb" + n + ", %scale : " + t + "\n";
        s += "    %q" + n + " = stablehlo.subtract %r" + n + ", %m" + n + " : " + t + "\n";
        s += "    %e" + n + " = stablehlo.negate %q" + n + " : " + t + "\n";
        s += "    %y" + n + " = stablehlo.negate %e" + n + " : " + t + "\n";
        x = "%y" + n;
    }
    return s + "    return " + x + " : " + t + "\n  }\n}\n";
}

void measure(const char* what, std::string text)
{
    const auto bytes = text.size();
    auto start = std::chrono::steady_clock::now();
    auto module = shlo::parseModule(std::move(text), what);
    const double parse = seconds(start);
    if (!module) {
        std::printf("%s: %s\n", what, module.error().toString().c_str());
        return;
    }
    shlo::CompileOptions options;
    options.machine.imemBundles = std::int64_t{1} << 24; // the unrolled program of a long model
    // XPS_BENCH_FUSION=off: a kernel per op, to measure what fusion costs the compile and gains the replay.
    if (const char* fusion = std::getenv("XPS_BENCH_FUSION"); fusion && std::string(fusion) == "off")
        options.fuse = false;
    // The best of three: this machine is shared, and a compile is short enough to repeat.
    double compile = 1e300;
    auto compiled = shlo::compileModule(*module, options);
    for (int run = 0; run < 3 && compiled; ++run) {
        start = std::chrono::steady_clock::now();
        compiled = shlo::compileModule(*module, options);
        compile = std::min(compile, seconds(start));
    }
    if (!compiled) {
        std::printf("%s: %s\n", what, compiled.error().toString().c_str());
        return;
    }
    events::EventStore store;
    sim::ReplayOptions replay;
    replay.mode = sim::ReplayMode::TimingOnly;
    start = std::chrono::steady_clock::now();
    const auto result = sim::replay(compiled->trace, replay, store);
    const double replaySeconds = seconds(start);
    std::uint64_t bundles = 0;
    for (const auto& c : result.chips)
        bundles += c.bundles;
    std::printf(
        "%-22s %7zu ops %9zu B  parse %7.3f s  compile %7.3f s (%7.0f ops/s)  %9zu bundles  replay %7.3f s "
        "(%5.1f M bundles/s, %llu cycles; %.1f M events, %.1f per bundle, %5.1f M events/s)\n",
        what, module->operationCount(), bytes, parse, compile,
        static_cast<double>(module->operationCount()) / compile,
        compiled->trace.chips.at(0).program.bundles.size(), replaySeconds,
        static_cast<double>(bundles) / replaySeconds / 1e6,
        static_cast<unsigned long long>(result.totalCycles), static_cast<double>(store.eventCount()) / 1e6,
        static_cast<double>(store.eventCount()) / static_cast<double>(std::max<std::uint64_t>(bundles, 1)),
        static_cast<double>(store.eventCount()) / replaySeconds / 1e6);
}

} // namespace

int main(int argc, char** argv)
{
    for (const int blocks : {100, 300, 1000})
        measure(("model x" + std::to_string(blocks / 100)).c_str(), model(blocks));
    if (argc > 1) {
        auto text = trace::readTextFile(argv[1], 1 << 30);
        if (text)
            measure("transformer block", *text);
    }
    return 0;
}

// Programs longer than instruction memory, compiled with loops (docs/stablehlo.md): for each model, the
// unrolled program (instruction memory raised to 16 Mi bundles) against the looped one on the default
// machine: bundles, loops, compile time (best of three) and timing-mode cycles. The models are what real
// networks have: a ResNet-50 bottleneck block (1x1, 3x3 and 1x1 convolutions on 56x56x256, ReLUs, the
// residual add) at batch 2, 6 and 20 (1x, 3x, 10x: cost must grow with the work), an LLM's MLP and a
// 4096-wide projection.
#include "events/event_store.h"
#include "replayer.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

using namespace xps;

namespace {

std::string tensor(std::initializer_list<int> shape)
{
    std::string s = "tensor<";
    for (const int d : shape)
        s += std::to_string(d) + "x";
    return s + "f32>";
}

std::string bottleneck(int batch)
{
    const auto x = tensor({batch, 56, 56, 256}), y = tensor({batch, 56, 56, 64});
    const std::string nhwc = "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
    const std::string groups = " {batch_group_count = 1 : i64, feature_group_count = 1 : i64}";
    const auto conv = [&](const std::string& out, const std::string& in, const std::string& w, int pad,
                          const std::string& inType, const std::string& wType, const std::string& outType) {
        const auto p = std::to_string(pad);
        return "    " + out + " = stablehlo.convolution(" + in + ", " + w + ") " + nhwc +
               ", window = {stride = [1, 1], pad = [[" + p + ", " + p + "], [" + p + ", " + p + "]]}" +
               groups + " : (" + inType + ", " + wType + ") -> " + outType + "\n";
    };
    const auto w1 = tensor({1, 1, 256, 64}), w2 = tensor({3, 3, 64, 64}), w3 = tensor({1, 1, 64, 256});
    std::string s = "func.func public @main(%x: " + x + ", %w1: " + w1 + ", %w2: " + w2 + ", %w3: " + w3 +
                    ") -> " + x + " {\n";
    s += conv("%c1", "%x", "%w1", 0, x, w1, y);
    s += "    %z = stablehlo.constant dense<0.0> : " + y + "\n";
    s += "    %r1 = stablehlo.maximum %c1, %z : " + y + "\n";
    s += conv("%c2", "%r1", "%w2", 1, y, w2, y);
    s += "    %r2 = stablehlo.maximum %c2, %z : " + y + "\n";
    s += conv("%c3", "%r2", "%w3", 0, y, w3, x);
    s += "    %s = stablehlo.add %c3, %x : " + x + "\n";
    s += "    %z2 = stablehlo.constant dense<0.0> : " + x + "\n";
    s += "    %o = stablehlo.maximum %s, %z2 : " + x + "\n";
    return s + "    return %o : " + x + "\n}\n";
}

std::string matmul(const std::string& a, const std::string& b, const std::string& out, int m, int k, int n)
{
    return "    " + out + " = stablehlo.dot_general " + a + ", " + b + ", contracting_dims = [1] x [0] : (" +
           tensor({m, k}) + ", " + tensor({k, n}) + ") -> " + tensor({m, n}) + "\n";
}

std::string mlp()
{
    const auto x = tensor({512, 1024}), h = tensor({512, 4096});
    std::string s = "func.func public @main(%x: " + x + ", %w1: " + tensor({1024, 4096}) +
                    ", %w2: " + tensor({4096, 1024}) + ") -> " + x + " {\n";
    s += matmul("%x", "%w1", "%h", 512, 1024, 4096);
    s += "    %t = stablehlo.tanh %h : " + h + "\n";
    s += "    %g = stablehlo.multiply %h, %t : " + h + "\n";
    s += matmul("%g", "%w2", "%y", 512, 4096, 1024);
    return s + "    return %y : " + x + "\n}\n";
}

std::string projection()
{
    return "func.func public @main(%x: " + tensor({512, 4096}) + ", %w: " + tensor({4096, 4096}) + ") -> " +
           tensor({512, 4096}) + " {\n" + matmul("%x", "%w", "%y", 512, 4096, 4096) +
           "    return %y : " + tensor({512, 4096}) + "\n}\n";
}

struct Measured
{
    std::size_t bundles = 0, loops = 0;
    double compileSeconds = 0;
    unsigned long long cycles = 0;
    std::string error;
};

Measured measure(const shlo::Module& module, const shlo::CompileOptions& options)
{
    Measured m;
    double best = 1e300;
    Result<shlo::CompiledModule> compiled = Error("bench", "not compiled");
    for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        compiled = shlo::compileModule(module, options);
        best =
            std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!compiled) {
            m.error = compiled.error().toString();
            return m;
        }
    }
    m.compileSeconds = best;
    const auto& program = compiled->trace.chips.at(0).program.bundles;
    m.bundles = program.size();
    for (const auto& bundle : program)
        for (const auto& insn : bundle.instructions)
            m.loops += insn.opcode == isa::Opcode::Brnz ? 1 : 0;
    events::EventStore store;
    store.discardEvents();
    sim::ReplayOptions replay;
    replay.mode = sim::ReplayMode::TimingOnly;
    m.cycles = static_cast<unsigned long long>(sim::replay(compiled->trace, replay, store).totalCycles);
    return m;
}

void report(const char* what, const std::string& text)
{
    auto module = shlo::parseModule(text, "bench.mlir");
    if (!module) {
        std::printf("%s: %s\n", what, module.error().toString().c_str());
        return;
    }
    shlo::CompileOptions unrolled;
    unrolled.machine.imemBundles = std::int64_t{1} << 24;
    unrolled.loops = shlo::CompileOptions::Loops::Never;
    shlo::CompileOptions looped; // the default machine: loops when the unrolled program does not fit
    looped.loops = shlo::CompileOptions::Loops::Always;
    const Measured u = measure(*module, unrolled), l = measure(*module, looped);
    if (!u.error.empty() || !l.error.empty()) {
        std::printf("%s: %s%s\n", what, u.error.c_str(), l.error.c_str());
        return;
    }
    std::printf("%-28s unrolled %8zu bundles %6.3f s %10llu cycles | looped %6zu bundles %4zu loops %6.3f s "
                "%10llu cycles (%+.1f%%)\n",
                what, u.bundles, u.compileSeconds, u.cycles, l.bundles, l.loops, l.compileSeconds, l.cycles,
                100.0 * (static_cast<double>(l.cycles) / static_cast<double>(u.cycles) - 1.0));
}

} // namespace

int main()
{
    for (const int batch : {2, 6, 20})
        report(("ResNet bottleneck, batch " + std::to_string(batch)).c_str(), bottleneck(batch));
    report("LLM MLP 512x1024->4096", mlp());
    report("projection 512x4096x4096", projection());
    return 0;
}

#pragma once
// The StableHLO lowering's test cases: deterministic literals, a module around one op, and the replay
// compared with the reference interpreter in ulps (tst_stablehlo_lowering, tst_stablehlo_tiles).

#include "sim_support.h"

#include "stablehlo/compile.h"
#include "stablehlo/interpreter.h"
#include "stablehlo/parser.h"
#include "stablehlo_replay.h"

#include <QString>

#include <array>
#include <functional>
#include <optional>

namespace xps::test {

using namespace xps::shlo;

// Deterministic pseudo-random f32 values in [-4, 4) with 1/64 steps, or in (0, 4] when `positive`: exact in
// f32, so data movement compares bit for bit and sums of a few hundred stay exact.
inline std::string literal(const std::vector<std::int64_t>& shape, std::uint32_t seed, bool positive = false,
                           bool integer = false)
{
    std::int64_t n = 1;
    for (const auto d : shape)
        n *= d;
    std::string out = "dense<[";
    std::uint32_t x = seed * 2654435761u + 1;
    for (std::int64_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        const int k = static_cast<int>((x >> 8) % 512);
        const double value = integer ? (k % 64) - 32 : positive ? (k + 1) / 128.0 : (k - 256) / 64.0;
        out += (i ? ", " : "") + (integer ? std::to_string(static_cast<int>(value)) : std::to_string(value));
    }
    return out + "]>";
}

inline std::string type(const std::vector<std::int64_t>& shape, const char* element = "f32")
{
    std::string out = "tensor<";
    for (const auto d : shape)
        out += std::to_string(d) + "x";
    return out + element + ">";
}

// A module whose @main computes `body` (ending in %r) from constants %a, %b (shapes given).
inline std::string moduleText(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                              const std::string& body, const std::string& resultType,
                              const char* element = "f32", bool positive = false)
{
    const bool integer = std::string(element) == "i32";
    std::string flat = "func.func public @main() -> " + resultType + " {\n";
    const auto flatten = [](const std::vector<std::int64_t>& s) {
        std::int64_t n = 1;
        for (const auto d : s)
            n *= d;
        return n;
    };
    flat += "  %fa = stablehlo.constant " + literal(a, 1, positive, integer) + " : " +
            type({flatten(a)}, element) + "\n";
    flat +=
        "  %a = stablehlo.reshape %fa : (" + type({flatten(a)}, element) + ") -> " + type(a, element) + "\n";
    if (!b.empty() || body.find("%b") != std::string::npos) {
        flat += "  %fb = stablehlo.constant " + literal(b, 2, positive, integer) + " : " +
                type({flatten(b)}, element) + "\n";
        flat += "  %b = stablehlo.reshape %fb : (" + type({flatten(b)}, element) + ") -> " +
                type(b, element) + "\n";
    }
    return flat + body + "  return %r : " + resultType + "\n}\n";
}

// %r = a reduce_window of %a (shape given) with initial value `init` and a reducer of one `op`
// ("stablehlo.maximum"), its window given by `attrs` in the generic form's properties, as a module.
inline QString windowModule(const char* op, const char* init, const std::vector<std::int64_t>& shape,
                            const std::string& attrs, const std::vector<std::int64_t>& out)
{
    return QString::fromStdString(
        moduleText(shape, {},
                   std::string("  %i = stablehlo.constant dense<") + init + "> : tensor<f32>\n" +
                       "  %r = \"stablehlo.reduce_window\"(%a, %i) <{" + attrs + "}> ({\n" +
                       "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %m = " + op +
                       " %x, %y : tensor<f32>\n" + "    stablehlo.return %m : tensor<f32>\n  }) : (" +
                       type(shape) + ", tensor<f32>) -> " + type(out) + "\n",
                   type(out)));
}

// %r = a dot_general of %a and %b with `dims` ("contracting_dims = [1] x [0]"), as a module.
inline QString dotModule(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                         const std::string& dims, const std::vector<std::int64_t>& out)
{
    return QString::fromStdString(moduleText(a, b,
                                             "  %r = stablehlo.dot_general %a, %b, " + dims + " : (" +
                                                 type(a) + ", " + type(b) + ") -> " + type(out) + "\n",
                                             type(out)));
}

// A module compiled and replayed in full mode (sim::replayAndCheck); a step that fails ends the suite with
// its error, as a bug in a case's text would.
struct ReplayedModule
{
    CompiledModule compiled;
    sim::ReplayedModuleCheck replayed;
};
inline ReplayedModule compileAndReplayOrFail(const std::string& text, const CompileOptions& options = {},
                                             bool compareWithReference = false)
{
    auto m = parseModule(text, "case.mlir");
    if (!m)
        qFatal("%s", m.error().toString().c_str());
    auto compiled = compileModule(*m, options);
    if (!compiled)
        qFatal("%s", compiled.error().toString().c_str());
    auto replayed = sim::replayAndCheck(*m, *compiled, compareWithReference);
    if (!replayed)
        qFatal("%s", replayed.error().toString().c_str());
    return {std::move(*compiled), std::move(*replayed)};
}

// `m` compiled with fusion ([0]) and without ([1]), each replayed in full mode; nullopt and `failure` set if
// either does not compile or replay.
struct ReplayedLowering
{
    std::vector<double> results;
    std::uint64_t cycles = 0;
    std::size_t kernels = 0, fusedOps = 0;
};
inline std::optional<std::array<ReplayedLowering, 2>> fusedAndApart(const Module& m, std::string* failure)
{
    std::array<ReplayedLowering, 2> both;
    for (const bool fuse : {true, false}) {
        CompileOptions options;
        options.fuse = fuse;
        auto compiled = compileModule(m, options);
        if (!compiled) {
            *failure = compiled.error().toString();
            return std::nullopt;
        }
        auto replayed = sim::replayAndCheck(m, *compiled);
        if (!replayed) {
            *failure = replayed.error().toString();
            return std::nullopt;
        }
        ReplayedLowering& l = both[fuse ? 0 : 1];
        l.results = replayed->results.front().data;
        l.cycles = replayed->cycles;
        l.kernels = compiled->kernels;
        l.fusedOps = compiled->fusedOps;
    }
    return both;
}

// Compiles, replays and compares @main's result with the interpreter's: the largest ulp difference.
// `inspect` is shown the compiled module and the replay's cycles.
inline std::uint64_t worstUlp(const std::string& text, std::string* failure,
                              const CompileOptions& options = {}, std::size_t* dmas = nullptr,
                              const std::function<void(const CompiledModule&, std::uint64_t)>& inspect = {})
{
    auto m = parseModule(text, "case.mlir");
    if (!m) {
        *failure = m.error().toString();
        return UINT64_MAX;
    }
    Interpreter interpreter(*m);
    auto expected = interpreter.run(*m->entry(), {});
    if (!expected) {
        *failure = expected.error().toString();
        return UINT64_MAX;
    }
    auto compiled = compileModule(*m, options);
    if (!compiled) {
        *failure = compiled.error().toString();
        return UINT64_MAX;
    }
    if (dmas) {
        *dmas = 0;
        for (const auto& bundle : compiled->trace.chips.front().program.bundles)
            for (const auto& insn : bundle.instructions)
                *dmas += insn.opcode == isa::Opcode::DmaStart ? 1 : 0;
    }
    auto replayed = sim::replayAndCheck(*m, *compiled);
    if (!replayed) {
        *failure = replayed.error().toString();
        return UINT64_MAX;
    }
    if (inspect)
        inspect(*compiled, replayed->cycles);
    const auto& want = expected->front();
    const auto& got = replayed->results.front();
    std::uint64_t worst = 0;
    for (std::size_t i = 0; i < want.data.size(); ++i) {
        const auto ulp = ulpDifference(want.type.element, got.data[i], want.data[i]);
        if (ulp > worst) {
            worst = ulp;
            *failure = "at " + formatIndex(want.type.shape, static_cast<std::int64_t>(i)) + ": replay " +
                       formatElement(want.type.element, got.data[i]) + ", interpreter " +
                       formatElement(want.type.element, want.data[i]);
        }
    }
    return worst;
}

// Loops forced on, whether the unrolled program would fit or not (the looped suites).
inline CompileOptions looped()
{
    CompileOptions o;
    o.loops = CompileOptions::Loops::Always;
    return o;
}

// The bundles of chip 0's program and how many of them branch back (the loops).
inline std::pair<std::size_t, std::size_t> programShape(const std::string& text,
                                                        const CompileOptions& options)
{
    auto m = parseModule(text, "case.mlir");
    if (!m)
        return {0, 0};
    auto compiled = compileModule(*m, options);
    if (!compiled)
        return {0, 0};
    const auto& bundles = compiled->trace.chips.front().program.bundles;
    std::size_t branches = 0;
    for (const auto& bundle : bundles)
        for (const auto& insn : bundle.instructions)
            branches += insn.opcode == isa::Opcode::Brnz ? 1 : 0;
    return {bundles.size(), branches};
}

// A file of the StableHLO project's test modules (../shared/stablehlo; split in parts by `// -----`): every
// part compiled, replayed in full mode and each check it carries held on the replayed tensors, and with
// `reference` on the reference interpreter too. Empty when all hold, else the first failure.
inline std::string projectModuleFailure(const std::string& path, bool reference)
{
    auto parts = parseFile(path);
    if (!parts)
        return parts.error().toString();
    for (const auto& module : *parts) {
        if (reference) {
            auto interpreted = checkModule(module);
            if (!interpreted)
                return interpreted.error().toString();
            for (const auto& c : interpreted->checks)
                if (!c.passed)
                    return "reference: " + c.location + ": " + c.worst;
        }
        auto compiled = compileModule(module);
        if (!compiled)
            return compiled.error().toString();
        auto replayed = sim::replayAndCheck(module, *compiled, false);
        if (!replayed)
            return replayed.error().toString();
        if (replayed->check.checks.empty())
            return "the module carries no checks";
        for (const auto& c : replayed->check.checks)
            if (!c.passed)
                return c.location + ": " + c.worst;
    }
    return {};
}

} // namespace xps::test

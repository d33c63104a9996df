// StableHLO modules (.mlir) in the CLI: `check` evaluates a module's checks; `info` describes a module.

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "stablehlo/compile.h"
#include "stablehlo/interpreter.h"
#include "stablehlo/parser.h"
#include "stablehlo/retype.h"
#include "stablehlo_replay.h"
#include "trace/trace_io.h"
#include "util/json_text.h"

namespace xps::cli {

bool isStableHloModule(const std::string& path)
{
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".mlir") == 0;
}

namespace {

std::string describeOutcome(const shlo::CheckOutcome& c)
{
    std::string line = (c.passed ? "  PASS " : "  FAIL ") + c.check + "  " + c.location + "  ";
    // Which result and which chip, where the location alone does not say.
    if (c.check == "reference.results" || c.function.find("(chip ") != std::string::npos ||
        c.function.find("(process ") != std::string::npos)
        line += "[" + c.function + "]  ";
    if (c.passed)
        return line + std::to_string(c.elements) + " elements hold (" + c.tolerance + ")" +
               (c.worst.empty() ? std::string() : "; " + c.worst);
    return line + std::to_string(c.failing) + " of " + std::to_string(c.elements) + " elements outside " +
           c.tolerance + "; worst " + c.worst;
}

nlohmann::json outcomeJson(const shlo::CheckOutcome& c)
{
    return {{"check", c.check},         {"location", c.location}, {"function", c.function},
            {"passed", c.passed},       {"elements", c.elements}, {"failing", c.failing},
            {"tolerance", c.tolerance}, {"worst", c.worst}};
}

} // namespace

// The checks of one module, evaluated by the engine asked for: the compiled program replayed on the GRM,
// or the reference interpreter.
// `--loops MODE`: when the lowering writes long kernels as counted loops.
std::optional<shlo::CompileOptions::Loops> loopsMode(const std::string& mode)
{
    if (mode == "auto")
        return shlo::CompileOptions::Loops::WhenNeeded;
    if (mode == "always")
        return shlo::CompileOptions::Loops::Always;
    if (mode == "never")
        return shlo::CompileOptions::Loops::Never;
    return std::nullopt;
}

std::optional<bool> fusionMode(const std::string& mode)
{
    if (mode == "on")
        return true;
    if (mode == "off")
        return false;
    return std::nullopt;
}

Result<shlo::ElementType> dtypeArgument(const std::vector<std::string>& args, std::size_t& i,
                                        const std::string& command)
{
    if (i + 1 >= args.size())
        return Error(command, "--dtype needs bf16, f16 or f32");
    const auto type = shlo::floatTypeNamed(args[++i]);
    if (!type)
        return Error(command, "--dtype takes bf16, f16 or f32, not '" + args[i] + "'");
    return *type;
}

// "3 ops fused into them, " after a module's kernel count, or nothing.
std::string fusedNote(const shlo::CompiledModule& compiled)
{
    if (compiled.fusedOps == 0)
        return {};
    return std::to_string(compiled.fusedOps) + (compiled.fusedOps == 1 ? " op" : " ops") +
           " fused into them, ";
}

// The branches a compiled program loops with (the lowering branches only to close a counted loop).
std::size_t loopsIn(const trace::Trace& trace)
{
    std::size_t loops = 0;
    for (const auto& bundle : trace.chips.at(0).program.bundles)
        for (const auto& insn : bundle.instructions)
            loops += insn.opcode == isa::Opcode::Brnz ? 1 : 0;
    return loops;
}

Result<shlo::ModuleCheck> checkWith(const std::string& engine, const shlo::Module& module,
                                    const shlo::CompileOptions& options, std::string& note)
{
    if (engine == "reference")
        return shlo::checkModule(module);
    auto compiled = shlo::compileModule(module, options);
    if (!compiled)
        return compiled.error();
    // A module without checks (a model as JAX exports it) is held to the reference interpreter instead.
    bool hasChecks = false;
    for (const auto& f : module.functions)
        for (const auto& op : f.body.operations)
            hasChecks |= op.kind == shlo::OpKind::CustomCall || op.kind >= shlo::OpKind::ExpectEq;
    auto replayed = sim::replayAndCheck(module, *compiled, !hasChecks);
    if (!replayed)
        return replayed.error();
    const std::size_t loops = loopsIn(compiled->trace);
    note = std::to_string(compiled->kernels) + " kernels, " + fusedNote(*compiled) +
           (loops > 0 ? "long kernels as " + std::to_string(loops) + " loops, " : std::string()) +
           std::to_string(replayed->bundles) + " bundles, " + std::to_string(replayed->cycles) +
           " cycles on the GRM";
    return std::move(replayed->check);
}

int runCheck(const std::vector<std::string>& args, Streams io)
{
    bool json = false;
    std::string engine = "replay";
    shlo::CompileOptions options;
    std::vector<std::string> files;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--loops") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto loops = loopsMode(mode);
            if (!loops)
                return usageError(io, mode.empty()
                                          ? std::string("check: --loops needs auto, always or never")
                                          : "check: --loops takes auto, always or never, not '" + mode + "'");
            options.loops = *loops;
        } else if (a == "--fusion") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto fuse = fusionMode(mode);
            if (!fuse)
                return usageError(io, mode.empty() ? std::string("check: --fusion needs on or off")
                                                   : "check: --fusion takes on or off, not '" + mode + "'");
            options.fuse = *fuse;
        } else if (a == "--fold") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto fold = fusionMode(mode);
            if (!fold)
                return usageError(io, mode.empty() ? std::string("check: --fold needs on or off")
                                                   : "check: --fold takes on or off, not '" + mode + "'");
            options.foldConstants = *fold;
        } else if (a == "--machine") {
            // The machine the module is compiled for and replayed on (a what-if: mxu_count, vmem_bytes).
            if (i + 1 >= args.size())
                return usageError(io, "check: --machine needs a machine JSON file");
            auto machine = readMachine(args[++i]);
            if (!machine)
                return inputError(io, machine.error());
            options.machine = *machine;
        } else if (a == "--engine") {
            if (i + 1 >= args.size())
                return usageError(io, "check: --engine needs replay or reference");
            engine = args[++i];
            if (engine != "replay" && engine != "reference")
                return usageError(io, "check: --engine: unknown engine '" + engine +
                                          "'; expected replay or reference");
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError(io, "check: unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.empty())
        return usageError(io, "check: expected one or more MODEL.mlir files");
    std::size_t filesPassing = 0;
    const std::string engineName = engine == "replay" ? "replay" : "reference-interpreter";
    nlohmann::json report = {{"engine", engineName}, {"files", nlohmann::json::array()}};
    for (const auto& file : files) {
        nlohmann::json entry = {{"file", file}};
        bool filePasses = true;
        auto modules = shlo::parseFile(file);
        if (!modules) {
            filePasses = false;
            entry["error"] = modules.error().toString();
            if (!json)
                io.err << modules.error().toString() << "\n";
        } else {
            std::size_t holding = 0, total = 0;
            entry["checks"] = nlohmann::json::array();
            for (const auto& module : *modules) {
                std::string note;
                auto result = checkWith(engine, module, options, note);
                if (!result) {
                    filePasses = false;
                    entry["error"] = result.error().toString();
                    if (!json)
                        io.err << result.error().toString() << "\n";
                    break;
                }
                if (!note.empty()) {
                    entry["replay"] = note;
                    if (!json && files.size() == 1)
                        io.out << "  " << note << "\n";
                }
                for (const auto& c : result->checks) {
                    ++total;
                    holding += c.passed ? 1 : 0;
                    entry["checks"].push_back(outcomeJson(c));
                    if (!json && (!c.passed || files.size() == 1))
                        io.out << describeOutcome(c) << "\n";
                }
            }
            if (modules && !entry.contains("error")) {
                if (total == 0) {
                    filePasses = false;
                    entry["error"] =
                        file + ": the module has no checks (check.* ops or custom_call @check.*)";
                    if (!json)
                        io.err << entry["error"].get<std::string>() << "\n";
                } else {
                    filePasses = holding == total;
                    if (!json)
                        io.out << file << ": " << holding << " of " << total << " checks hold"
                               << (filePasses ? "" : "  FAILED") << "\n";
                }
            }
        }
        entry["passed"] = filePasses;
        filesPassing += filePasses ? 1 : 0;
        report["files"].push_back(std::move(entry));
    }
    report["files_passing"] = filesPassing;
    report["files_total"] = files.size();
    if (json)
        io.out << text::jsonText(report, 2) << "\n";
    else if (files.size() > 1)
        io.out << filesPassing << " of " << files.size() << " files pass ("
               << (engine == "replay" ? "compiled and replayed on the GRM"
                                      : "evaluated by the reference interpreter")
               << ")\n";
    return filesPassing == files.size() ? kExitOk : kExitBadInput;
}

int runCompile(const std::vector<std::string>& args, Streams io)
{
    std::string input, output, machinePath;
    std::optional<shlo::ElementType> dtype; // every float tensor as this type (retype.h)
    shlo::CompileOptions options = shlo::CompileOptions::asXla();
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--loops") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto loops = loopsMode(mode);
            if (!loops)
                return usageError(
                    io, mode.empty() ? std::string("compile: --loops needs auto, always or never")
                                     : "compile: --loops takes auto, always or never, not '" + mode + "'");
            options.loops = *loops;
            continue;
        }
        if (a == "--fusion") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto fuse = fusionMode(mode);
            if (!fuse)
                return usageError(io, mode.empty() ? std::string("compile: --fusion needs on or off")
                                                   : "compile: --fusion takes on or off, not '" + mode + "'");
            options.fuse = *fuse;
            continue;
        }
        if (a == "--dtype") {
            auto type = dtypeArgument(args, i, "compile");
            if (!type)
                return usageError(io, type.error().toString());
            dtype = *type;
            continue;
        }
        if ((a == "-o" || a == "--output" || a == "--machine") && i + 1 >= args.size())
            return usageError(io, "compile: " + a + " needs a file name");
        if (a == "-o" || a == "--output")
            output = args[++i];
        else if (a == "--machine")
            machinePath = args[++i];
        else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "compile: unknown option '" + a + "'");
        else if (input.empty())
            input = a;
        else
            return usageError(io, "compile: expected one MODEL.mlir, got a second: '" + a + "'");
    }
    if (input.empty() || output.empty())
        return usageError(io, "compile: usage: compile MODEL.mlir [--machine M.json] [--dtype bf16|f16|f32] "
                              "[--loops auto|always|never] [--fusion on|off] -o OUT.xtrace.json");
    if (!machinePath.empty()) {
        auto machine = readMachine(machinePath);
        if (!machine)
            return inputError(io, machine.error());
        options.machine = *machine;
    }
    auto modules = shlo::parseFile(input);
    if (!modules)
        return inputError(io, modules.error());
    if (modules->size() != 1)
        return inputError(io, Error(input, "compile takes one module; the file has " +
                                               std::to_string(modules->size()) + " parts split by // -----"));
    if (dtype)
        if (auto retyped = shlo::retypeFloats(modules->front(), *dtype); !retyped)
            return inputError(io, retyped.error());
    auto compiled = shlo::compileModule(modules->front(), options);
    if (!compiled)
        return inputError(io, compiled.error());
    if (auto saved = trace::saveTrace(compiled->trace, output); !saved)
        return inputError(io, saved.error());
    const std::size_t loops = loopsIn(compiled->trace);
    io.out << "wrote " << output << ": " << compiled->kernels << " kernels, " << fusedNote(*compiled)
           << compiled->trace.chips.at(0).program.bundles.size() << " bundles"
           << (loops > 0 ? " (long kernels as " + std::to_string(loops) + " loops)" : std::string()) << ", "
           << compiled->checks.size() << " checks bound to output buffers\n";
    return kExitOk;
}

int infoStableHlo(const std::string& path, Streams io)
{
    auto modules = shlo::parseFile(path);
    if (!modules)
        return inputError(io, modules.error());
    for (const auto& module : *modules) {
        io.out << path << ": StableHLO module" << (module.name.empty() ? "" : " @" + module.name) << "\n";
        io.out << "  replicas " << module.numReplicas << ", partitions " << module.numPartitions << "\n";
        io.out << "  functions " << module.functions.size() << ", ops " << module.operationCount() << "\n";
        for (const auto& f : module.functions) {
            std::map<std::string, int> byKind;
            for (const auto& op : f.body.operations)
                ++byKind[std::string(shlo::opName(op.kind))];
            io.out << "  @" << f.name << (f.isPublic ? "" : " (private)") << " at line " << f.location.line
                   << ": " << f.body.argumentTypes.size() << " arguments, " << f.resultTypes.size()
                   << " results, " << f.body.operations.size() << " ops:";
            for (const auto& [kind, n] : byKind)
                io.out << " " << kind << " x" << n;
            io.out << "\n";
        }
    }
    return kExitOk;
}

} // namespace xps::cli

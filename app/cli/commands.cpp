#include "commands.h"

#include "asm/disassembler.h"
#include "export/chrome_trace.h"
#include "isa/isa_reference.h"
#include "trace/trace_info.h"
#include "trace/trace_io.h"
#include "util/text.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <string_view>

namespace xps::cli {

Result<isa::MachineConfig> readMachine(const std::string& path)
{
    auto text = trace::readTextFile(path, std::uint64_t{1} << 20);
    if (!text)
        return text.error();
    const auto json = nlohmann::json::parse(*text, nullptr, false);
    if (json.is_discarded())
        return Error(path, "not JSON: expected an object of machine parameters (docs/isa.md)");
    // A calibration's output carries its machine under "machine": take that, so a fit feeds the next run.
    if (json.is_object() && json.contains("format") && json.contains("machine"))
        return isa::machineConfigFromJson(json["machine"], path, "$.machine");
    return isa::machineConfigFromJson(json, path, "$");
}

int usageError(Streams io, const std::string& message)
{
    io.err << "xpushark-cli: " << message << "\n(run `xpushark-cli --help` for usage)\n";
    return kExitUsage;
}

int inputError(Streams io, const Error& error)
{
    io.err << error.toString() << "\n";
    return kExitBadInput;
}

int exportFailed(Streams io, const Error& error, const std::string& out)
{
    if (error.message() != exporting::kCancelledMessage)
        return inputError(io, error);
    io.err << out << ": export interrupted; nothing was written (a file already there is as it was)\n";
    return kExitInterrupted;
}

namespace {

constexpr std::string_view kUsage = R"(usage: xpushark-cli COMMAND [ARGS]

commands:
  info TRACE                 chips, program sizes, buffers, regions and snapshot bytes of a trace; of an
                             imported profile its format, tracks, events and import warnings
  convert IN -o OUT [--to chrome]
                             convert between .xasm, .xtrace.json and .xps (lossless between JSON and .xps);
                             an imported profile converts to Chrome trace JSON (OUT.json) for Perfetto;
                             --to chrome replays a trace (full mode) and writes the replay as Chrome JSON;
                             Ctrl-C stops an import, replay or export: nothing is written, exit code 130
  disasm TRACE [-o OUT]      write the trace's programs and symbols as .xasm assembly
  isa [--opcodes|--config]   print the generated ISA reference tables (Markdown)
  replay TRACE [--mode full|timing] [--summary] [--chrome-trace OUT.json]
         [--max-cycles N] [--max-bundles N] [--max-memory SIZE]
                             replay on the golden reference model; --summary prints cycles, unit and
                             MXU utilization, HBM bandwidth utilization and the stall breakdown;
                             --chrome-trace writes the replay for Perfetto / chrome://tracing;
                             a replay stops at 2^40 cycles or 2^27 bundles (a program that never
                             ends), or once its events take half of this machine's memory, naming
                             each running chip's pc and hottest bundle; --max-cycles, --max-bundles
                             and --max-memory (8G, 512MiB) change the limits (0: none); Ctrl-C stops
                             it too

  analyze TRACE [--json] [--no-measure] [--threads N] [--as-profile]
                             replay in full mode, run every analysis (summary, regions, DMA, VMEM,
                             critical path, collectives) and propose suggestions, each measured by
                             replaying the changed trace with outputs compared bit for bit (one
                             replay per CPU the process may use, side by side; --threads N allows at
                             most N, and no more than fit in half the memory available);
                             --json prints the stable form documented in docs/analysis-json.md;
                             --as-profile analyses the replay as an imported profile is analysed
                             (per chip compute / DMA / ICI time, overlapped and exposed, operations,
                             the replay's own critical path in the profile's kinds); --max-cycles,
                             --max-bundles and --max-memory as for replay (a run that hits one is not
                             analysed)
  analyze PROFILE [--json] [--window NAME]
                             an imported profile: device breakdown, streams, launches, operations,
                             critical path (HTA's model; a replay's export carries the replay's own),
                             findings; --window NAME restricts the critical path and the operations
                             to the first slice so named (e.g. ProfilerStep#2: one step, as HTA
                             takes an iteration)
  apply TRACE --suggestion ID -o FIXED
                             write the trace with suggestion ID (from `analyze`) applied
  report TRACE -o OUT.{html,md,json,pdf} [--format F] [--no-measure] [--threads N]
         [--baseline BASELINE]
                             the annotated report: summary, figures, chip and region tables, suggestions
                             ranked by measured gain with evidence and change; HTML is self-contained, the
                             PDF needs no display, the JSON form is docs/report-json.md; takes
                             --threads, --max-cycles, --max-bundles and --max-memory as analyze
                             does; --baseline adds a comparison with BASELINE (as diff compares them:
                             traces, profiles or both): the deltas, both runs' figures side by side
                             and the largest changes
  diff BASELINE OTHER [--json] [--fail-if-slower PCT] [--region NAME] [--window NAME]
                             replay and analyse both traces (full mode, suggestions not measured) and
                             print their totals (cycles, bundles, stalls by reason, critical path, DMA
                             bytes, exposed DMA cycles, VMEM peak), each region's and each bundle's
                             (matched across changed programs; inserted and removed ones named), side
                             by side with the deltas, the largest change first; --json prints the form documented in
                             docs/diff-json.md; --region NAME shows one region (a name or a path such as
                             'decode > mlp'); --fail-if-slower PCT exits 3 when OTHER (or that region)
                             is more than PCT percent slower; takes --max-cycles, --max-bundles and
                             --max-memory;
                             two imported profiles are compared per operation (count, total, self and
                             device time) and per device (busy, compute, communication, memcpy, idle);
                             --window NAME compares one step of each (e.g. ProfilerStep#2, its first
                             slice so named): the operations inside it and those it launched, and the
                             critical paths within it, as HTA's TraceDiff compares an iteration;
                             a trace and a profile: the trace's replay is compared as its profile
                             (analyze --as-profile), the GRM's run beside a measured one

  compile MODEL.mlir [--machine M.json] [--dtype bf16|f16|f32] [--loops auto|always|never] [--fusion on|off]
            -o OUT.xtrace.json
                             compile a StableHLO module (what jax.jit(f).lower(...).as_text() prints)
                             into an xpu-v1 trace: one region per op, the .mlir line on every bundle;
                             kernels are unrolled, and written as counted loops when the unrolled
                             program outgrows instruction memory (--loops auto; always, never force);
                             chains of element-wise ops, reductions of them and the broadcasts they
                             read are fused into one kernel each, transposes folded into the dots that
                             read them (--fusion off: a kernel per op); --dtype as for estimate
  check MODEL.mlir... [--json] [--engine replay|reference] [--machine M.json] [--loops auto|always|never]
            [--fusion on|off] [--fold on|off]
                             compile the module, replay it in full mode and evaluate every check it
                             carries on the replayed tensors (custom_call @check.expect_close /
                             expect_almost_eq / expect_eq / eq, and the check dialect of StableHLO's
                             interpreter tests); --engine reference evaluates with the reference
                             interpreter instead; exit 0 only when all hold, 1 with each failing
                             check, its tolerance and worst element otherwise; --loops and --fusion
                             as for compile, to hold that code to the checks too; --fold on evaluates
                             ops on constants when compiling, as compile and estimate do (off: they
                             run as kernels, so a test module's kernels are what is checked)
                             (docs/stablehlo.md)
  estimate MODEL.mlir [--machine M.json] [--dtype bf16|f16|f32] [--fusion on|off] [--json]
                             compile and replay in timing mode; the predicted time in microseconds per
                             op region and in total (--json: total_us, regions[].us; docs/calibration.md);
                             --dtype runs every float tensor as that type, as a bf16 deployment does
  calibrate MEASUREMENTS.csv|PROFILE.xplane.pb... [--machine BASE.json] -o FITTED.json
            [--html PAGE.html] [--seed N | --hold-out larger:N|smaller:N|op:NAME|family:NAME]
            [--evaluations N] [--threads N] [--fix KEY,...]
                             measured ops from CSV files or from XProf profiles of the ops on the chip
                             (matched by op name and shape); compile every measured op (matmul,
                             element-wise, activations, batch norm) as estimate compiles a model, fit
                             the machine's timing parameters to the measured averages on a random 70%
                             of the rows and report the error on the other 30% (--hold-out: hold out
                             the shapes with a side above N, those with every side up to N, one op
                             class or one family of them instead): per op class and size, MAPE,
                             median, p90, worst and R^2; SCALE-Sim TPU's gemm_fusion_master.csv and
                             its validation runs' kernel_statistics_filtered.csv are read too;
                             FITTED.json holds the fitted machine (it is a --machine for compile,
                             estimate and calibrate), PAGE.html the scatter plot; --fix keeps the base
                             machine's value of the free parameters named

  generate WORKLOAD [--variant V] [--PARAM N ...] -o OUT
                             write a reference workload (.xtrace.json, .xps or its .xasm);
                             `generate --list` shows the workloads, variants and parameters

options:
  --help                     this text
  --version                  the xpushark version

TRACE is a .xtrace.json, .xps or .xasm file, or a StableHLO module (.mlir), compiled when it is read
(info describes the module itself). info, analyze and convert also take a profile to import:
Chrome / Perfetto trace JSON or a PyTorch profiler (Kineto) trace, plain or gzip-compressed (.json.gz), an
XProf profile (.xplane.pb, from JAX or TensorFlow) or a Chakra execution trace (.et or its JSON form;
PREFIX.N.et opens every rank);
analyze then prints the device time breakdown, stream idle and launch delay, top operations, the critical
path and findings (docs/import.md).
)";

// Splits `args` into positional arguments and the value of `-o`; reports unknown options.
struct Parsed
{
    std::vector<std::string> positional;
    std::string output;
    bool ok = true;
};
Parsed parseArgs(const std::vector<std::string>& args, bool allowOutput, Streams io, const char* command)
{
    Parsed p;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (allowOutput && (a == "-o" || a == "--output")) {
            if (i + 1 >= args.size()) {
                usageError(io, std::string(command) + ": " + a + " needs a file name");
                p.ok = false;
                return p;
            }
            p.output = args[++i];
        } else if (a.size() > 1 && a[0] == '-') {
            usageError(io, std::string(command) + ": unknown option '" + a + "'");
            p.ok = false;
            return p;
        } else {
            p.positional.push_back(a);
        }
    }
    return p;
}

} // namespace

int runInfo(const std::vector<std::string>& args, Streams io)
{
    const Parsed p = parseArgs(args, false, io, "info");
    if (!p.ok)
        return kExitUsage;
    if (p.positional.size() != 1)
        return usageError(io, "info: expected exactly one TRACE file, got " +
                                  std::to_string(p.positional.size()));
    if (isImportedProfile(p.positional[0]))
        return infoProfile(p.positional[0], io);
    if (isStableHloModule(p.positional[0]))
        return infoStableHlo(p.positional[0], io);
    auto trace = trace::loadTrace(p.positional[0]);
    if (!trace)
        return inputError(io, trace.error());
    io.out << trace::describeTrace(*trace);
    return kExitOk;
}

int runConvert(const std::vector<std::string>& allArgs, Streams io)
{
    // --to chrome: Chrome trace JSON for Perfetto, from a profile or from a replay of an xpushark trace.
    std::vector<std::string> args;
    std::string to;
    for (std::size_t i = 0; i < allArgs.size(); ++i) {
        if (allArgs[i] != "--to") {
            args.push_back(allArgs[i]);
            continue;
        }
        if (i + 1 >= allArgs.size())
            return usageError(io, "convert: --to needs a format (chrome)");
        to = allArgs[++i];
        if (to != "chrome")
            return usageError(io, "convert: --to: unknown format '" + to + "'; expected chrome");
    }
    const Parsed p = parseArgs(args, true, io, "convert");
    if (!p.ok)
        return kExitUsage;
    if (p.positional.size() != 1)
        return usageError(io, "convert: expected exactly one input file, got " +
                                  std::to_string(p.positional.size()));
    if (p.output.empty())
        return usageError(io, "convert: missing -o OUT (a .xtrace.json or .xps file)");
    if (isImportedProfile(p.positional[0]))
        return convertProfile(p.positional[0], p.output, io);
    if (to == "chrome")
        return convertReplayToChrome(p.positional[0], p.output, io);
    auto trace = trace::loadTrace(p.positional[0]);
    if (!trace)
        return inputError(io, trace.error());
    if (Status saved = trace::saveTrace(*trace, p.output); !saved)
        return inputError(io, saved.error());
    io.out << "wrote " << p.output << "\n";
    return kExitOk;
}

int runDisasm(const std::vector<std::string>& args, Streams io)
{
    const Parsed p = parseArgs(args, true, io, "disasm");
    if (!p.ok)
        return kExitUsage;
    if (p.positional.size() != 1)
        return usageError(io, "disasm: expected exactly one TRACE file, got " +
                                  std::to_string(p.positional.size()));
    auto trace = trace::loadTrace(p.positional[0]);
    if (!trace)
        return inputError(io, trace.error());
    const std::string text = assembly::disassembleTrace(*trace);
    if (p.output.empty()) {
        io.out << text;
        return kExitOk;
    }
    std::ofstream out(p.output, std::ios::binary);
    out << text;
    if (!out)
        return inputError(io, Error(p.output, "cannot write"));
    return kExitOk;
}

int runIsa(const std::vector<std::string>& args, Streams io)
{
    if (args.size() > 1)
        return usageError(io, "isa: expected at most one of --opcodes, --config");
    const std::string which = args.empty() ? "" : args[0];
    if (which != "" && which != "--opcodes" && which != "--config")
        return usageError(io, "isa: unknown option '" + which + "'; expected --opcodes or --config");
    if (which != "--config")
        io.out << isa::opcodeReferenceMarkdown();
    if (which.empty())
        io.out << "\n";
    if (which != "--opcodes")
        io.out << isa::machineConfigReferenceMarkdown();
    return kExitOk;
}

// `COMMAND`'s own entries of the usage text (analyze has two: a trace and a profile), or "" for a word that
// is not a command: each entry is its line "  COMMAND ..." and the lines indented under it.
std::string usageOf(std::string_view command)
{
    std::string out;
    bool inEntry = false;
    std::size_t at = 0;
    while (at < kUsage.size()) {
        const std::size_t end = std::min(kUsage.find('\n', at), kUsage.size());
        const std::string_view line = kUsage.substr(at, end - at);
        at = end + 1;
        const bool entryStart = line.starts_with("  ") && line.size() > 2 && line[2] != ' ';
        if (entryStart)
            inEntry = line.substr(2).starts_with(command) &&
                      (line.size() == 2 + command.size() || line[2 + command.size()] == ' ');
        else if (!line.starts_with("   "))
            inEntry = false; // a blank line or a heading ends an entry
        if (inEntry && entryStart)
            ((out += "  xpushark-cli ") += line.substr(2)) += '\n';
        else if (inEntry)
            (out += line) += '\n';
    }
    return out;
}

int run(const std::vector<std::string>& args, Streams io)
{
    if (args.empty())
        return usageError(io, "missing COMMAND");
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        io.out << kUsage;
        return kExitOk;
    }
    // `COMMAND --help` (anywhere after it): that command's usage, not an error about its options.
    if (std::find_if(rest.begin(), rest.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; }) != rest.end()) {
        if (const std::string entry = usageOf(command); !entry.empty()) {
            io.out << "usage:\n"
                   << entry << "\n(`xpushark-cli --help` lists every command and what TRACE can be)\n";
            return kExitOk;
        }
    }
    if (command == "--version") {
        io.out << "xpushark-cli " << XPS_VERSION << "\n";
        return kExitOk;
    }
    if (command == "info")
        return runInfo(rest, io);
    if (command == "convert")
        return runConvert(rest, io);
    if (command == "disasm")
        return runDisasm(rest, io);
    if (command == "isa")
        return runIsa(rest, io);
    if (command == "replay")
        return runReplay(rest, io);
    if (command == "analyze")
        return runAnalyze(rest, io);
    if (command == "apply")
        return runApply(rest, io);
    if (command == "generate")
        return runGenerate(rest, io);
    if (command == "report")
        return runReport(rest, io);
    if (command == "diff")
        return runDiff(rest, io);
    if (command == "check")
        return runCheck(rest, io);
    if (command == "compile")
        return runCompile(rest, io);
    if (command == "calibrate")
        return runCalibrate(rest, io);
    if (command == "estimate")
        return runEstimate(rest, io);
    constexpr std::array<std::string_view, 14> commands = {
        "info",  "convert", "disasm", "isa",   "replay",  "generate",  "analyze",
        "apply", "report",  "diff",   "check", "compile", "calibrate", "estimate"};
    std::string message = "unknown command '" + command + "'";
    if (std::string guess = text::nearest(command, commands); !guess.empty())
        message += "; did you mean '" + guess + "'?";
    return usageError(io, message);
}

} // namespace xps::cli

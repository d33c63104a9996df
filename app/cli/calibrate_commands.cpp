// `calibrate`: fits the GRM's timing parameters to measured op latencies (docs/calibration.md);
// `estimate`: a model's predicted time on a machine, per region and in total.

#include <algorithm>
#include <csignal>
#include <fstream>

#include <nlohmann/json.hpp>

#include "calibrate/profile_measurements.h"
#include "calibration.h"
#include "commands.h"
#include "import/import.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"
#include "stablehlo/retype.h"
#include "trace/trace_io.h"
#include "util/atomic_file.h"

namespace xps::cli {

namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A CSV of measurements, or a profile of the ops on the chip (XProf's .xplane.pb, or Chrome JSON with the
// same ops' HLO text): its device ops matched by op name and shape (calibrate/profile_measurements.h).
Result<std::vector<calibrate::Measurement>> readMeasurementsOrProfile(const std::string& path, Streams io)
{
    if (endsWith(path, ".csv"))
        return calibrate::readMeasurements(path);
    auto kind = importing::detectInput(path);
    if (!kind)
        return kind.error();
    if (*kind != importing::InputKind::XSpace && *kind != importing::InputKind::ChromeJson)
        return Error(path, "expected a CSV file of measurements (.csv) or a profile of the ops on the chip "
                           "(XProf .xplane.pb, Chrome JSON)");
    auto profile = importing::importProfile(path);
    if (!profile)
        return profile.error();
    auto found = calibrate::measurementsFromProfile(*profile, path);
    if (!found)
        return found.error();
    io.err << path << ": " << found->rows.size() << " measurements from " << found->opsMatched
           << " device op runs";
    if (found->opsSkipped) {
        io.err << "; " << found->opsSkipped << " runs of other ops left out, e.g.";
        for (std::size_t i = 0; i < found->skippedExamples.size(); ++i)
            io.err << (i ? ";" : "") << " " << found->skippedExamples[i];
    }
    io.err << "\n";
    return std::move(found->rows);
}

} // namespace

int runCalibrate(const std::vector<std::string>& args, Streams io)
{
    std::vector<std::string> inputs;
    std::string output, machinePath, htmlPath;
    sim::CalibrationOptions options;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        const bool takesValue = a == "-o" || a == "--output" || a == "--machine" || a == "--html" ||
                                a == "--seed" || a == "--evaluations" || a == "--threads" || a == "--fix" ||
                                a == "--hold-out";
        if (takesValue && i + 1 >= args.size())
            return usageError(io, "calibrate: " + a + " needs a value");
        if (a == "-o" || a == "--output")
            output = args[++i];
        else if (a == "--machine")
            machinePath = args[++i];
        else if (a == "--html")
            htmlPath = args[++i];
        else if (a == "--hold-out") {
            auto rule = calibrate::parseHoldOut(args[++i]);
            if (!rule)
                return usageError(io, "calibrate: --hold-out " + rule.error().message());
            options.holdOut = *rule;
        } else if (a == "--fix") {
            // Parameters the base machine's values hold for (e.g. one a datasheet gives): not fitted.
            const std::string list = args[++i];
            for (std::size_t from = 0; from <= list.size();) {
                const std::size_t comma = std::min(list.find(',', from), list.size());
                const std::string key = list.substr(from, comma - from);
                from = comma + 1;
                const auto it = std::find_if(options.parameters.begin(), options.parameters.end(),
                                             [&](const auto& p) { return p.key == key; });
                if (it == options.parameters.end()) {
                    std::string names;
                    for (const auto& p : options.parameters)
                        names += (names.empty() ? "" : ", ") + p.key;
                    return usageError(io, "calibrate: --fix: '" + key +
                                              "' is not a free parameter; they are " +
                                              (names.empty() ? "none left" : names));
                }
                options.parameters.erase(it);
            }
        } else if (a == "--seed" || a == "--evaluations" || a == "--threads") {
            const std::string& v = args[++i];
            char* end = nullptr;
            const long long n = std::strtoll(v.c_str(), &end, 10);
            const long long most = a == "--seed" ? (1ll << 62) : a == "--evaluations" ? 100000 : 256;
            if (v.empty() || *end != '\0' || n < (a == "--seed" ? 0 : 1) || n > most)
                return usageError(io, "calibrate: " + a + " expects an integer in " +
                                          (a == "--seed" ? "0" : "1") + ".." + std::to_string(most) +
                                          ", got '" + v + "'");
            if (a == "--seed")
                options.seed = static_cast<std::uint64_t>(n);
            else if (a == "--evaluations")
                options.maxEvaluations = static_cast<int>(n);
            else
                options.threads = static_cast<unsigned>(n);
        } else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "calibrate: unknown option '" + a + "'");
        else
            inputs.push_back(a);
    }
    if (inputs.empty() || output.empty())
        return usageError(
            io, "calibrate: usage: calibrate MEASUREMENTS.csv|PROFILE.xplane.pb... [--machine "
                "BASE.json] -o FITTED.json "
                "[--html PAGE.html] [--seed N | --hold-out larger:N|smaller:N|op:CLASS] [--evaluations N] "
                "[--threads N] [--fix KEY,...]");
    if (!machinePath.empty()) {
        auto machine = readMachine(machinePath);
        if (!machine)
            return inputError(io, machine.error());
        options.base = *machine;
    }
    std::vector<calibrate::Measurement> rows;
    for (const auto& path : inputs) {
        auto read = readMeasurementsOrProfile(path, io);
        if (!read)
            return inputError(io, read.error());
        rows.insert(rows.end(), read->begin(), read->end());
    }
    io.err << "calibrate: " << rows.size() << " measurements; fitting";
    for (const auto& p : options.parameters)
        io.err << " " << p.key;
    io.err << "\n";
    auto result = sim::calibrateMachine(std::move(rows), options);
    if (!result)
        return inputError(io, result.error());
    io.out << calibrate::calibrationText(*result);
    if (Status s = writeTextFileAtomically(output, calibrate::calibrationJson(*result).dump(2) + "\n"); !s)
        return inputError(io, s.error());
    io.out << "wrote " << output << "\n";
    if (!htmlPath.empty()) {
        if (Status s = writeTextFileAtomically(htmlPath, calibrate::calibrationHtml(*result)); !s)
            return inputError(io, s.error());
        io.out << "wrote " << htmlPath << "\n";
    }
    return kExitOk;
}

int runEstimate(const std::vector<std::string>& args, Streams io)
{
    std::string input, machinePath;
    bool json = false, fuse = true;
    std::optional<shlo::ElementType> dtype; // every float tensor as this type (retype.h)
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a == "--machine" && i + 1 >= args.size())
            return usageError(io, "estimate: --machine needs a file name");
        if (a == "--machine")
            machinePath = args[++i];
        else if (a == "--fusion") {
            const std::string mode = i + 1 < args.size() ? args[++i] : std::string();
            const auto on = fusionMode(mode);
            if (!on)
                return usageError(io, mode.empty()
                                          ? std::string("estimate: --fusion needs on or off")
                                          : "estimate: --fusion takes on or off, not '" + mode + "'");
            fuse = *on;
        } else if (a == "--dtype") {
            auto type = dtypeArgument(args, i, "estimate");
            if (!type)
                return usageError(io, type.error().toString());
            dtype = *type;
        } else if (a == "--json")
            json = true;
        else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "estimate: unknown option '" + a + "'");
        else if (input.empty())
            input = a;
        else
            return usageError(io, "estimate: expected one MODEL.mlir, got a second: '" + a + "'");
    }
    if (input.empty())
        return usageError(io, "estimate: usage: estimate MODEL.mlir [--machine M.json] [--dtype "
                              "bf16|f16|f32] [--fusion on|off] "
                              "[--json]");
    shlo::CompileOptions options = shlo::CompileOptions::asXla();
    options.fuse = fuse;
    if (!machinePath.empty()) {
        auto machine = readMachine(machinePath);
        if (!machine)
            return inputError(io, machine.error());
        options.machine = *machine;
    }
    trace::Trace trace;
    if (endsWith(input, ".mlir")) {
        auto modules = shlo::parseFile(input);
        if (!modules)
            return inputError(io, modules.error());
        if (modules->size() != 1)
            return inputError(io,
                              Error(input, "estimate takes one module; the file has " +
                                               std::to_string(modules->size()) + " parts split by // -----"));
        if (dtype)
            if (auto retyped = shlo::retypeFloats(modules->front(), *dtype); !retyped)
                return inputError(io, retyped.error());
        auto compiled = shlo::compileModule(modules->front(), options);
        if (!compiled)
            return inputError(io, compiled.error());
        trace = std::move(compiled->trace);
    } else {
        if (dtype)
            return usageError(io, "estimate: --dtype applies to a model (.mlir), not to a trace");
        auto loaded = trace::loadTrace(input);
        if (!loaded)
            return inputError(io, loaded.error());
        trace = std::move(*loaded);
        // A trace's program stays as it is: only the timing parameters change, not what it may address.
        for (const isa::ConfigParam& p : isa::configParams())
            if (!machinePath.empty() && sim::isTimingParameter(p.key))
                if (Status s = isa::setMachineParam(trace.machine, p.key,
                                                    isa::machineParamText(options.machine, p.key));
                    !s)
                    return inputError(io, s.error());
    }
    auto estimate = sim::estimateTrace(trace);
    if (!estimate)
        return inputError(io, estimate.error());
    if (json) {
        nlohmann::json j{{"format", "xpushark-estimate"},
                         {"version", 1},
                         {"source", input},
                         {"clock_mhz", trace.machine.clockMhz},
                         {"cycles", estimate->cycles},
                         {"total_us", estimate->totalUs},
                         {"regions", nlohmann::json::array()}};
        for (const auto& r : estimate->regions)
            j["regions"].push_back(
                {{"name", r.name}, {"level", r.level}, {"us", r.us}, {"executions", r.executions}});
        io.out << j.dump(2) << "\n";
        return kExitOk;
    }
    char line[64];
    std::snprintf(line, sizeof line, "%.3f", estimate->totalUs);
    io.out << input << ": " << line << " us predicted (" << estimate->cycles << " cycles at "
           << trace.machine.clockMhz << " MHz)\n";
    for (const auto& r : estimate->regions) {
        if (r.level == "loop")
            continue; // the tile loops are inside their op
        std::snprintf(line, sizeof line, "%12.3f us  ", r.us);
        io.out << line << r.name << (r.executions > 1 ? " (x" + std::to_string(r.executions) + ")" : "")
               << "\n";
    }
    return kExitOk;
}

} // namespace xps::cli

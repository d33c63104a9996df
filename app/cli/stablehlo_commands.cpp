// StableHLO modules (.mlir) in the CLI: `check` evaluates a module's checks; `info` describes a module.

#include <map>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "stablehlo/interpreter.h"
#include "stablehlo/parser.h"
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
    if (c.passed)
        return line + std::to_string(c.elements) + " elements hold (" + c.tolerance + ")";
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

int runCheck(const std::vector<std::string>& args, Streams io)
{
    bool json = false;
    std::vector<std::string> files;
    for (const auto& a : args) {
        if (a == "--json")
            json = true;
        else if (a.size() > 1 && a[0] == '-')
            return usageError(io, "check: unknown option '" + a + "'");
        else
            files.push_back(a);
    }
    if (files.empty())
        return usageError(io, "check: expected one or more MODEL.mlir files");
    std::size_t filesPassing = 0;
    nlohmann::json report = {{"engine", "reference-interpreter"}, {"files", nlohmann::json::array()}};
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
                auto result = shlo::checkModule(module);
                if (!result) {
                    filePasses = false;
                    entry["error"] = result.error().toString();
                    if (!json)
                        io.err << result.error().toString() << "\n";
                    break;
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
        io.out << filesPassing << " of " << files.size()
               << " files pass (evaluated by the reference interpreter)\n";
    return filesPassing == files.size() ? kExitOk : kExitBadInput;
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

#include "import/import.h"
#include "import/chakra_feeder_json.h"

#include "import/chakra_json.h"
#include "trace/trace_io.h"

#include <zlib.h>

#include <filesystem>

namespace xps::importing {
namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

enum class Sniffed { Ours, Chrome, XSpace, Chakra, PyTorchEt, Unknown };

// PyTorch's execution trace: {"schema": "1.0.1", "pid": ..., "nodes": [{"name", "id", "rf_id", "parent",
// "fw_parent", "op_schema", "inputs", ...}]}. Chakra's JSON nodes have none of rf_id, fw_parent, op_schema.
bool looksLikePyTorchExecutionTrace(std::string_view head)
{
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    return has("\"schema\"") && has("\"nodes\"") && !has("\"traceEvents\"") &&
           (has("\"fw_parent\"") || has("\"rf_id\"") || has("\"op_schema\""));
}

// By name, then by the first 64 KiB of the (decompressed) content.
Result<Sniffed> sniff(const std::string& path)
{
    // A directory first, whatever its name: a directory of Chakra ranks is one profile; any other is not a
    // trace (a directory named run.xps once read as "does not start with the SQLite header").
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        if (!firstChakraRankIn(path).empty())
            return Sniffed::Chakra;
        return Error(path, "is a directory: expected a trace file, or a directory of Chakra ranks "
                           "(PREFIX.0.et, PREFIX.1.et, ...)");
    }
    if (!chakraRankOfPrefix(path).empty()) // PREFIX of PREFIX.0.et, PREFIX.1.et, ...
        return Sniffed::Chakra;
    if (endsWith(path, ".xps") || endsWith(path, ".xasm") || endsWith(path, ".xtrace.json"))
        return Sniffed::Ours;
    if (endsWith(path, ".xplane.pb") || endsWith(path, ".xplane.pb.gz") || endsWith(path, ".xspace.pb"))
        return Sniffed::XSpace;
    if (endsWith(path, ".et"))
        return Sniffed::Chakra;
    if (Status readable = trace::checkInputFile(path); !readable)
        return readable.error();
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz)
        return Error(path, "cannot open");
    std::string head(64 * 1024, '\0');
    const int n = gzread(gz, head.data(), static_cast<unsigned>(head.size()));
    gzclose(gz);
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    if (head.find("\"xpushark-trace\"") != std::string::npos)
        return Sniffed::Ours;
    if (looksLikeChakraJson(head) || looksLikeChakraFeederJson(head))
        return Sniffed::Chakra;
    if (looksLikePyTorchExecutionTrace(head))
        return Sniffed::PyTorchEt;
    // Our own export begins with its semantics member, which for a profile of many reclassified types (an
    // XSpace's thousands of XLA ops) can fill the first 64 KiB before "traceEvents" is seen.
    if (first != std::string::npos &&
        (head[first] == '[' ||
         (head[first] == '{' && (head.find("\"traceEvents\"") != std::string::npos ||
                                 head.find("\"xpushark_semantics\"") != std::string::npos))))
        return Sniffed::Chrome;
    return Sniffed::Unknown;
}

} // namespace

Result<InputKind> detectInput(const std::string& path)
{
    auto s = sniff(path);
    if (!s)
        return s.error();
    if (*s == Sniffed::Chrome)
        return InputKind::ChromeJson;
    if (*s == Sniffed::XSpace)
        return InputKind::XSpace;
    if (*s == Sniffed::Chakra)
        return InputKind::Chakra;
    if (*s == Sniffed::PyTorchEt)
        return InputKind::PyTorchExecutionTrace;
    if (*s == Sniffed::Ours || endsWith(path, ".json"))
        return InputKind::XpuTrace; // for an unknown .json, the trace reader says what is wrong with it
    return Error(path,
                 "not a trace xpushark knows: expected an xpushark trace (.xtrace.json, .xps, .xasm) or a "
                 "Chrome / Perfetto / PyTorch profiler JSON trace (.json, .json.gz)");
}

Result<profile::Profile> importProfile(const std::string& path, const ImportOptions& options)
{
    auto s = sniff(path);
    if (!s)
        return s.error();
    if (*s == Sniffed::Ours)
        return Error(path, "an xpushark trace, not a profile to import: open it to replay it");
    if (*s == Sniffed::XSpace)
        return importXSpace(path, options);
    if (*s == Sniffed::Chakra)
        return importChakra(path, options);
    if (*s == Sniffed::PyTorchEt)
        return Error(
            path, "a PyTorch execution trace (ExecutionTraceObserver's JSON), which xpushark does not read "
                  "itself: convert it to Chakra's form first (chakra_converter PyTorch --input FILE "
                  "--output NAME, after chakra_trace_link to add its Kineto trace's GPU work) and open "
                  "the result; or open the Kineto trace recorded with it");
    // Unknown content too: the JSON reader says where and what it expected.
    return importChromeJson(path, options);
}

} // namespace xps::importing

#include "trace/trace_io.h"

#include "asm/assembler.h"
#include "stablehlo/compile.h"
#include "stablehlo/parser.h"
#include "stablehlo/retype.h"
#include "trace/trace_container.h"
#include "trace/trace_json.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xps::trace {
namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

constexpr std::uint64_t kMaxAssemblyBytes = 64ull << 20;

} // namespace

Result<TraceFileKind> traceFileKind(const std::string& path)
{
    if (endsWith(path, ".xps"))
        return TraceFileKind::Container;
    if (endsWith(path, ".json"))
        return TraceFileKind::Json;
    if (endsWith(path, ".xasm"))
        return TraceFileKind::Assembly;
    if (endsWith(path, ".mlir"))
        return TraceFileKind::StableHlo;
    return Error(path,
                 "unknown trace file type: expected a name ending in .xtrace.json (or .json), .xps, .xasm "
                 "or .mlir (a StableHLO module)");
}

Status checkInputFile(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return Error(path, "no such file");
    if (std::filesystem::is_directory(status))
        return Error(path, "is a directory, not a trace file");
    return Ok{};
}

Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes)
{
    if (Status readable = checkInputFile(path); !readable)
        return readable.error();
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error(path, std::string("cannot open: ") + std::strerror(errno));
    const auto size = std::filesystem::is_regular_file(status) ? std::filesystem::file_size(path, ec) : 0;
    if (!ec && size > maxBytes)
        return Error(path, "file of " + text::formatBytes(size) + " is larger than the " +
                               text::formatBytes(maxBytes) + " this kind of file may be");
    std::string content;
    content.resize(static_cast<std::size_t>(size));
    in.read(content.data(), static_cast<std::streamsize>(size));
    content.resize(static_cast<std::size_t>(in.gcount()));
    // Non-regular files (pipes) have no size up front: read in bounded steps.
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        content.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (content.size() > maxBytes)
            return Error(path, "file is larger than the " + text::formatBytes(maxBytes) +
                                   " this kind of file may be");
    }
    return content;
}

Result<Trace> loadTrace(const std::string& path, std::stop_token stop, const LoadOptions& loadOptions)
{
    auto kind = traceFileKind(path);
    if (!kind)
        return kind.error();
    if (Status readable = checkInputFile(path); !readable) // missing, or a directory named like a trace
        return readable.error();
    if (*kind == TraceFileKind::Container || looksLikeContainer(path))
        return readTraceContainer(path);
    const std::uint64_t limit = *kind == TraceFileKind::Json ? kMaxJsonTraceBytes : kMaxAssemblyBytes;
    auto content = readTextFile(path, limit);
    if (!content)
        return content.error();
    if (*kind == TraceFileKind::Assembly)
        return assembly::assemble(*content, path, stop);
    if (*kind == TraceFileKind::StableHlo) {
        shlo::ParseLimits parsing;
        parsing.stop = stop;
        auto module = shlo::parseModule(std::move(*content), path, parsing);
        if (!module)
            return module.error();
        if (!loadOptions.modelDtype.empty()) {
            const auto type = shlo::floatTypeNamed(loadOptions.modelDtype);
            if (!type)
                return Error(path, "cannot run the model as '" + loadOptions.modelDtype +
                                       "': expected bf16, f16 or f32");
            if (auto retyped = shlo::retypeFloats(*module, *type); !retyped)
                return retyped.error();
        }
        shlo::CompileOptions options = shlo::CompileOptions::asXla();
        options.stop = stop;
        auto compiled = shlo::compileModule(*module, options);
        if (!compiled)
            return compiled.error();
        return std::move(compiled->trace);
    }
    return readTraceJson(*content, path);
}

Status saveTrace(const Trace& trace, const std::string& path)
{
    auto kind = traceFileKind(path);
    if (!kind)
        return kind.error();
    if (*kind == TraceFileKind::Assembly || *kind == TraceFileKind::StableHlo)
        return Error(path,
                     "traces are saved as .xtrace.json or .xps; use `xpushark-cli disasm` for assembly text");
    if (*kind == TraceFileKind::Container)
        return writeTraceContainer(trace, path);
    return writeFileAtomically(path, [&](const std::string& temp) -> Status {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out)
            return Error(path, std::string("cannot write: ") + std::strerror(errno));
        const std::string text = writeTraceJson(trace);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out)
            return Error(path, "write failed (disk full?)");
        return Ok{};
    });
}

} // namespace xps::trace

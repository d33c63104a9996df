#pragma once
// Loading and saving traces by file name: .xtrace.json / .json (JSON), .xps (container), .xasm (assembly),
// and .mlir: a StableHLO module, compiled for the default machine when loaded (docs/stablehlo.md).
// The content decides where the name is ambiguous: an SQLite header means a container.

#include "trace/trace.h"
#include "util/result.h"

#include <stop_token>
#include <string>

namespace xps::trace {

enum class TraceFileKind { Json, Container, Assembly, StableHlo };

// By extension; returns an error naming the accepted extensions otherwise.
Result<TraceFileKind> traceFileKind(const std::string& path);

// How a model (.mlir) is compiled as it loads; other files ignore it.
struct LoadOptions
{
    // Every float tensor of the model becomes this type before it compiles ("bf16", "f16" or "f32", as
    // `estimate --dtype` takes it): a bf16 deployment of an f32 or f16 export. Empty: as exported.
    std::string modelDtype;
};

// `stop` cancels the assembling or compiling of a long .xasm or .mlir (the error is then "cancelled").
Result<Trace> loadTrace(const std::string& path, std::stop_token stop = {}, const LoadOptions& options = {});
// Writes .xps or JSON by the extension of `path`.
Status saveTrace(const Trace& trace, const std::string& path);

// That `path` names something to read: "no such file" or "is a directory, not a trace file" otherwise.
Status checkInputFile(const std::string& path);

// Reads a whole text file, refusing files larger than `maxBytes` before reading them.
Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes);

} // namespace xps::trace

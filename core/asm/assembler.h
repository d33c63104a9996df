#pragma once
// Assembles an .xasm source (program, symbols, initial state and machine parameters) into a Trace.
// Every problem is reported as file:line:column with what was expected; up to kMaxDiagnostics at once.

#include "trace/trace.h"
#include "util/result.h"

#include <string_view>

namespace xps::assembly {

inline constexpr std::size_t kMaxDiagnostics = 50;

Result<trace::Trace> assemble(std::string_view source, std::string_view fileName);

} // namespace xps::assembly

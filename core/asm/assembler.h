#pragma once
// Assembles an .xasm source (program, symbols, initial state and machine parameters) into a Trace.
// Every problem is reported as file:line:column with what was expected; up to kMaxDiagnostics at once.

#include "trace/trace.h"
#include "util/result.h"

#include <stop_token>
#include <string_view>

namespace xps::assembly {

inline constexpr std::size_t kMaxDiagnostics = 50;

// `stop` is looked at every 4,096 lines and bundles: a cancelled assembly ends in the error "cancelled".
Result<trace::Trace> assemble(std::string_view source, std::string_view fileName, std::stop_token stop = {});

} // namespace xps::assembly

#pragma once
// Parses StableHLO in MLIR text form (what `jax.jit(f).lower(...).as_text()` prints, what torch-xla and
// xla-translate emit, and the interpreter tests' files) into a Module. Every error names
// file:line:column and what was expected; an op outside the subset is named with the list of those in it.

#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "stablehlo/module.h"
#include "util/result.h"

namespace xps::shlo {

// Refusals before anything big is allocated: hostile text cannot make the parser take more than a small
// multiple of its own size. And the explorer's Stop: looked at before every op, so a long module's parse
// (5,000 ops: 15-30 ms here) ends at once, with the error "cancelled".
struct ParseLimits
{
    std::size_t maxSourceBytes = std::size_t{1} << 30;
    std::size_t maxDenseElements = std::size_t{1} << 26; // elements written in one dense<...> literal
    int maxNesting = 64;                                 // regions, brackets and attributes inside each other
    std::stop_token stop;
};

Result<Module> parseModule(std::string text, std::string fileName, const ParseLimits& limits = {});

// The parts of a file split by `// -----` lines (mlir-opt's -split-input-file), with the line each starts
// at so messages keep the file's line numbers. A file without such lines is one part.
struct SourcePart
{
    std::string text; // earlier parts' lines are blank, so line numbers are the file's
    std::uint32_t firstLine = 1;
};
std::vector<SourcePart> splitInputFile(std::string_view text);

// Reads and parses a file (.mlir). Refuses files over the limit before reading them.
Result<std::vector<Module>> parseFile(const std::string& path, const ParseLimits& limits = {});

} // namespace xps::shlo

#pragma once
// Markdown tables generated from the opcode table and the machine-parameter table. docs/isa.md embeds
// them between marker comments and a test checks they are current, so the doc cannot drift from the code.

#include <string>

namespace xps::isa {

std::string opcodeReferenceMarkdown();
std::string machineConfigReferenceMarkdown();

inline constexpr const char* kOpcodeTableBegin =
    "<!-- BEGIN GENERATED OPCODE TABLE (xpushark-cli isa --opcodes) -->";
inline constexpr const char* kOpcodeTableEnd = "<!-- END GENERATED OPCODE TABLE -->";
inline constexpr const char* kConfigTableBegin =
    "<!-- BEGIN GENERATED CONFIG TABLE (xpushark-cli isa --config) -->";
inline constexpr const char* kConfigTableEnd = "<!-- END GENERATED CONFIG TABLE -->";

} // namespace xps::isa

#pragma once
// Canonical assembly text for bundles and whole traces. The text re-assembles to the same program
// (tested for every opcode), and it is the form programs take inside the JSON trace format.

#include "isa/program.h"
#include "trace/trace.h"

#include <string>

namespace xps::assembly {

// One instruction, e.g. "dma.start vmem[s2 + 0x1000], hbm[s1], 4096, 3, engine=1".
std::string disassembleInstruction(const isa::Instruction& insn, const trace::SymbolTable& symbols);
// One bundle on one line: instructions separated by " ; ", or "nop".
std::string disassembleBundle(const isa::Bundle& bundle, const trace::SymbolTable& symbols);
// A whole trace as .xasm: machine parameters, per-chip sections with symbols, generators and code.
// Literal initial memory (snapshots) cannot be written in assembly; it is noted in a comment.
std::string disassembleTrace(const trace::Trace& trace);

// Whether `name` can be written bare in assembly (else it is quoted).
bool isPlainIdentifier(std::string_view name);

} // namespace xps::assembly

#pragma once
// Semantic checks of a trace against its machine: every buffer, initial region and static operand inside
// the machine's memories, overlapping buffers declared as aliases, flags, engines and chips that exist,
// branch targets inside the program. Readers check sizes before they allocate; this runs on the result.

#include "trace/trace.h"
#include "util/result.h"

#include <functional>
#include <vector>

namespace xps::trace {

enum class Part {
    Trace,
    Chip,
    Bundle,
    Buffer,
    Region,
    Label,
    SourceLine,
    ScalarInit,
    VectorInit,
    FlagInit,
    MemoryInit,
    Output,
    RecordedRegion,
    RecordedSample
};

struct Where
{
    Part part;
    ChipId chip;       // invalid for Trace and recorded timing
    std::size_t index; // of the part within the chip (bundle pc, buffer index, ...), or register/flag number
};

// Turns a Where into a location a person can find ("k.xasm:12:3", "t.json: $.chips[0].buffers[2]").
using Locator = std::function<std::string(const Where&)>;

std::vector<Diagnostic> validateTrace(const Trace& trace, const Locator& locate);

// Where a finding is in the trace's JSON form (docs/trace-format.md): "$.chips[0].program[3]". The locator
// of a JSON trace, and the one a trace that has no file (built in code) is named by.
std::string jsonPathOf(const Where& where);

std::uint64_t spaceSize(const isa::MachineConfig& machine, isa::Space space);

} // namespace xps::trace

#pragma once
// Applies a suggestion's change to a trace, producing the trace to replay. Structural preconditions are
// checked here (the instruction is where the change says, the target slot is free); whether the change
// keeps the program's meaning is decided by replaying it and comparing outputs (sim/what_if.h).

#include "suggest/suggestion.h"
#include "trace/trace.h"
#include "util/result.h"

namespace xps::suggest {

// dma.start operand positions (core/isa/opcodes.cpp).
namespace dma_operand {
inline constexpr std::size_t kDst = 0, kSrc = 1, kBytes = 2, kFlag = 3, kEngine = 4, kRows = 5, kChunk = 8,
                             kChip = 9, kRoute = 10, kConvert = 11;
// A converting dma.start (cvt=): its destination's bytes per source byte, as numerator / denominator.
inline std::int64_t convertedBytes(const isa::Instruction& insn, std::int64_t sourceBytes)
{
    const isa::Operand& cvt = insn.operands[kConvert];
    const std::int64_t c = cvt.present() ? cvt.value : 0;
    return c == 1 || c == 2 ? sourceBytes * 2 : c == 3 || c == 4 ? sourceBytes / 2 : sourceBytes;
}
}

// The chunk size of a dma.start whose transfer can be cut into parts of whole chunks (single row,
// immediate byte count, shortest route), else why not.
Result<std::int64_t> wholeChunkBytes(const isa::Instruction& insn, const isa::MachineConfig& machine);

// The byte count of each half when the dma.start can be split in two (single row, immediate byte count,
// halves of whole chunks), else why not.
Result<std::int64_t> splitHalfBytes(const isa::Instruction& insn, const isa::MachineConfig& machine);

Result<trace::Trace> applyChange(const trace::Trace& trace, const Change& change);

// A program change to one chip (not a machine parameter or a re-generation); the proposals try one on a
// copy of the chip's program to propose only what the transformation accepts.
Status applyProgramChange(trace::ChipTrace& chip, const Change& change, const isa::MachineConfig& machine);

} // namespace xps::suggest

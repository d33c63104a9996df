#pragma once
// Edits of a chip's program that keep it consistent: inserting a bundle renumbers every pc that follows
// (branch targets, labels, source lines), and the control-flow facts the transformations' legality
// checks need.

#include "trace/trace.h"

#include <cstdint>
#include <vector>

namespace xps::suggest {

// Inserts `bundle` before `pc`. Branches to `pc` now reach the inserted bundle first (it runs before the
// old bundle at `pc`, which moves to pc + 1).
void insertBundle(trace::ChipTrace& chip, std::uint32_t pc, isa::Bundle bundle);

// Removes the bundle at `pc`; branches to it now reach the bundle that followed it.
void removeBundle(trace::ChipTrace& chip, std::uint32_t pc);

// Per pc: whether some branch can jump there (a basic block starts at it).
std::vector<bool> branchTargets(const isa::Program& program);
bool hasBranch(const isa::Bundle& bundle);
// The instruction index of the first `opcode` in the bundle, or -1.
int findInstruction(const isa::Bundle& bundle, isa::Opcode opcode);
bool slotFree(const isa::Bundle& bundle, isa::SlotKind slot);
// Bit r: scalar register r is read, written or given an initial value anywhere in the chip's trace.
std::uint32_t scalarRegistersUsed(const trace::ChipTrace& chip);
// The backward branch closing the loop that contains `pc`: the first bundle at or after `pc` with a branch
// to a target at or before `pc`; -1 if none.
std::int64_t loopEnd(const isa::Program& program, std::uint32_t pc, std::uint32_t* head = nullptr);

} // namespace xps::suggest

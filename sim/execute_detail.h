#pragma once
// Internal to the functional model: shared helpers and the per-unit executors.

#include "execute.h"

namespace xps::sim::detail {

const VReg& vectorOperand(const ChipState& state, const isa::Operand& operand);
void checkAccess(ChipState& state, isa::Space space, std::uint64_t address, std::uint64_t bytes,
                 std::uint64_t alignment);

void executeVector(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                   PendingWrites& writes);
void executeMatrix(ChipState& state, const isa::Instruction& insn, const ExecOptions& options,
                   PendingWrites& writes);

} // namespace xps::sim::detail

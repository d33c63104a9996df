#pragma once
// The entry function's arguments: the deterministic inputs they start from, and the one a cross-program
// prefetch keeps in VMEM.
//
// XLA's cross-program prefetch (memory space assignment): of the entry function's arguments that only
// dot_generals read, the largest that fits the machine's cross_program_prefetch_bytes is kept in VMEM from
// one run of the program to the next. XLA copies it there by an end-of-program prefetch, ops of their own
// in a profile (copy-start, copy-done) outside the dots' time, so the dots that read it do not wait on HBM.
// The lowering keeps a copy of it in VMEM for the whole program, initialised as the argument is, and the
// dots read their operand from there; every other kernel reads the argument in HBM.

#include "isa/machine_config.h"
#include "stablehlo/lower_kernels.h"
#include "stablehlo/module.h"
#include "trace/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace xps::shlo::lower {

// Argument i of `f` (its buffer `t`) on `chip`: uniform floats with variance 1 / fan-in for a matrix (its
// second-to-last dimension), as a weight is initialised, [-1, 1) for vectors and scalars; integers over the
// range the module's uses allow (integerArgumentRange). A replicated argument (mhlo.sharding =
// "{replicated}") is the same on every chip; any other is each chip's own shard. The same inputs `check`
// gives the reference interpreter.
trace::MemoryInit argumentInput(const Function& f, std::size_t i, const TensorRef& t, int chip);

// The argument of `entry` to keep in VMEM, or nothing: one read only by dot_general and dot, not returned,
// of at most `machine.crossProgramPrefetchBytes`, the largest of them (the first of equals); as XLA's
// memory space assignment places it only where it fits beside the buffers live at each of its uses, each
// dot reading it must still fit VMEM whole beside the copy (its operands as stored, its result in f32):
// a copy that would cut the dots that read it into tiles is not kept. `bytes[i]`: argument i's size.
std::optional<std::size_t> crossProgramPrefetch(const Function& entry, const isa::MachineConfig& machine,
                                                const std::vector<std::uint64_t>& bytes);

} // namespace xps::shlo::lower

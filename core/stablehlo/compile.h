#pragma once
// Compiles a StableHLO module into an xpu-v1 trace the GRM replays: every tensor in HBM, each op a kernel
// that moves its operands through VMEM and computes on the vector unit, the cross-lane unit or the MXU
// (docs/stablehlo.md, "Lowering"). Calls are inlined; each op is a region named by its result, op and
// source location, nested in its function's region, and its bundles carry the op's line in the .mlir.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/machine_config.h"

#include "stablehlo/module.h"
#include "trace/trace.h"
#include "util/result.h"
#include <stop_token>

namespace xps::shlo {

struct CompileOptions
{
    isa::MachineConfig machine;
    // Looked at before every op and every 4,096 bundles written: a cancelled compile ends in
    // the error "cancelled" (the explorer's Stop while it compiles).
    std::stop_token stop;
    // Kernels are unrolled; a program that outgrows instruction memory is compiled again with long kernels
    // written as counted loops (WhenNeeded). Always and Never force one way (tests, measurements).
    enum class Loops { WhenNeeded, Always, Never };
    Loops loops = Loops::WhenNeeded;
    // Chains of element-wise ops are fused into one kernel each (lower_fusion.h); false keeps a kernel per
    // op (`compile --fusion off`: measuring what fusion gains, checking it changes no result).
    bool fuse = true;
    // Ops whose operands are all constants are evaluated when compiling, as XLA's constant folding does
    // (not broadcasts and iotas, which it leaves for the kernels reading them): GPT-2's causal mask is a
    // constant. `compile`, `estimate` and the explorer fold; off, a test module's ops on literals run as
    // kernels, which is what `check` and the lowering's tests hold to the reference interpreter.
    bool foldConstants = false;
    // A fused f16 or bf16 intermediate stays in f32 registers, not rounded to its type, as XLA computes
    // with its default xla_allow_excess_precision. Off, such an intermediate ends its kernel and is rounded
    // on its way through HBM, as the reference interpreter rounds every op: what `check` holds to it.
    // `compile`, `estimate` and the explorer allow it.
    bool excessPrecision = false;

    // As XLA compiles a model for the chip: constants folded, fused intermediates kept in f32. What
    // `compile`, `estimate`, `calibrate` and the explorer predict with.
    static CompileOptions asXla(const isa::MachineConfig& machine = {})
    {
        CompileOptions options;
        options.machine = machine;
        options.foldConstants = true;
        options.excessPrecision = true;
        return options;
    }
};

struct CompiledTensor
{
    std::uint64_t address = 0; // in chip 0's HBM
    TensorType type;
};

// A check op of the module and where its operands are after a replay.
struct CompiledCheck
{
    const Operation* op = nullptr; // in the module compiled (which must outlive this)
    std::string function;
    std::string location; // file:line:column
    std::vector<CompiledTensor> operands;
};

struct CompiledModule
{
    trace::Trace trace;
    std::vector<CompiledCheck> checks;
    std::vector<CompiledTensor> results;   // @main's results
    std::vector<CompiledTensor> arguments; // @main's arguments, filled by the trace's generators
    std::size_t kernels = 0;               // ops that became code
    std::size_t freeOps = 0;               // constants, reshapes, calls, checks: no code of their own
    std::size_t fusedOps = 0;              // element-wise ops computed in another op's kernel (fusion)
    std::size_t foldedOps = 0;             // ops evaluated when compiling: their results are constants
    // The module as compiled when ops were expanded in it first (batch norms: lower_expand.h), which
    // `checks` point into; null when it compiled as given.
    std::shared_ptr<const Module> expanded;
};

Result<CompiledModule> compileModule(const Module& module, const CompileOptions& options = {});

} // namespace xps::shlo

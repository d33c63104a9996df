#pragma once
// The reference interpreter of xpushark's StableHLO subset: evaluates a module with plain loops, written
// from the StableHLO specification and independent of the lowering to xpu-v1, so a replay of the compiled
// program can be checked against it. It also evaluates the checks JAX-generated test modules carry
// (stablehlo.custom_call @check.expect_close and friends, and the check dialect of StableHLO's interpreter
// tests), with the tolerances StableHLO's own interpreter uses for them.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"
#include "util/result.h"

namespace xps::shlo {

struct CheckOutcome
{
    std::string check;    // "check.expect_close"
    std::string location; // file:line:column of the check
    std::string function; // the function it is in
    bool passed = false;
    std::int64_t elements = 0;
    std::int64_t failing = 0;
    std::string worst; // the worst element: "[3, 1]: actual 0.5, expected 0.25 (difference 4 ulp, at most 3)"
    std::string tolerance; // "exact", "|difference| <= 0.0001", "0..3 ulp"
};

struct InterpreterLimits
{
    std::uint64_t maxWork = std::uint64_t{1} << 32;         // element operations, all ops together
    std::int64_t maxTensorElements = std::int64_t{1} << 24; // one value (a double each: 128 MiB)
    int maxCallDepth = 64;
};

namespace detail {
class Rendezvous;
}

// One process of a module that runs on several chips: its number (replica * partitions + partition) and
// where it meets the others at each collective.
struct ProcessContext
{
    int process = 0;
    detail::Rendezvous* rendezvous = nullptr; // null: one process alone
};

class Interpreter
{
public:
    explicit Interpreter(const Module& module, InterpreterLimits limits = {},
                         const std::atomic<bool>* cancel = nullptr, ProcessContext process = {});
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    // Evaluates `function` on `arguments`; an error names the op (file:line:column) and what went wrong.
    Result<std::vector<TensorValue>> run(const Function& function, const std::vector<TensorValue>& arguments);

    const std::vector<CheckOutcome>& checks() const;
    std::uint64_t work() const; // element operations so far

    // One op of `module` on values already known (a compiler folding an op whose operands are constants);
    // an error names the op.
    static Result<std::vector<TensorValue>> evaluateOne(const Module& module, const Operation& op,
                                                        const std::vector<const TensorValue*>& operands,
                                                        InterpreterLimits limits = {});

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// Runs `function` once per process (module.numReplicas x numPartitions, each on a thread of its own,
// meeting at collectives), process p on arguments[p]; returns each process's results. `checks`, if given,
// receives every check's outcome, process by process.
Result<std::vector<std::vector<TensorValue>>>
runProcesses(const Module& module, const Function& function,
             const std::vector<std::vector<TensorValue>>& arguments, InterpreterLimits limits = {},
             const std::atomic<bool>* cancel = nullptr, std::vector<CheckOutcome>* checks = nullptr);

// What `xpushark-cli check` evaluates in one module: its entry function (public @main), or else every
// public function without arguments (the interpreter tests' style), collecting every check.
struct ModuleCheck
{
    std::vector<std::string> functionsRun;
    std::vector<CheckOutcome> checks;
};
Result<ModuleCheck> checkModule(const Module& module, InterpreterLimits limits = {},
                                const std::atomic<bool>* cancel = nullptr);

} // namespace xps::shlo

#include "stablehlo_replay.h"

#include <bit>

#include "replayer.h"
#include "stablehlo/checks.h"
#include "stablehlo/eval_ops.h"

namespace xps::sim {

namespace {

// A tensor as the replay left it: 4-byte elements, f32 bits or an s32 (i1 as 0 or 1).
shlo::TensorValue readTensor(SparseMemory& hbm, const shlo::CompiledTensor& t)
{
    shlo::TensorValue v{t.type, {}};
    const auto n = static_cast<std::uint64_t>(t.type.elementCount());
    v.data.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint32_t bits = hbm.read32(t.address + 4 * i);
        if (shlo::isFloat(t.type.element))
            v.data.push_back(static_cast<double>(std::bit_cast<float>(bits)));
        else if (t.type.element == shlo::ElementType::I1)
            v.data.push_back(bits != 0 ? 1.0 : 0.0);
        else
            v.data.push_back(static_cast<double>(static_cast<std::int32_t>(bits)));
    }
    return v;
}

} // namespace

Result<ReplayedModuleCheck> replayAndCheck(const shlo::Module& module, const shlo::CompiledModule& compiled)
{
    events::EventStore store;
    ReplayOptions options;
    options.mode = ReplayMode::Full;
    auto result = replay(compiled.trace, options, store);
    if (result.status == ReplayResult::Status::Faulted)
        return Error(module.fileName, "the compiled program faulted on the GRM (a lowering bug): " +
                                          (result.fault ? result.fault->toString() : std::string("?")));
    if (result.status != ReplayResult::Status::Completed)
        return Error(module.fileName, "the replay did not complete: " + result.limitMessage);
    ReplayedModuleCheck out;
    out.cycles = result.totalCycles;
    out.bundles = compiled.trace.chips.at(0).program.bundles.size();
    auto& hbm = result.finalState.at(0).hbm;
    for (const auto& t : compiled.results)
        out.results.push_back(readTensor(hbm, t));
    for (const auto& c : compiled.checks) {
        std::vector<shlo::TensorValue> values;
        for (const auto& t : c.operands)
            values.push_back(readTensor(hbm, t));
        std::vector<const shlo::TensorValue*> operands;
        for (const auto& v : values)
            operands.push_back(&v);
        try {
            auto outcome = shlo::evaluateCheck(*c.op, operands, c.location);
            outcome.function = c.function;
            out.check.checks.push_back(std::move(outcome));
        } catch (const shlo::detail::EvalError& e) {
            return Error(c.location, e.message);
        }
    }
    out.check.functionsRun.push_back(module.entry() ? module.entry()->name : std::string());
    return out;
}

} // namespace xps::sim

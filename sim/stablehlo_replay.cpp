#include "stablehlo_replay.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "replayer.h"
#include "stablehlo/checks.h"
#include "stablehlo/eval_ops.h"
#include "stablehlo/tensor_value.h"

namespace xps::sim {

namespace {

// A tensor as the replay left it: f16 and bf16 packed in 2 bytes, the rest 4-byte f32 bits or an integer's
// 32-bit word (i1 as 0 or 1; a 64-bit integer's low half, read as the value it is where values fit 32 bits).
shlo::TensorValue readTensor(SparseMemory& hbm, const shlo::CompiledTensor& t)
{
    shlo::TensorValue v{t.type, {}};
    const auto n = static_cast<std::uint64_t>(t.type.elementCount());
    v.data.reserve(n);
    const bool packed = shlo::storageBytes(t.type.element) == 2;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (packed) {
            std::uint8_t bytes[2];
            hbm.read(t.address + 2 * i, bytes);
            const auto bits = static_cast<std::uint16_t>(bytes[0] | (bytes[1] << 8));
            v.data.push_back(t.type.element == shlo::ElementType::BF16 ? shlo::bfloat16Value(bits)
                                                                       : shlo::halfValue(bits));
            continue;
        }
        const std::uint32_t bits = hbm.read32(t.address + 4 * i);
        if (shlo::isFloat(t.type.element))
            v.data.push_back(static_cast<double>(std::bit_cast<float>(bits)));
        else if (t.type.element == shlo::ElementType::I1)
            v.data.push_back(bits != 0 ? 1.0 : 0.0);
        else if (shlo::isUnsigned(t.type.element)) // the word is the value modulo 2^32 (storageBytes)
            v.data.push_back(static_cast<double>(bits));
        else
            v.data.push_back(static_cast<double>(static_cast<std::int32_t>(bits)));
    }
    return v;
}

} // namespace

namespace {

shlo::CheckOutcome compareResult(const shlo::TensorValue& replayed, const shlo::TensorValue& reference,
                                 const std::string& location, std::size_t index)
{
    shlo::CheckOutcome c;
    c.check = "reference.results";
    c.location = location;
    c.function = "main, result " + std::to_string(index);
    // Relative to the type: f32 1e-4; a packed type one unit in its last place (2^-10 for f16, 2^-7 for
    // bf16), since every op's result is rounded to it and a last-bit difference of f32 may round either way.
    const auto element = reference.type.element;
    const double relative = element == shlo::ElementType::F16    ? std::ldexp(1.0, -10)
                            : element == shlo::ElementType::BF16 ? std::ldexp(1.0, -7)
                                                                 : 1e-4;
    c.tolerance =
        element == shlo::ElementType::F16    ? "|difference| <= 2^-10 x max(1, |reference|) (one f16 ulp)"
        : element == shlo::ElementType::BF16 ? "|difference| <= 2^-7 x max(1, |reference|) (one bf16 ulp)"
                                             : "|difference| <= 1e-4 x max(1, |reference|)";
    c.elements = static_cast<std::int64_t>(reference.data.size());
    double worst = -1, largest = 0;
    std::size_t largestAt = 0;
    for (std::size_t i = 0; i < reference.data.size(); ++i) {
        const double a = replayed.data[i], e = reference.data[i];
        const bool same = a == e || (std::isnan(a) && std::isnan(e));
        const double difference = std::fabs(a - e);
        if (!same && difference > largest) {
            largest = difference;
            largestAt = i;
        }
        const bool ok = same || difference <= relative * std::max(1.0, std::fabs(e));
        if (ok)
            continue;
        ++c.failing;
        const double score = std::isnan(difference) ? INFINITY : difference;
        if (score > worst) {
            worst = score;
            c.worst = shlo::formatIndex(reference.type.shape, static_cast<std::int64_t>(i)) + ": replay " +
                      shlo::formatElement(reference.type.element, a) + ", reference interpreter " +
                      shlo::formatElement(reference.type.element, e);
        }
    }
    if (c.failing == 0) // what a passing comparison shows: how close it is
        c.worst = largest == 0
                      ? std::string("identical")
                      : "largest difference " + shlo::formatElement(shlo::ElementType::F32, largest) +
                            " at " +
                            shlo::formatIndex(reference.type.shape, static_cast<std::int64_t>(largestAt));
    c.passed = c.failing == 0;
    return c;
}

} // namespace

Result<ReplayedModuleCheck> replayAndCheck(const shlo::Module& module, const shlo::CompiledModule& compiled,
                                           bool compareWithReference)
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
    // Every chip holds its own copy of every tensor; checks and comparisons run chip by chip.
    const std::size_t chips = result.finalState.size();
    const auto chipSuffix = [&](std::size_t c) {
        return chips > 1 ? " (chip " + std::to_string(c) + ")" : std::string();
    };
    for (const auto& t : compiled.results)
        out.results.push_back(readTensor(result.finalState.at(0).hbm, t));
    for (std::size_t chip = 0; chip < chips; ++chip) {
        auto& hbm = result.finalState[chip].hbm;
        for (const auto& c : compiled.checks) {
            std::vector<shlo::TensorValue> values;
            for (const auto& t : c.operands)
                values.push_back(readTensor(hbm, t));
            std::vector<const shlo::TensorValue*> operands;
            for (const auto& v : values)
                operands.push_back(&v);
            try {
                auto outcome = shlo::evaluateCheck(*c.op, operands, c.location);
                outcome.function = c.function + chipSuffix(chip);
                out.check.checks.push_back(std::move(outcome));
            } catch (const shlo::detail::EvalError& e) {
                return Error(c.location, e.message);
            }
        }
    }
    out.check.functionsRun.push_back(module.entry() ? module.entry()->name : std::string());
    if (compareWithReference && module.entry()) {
        std::vector<std::vector<shlo::TensorValue>> arguments(chips);
        for (std::size_t chip = 0; chip < chips; ++chip)
            for (const auto& t : compiled.arguments)
                arguments[chip].push_back(readTensor(result.finalState[chip].hbm, t));
        auto reference = shlo::runProcesses(module, *module.entry(), arguments);
        if (!reference)
            return reference.error();
        for (std::size_t chip = 0; chip < chips; ++chip)
            for (std::size_t i = 0; i < (*reference)[chip].size() && i < compiled.results.size(); ++i) {
                auto c = compareResult(readTensor(result.finalState[chip].hbm, compiled.results[i]),
                                       (*reference)[chip][i], module.fileName, i);
                c.function += chipSuffix(chip);
                out.check.checks.push_back(std::move(c));
            }
    }
    return out;
}

} // namespace xps::sim

#pragma once
// The reference interpreter's op semantics (internal to core/stablehlo): plain loops over row-major
// elements, written from the StableHLO specification and independent of the lowering, so the lowering can
// be checked against them. Each throws EvalError for an input the spec rejects; the interpreter adds the
// op's file:line:column.

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::detail {

struct EvalError
{
    std::string message;
};
[[noreturn]] void evalFail(std::string message);

// Work done so far, in element operations, against a budget; and the caller's cancel flag. Heavy loops
// charge as they go, so a hostile shape ends with an error and a cancel is seen within a few milliseconds.
class WorkMeter
{
public:
    WorkMeter(std::uint64_t budget, const std::atomic<bool>* cancel) : m_budget(budget), m_cancel(cancel) {}
    void charge(std::uint64_t work);
    std::uint64_t used() const { return m_used; }

private:
    std::uint64_t m_budget;
    std::uint64_t m_used = 0;
    const std::atomic<bool>* m_cancel;
};

using Inputs = std::vector<const TensorValue*>;

// Applies a reducer region to scalars: `args` are every accumulator, then every element; returns the new
// accumulators. The interpreter implements it (it can run any region).
class RegionRunner
{
public:
    virtual ~RegionRunner() = default;
    virtual void apply(const Body& region, const std::vector<double>& args, std::vector<double>& results) = 0;
};

// eval_elementwise.cpp
double applyUnary(OpKind kind, ElementType in, ElementType out, double x);
double applyBinary(OpKind kind, ElementType type, double a, double b);
bool applyCompare(const std::string& direction, const std::string& compareType, ElementType type, double a,
                  double b);
TensorValue evalElementwise(const Operation& op, const Inputs& in, WorkMeter& meter);
// reduce_precision: the op's exponent and mantissa bits, capped at f32's (an EvalError for a type or format
// not evaluated), and one value reduced to them as XLA does (docs/stablehlo.md).
std::pair<std::int64_t, std::int64_t> reducedBits(const Operation& op, ElementType type);
double reducePrecision(double value, int exponentBits, int mantissaBits);

// eval_shape.cpp
TensorValue evalConstant(const Operation& op, const std::string& where);
TensorValue evalBroadcastInDim(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalReshape(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalTranspose(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalSlice(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalConcatenate(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalPad(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalIota(const Operation& op, WorkMeter& meter);
TensorValue evalReverse(const Operation& op, const Inputs& in, WorkMeter& meter);

// eval_gather.cpp. A gather's dimension numbers, checked against its operand, indices and result (an
// EvalError says what is wrong); shared with the lowering.
struct GatherDims
{
    std::vector<std::int64_t> offsetDims, collapsedSliceDims, operandBatchingDims, startIndicesBatchingDims,
        startIndexMap, sliceSizes;
    std::int64_t indexVectorDim = 0;
    std::vector<std::int64_t> resultBatchDims, resultOffsetDims; // the result's dimensions of each kind
    // Whether a slice keeps operand dimension d as one of the result's offset dimensions (it is neither
    // collapsed nor a batching dimension).
    bool keeps(std::int64_t operandDim) const;
};
GatherDims gatherDims(const Operation& op, const TensorType& operand, const TensorType& indices,
                      const TensorType& result);
TensorValue evalGather(const Operation& op, const Inputs& in, WorkMeter& meter);
// A scatter's dimension numbers, checked against its inputs, indices and updates; shared with the lowering.
struct ScatterDims
{
    std::vector<std::int64_t> updateWindowDims, insertedWindowDims, inputBatchingDims,
        scatterIndicesBatchingDims, scatterDimsToOperandDims;
    std::int64_t indexVectorDim = 0;
    std::vector<std::int64_t> updateScatterDims; // the updates' dimensions that are not window dimensions
    // Whether input dimension d is covered by an update window dimension (neither inserted nor batching).
    bool windowed(std::int64_t inputDim) const;
};
ScatterDims scatterDims(const Operation& op, const TensorType& input, const TensorType& indices,
                        const TensorType& updates);
// dynamic_slice (operand, one scalar start index per dimension) and dynamic_update_slice (operand, update,
// start indices): starts clamped so the window fits, as the spec says.
TensorValue evalDynamicSlice(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalDynamicUpdateSlice(const Operation& op, const Inputs& in, WorkMeter& meter);
// scatter: N inputs, the indices and N updates (in.size() = 2N + 1) to N results.
std::vector<TensorValue> evalScatter(const Operation& op, const Inputs& in, RegionRunner& runner,
                                     WorkMeter& meter);
// eval_batch_norm.cpp. Mean and variance over every dimension but feature_index, computed in double and
// rounded once, as are the outputs (StableHLO leaves the intermediate precision to the implementation; XLA's
// expansion computes them in the element type).
std::vector<TensorValue> evalBatchNormTraining(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalBatchNormInference(const Operation& op, const Inputs& in, WorkMeter& meter);

// eval_reduce.cpp
std::vector<TensorValue> evalReduce(const Operation& op, const Inputs& in, RegionRunner& runner,
                                    WorkMeter& meter);
std::vector<TensorValue> evalReduceWindow(const Operation& op, const Inputs& in, RegionRunner& runner,
                                          WorkMeter& meter);

// eval_contract.cpp
TensorValue evalDotGeneral(const Operation& op, const Inputs& in, WorkMeter& meter);
TensorValue evalConvolution(const Operation& op, const Inputs& in, WorkMeter& meter);

// A convolution's dimension numbers for one operand (`[b, 0, 1, f]`, `[0, 1, i, o]`): where the batch (or
// 'i') and feature (or 'o') dimensions and each spatial dimension are. Shared with the lowering.
struct ConvLayout
{
    std::int64_t batch = -1, feature = -1; // lhs and result: b, f; rhs: i (as batch), o (as feature)
    std::vector<std::int64_t> spatial;
};
ConvLayout convLayout(const Attribute& spec, char first, char second, int rank);
// The integers of an attribute, nested lists flattened (pretty padding is [[1, 1], [2, 2]]), or `count`
// copies of `fallback` when it is absent.
std::vector<std::int64_t> flatIntsAttr(const Operation& op, std::string_view name, std::size_t count,
                                       std::int64_t fallback);

// Attribute helpers shared by the files above.
std::vector<std::int64_t> intsAttr(const Operation& op, std::string_view name, bool required = true);
std::int64_t intAttr(const Operation& op, std::string_view name, std::int64_t fallback,
                     bool required = false);
std::string wordAttr(const Operation& op, std::string_view name, const std::string& fallback);
// Calls fn(outputIndex, linear) for every index of `shape` in row-major order.
template <typename Fn> void forEachIndex(const std::vector<std::int64_t>& shape, Fn&& fn)
{
    std::int64_t total = 1;
    for (const auto d : shape)
        total *= d;
    std::vector<std::int64_t> index(shape.size(), 0);
    for (std::int64_t linear = 0; linear < total; ++linear) {
        fn(index, linear);
        for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            if (++index[u] < shape[u])
                break;
            index[u] = 0;
        }
    }
}

} // namespace xps::shlo::detail

// Reductions of the reference interpreter (see eval_ops.h): reduce and reduce_window, each applying the
// op's reducer region to every element in row-major order, starting from the initial values.

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

struct Operands
{
    std::size_t count; // N inputs, then N initial values
    const Inputs& in;
    const TensorValue& input(std::size_t i) const { return *in[i]; }
    const TensorValue& init(std::size_t i) const { return *in[count + i]; }
};

Operands split(const Operation& op, const Inputs& in)
{
    if (in.empty() || in.size() % 2 != 0)
        evalFail("expected as many initial values as inputs");
    const std::size_t n = in.size() / 2;
    if (op.resultTypes.size() != n)
        evalFail("expected one result per input");
    if (op.regions.size() != 1)
        evalFail("expected one reducer region");
    const auto& region = op.regions[0];
    if (region.argumentTypes.size() != 2 * n)
        evalFail("the reducer takes " + std::to_string(region.argumentTypes.size()) + " arguments; " +
                 std::to_string(2 * n) + " expected");
    Operands ops{n, in};
    for (std::size_t i = 0; i < n; ++i) {
        if (!ops.init(i).type.shape.empty())
            evalFail("initial value " + std::to_string(i) + " must be a scalar");
        if (ops.input(i).type.shape != ops.input(0).type.shape)
            evalFail("every input must have the same shape");
        if (ops.init(i).type.element != ops.input(i).type.element ||
            op.resultTypes[i].element != ops.input(i).type.element)
            evalFail("input " + std::to_string(i) +
                     ", its initial value and its result must have one element type");
    }
    return ops;
}

} // namespace

std::vector<TensorValue> evalReduce(const Operation& op, const Inputs& in, RegionRunner& runner,
                                    WorkMeter& meter)
{
    const auto ops = split(op, in);
    const auto& shape = ops.input(0).type.shape;
    const auto dims = intsAttr(op, "dimensions");
    std::vector<bool> reduced(shape.size());
    for (const auto d : dims) {
        if (d < 0 || d >= static_cast<std::int64_t>(shape.size()) || reduced[static_cast<std::size_t>(d)])
            evalFail("dimensions must be distinct dimensions of the input");
        reduced[static_cast<std::size_t>(d)] = true;
    }
    std::vector<std::int64_t> outShape;
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (!reduced[d])
            outShape.push_back(shape[d]);
    for (const auto& t : op.resultTypes)
        if (t.shape != outShape)
            evalFail("the result " + t.toString() +
                     " must have the input's shape without the reduced dimensions");
    const auto outStrides = stridesOf(outShape);
    std::vector<TensorValue> results;
    for (std::size_t i = 0; i < ops.count; ++i)
        results.push_back(TensorValue{
            op.resultTypes[i], std::vector<double>(static_cast<std::size_t>(op.resultTypes[i].elementCount()),
                                                   ops.init(i).data[0])});
    meter.charge(static_cast<std::uint64_t>(ops.input(0).type.elementCount()) * ops.count);
    std::vector<double> args(2 * ops.count), acc(ops.count);
    std::int64_t sinceCharge = 0;
    forEachIndex(shape, [&](const std::vector<std::int64_t>& idx, std::int64_t linear) {
        std::int64_t dst = 0;
        for (std::size_t d = 0, o = 0; d < shape.size(); ++d)
            if (!reduced[d])
                dst += idx[d] * outStrides[o++];
        for (std::size_t i = 0; i < ops.count; ++i) {
            args[i] = results[i].data[static_cast<std::size_t>(dst)];
            args[ops.count + i] = ops.input(i).data[static_cast<std::size_t>(linear)];
        }
        runner.apply(op.regions[0], args, acc);
        for (std::size_t i = 0; i < ops.count; ++i)
            results[i].data[static_cast<std::size_t>(dst)] = acc[i];
        if (++sinceCharge == 1 << 16) { // sees a cancel while a long reduction runs
            meter.charge(0);
            sinceCharge = 0;
        }
    });
    return results;
}

std::vector<TensorValue> evalReduceWindow(const Operation& op, const Inputs& in, RegionRunner& runner,
                                          WorkMeter& meter)
{
    const auto ops = split(op, in);
    const auto& shape = ops.input(0).type.shape;
    const auto rank = shape.size();
    const auto window = intsAttr(op, "window_dimensions");
    const auto orOnes = [&](std::string_view name) {
        auto v = intsAttr(op, name, false);
        if (v.empty())
            v.assign(rank, 1);
        return v;
    };
    const auto strides = orOnes("window_strides");
    const auto baseDilations = orOnes("base_dilations");
    const auto windowDilations = orOnes("window_dilations");
    auto padding = intsAttr(op, "padding", false);
    if (padding.empty())
        padding.assign(2 * rank, 0);
    if (window.size() != rank || strides.size() != rank || baseDilations.size() != rank ||
        windowDilations.size() != rank || padding.size() != 2 * rank)
        evalFail("window attributes need one entry per input dimension (padding: a pair each)");
    std::vector<std::int64_t> outShape(rank), dilatedSize(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        if (window[d] < 1 || strides[d] < 1 || baseDilations[d] < 1 || windowDilations[d] < 1)
            evalFail("window sizes, strides and dilations must be positive");
        if (window[d] > kMaxTensorElements || windowDilations[d] > kMaxTensorElements ||
            baseDilations[d] > kMaxTensorElements || padding[2 * d] < -kMaxTensorElements ||
            padding[2 * d] > kMaxTensorElements || padding[2 * d + 1] < -kMaxTensorElements ||
            padding[2 * d + 1] > kMaxTensorElements)
            evalFail("a window attribute is out of range");
        dilatedSize[d] = shape[d] == 0 ? 0 : (shape[d] - 1) * baseDilations[d] + 1;
        const auto padded = dilatedSize[d] + padding[2 * d] + padding[2 * d + 1];
        const auto extent = (window[d] - 1) * windowDilations[d] + 1;
        outShape[d] = padded < extent ? 0 : (padded - extent) / strides[d] + 1;
    }
    for (const auto& t : op.resultTypes)
        if (t.shape != outShape)
            evalFail("the result " + t.toString() + " does not have the shape the window gives");
    std::int64_t windowSize = 1;
    for (const auto w : window)
        windowSize *= w;
    std::int64_t outCount = 1;
    for (const auto o : outShape)
        outCount *= o;
    if (outCount > 0 && windowSize > kMaxTensorElements / outCount)
        evalFail("the window is too large to evaluate");
    meter.charge(static_cast<std::uint64_t>(outCount * windowSize) * ops.count);
    const auto xs = stridesOf(shape);
    std::vector<TensorValue> results;
    for (std::size_t i = 0; i < ops.count; ++i)
        results.push_back(TensorValue{op.resultTypes[i], {}});
    std::vector<double> args(2 * ops.count), acc(ops.count);
    forEachIndex(outShape, [&](const std::vector<std::int64_t>& o, std::int64_t) {
        for (std::size_t i = 0; i < ops.count; ++i)
            acc[i] = ops.init(i).data[0];
        forEachIndex(window, [&](const std::vector<std::int64_t>& k, std::int64_t) {
            // The input padded with the initial values and dilated with holes that hold them too.
            std::int64_t src = 0;
            bool inside = true;
            for (std::size_t d = 0; d < rank && inside; ++d) {
                const auto p = o[d] * strides[d] + k[d] * windowDilations[d] - padding[2 * d];
                inside = p >= 0 && p < dilatedSize[d] && p % baseDilations[d] == 0;
                src += inside ? p / baseDilations[d] * xs[d] : 0;
            }
            for (std::size_t i = 0; i < ops.count; ++i) {
                args[i] = acc[i];
                args[ops.count + i] =
                    inside ? ops.input(i).data[static_cast<std::size_t>(src)] : ops.init(i).data[0];
            }
            runner.apply(op.regions[0], args, acc);
        });
        for (std::size_t i = 0; i < ops.count; ++i)
            results[i].data.push_back(acc[i]);
    });
    return results;
}

} // namespace xps::shlo::detail

// batch_norm_training and batch_norm_inference as XLA's BatchNormExpander writes them: the sums of x and of
// x^2 by reductions, var = E[x^2] - E[x]^2, then (x - mean) * (scale * rsqrt(var + epsilon)) + offset with
// mean, factor and offset broadcast along the feature dimension. The pieces become ops of the module before
// it compiles (lower_expand.h), so fusion takes them as it takes a layer norm JAX writes; f16 and bf16 are
// computed in f32 and rounded once at the end (torch_xla writes every LayerNorm as a batch_norm_training).

#include "stablehlo/eval_ops.h"
#include "stablehlo/lower_expansion.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

double epsilon(const Operation& op)
{
    const auto* e = op.attributes.find("epsilon");
    if (!e || (e->kind != Attribute::Kind::Float && e->kind != Attribute::Kind::Integer))
        lowerFail("expected an epsilon attribute");
    return e->kind == Attribute::Kind::Float ? e->real : static_cast<double>(e->integer);
}

} // namespace

std::vector<TensorRef> lowerBatchNorm(const Operation& op, const std::vector<TensorRef>& in,
                                      const OpEmitter& emit)
{
    const bool training = op.kind == OpKind::BatchNormTraining;
    if (in.size() != (training ? 3u : 5u))
        lowerFail(training ? "expected 3 operands (operand, scale, offset)"
                           : "expected 5 operands (operand, scale, offset, mean, variance)");
    const TensorRef& x = in[0];
    const std::int64_t feature = detail::intAttr(op, "feature_index", -1, true);
    if (feature < 0 || feature >= x.type.rank() || !isFloat(x.type.element))
        lowerFail("feature_index must be a dimension of a float operand");
    const std::int64_t features = x.type.shape[static_cast<std::size_t>(feature)];
    for (std::size_t i = 1; i < in.size(); ++i)
        if (in[i].type != TensorType{{features}, x.type.element})
            lowerFail("operand " + std::to_string(i) + " must be " +
                      TensorType{{features}, x.type.element}.toString());
    const Expansion e(op, emit);
    const ElementType element = x.type.element;
    const TensorRef xf = e.convert(x, ElementType::F32, "x_f32");
    const std::vector<std::int64_t> vector{features};
    TensorRef mean, variance;
    if (training) {
        const double count = static_cast<double>(x.type.elementCount() / std::max<std::int64_t>(features, 1));
        const TensorRef inverse = e.splat(vector, count > 0 ? 1.0 / count : 0.0, "inverse_count");
        mean = e.binary(OpKind::Multiply, e.featureSum(xf, feature, "sum"), inverse, "mean");
        const TensorRef squares = e.binary(OpKind::Multiply, xf, xf, "square");
        const TensorRef meanOfSquares = e.binary(
            OpKind::Multiply, e.featureSum(squares, feature, "sum_of_squares"), inverse, "mean_square");
        variance = e.binary(OpKind::Subtract, meanOfSquares, e.binary(OpKind::Multiply, mean, mean, "mean_2"),
                            "variance");
    } else {
        mean = e.convert(in[3], ElementType::F32, "mean_f32");
        variance = e.convert(in[4], ElementType::F32, "variance_f32");
    }
    const TensorRef lifted =
        e.binary(OpKind::Add, variance, e.splat(vector, epsilon(op), "epsilon"), "var_eps");
    const TensorRef factor = e.binary(OpKind::Multiply, e.unary(OpKind::Rsqrt, lifted, "rsqrt"),
                                      e.convert(in[1], ElementType::F32, "scale_f32"), "factor");
    const TensorRef centered =
        e.binary(OpKind::Subtract, xf, e.alongFeature(mean, x.type, feature, "mean_b"), "centered");
    const TensorRef scaled =
        e.binary(OpKind::Multiply, centered, e.alongFeature(factor, x.type, feature, "factor_b"), "scaled");
    const TensorRef shifted = e.binary(
        OpKind::Add, scaled,
        e.alongFeature(e.convert(in[2], ElementType::F32, "offset_f32"), x.type, feature, "offset_b"),
        "output");
    std::vector<TensorRef> out{
        e.convert(shifted, element, "output_" + std::string(elementTypeName(element)))};
    if (training) {
        out.push_back(e.convert(mean, element, "batch_mean"));
        out.push_back(e.convert(variance, element, "batch_var"));
    }
    return out;
}

} // namespace xps::shlo::lower

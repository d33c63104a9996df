// batch_norm_training and batch_norm_inference of the reference interpreter (see eval_ops.h): mean and
// variance over every dimension but feature_index, in double, each result rounded once.

#include <cmath>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

struct FeatureLayout
{
    std::int64_t feature = 0, features = 0, inner = 1, outer = 1; // x viewed as [outer, features, inner]
};

FeatureLayout featureLayout(const Operation& op, const TensorType& x)
{
    FeatureLayout f;
    f.feature = intAttr(op, "feature_index", -1, true);
    if (f.feature < 0 || f.feature >= x.rank())
        evalFail("feature_index " + std::to_string(f.feature) + " is not a dimension of " + x.toString());
    f.features = x.shape[static_cast<std::size_t>(f.feature)];
    for (std::int64_t d = 0; d < f.feature; ++d)
        f.outer *= x.shape[static_cast<std::size_t>(d)];
    for (std::int64_t d = f.feature + 1; d < x.rank(); ++d)
        f.inner *= x.shape[static_cast<std::size_t>(d)];
    if (!isFloat(x.element))
        evalFail("the operand must be a float tensor, not " + x.toString());
    return f;
}

void checkFeatureVector(const TensorValue& t, const TensorType& x, const FeatureLayout& f, const char* what)
{
    if (t.type.shape != std::vector<std::int64_t>{f.features} || t.type.element != x.element)
        evalFail(std::string(what) + " must be " + TensorType{{f.features}, x.element}.toString() + ", not " +
                 t.type.toString());
}

double epsilonOf(const Operation& op)
{
    const auto* e = op.attributes.find("epsilon");
    if (!e || (e->kind != Attribute::Kind::Float && e->kind != Attribute::Kind::Integer))
        evalFail("expected an epsilon attribute");
    return e->kind == Attribute::Kind::Float ? e->real : static_cast<double>(e->integer);
}

// scale * (x - mean) / sqrt(variance + epsilon) + offset, feature by feature, each element rounded once.
TensorValue normalize(const TensorValue& x, const FeatureLayout& f, const std::vector<double>& mean,
                      const std::vector<double>& variance, const TensorValue& scale,
                      const TensorValue& offset, double epsilon)
{
    TensorValue out{x.type, std::vector<double>(x.data.size())};
    const auto epsilonAsType = roundTo(x.type.element, epsilon);
    std::size_t i = 0;
    for (std::int64_t o = 0; o < f.outer; ++o)
        for (std::int64_t c = 0; c < f.features; ++c) {
            const auto k = static_cast<std::size_t>(c);
            const double factor = scale.data[k] / std::sqrt(variance[k] + epsilonAsType);
            for (std::int64_t n = 0; n < f.inner; ++n, ++i)
                out.data[i] = roundTo(x.type.element, (x.data[i] - mean[k]) * factor + offset.data[k]);
        }
    return out;
}

} // namespace

std::vector<TensorValue> evalBatchNormTraining(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    if (in.size() != 3 || op.resultTypes.size() != 3)
        evalFail("expected 3 operands (operand, scale, offset) and 3 results");
    const TensorValue& x = *in[0];
    const FeatureLayout f = featureLayout(op, x.type);
    checkFeatureVector(*in[1], x.type, f, "scale");
    checkFeatureVector(*in[2], x.type, f, "offset");
    const TensorType vector{{f.features}, x.type.element};
    if (op.resultTypes[0] != x.type || op.resultTypes[1] != vector || op.resultTypes[2] != vector)
        evalFail("the results must be " + x.type.toString() + ", " + vector.toString() + " and " +
                 vector.toString());
    meter.charge(static_cast<std::uint64_t>(x.data.size()) * 3);
    const auto k = static_cast<std::size_t>(f.features);
    std::vector<double> mean(k, 0.0), variance(k, 0.0);
    const double count = static_cast<double>(f.outer * f.inner);
    std::size_t i = 0;
    for (std::int64_t o = 0; o < f.outer; ++o)
        for (std::size_t c = 0; c < k; ++c)
            for (std::int64_t n = 0; n < f.inner; ++n)
                mean[c] += x.data[i++];
    for (auto& m : mean)
        m = count > 0 ? m / count : 0;
    i = 0;
    for (std::int64_t o = 0; o < f.outer; ++o)
        for (std::size_t c = 0; c < k; ++c)
            for (std::int64_t n = 0; n < f.inner; ++n, ++i)
                variance[c] += (x.data[i] - mean[c]) * (x.data[i] - mean[c]);
    for (auto& s : variance)
        s = count > 0 ? s / count : 0;
    std::vector<TensorValue> out;
    out.push_back(normalize(x, f, mean, variance, *in[1], *in[2], epsilonOf(op)));
    out.push_back(TensorValue{vector, {}});
    out.push_back(TensorValue{vector, {}});
    for (std::size_t c = 0; c < k; ++c) {
        out[1].data.push_back(roundTo(x.type.element, mean[c]));
        out[2].data.push_back(roundTo(x.type.element, variance[c]));
    }
    return out;
}

TensorValue evalBatchNormInference(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    if (in.size() != 5 || op.resultTypes.size() != 1)
        evalFail("expected 5 operands (operand, scale, offset, mean, variance) and one result");
    const TensorValue& x = *in[0];
    const FeatureLayout f = featureLayout(op, x.type);
    const char* names[] = {"scale", "offset", "mean", "variance"};
    for (std::size_t j = 1; j < 5; ++j)
        checkFeatureVector(*in[j], x.type, f, names[j - 1]);
    if (op.resultTypes[0] != x.type)
        evalFail("the result must be " + x.type.toString());
    meter.charge(static_cast<std::uint64_t>(x.data.size()));
    return normalize(x, f, in[3]->data, in[4]->data, *in[1], *in[2], epsilonOf(op));
}

} // namespace xps::shlo::detail

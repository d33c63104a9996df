// Contractions of the reference interpreter (see eval_ops.h): dot_general, dot and convolution. Every
// product and every partial sum is rounded to the accumulation type (f32 for f32, f16 and bf16: unlike
// StableHLO's own interpreter, which rounds f16/bf16 partial sums to f16/bf16, and as XLA computes them),
// summing in row-major order of the contracting dimensions; integers wrap.

#include <algorithm>
#include <cstdlib>

#include "stablehlo/eval_ops.h"

namespace xps::shlo::detail {

namespace {

// Integers of an attribute with nested lists flattened: pretty convolution padding is [[1, 1], [2, 2]].
void flattenInts(const Attribute& a, std::vector<std::int64_t>& out)
{
    if (a.kind == Attribute::Kind::List) {
        for (const auto& item : a.items)
            flattenInts(item, out);
    } else if (a.kind == Attribute::Kind::Integer || a.kind == Attribute::Kind::Bool) {
        out.push_back(a.integer);
    } else if (auto values = a.integers()) {
        out.insert(out.end(), values->begin(), values->end());
    } else {
        evalFail("expected integers in a window attribute");
    }
}

} // namespace

std::vector<std::int64_t> flatIntsAttr(const Operation& op, std::string_view name, std::size_t count,
                                       std::int64_t fallback)
{
    std::vector<std::int64_t> v;
    if (const auto* a = op.attributes.find(name))
        flattenInts(*a, v);
    else
        v.assign(count, fallback);
    if (v.size() != count)
        evalFail("attribute '" + std::string(name) + "' needs " + std::to_string(count) + " values");
    return v;
}

namespace {

void checkDims(const std::vector<std::int64_t>& dims, int rank, const char* what)
{
    std::vector<bool> seen(static_cast<std::size_t>(rank));
    for (const auto d : dims) {
        if (d < 0 || d >= rank || seen[static_cast<std::size_t>(d)])
            evalFail(std::string(what) + " must be distinct dimensions of the operand");
        seen[static_cast<std::size_t>(d)] = true;
    }
}

// The type products and partial sums are rounded to: the result's, except f16 and bf16, which accumulate
// in f32 as XLA does on TPUs and GPUs (the MXU sums in f32) and as the StableHLO test suite's expected values
// were computed; the sum is rounded to the result's type once, at the end. StableHLO leaves the
// accumulation type to the implementation when no `algorithm` is given.
ElementType accumulationType(ElementType type)
{
    return type == ElementType::F16 || type == ElementType::BF16 ? ElementType::F32 : type;
}

double finish(ElementType type, double sum, std::uint64_t isum)
{
    return isFloat(type) ? roundTo(type, sum) : integerValue(type, isum); // isum wrapped at 64 bits
}

TensorValue dotGeneral(const Operation& op, const TensorValue& lhs, const TensorValue& rhs,
                       const std::vector<std::int64_t>& lb, const std::vector<std::int64_t>& rb,
                       const std::vector<std::int64_t>& lc, const std::vector<std::int64_t>& rc,
                       WorkMeter& meter)
{
    const auto& out = op.resultTypes.at(0);
    checkDims(lb, lhs.type.rank(), "lhs batching and contracting dimensions");
    checkDims(rb, rhs.type.rank(), "rhs batching and contracting dimensions");
    std::vector<std::int64_t> lAll = lb, rAll = rb;
    lAll.insert(lAll.end(), lc.begin(), lc.end());
    rAll.insert(rAll.end(), rc.begin(), rc.end());
    checkDims(lAll, lhs.type.rank(), "lhs batching and contracting dimensions");
    checkDims(rAll, rhs.type.rank(), "rhs batching and contracting dimensions");
    if (lb.size() != rb.size() || lc.size() != rc.size())
        evalFail("lhs and rhs need as many batching and as many contracting dimensions");
    const auto size = [](const TensorValue& t, std::int64_t d) {
        return t.type.shape[static_cast<std::size_t>(d)];
    };
    for (std::size_t i = 0; i < lb.size(); ++i)
        if (size(lhs, lb[i]) != size(rhs, rb[i]))
            evalFail("batching dimensions " + std::to_string(lb[i]) + " and " + std::to_string(rb[i]) +
                     " differ in size");
    for (std::size_t i = 0; i < lc.size(); ++i)
        if (size(lhs, lc[i]) != size(rhs, rc[i]))
            evalFail("contracting dimensions " + std::to_string(lc[i]) + " and " + std::to_string(rc[i]) +
                     " differ in size");
    const auto freeDims = [](const TensorValue& t, const std::vector<std::int64_t>& used) {
        std::vector<std::int64_t> f;
        for (std::int64_t d = 0; d < t.type.rank(); ++d)
            if (std::find(used.begin(), used.end(), d) == used.end())
                f.push_back(d);
        return f;
    };
    const auto lf = freeDims(lhs, lAll);
    const auto rf = freeDims(rhs, rAll);
    std::vector<std::int64_t> shape;
    for (const auto d : lb)
        shape.push_back(size(lhs, d));
    for (const auto d : lf)
        shape.push_back(size(lhs, d));
    for (const auto d : rf)
        shape.push_back(size(rhs, d));
    if (shape != out.shape)
        evalFail("the result " + out.toString() + " does not have the shape the dimension numbers give");
    std::vector<std::int64_t> contractShape;
    for (const auto d : lc)
        contractShape.push_back(size(lhs, d));
    std::int64_t contractCount = 1;
    for (const auto s : contractShape)
        contractCount *= s;
    const auto outCount = out.elementCount();
    if (outCount > 0 && contractCount > (std::int64_t{1} << 40) / outCount)
        evalFail("the contraction is too large to evaluate");
    meter.charge(static_cast<std::uint64_t>(outCount * contractCount));
    const auto ls = stridesOf(lhs.type.shape);
    const auto rs = stridesOf(rhs.type.shape);
    TensorValue r{out, {}};
    r.data.reserve(static_cast<std::size_t>(outCount));
    const bool flt = isFloat(out.element);
    const ElementType accumulation = accumulationType(out.element);
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& o, std::int64_t linear) {
        std::int64_t lBase = 0, rBase = 0;
        std::size_t k = 0;
        for (std::size_t i = 0; i < lb.size(); ++i, ++k) {
            lBase += o[k] * ls[static_cast<std::size_t>(lb[i])];
            rBase += o[k] * rs[static_cast<std::size_t>(rb[i])];
        }
        for (const auto d : lf)
            lBase += o[k++] * ls[static_cast<std::size_t>(d)];
        for (const auto d : rf)
            rBase += o[k++] * rs[static_cast<std::size_t>(d)];
        double sum = 0;
        std::uint64_t isum = 0;
        forEachIndex(contractShape, [&](const std::vector<std::int64_t>& c, std::int64_t) {
            std::int64_t li = lBase, ri = rBase;
            for (std::size_t i = 0; i < c.size(); ++i) {
                li += c[i] * ls[static_cast<std::size_t>(lc[i])];
                ri += c[i] * rs[static_cast<std::size_t>(rc[i])];
            }
            const double a = lhs.data[static_cast<std::size_t>(li)];
            const double b = rhs.data[static_cast<std::size_t>(ri)];
            if (flt) // every product and partial sum rounded to the accumulation type
                sum = roundTo(accumulation, sum + roundTo(accumulation, a * b));
            else
                isum += integerEncoding(ElementType::I64, a) *
                        integerEncoding(ElementType::I64, b); // wraps, defined
        });
        r.data.push_back(finish(out.element, sum, isum));
        if ((linear & 0xFFF) == 0)
            meter.charge(0);
    });
    return r;
}

} // namespace

TensorValue evalDotGeneral(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    if (op.kind == OpKind::Dot) {
        const auto lr = in[0]->type.rank();
        const auto rr = in[1]->type.rank();
        if (lr < 1 || lr > 2 || rr < 1 || rr > 2)
            evalFail("stablehlo.dot takes vectors and matrices");
        return dotGeneral(op, *in[0], *in[1], {}, {}, {lr - 1}, {0}, meter);
    }
    return dotGeneral(op, *in[0], *in[1], intsAttr(op, "lhs_batching_dimensions", false),
                      intsAttr(op, "rhs_batching_dimensions", false),
                      intsAttr(op, "lhs_contracting_dimensions", false),
                      intsAttr(op, "rhs_contracting_dimensions", false), meter);
}

ConvLayout convLayout(const Attribute& spec, char first, char second, int rank)
{
    ConvLayout l;
    if (spec.kind != Attribute::Kind::List || static_cast<int>(spec.items.size()) != rank)
        evalFail("the convolution's dimension numbers must name every dimension of each operand");
    std::vector<std::int64_t> spatialAt(static_cast<std::size_t>(rank), -1);
    int spatialCount = 0;
    for (int pos = 0; pos < rank; ++pos) {
        const auto& item = spec.items[static_cast<std::size_t>(pos)];
        if (item.kind == Attribute::Kind::Word && item.text.size() == 1 && item.text[0] == first)
            l.batch = pos;
        else if (item.kind == Attribute::Kind::Word && item.text.size() == 1 && item.text[0] == second)
            l.feature = pos;
        else if (item.kind == Attribute::Kind::Integer && item.integer >= 0 && item.integer < rank - 2 &&
                 spatialAt[static_cast<std::size_t>(item.integer)] < 0) {
            spatialAt[static_cast<std::size_t>(item.integer)] = pos;
            ++spatialCount;
        } else
            evalFail("unexpected entry in the convolution's dimension numbers");
    }
    if (l.batch < 0 || l.feature < 0 || spatialCount != rank - 2)
        evalFail(std::string("the convolution's dimension numbers need '") + first + "', '" + second +
                 "' and every spatial dimension");
    l.spatial.assign(spatialAt.begin(), spatialAt.begin() + (rank - 2));
    return l;
}

TensorValue evalConvolution(const Operation& op, const Inputs& in, WorkMeter& meter)
{
    const auto& lhs = *in[0];
    const auto& rhs = *in[1];
    const auto& out = op.resultTypes.at(0);
    const int rank = lhs.type.rank();
    if (rank < 2 || rhs.type.rank() != rank || out.rank() != rank)
        evalFail("convolution operands and result must have one rank, at least 2");
    const auto* numbers = op.attributes.find("dimension_numbers");
    if (!numbers || numbers->kind != Attribute::Kind::List || numbers->items.size() != 3)
        evalFail("missing dimension_numbers ([b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f])");
    const auto L = convLayout(numbers->items[0], 'b', 'f', rank);
    const auto K = convLayout(numbers->items[1], 'i', 'o', rank);
    const auto O = convLayout(numbers->items[2], 'b', 'f', rank);
    const auto S = static_cast<std::size_t>(rank - 2);
    const auto strides = flatIntsAttr(op, "window_strides", S, 1);
    const auto padding = flatIntsAttr(op, "padding", 2 * S, 0);
    const auto lhsDilation = flatIntsAttr(op, "lhs_dilation", S, 1);
    const auto rhsDilation = flatIntsAttr(op, "rhs_dilation", S, 1);
    const auto reversal = flatIntsAttr(op, "window_reversal", S, 0);
    const auto groups = intAttr(op, "feature_group_count", 1);
    const auto batchGroups = intAttr(op, "batch_group_count", 1);
    const auto dim = [](const TensorType& t, std::int64_t d) { return t.shape[static_cast<std::size_t>(d)]; };
    const auto N = dim(lhs.type, L.batch), C = dim(lhs.type, L.feature);
    const auto Cg = dim(rhs.type, K.batch), OF = dim(rhs.type, K.feature);
    if (groups < 1 || batchGroups < 1 || C != Cg * groups || OF % groups != 0 || OF % batchGroups != 0 ||
        N % batchGroups != 0)
        evalFail("feature_group_count / batch_group_count do not divide the operands' features and batch");
    if (dim(out, O.batch) != N / batchGroups || dim(out, O.feature) != OF)
        evalFail("the result's batch or feature size does not match the operands");
    std::vector<std::int64_t> dilated(S), kernel(S);
    for (std::size_t s = 0; s < S; ++s) {
        if (strides[s] < 1 || lhsDilation[s] < 1 || rhsDilation[s] < 1 || strides[s] > kMaxTensorElements ||
            lhsDilation[s] > kMaxTensorElements || rhsDilation[s] > kMaxTensorElements ||
            std::abs(padding[2 * s]) > kMaxTensorElements ||
            std::abs(padding[2 * s + 1]) > kMaxTensorElements)
            evalFail("convolution strides and dilations must be positive and in range");
        const auto n = dim(lhs.type, L.spatial[s]);
        kernel[s] = dim(rhs.type, K.spatial[s]);
        dilated[s] = n == 0 ? 0 : (n - 1) * lhsDilation[s] + 1;
        const auto padded = dilated[s] + padding[2 * s] + padding[2 * s + 1];
        const auto extent = kernel[s] == 0 ? 0 : (kernel[s] - 1) * rhsDilation[s] + 1;
        const auto expected = padded < extent ? 0 : (padded - extent) / strides[s] + 1;
        if (dim(out, O.spatial[s]) != expected)
            evalFail("result spatial dimension " + std::to_string(s) + " should be " +
                     std::to_string(expected));
    }
    std::int64_t kernelCount = Cg;
    for (const auto k : kernel)
        kernelCount *= k;
    const auto outCount = out.elementCount();
    if (outCount > 0 && kernelCount > (std::int64_t{1} << 40) / outCount)
        evalFail("the convolution is too large to evaluate");
    meter.charge(static_cast<std::uint64_t>(outCount * kernelCount));
    const auto ls = stridesOf(lhs.type.shape), ks = stridesOf(rhs.type.shape);
    const auto outPerGroup = OF / groups, outPerBatchGroup = OF / batchGroups;
    const bool flt = isFloat(out.element);
    const ElementType accumulation = accumulationType(out.element);
    TensorValue r{out, std::vector<double>(static_cast<std::size_t>(outCount))};
    std::vector<std::int64_t> windowShape = kernel;
    forEachIndex(out.shape, [&](const std::vector<std::int64_t>& o, std::int64_t linear) {
        const auto f = o[static_cast<std::size_t>(O.feature)];
        const auto n = (f / outPerBatchGroup) * (N / batchGroups) + o[static_cast<std::size_t>(O.batch)];
        const auto group = f / outPerGroup;
        double sum = 0;
        std::uint64_t isum = 0;
        forEachIndex(windowShape, [&](const std::vector<std::int64_t>& k, std::int64_t) {
            std::int64_t lBase = n * ls[static_cast<std::size_t>(L.batch)];
            std::int64_t kBase = f * ks[static_cast<std::size_t>(K.feature)];
            for (std::size_t s = 0; s < S; ++s) {
                const auto p = o[static_cast<std::size_t>(O.spatial[s])] * strides[s] +
                               k[s] * rhsDilation[s] - padding[2 * s];
                if (p < 0 || p >= dilated[s] || p % lhsDilation[s] != 0)
                    return; // padding or a hole of the dilated input: zero
                lBase += p / lhsDilation[s] * ls[static_cast<std::size_t>(L.spatial[s])];
                const auto kk = reversal[s] ? kernel[s] - 1 - k[s] : k[s];
                kBase += kk * ks[static_cast<std::size_t>(K.spatial[s])];
            }
            for (std::int64_t c = 0; c < Cg; ++c) {
                const double a = lhs.data[static_cast<std::size_t>(
                    lBase + (group * Cg + c) * ls[static_cast<std::size_t>(L.feature)])];
                const double b =
                    rhs.data[static_cast<std::size_t>(kBase + c * ks[static_cast<std::size_t>(K.batch)])];
                if (flt)
                    sum = roundTo(accumulation, sum + roundTo(accumulation, a * b));
                else
                    isum += integerEncoding(ElementType::I64, a) *
                            integerEncoding(ElementType::I64, b); // wraps, defined
            }
        });
        r.data[static_cast<std::size_t>(linear)] = finish(out.element, sum, isum);
        if ((linear & 0xFFF) == 0)
            meter.charge(0);
    });
    return r;
}

} // namespace xps::shlo::detail

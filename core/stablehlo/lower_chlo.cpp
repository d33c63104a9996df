// chlo's inverse trigonometric and hyperbolic functions on real operands, written as StableHLO's chlo
// legalization writes them (stablehlo/transforms/ChloDecompositionPatterns*.td and
// ChloLegalizeToStablehlo.cpp at 3c9301c11), so the replay computes what XLA computes after JAX legalizes
// chlo: the same formulas, each guarding the cancellation or overflow the naive one has. The pieces become
// ops of the module before it compiles (lower_expand.h) and fuse into one element-wise kernel. f16 and bf16
// operands are computed in f32 and rounded once at the end. The logarithms of constants are constants (XLA
// folds them), rounded to f32.

#include <cmath>
#include <limits>

#include "stablehlo/lower_expansion.h"
#include "stablehlo/lower_kernels.h"

namespace xps::shlo::lower {

namespace {

class Chlo
{
public:
    Chlo(const Operation& op, const OpEmitter& emit, const TensorRef& x) : e(op, emit), shape(x.type.shape) {}

    TensorRef c(double value, const std::string& what) const { return e.filled(shape, value, what); }
    TensorRef un(OpKind kind, const TensorRef& a, const std::string& what) const
    {
        return e.unary(kind, a, what);
    }
    TensorRef bin(OpKind kind, const TensorRef& a, const TensorRef& b, const std::string& what) const
    {
        return e.binary(kind, a, b, what);
    }

    // (1 - x)(1 + x): 1 - x^2 without the cancellation near |x| = 1.
    TensorRef oneMinusSquare(const TensorRef& x) const
    {
        const TensorRef one = c(1.0, "one");
        return bin(OpKind::Multiply, bin(OpKind::Subtract, one, x, "one_minus_x"),
                   bin(OpKind::Add, one, x, "one_plus_x"), "one_minus_x2");
    }
    // e^(x + log(1/2)) and e^(log(1/2) - x): e^x / 2 and e^-x / 2 without overflowing where e^x does.
    std::pair<TensorRef, TensorRef> halfExponentials(const TensorRef& x) const
    {
        const TensorRef logHalf = c(std::log(0.5), "log_half");
        return {un(OpKind::Exponential, bin(OpKind::Add, x, logHalf, "x_log_half"), "exp_plus"),
                un(OpKind::Exponential, bin(OpKind::Subtract, logHalf, x, "log_half_x"), "exp_minus")};
    }

    // `small` where a < limit, else log 2 + log a: log(2a), where the formula for `small` would overflow.
    TensorRef orLogTwice(const TensorRef& a, double limit, const TensorRef& small) const
    {
        const TensorRef large =
            bin(OpKind::Add, c(std::log(2.0), "log2"), un(OpKind::Log, a, "log_x"), "large");
        return e.select(e.compare(a, c(limit, "limit"), "GE", "big"), large, small, "magnitude");
    }

    TensorRef expand(OpKind kind, const TensorRef& x) const
    {
        const float maxFinite = std::numeric_limits<float>::max();
        switch (kind) {
        case OpKind::Atan: return bin(OpKind::Atan2, x, c(1.0, "one"), "atan2");
        case OpKind::Asin: { // 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))
            const TensorRef t = bin(
                OpKind::Atan2, x,
                bin(OpKind::Add, c(1.0, "one"), un(OpKind::Sqrt, oneMinusSquare(x), "sqrt"), "den"), "atan2");
            return bin(OpKind::Add, t, t, "twice");
        }
        case OpKind::Acos: // atan2(sqrt((1 - x)(1 + x)), x)
            return bin(OpKind::Atan2, un(OpKind::Sqrt, oneMinusSquare(x), "sqrt"), x, "atan2");
        case OpKind::Atanh: { // (log1p(x) - log1p(-x)) / 2, NaN past |x| = 1
            const TensorRef half =
                bin(OpKind::Multiply,
                    bin(OpKind::Subtract, un(OpKind::LogPlusOne, x, "log1p"),
                        un(OpKind::LogPlusOne, un(OpKind::Negate, x, "neg"), "log1p_neg"), "diff"),
                    c(0.5, "half"), "half_diff");
            const TensorRef outside = e.compare(un(OpKind::Abs, x, "abs"), c(1.0, "one"), "GT", "outside");
            return e.select(outside, c(std::numeric_limits<double>::quiet_NaN(), "nan"), half, "atanh");
        }
        case OpKind::Asinh: { // sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); log 2 + log |x| past
                              // sqrt(max)
            const TensorRef ax = un(OpKind::Abs, x, "abs");
            const TensorRef ax2 = bin(OpKind::Multiply, ax, ax, "x2");
            const TensorRef one = c(1.0, "one");
            const TensorRef small =
                un(OpKind::LogPlusOne,
                   bin(OpKind::Add, ax,
                       bin(OpKind::Divide, ax2,
                           bin(OpKind::Add, one,
                               un(OpKind::Sqrt, bin(OpKind::Add, one, ax2, "1_x2"), "hypot"), "den"),
                           "ratio"),
                       "sum"),
                   "log1p");
            return bin(OpKind::Multiply, un(OpKind::Sign, x, "sign"),
                       orLogTwice(ax, std::sqrt(static_cast<double>(maxFinite)), small), "asinh");
        }
        case OpKind::Acosh: { // log1p(sqrt(x - 1)(sqrt(x + 1) + sqrt(x - 1))); log 2 + log x past max / 2
            const TensorRef one = c(1.0, "one");
            const TensorRef below = un(OpKind::Sqrt, bin(OpKind::Subtract, x, one, "x_1"), "sqrt_below");
            const TensorRef small =
                un(OpKind::LogPlusOne,
                   bin(OpKind::Multiply, below,
                       bin(OpKind::Add, un(OpKind::Sqrt, bin(OpKind::Add, x, one, "x1"), "sqrt_above"), below,
                           "sum"),
                       "product"),
                   "log1p");
            return orLogTwice(x, static_cast<double>(maxFinite) / 2, small);
        }
        case OpKind::Sinh: { // (expm1 + expm1 / (expm1 + 1)) / 2 below |x| = 1, the half exponentials above
            const auto [plus, minus] = halfExponentials(x);
            const TensorRef large = bin(OpKind::Subtract, plus, minus, "large");
            const TensorRef em1 = un(OpKind::ExponentialMinusOne, x, "expm1");
            const TensorRef small =
                bin(OpKind::Multiply, c(0.5, "half"),
                    bin(OpKind::Add, em1,
                        bin(OpKind::Divide, em1, bin(OpKind::Add, em1, c(1.0, "one"), "u"), "ratio"), "sum"),
                    "small");
            const TensorRef near = e.compare(un(OpKind::Abs, x, "abs"), c(1.0, "one"), "LT", "near");
            return e.select(near, small, large, "sinh");
        }
        case OpKind::Cosh: {
            const auto [plus, minus] = halfExponentials(x);
            return bin(OpKind::Add, plus, minus, "cosh");
        }
        default: lowerFail("not a chlo function the lowering expands (a lowering bug)");
        }
    }

    Expansion e;
    std::vector<std::int64_t> shape;
};

} // namespace

bool isExpandedChlo(OpKind kind)
{
    switch (kind) {
    case OpKind::Atan:
    case OpKind::Asin:
    case OpKind::Acos:
    case OpKind::Atanh:
    case OpKind::Asinh:
    case OpKind::Acosh:
    case OpKind::Sinh:
    case OpKind::Cosh: return true;
    default: return false;
    }
}

std::vector<TensorRef> lowerChlo(const Operation& op, const std::vector<TensorRef>& in, const OpEmitter& emit)
{
    if (in.size() != 1 || op.resultTypes.size() != 1 || !isFloat(in[0].type.element) ||
        op.resultTypes[0] != in[0].type)
        lowerFail("expected one float operand and a result of its type");
    const Chlo chlo(op, emit, in[0]);
    const TensorRef x = chlo.e.convert(in[0], ElementType::F32, "f32");
    return {chlo.e.convert(chlo.expand(op.kind, x), in[0].type.element, "rounded")};
}

} // namespace xps::shlo::lower

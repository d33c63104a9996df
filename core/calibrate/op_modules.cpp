// Each measured op as the StableHLO JAX exports for it (jax.jit(f).lower(...).as_text()), so the GRM's
// prediction comes from the lowering a user's model gets: the functions are SCALE-Sim-validation's
// kernel_functions.py (jnp.maximum(x, 0), 1 / (1 + exp(-x)), where(x > 0, x, alpha * (exp(x) - 1)), ...),
// Python scalars taking the input's type as JAX's weak types do.

#include "calibrate/measurements.h"

namespace xps::calibrate {

namespace {

std::string tensorType(const std::vector<std::int64_t>& dims, const std::string& element)
{
    std::string t = "tensor<";
    for (const auto d : dims)
        t += std::to_string(d) + "x";
    return t + element + ">";
}

// The body of @main, one value after another.
class Body
{
public:
    Body(std::string type, std::string element) : type_(std::move(type)), element_(std::move(element)) {}

    // An op on values of the full type (`operands` as written after the op's name).
    std::string op(const std::string& name, const std::string& operands)
    {
        return add("stablehlo." + name + " " + operands + " : " + type_);
    }
    // A Python scalar as JAX writes it: a constant of the element type broadcast to the full shape.
    std::string scalar(const std::string& literal, const std::string& element = {})
    {
        const std::string e = element.empty() ? element_ : element;
        const std::string c = add("stablehlo.constant dense<" + literal + "> : tensor<" + e + ">");
        return add("stablehlo.broadcast_in_dim " + c + ", dims = [] : (tensor<" + e + ">) -> " + retyped(e));
    }
    std::string greaterThanZero(const std::string& x)
    {
        const std::string zero = scalar("0.000000e+00");
        return add("stablehlo.compare  GT, " + x + ", " + zero + ",  FLOAT : (" + type_ + ", " + type_ +
                   ") -> " + retyped("i1"));
    }
    std::string select(const std::string& p, const std::string& a, const std::string& b,
                       const std::string& element = {})
    {
        return add("stablehlo.select " + p + ", " + a + ", " + b + " : " + retyped("i1") + ", " +
                   (element.empty() ? type_ : retyped(element)));
    }
    std::string add(const std::string& line)
    {
        const std::string v = "%" + std::to_string(next_++);
        text_ += "    " + v + " = " + line + "\n";
        return v;
    }
    // The full shape with another element type.
    std::string retyped(const std::string& element) const
    {
        return type_.substr(0, type_.rfind('x') + 1) + element + ">";
    }
    const std::string& text() const { return text_; }

private:
    std::string type_, element_, text_;
    int next_ = 0;
};

std::string module(const std::string& name, const std::string& arguments, const std::string& resultType,
                   const Body& body, const std::string& result)
{
    return "module @" + name + " {\n  func.func public @main(" + arguments + ") -> " + resultType + " {\n" +
           body.text() + "    return " + result + " : " + resultType + "\n  }\n}\n";
}

// where(x > 0, x, alpha * (exp(x) - 1)), times `scale` (selu) when given.
std::string exponentialLinear(Body& b, const char* alpha, const char* scale)
{
    const std::string gt = b.greaterThanZero("%x");
    const std::string e = b.op("exponential", "%x");
    const std::string em1 = b.op("subtract", e + ", " + b.scalar("1.000000e+00"));
    const std::string negative = b.op("multiply", b.scalar(alpha) + ", " + em1);
    const std::string r = b.select(gt, "%x", negative);
    return scale ? b.op("multiply", b.scalar(scale) + ", " + r) : r;
}

// SCALE-Sim-validation's batch_norm_simple_inference over NCHW's C: mean 0, variance 1, scale 1, shift 0 as
// jnp.zeros / jnp.ones (float32: the f16 input is promoted), (x - mean) / sqrt(var + 1e-5) * gamma + beta.
std::string batchNormInference(const Measurement& m)
{
    const std::int64_t c = m.shape[1];
    const std::string in = tensorType(m.shape, m.dtype), out = tensorType(m.shape, "f32");
    const std::string channel = tensorType({1, c, 1, 1}, "f32"), vector = tensorType({c}, "f32");
    Body b(out, "f32");
    const auto perChannel = [&](const char* literal) {
        const std::string k = b.add(std::string("stablehlo.constant dense<") + literal + "> : tensor<f32>");
        const std::string v =
            b.add("stablehlo.broadcast_in_dim " + k + ", dims = [] : (tensor<f32>) -> " + vector);
        return b.add("stablehlo.reshape " + v + " : (" + vector + ") -> " + channel);
    };
    const auto spread = [&](const std::string& v) {
        return b.add("stablehlo.broadcast_in_dim " + v + ", dims = [0, 1, 2, 3] : (" + channel + ") -> " +
                     out);
    };
    const std::string mean = perChannel("0.000000e+00"), var = perChannel("1.000000e+00");
    const std::string gamma = perChannel("1.000000e+00"), beta = perChannel("0.000000e+00");
    const std::string x = b.add("stablehlo.convert %x : (" + in + ") -> " + out);
    const std::string centred = b.op("subtract", x + ", " + spread(mean));
    const std::string eps = b.add("stablehlo.constant dense<9.99999974E-6> : tensor<f32>");
    const std::string epsChannel =
        b.add("stablehlo.broadcast_in_dim " + eps + ", dims = [] : (tensor<f32>) -> " + channel);
    const std::string varEps = b.add("stablehlo.add " + var + ", " + epsChannel + " : " + channel);
    const std::string root = b.add("stablehlo.sqrt " + varEps + " : " + channel);
    const std::string normalized = b.op("divide", centred + ", " + spread(root));
    const std::string scaled = b.op("multiply", spread(gamma) + ", " + normalized);
    const std::string r = b.op("add", scaled + ", " + spread(beta));
    return module("batch_norm_inference", "%x: " + in, out, b, r);
}

} // namespace

std::string moduleText(const Measurement& m)
{
    if (m.op == OpClass::Matmul) {
        const auto M = m.shape[0], N = m.shape[1], K = m.shape[2];
        const std::string a = tensorType({M, K}, m.dtype), bt = tensorType({K, N}, m.dtype),
                          c = tensorType({M, N}, m.dtype);
        Body b(c, m.dtype);
        const std::string r = b.add("stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + a +
                                    ", " + bt + ") -> " + c);
        return module("matmul", "%a: " + a + ", %b: " + bt, c, b, r);
    }
    if (m.op == OpClass::BatchNormInference)
        return batchNormInference(m);
    const std::string t = tensorType(m.shape, m.dtype);
    Body b(t, m.dtype);
    const std::string name(opClassName(m.op));
    switch (opFamily(m.op)) {
    case OpFamily::Elementwise: {
        const char* op = m.op == OpClass::Add        ? "add"
                         : m.op == OpClass::Subtract ? "subtract"
                         : m.op == OpClass::Multiply ? "multiply"
                                                     : "divide";
        return module(name, "%x: " + t + ", %y: " + t, t, b, b.op(op, "%x, %y"));
    }
    default: break;
    }
    std::string r;
    std::string resultType = t;
    switch (m.op) {
    case OpClass::Relu: r = b.op("maximum", "%x, " + b.scalar("0.000000e+00")); break;
    case OpClass::LeakyRelu:
        r = b.op("maximum", b.op("multiply", b.scalar("1.000000e-01") + ", %x") + ", %x");
        break;
    case OpClass::ParametricRelu:
        r = b.select(b.greaterThanZero("%x"), "%x", b.op("multiply", b.scalar("2.500000e-01") + ", %x"));
        break;
    case OpClass::Elu: r = exponentialLinear(b, "1.000000e+00", nullptr); break;
    case OpClass::Selu: r = exponentialLinear(b, "1.673830e+00", "1.050780e+00"); break;
    case OpClass::Sigmoid: {
        const std::string one = b.scalar("1.000000e+00");
        const std::string e = b.op("exponential", b.op("negate", "%x"));
        r = b.op("divide", one + ", " + b.op("add", one + ", " + e));
        break;
    }
    case OpClass::Tanh: r = b.op("tanh", "%x"); break;
    case OpClass::BinaryStep: {
        // jnp.where(x > 0, 1.0, 0.0): two Python floats, so the result is float32.
        const std::string gt = b.greaterThanZero("%x");
        r = b.select(gt, b.scalar("1.000000e+00", "f32"), b.scalar("0.000000e+00", "f32"), "f32");
        resultType = b.retyped("f32");
        break;
    }
    case OpClass::Linear:
        r = b.op("add",
                 b.op("multiply", b.scalar("1.000000e+00") + ", %x") + ", " + b.scalar("0.000000e+00"));
        break;
    default: break;
    }
    return module(name, "%x: " + t, resultType, b, r);
}

} // namespace xps::calibrate

#pragma once
// The kinds of measured ops calibration reads (docs/calibration.md), and the families they are held out
// by: a fit that never saw an activation must still predict one.

#include <cstdint>
#include <optional>
#include <string_view>

namespace xps::calibrate {

enum class OpClass : std::uint8_t {
    Matmul,
    Add,
    Subtract,
    Multiply,
    Divide,
    Relu,
    LeakyRelu,
    ParametricRelu,
    Elu,
    Selu,
    Sigmoid,
    Tanh,
    BinaryStep,
    Linear,
    BatchNormInference,
};
inline constexpr std::size_t kOpClassCount = 15;

enum class OpFamily : std::uint8_t {
    Matmul,      // dot_general on the MXUs
    Elementwise, // one binary op: add, subtract, multiply, divide
    Activation,  // a chain of element-wise ops on one operand (relu, sigmoid, ...)
    Normalization,
};

// "matmul", "add", "sub", "mul", "div", "relu", "leaky_relu", "parametric_relu", "elu", "selu",
// "sigmoid", "tanh", "binary_step", "linear", "batch_norm_inference": the names SCALE-Sim's validation
// runs give their kernels, and what --hold-out op:NAME takes.
std::string_view opClassName(OpClass op);
std::optional<OpClass> opClassNamed(std::string_view name);

OpFamily opFamily(OpClass op);
// "matmul", "elementwise", "activation", "normalization": what --hold-out family:NAME takes.
std::string_view opFamilyName(OpFamily family);
std::optional<OpFamily> opFamilyNamed(std::string_view name);

} // namespace xps::calibrate

#include "calibrate/op_class.h"

#include <array>

namespace xps::calibrate {

namespace {

struct OpInfo
{
    OpClass op;
    std::string_view name;
    OpFamily family;
};

constexpr std::array<OpInfo, kOpClassCount> kOps{{
    {OpClass::Matmul, "matmul", OpFamily::Matmul},
    {OpClass::Add, "add", OpFamily::Elementwise},
    {OpClass::Subtract, "sub", OpFamily::Elementwise},
    {OpClass::Multiply, "mul", OpFamily::Elementwise},
    {OpClass::Divide, "div", OpFamily::Elementwise},
    {OpClass::Relu, "relu", OpFamily::Activation},
    {OpClass::LeakyRelu, "leaky_relu", OpFamily::Activation},
    {OpClass::ParametricRelu, "parametric_relu", OpFamily::Activation},
    {OpClass::Elu, "elu", OpFamily::Activation},
    {OpClass::Selu, "selu", OpFamily::Activation},
    {OpClass::Sigmoid, "sigmoid", OpFamily::Activation},
    {OpClass::Tanh, "tanh", OpFamily::Activation},
    {OpClass::BinaryStep, "binary_step", OpFamily::Activation},
    {OpClass::Linear, "linear", OpFamily::Activation},
    {OpClass::BatchNormInference, "batch_norm_inference", OpFamily::Normalization},
}};

constexpr std::array<std::string_view, 4> kFamilies{"matmul", "elementwise", "activation", "normalization"};

} // namespace

std::string_view opClassName(OpClass op)
{
    return kOps[static_cast<std::size_t>(op)].name;
}

std::optional<OpClass> opClassNamed(std::string_view name)
{
    for (const OpInfo& info : kOps)
        if (info.name == name)
            return info.op;
    return std::nullopt;
}

OpFamily opFamily(OpClass op)
{
    return kOps[static_cast<std::size_t>(op)].family;
}

std::string_view opFamilyName(OpFamily family)
{
    return kFamilies[static_cast<std::size_t>(family)];
}

std::optional<OpFamily> opFamilyNamed(std::string_view name)
{
    for (std::size_t i = 0; i < kFamilies.size(); ++i)
        if (kFamilies[i] == name)
            return static_cast<OpFamily>(i);
    return std::nullopt;
}

} // namespace xps::calibrate

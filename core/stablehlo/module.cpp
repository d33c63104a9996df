#include "stablehlo/module.h"

#include <algorithm>
#include <array>

namespace xps::shlo {

namespace {

struct OpInfo
{
    OpKind kind;
    std::string_view name;
    int arity; // element-wise operand count, 0 for the rest
};

constexpr std::array kOps = {
    OpInfo{OpKind::Abs, "stablehlo.abs", 1},
    OpInfo{OpKind::Negate, "stablehlo.negate", 1},
    OpInfo{OpKind::Exponential, "stablehlo.exponential", 1},
    OpInfo{OpKind::ExponentialMinusOne, "stablehlo.exponential_minus_one", 1},
    OpInfo{OpKind::Log, "stablehlo.log", 1},
    OpInfo{OpKind::LogPlusOne, "stablehlo.log_plus_one", 1},
    OpInfo{OpKind::Tanh, "stablehlo.tanh", 1},
    OpInfo{OpKind::Logistic, "stablehlo.logistic", 1},
    OpInfo{OpKind::Rsqrt, "stablehlo.rsqrt", 1},
    OpInfo{OpKind::Sqrt, "stablehlo.sqrt", 1},
    OpInfo{OpKind::Cbrt, "stablehlo.cbrt", 1},
    OpInfo{OpKind::Sine, "stablehlo.sine", 1},
    OpInfo{OpKind::Cosine, "stablehlo.cosine", 1},
    OpInfo{OpKind::Tan, "stablehlo.tan", 1},
    OpInfo{OpKind::Floor, "stablehlo.floor", 1},
    OpInfo{OpKind::Ceil, "stablehlo.ceil", 1},
    OpInfo{OpKind::RoundNearestAfz, "stablehlo.round_nearest_afz", 1},
    OpInfo{OpKind::RoundNearestEven, "stablehlo.round_nearest_even", 1},
    OpInfo{OpKind::Sign, "stablehlo.sign", 1},
    OpInfo{OpKind::Not, "stablehlo.not", 1},
    OpInfo{OpKind::IsFinite, "stablehlo.is_finite", 1},
    OpInfo{OpKind::Convert, "stablehlo.convert", 1},
    OpInfo{OpKind::Erf, "chlo.erf", 1},
    OpInfo{OpKind::Popcnt, "stablehlo.popcnt", 1},
    OpInfo{OpKind::CountLeadingZeros, "stablehlo.count_leading_zeros", 1},
    OpInfo{OpKind::ReducePrecision, "stablehlo.reduce_precision", 1},
    OpInfo{OpKind::Tan, "chlo.tan", 1}, // StableHLO's own tan (chlo legalizes it so)
    OpInfo{OpKind::Atan, "chlo.atan", 1},
    OpInfo{OpKind::Asin, "chlo.asin", 1},
    OpInfo{OpKind::Acos, "chlo.acos", 1},
    OpInfo{OpKind::Atanh, "chlo.atanh", 1},
    OpInfo{OpKind::Asinh, "chlo.asinh", 1},
    OpInfo{OpKind::Acosh, "chlo.acosh", 1},
    OpInfo{OpKind::Sinh, "chlo.sinh", 1},
    OpInfo{OpKind::Cosh, "chlo.cosh", 1},
    OpInfo{OpKind::Add, "stablehlo.add", 2},
    OpInfo{OpKind::Subtract, "stablehlo.subtract", 2},
    OpInfo{OpKind::Multiply, "stablehlo.multiply", 2},
    OpInfo{OpKind::Divide, "stablehlo.divide", 2},
    OpInfo{OpKind::Remainder, "stablehlo.remainder", 2},
    OpInfo{OpKind::Maximum, "stablehlo.maximum", 2},
    OpInfo{OpKind::Minimum, "stablehlo.minimum", 2},
    OpInfo{OpKind::Power, "stablehlo.power", 2},
    OpInfo{OpKind::Atan2, "stablehlo.atan2", 2},
    OpInfo{OpKind::And, "stablehlo.and", 2},
    OpInfo{OpKind::Or, "stablehlo.or", 2},
    OpInfo{OpKind::Xor, "stablehlo.xor", 2},
    OpInfo{OpKind::ShiftLeft, "stablehlo.shift_left", 2},
    OpInfo{OpKind::ShiftRightLogical, "stablehlo.shift_right_logical", 2},
    OpInfo{OpKind::ShiftRightArithmetic, "stablehlo.shift_right_arithmetic", 2},
    OpInfo{OpKind::Compare, "stablehlo.compare", 2},
    OpInfo{OpKind::Select, "stablehlo.select", 3},
    OpInfo{OpKind::Clamp, "stablehlo.clamp", 3},
    OpInfo{OpKind::Constant, "stablehlo.constant", 0},
    OpInfo{OpKind::BroadcastInDim, "stablehlo.broadcast_in_dim", 0},
    OpInfo{OpKind::Reshape, "stablehlo.reshape", 0},
    OpInfo{OpKind::Transpose, "stablehlo.transpose", 0},
    OpInfo{OpKind::Slice, "stablehlo.slice", 0},
    OpInfo{OpKind::Concatenate, "stablehlo.concatenate", 0},
    OpInfo{OpKind::Pad, "stablehlo.pad", 0},
    OpInfo{OpKind::Iota, "stablehlo.iota", 0},
    OpInfo{OpKind::Reverse, "stablehlo.reverse", 0},
    OpInfo{OpKind::Gather, "stablehlo.gather", 0},
    OpInfo{OpKind::Scatter, "stablehlo.scatter", 0},
    OpInfo{OpKind::DynamicSlice, "stablehlo.dynamic_slice", 0},
    OpInfo{OpKind::DynamicUpdateSlice, "stablehlo.dynamic_update_slice", 0},
    OpInfo{OpKind::Reduce, "stablehlo.reduce", 0},
    OpInfo{OpKind::ReduceWindow, "stablehlo.reduce_window", 0},
    OpInfo{OpKind::DotGeneral, "stablehlo.dot_general", 0},
    OpInfo{OpKind::Dot, "stablehlo.dot", 0},
    OpInfo{OpKind::Convolution, "stablehlo.convolution", 0},
    OpInfo{OpKind::BatchNormTraining, "stablehlo.batch_norm_training", 0},
    OpInfo{OpKind::BatchNormInference, "stablehlo.batch_norm_inference", 0},
    OpInfo{OpKind::AllGather, "stablehlo.all_gather", 0},
    OpInfo{OpKind::AllReduce, "stablehlo.all_reduce", 0},
    OpInfo{OpKind::ReduceScatter, "stablehlo.reduce_scatter", 0},
    OpInfo{OpKind::CollectivePermute, "stablehlo.collective_permute", 0},
    OpInfo{OpKind::Call, "func.call", 0},
    OpInfo{OpKind::Return, "func.return", 0},
    OpInfo{OpKind::CustomCall, "stablehlo.custom_call", 0},
    OpInfo{OpKind::ExpectEq, "check.expect_eq", 0},
    OpInfo{OpKind::ExpectEqConst, "check.expect_eq_const", 0},
    OpInfo{OpKind::ExpectAlmostEq, "check.expect_almost_eq", 0},
    OpInfo{OpKind::ExpectAlmostEqConst, "check.expect_almost_eq_const", 0},
    OpInfo{OpKind::ExpectClose, "check.expect_close", 0},
};

} // namespace

std::string_view opName(OpKind kind)
{
    for (const auto& op : kOps)
        if (op.kind == kind)
            return op.name;
    return "?";
}

bool opKindNamed(std::string_view name, OpKind& kind)
{
    // `return` and `call` are func's ops written without their dialect; stablehlo.return ends a region.
    if (name == "return" || name == "stablehlo.return") {
        kind = OpKind::Return;
        return true;
    }
    if (name == "call") {
        kind = OpKind::Call;
        return true;
    }
    for (const auto& op : kOps)
        if (op.name == name) {
            kind = op.kind;
            return true;
        }
    return false;
}

std::string supportedOps()
{
    std::vector<std::string_view> names;
    for (const auto& op : kOps) {
        const auto dot = op.name.find('.');
        names.push_back(op.name.substr(dot + 1));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end()); // tan is StableHLO's and chlo's
    std::string out;
    for (const auto n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

int elementwiseArity(OpKind kind)
{
    for (const auto& op : kOps)
        if (op.kind == kind)
            return op.arity;
    return 0;
}

const Function* Module::function(std::string_view functionName) const
{
    for (const auto& f : functions)
        if (f.name == functionName)
            return &f;
    return nullptr;
}

const Function* Module::entry() const
{
    if (const auto* main = function("main"))
        return main;
    const Function* only = nullptr;
    for (const auto& f : functions) {
        if (!f.isPublic)
            continue;
        if (only)
            return nullptr;
        only = &f;
    }
    return only;
}

namespace {
std::size_t countOps(const Body& body)
{
    std::size_t n = 0;
    for (const auto& op : body.operations) {
        ++n;
        for (const auto& region : op.regions)
            n += countOps(region);
    }
    return n;
}
} // namespace

std::size_t Module::operationCount() const
{
    std::size_t n = 0;
    for (const auto& f : functions)
        n += countOps(f.body);
    return n;
}

} // namespace xps::shlo

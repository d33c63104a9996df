#pragma once
// A parsed StableHLO module: functions whose bodies are lists of operations over SSA values. Values are
// numbered per body (a function's or a region's): its arguments first, then every op's results in order,
// so an interpreter or a lowering keeps one flat array per body instead of a map of names.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stablehlo/attribute.h"
#include "stablehlo/tensor_type.h"

namespace xps::shlo {

// Every op of the subset. The parser refuses any other, naming it and listing these.
enum class OpKind : std::uint8_t {
    // element-wise, one operand
    Abs,
    Negate,
    Exponential,
    ExponentialMinusOne,
    Log,
    LogPlusOne,
    Tanh,
    Logistic,
    Rsqrt,
    Sqrt,
    Cbrt,
    Sine,
    Cosine,
    Tan,
    Floor,
    Ceil,
    RoundNearestAfz,
    RoundNearestEven,
    Sign,
    Not,
    IsFinite,
    Popcnt,
    CountLeadingZeros,
    ReducePrecision, // exponent_bits, mantissa_bits
    Convert,
    Erf, // chlo.erf, and the custom_call @mhlo.erf torch_xla writes
    // chlo's inverse trigonometric and hyperbolic functions: the lowering writes them as StableHLO's own
    // decompositions (lower_chlo.cpp)
    Atan,
    Asin,
    Acos,
    Atanh,
    Asinh,
    Acosh,
    Sinh,
    Cosh,
    // element-wise, two operands
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    Maximum,
    Minimum,
    Power,
    Atan2,
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRightLogical,
    ShiftRightArithmetic,
    Compare,
    // element-wise, three operands
    Select,
    Clamp,
    // data movement
    Constant,
    BroadcastInDim,
    Reshape,
    Transpose,
    Slice,
    Concatenate,
    Pad,
    Iota,
    Reverse,
    Gather,
    Scatter,
    DynamicSlice,
    DynamicUpdateSlice,
    // reductions and contractions
    Reduce,
    ReduceWindow,
    DotGeneral,
    Dot,
    Convolution,
    BatchNormTraining,
    BatchNormInference,
    // collectives over the chips of a replica group
    AllGather,
    AllReduce,
    ReduceScatter,
    CollectivePermute,
    // structure
    Call,
    Return,
    CustomCall,
    // the check dialect of StableHLO's interpreter tests
    ExpectEq,
    ExpectEqConst,
    ExpectAlmostEq,
    ExpectAlmostEqConst,
    ExpectClose,
};

std::string_view opName(OpKind kind);                  // "stablehlo.add", "func.call", "check.expect_eq"
bool opKindNamed(std::string_view name, OpKind& kind); // accepts "func.return", "return", "stablehlo.return"
std::string supportedOps();                            // "abs, add, ..., while" for error messages
int elementwiseArity(OpKind kind);                     // 1, 2 or 3; 0 for every other op

struct SourceLocation
{
    std::uint32_t line = 0;   // 1-based, in the module's file
    std::uint32_t column = 0; // 1-based, in bytes
    std::string name;         // from loc(...): "model.py:12" or the name JAX gives ("jit(f)/dot_general")
};

struct Body;

struct Operation
{
    OpKind kind = OpKind::Return;
    SourceLocation location;
    std::vector<std::uint32_t> operands; // value numbers in the enclosing body
    std::vector<TensorType> resultTypes;
    std::uint32_t firstResult = 0; // results are values firstResult .. firstResult + resultTypes.size() - 1
    std::string resultName;        // the first result as written, "%3", for regions and messages
    std::string callee;            // Call: the function; CustomCall: the call target ("check.expect_close")
    AttributeMap attributes;
    std::vector<Body> regions; // Reduce, ReduceWindow, AllReduce, ReduceScatter, Scatter: the reducer
};

struct Body
{
    std::vector<TensorType> argumentTypes;
    std::vector<TensorType> valueTypes; // every value, arguments first
    std::vector<Operation> operations;  // the last one is a Return
};

struct Function
{
    std::string name; // without the @
    bool isPublic = true;
    SourceLocation location;
    Body body;
    std::vector<TensorType> resultTypes;
    std::vector<AttributeMap> argumentAttributes; // per argument: mhlo.sharding, jax.arg_info, ...
};

struct Module
{
    std::string fileName; // as given to the parser, for messages
    // The text parsed: dense literals keep views of their elements into it instead of copies.
    std::shared_ptr<const std::string> source;
    // Literals rewritten after parsing (retype.h) view their bytes here.
    std::vector<std::shared_ptr<const std::string>> rewrittenText;
    std::string name;      // module @name, if any
    int numReplicas = 1;   // mhlo.num_replicas
    int numPartitions = 1; // mhlo.num_partitions
    std::vector<Function> functions;

    const Function* function(std::string_view name) const;
    // The function a run starts at: public @main, else the only public function.
    const Function* entry() const;
    std::size_t operationCount() const; // every op, regions included
};

} // namespace xps::shlo

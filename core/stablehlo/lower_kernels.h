#pragma once
// The lowering's kernels (internal to core/stablehlo): each turns one op whose operands and result live in
// HBM into xpu-v1 code. Tensors are row-major with 4-byte elements (f32, i32; i1 as an i32 0 or 1), except
// f16 and bf16, packed in 2 bytes; in VMEM every element is 4 bytes (f16 and bf16 as the f32 of their value),
// so DMAs between the two convert (lower_program.h: Convert). Every kernel reads and writes packed tensors
// itself; intermediates a kernel keeps in HBM (a convolution's patch matrix) are f32.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stablehlo/lower_program.h"
#include "stablehlo/module.h"
#include "stablehlo/tensor_value.h"

namespace xps::shlo::lower {

// The bytes of one vector register (8 x 128 x 4).
inline constexpr std::int64_t kVregBytes = 4096;

// A vector register's name in the assembly a kernel is written in.
inline std::string v(int r)
{
    return "v" + std::to_string(r);
}

struct TensorRef
{
    std::uint64_t address = 0; // in HBM
    TensorType type;
    std::optional<double> scalarConstant;       // a scalar whose value is known when compiling
    std::int64_t elementBytes = 4;              // in HBM: storageBytes(type), or 4 for an f32 intermediate
    std::optional<double> splat = std::nullopt; // a constant of any shape whose elements all have this value
    // A broadcast_in_dim not written to HBM (lower_fusion.h): the element at multi-index i of `type` is
    // element sum(i[d] * broadcastStrides[d]) of the row-major operand at `address` (strides in elements, 0
    // along every dimension it is broadcast over). Only element-wise kernels read such a view; each holds
    // it in registers (lower_elementwise_kernel.cpp). Empty: a tensor in HBM.
    std::vector<std::int64_t> broadcastStrides = {};
    // A copy of the tensor in VMEM for the whole program (an argument a cross-program prefetch keeps there:
    // lower_arguments.h), laid out as in HBM: a dot reads its operand from there.
    std::optional<std::uint64_t> vmemCopy = std::nullopt;

    bool isView() const { return !broadcastStrides.empty(); }
    // The elements of a view's operand (those of the tensor for any other).
    std::int64_t sourceElements() const
    {
        if (!isView())
            return type.elementCount();
        std::int64_t n = 1;
        for (std::size_t d = 0; d < broadcastStrides.size(); ++d)
            n *= broadcastStrides[d] != 0 ? type.shape[d] : 1;
        return n;
    }

    bool packed() const { return elementBytes == 2; }
    // The conversion of a DMA bringing this tensor into VMEM (widening) or writing it from VMEM (narrowing).
    Convert widening() const
    {
        return !packed()                           ? Convert::None
               : type.element == ElementType::BF16 ? Convert::WidenBF16
                                                   : Convert::WidenF16;
    }
    Convert narrowing() const
    {
        return !packed()                           ? Convert::None
               : type.element == ElementType::BF16 ? Convert::NarrowBF16
                                                   : Convert::NarrowF16;
    }
    // The element type its HBM buffer is declared with (what the views show): f16, bf16, f32 or s32.
    const char* bufferDtype() const
    {
        return type.element == ElementType::F16    ? "f16"
               : type.element == ElementType::BF16 ? "bf16"
               : isFloat(type.element)             ? "f32"
                                                   : "s32";
    }
    // The HBM bytes of `vmemBytes` bytes of this tensor's elements as VMEM holds them (4 bytes each).
    std::uint64_t hbmBytes(std::uint64_t vmemBytes) const
    {
        return vmemBytes / 4 * static_cast<std::uint64_t>(elementBytes);
    }
};

// lower_dispatch.cpp: one op, its operands and results in HBM (at least one result with elements), as the
// kernel for its kind; a located refusal for a kind with none.
// `bias`: a dot_general's fused bias (lowerDot).
struct ChipContext;
struct DotBias;
void lowerKernel(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const std::vector<TensorRef>& outs, const ChipContext& chip, const DotBias* bias = nullptr);

// lower_validate.cpp: what the kernels take on trust (dimensions in range, shapes that agree, positive
// strides), checked before one runs; a located refusal otherwise.
void validateOp(const Operation& op, const std::vector<TensorRef>& in);

// lower_gather.cpp: the sizes of `shape` at dimensions `dims`, in that order; and the product of sizes.
std::vector<std::int64_t> sizesAt(const std::vector<std::int64_t>& shape,
                                  const std::vector<std::int64_t>& dims);
std::int64_t productOf(const std::vector<std::int64_t>& sizes);

// Row-major byte strides of a shape with elements of `elementBytes` (4, or 2 for a packed tensor).
std::vector<std::int64_t> byteStrides(const std::vector<std::int64_t>& shape, std::int64_t elementBytes = 4);

// lower_elementwise_kernel.cpp: an element-wise kernel, one op or a fusion of several (lower_fusion.h):
// its inputs stream through VMEM in tiles of vector registers, four tiles in flight, each register of the
// result computed by every step's code in turn, intermediates kept in registers; the result streams back.
// Rank-0 inputs (of a kernel whose result is not) and splat constants are broadcast into a register once.
struct ElementwiseStep
{
    const Operation* op = nullptr;
    // Per operand: an index into the kernel's inputs (>= 0), or ~k for the result of step k (< 0).
    std::vector<int> operands;
    ElementType in = ElementType::F32; // the first operand's element type (the code's input type)
};
// A reduction fusion's reduce (lower_fusion.h): each row of `width` elements of `operand` (as a step's
// operands: an input, or ~k for step k's result) is summed (in the rows layout's order: lane by lane across
// the row's registers, then across lanes) and added to `init`, one element of `out` per row. Sibling
// reductions of the same rows share one kernel, each summing its own operand (XLA's multi-output fusion: a
// layer norm's sum and sum of squares in one pass).
struct ElementwiseReduction
{
    std::int64_t width = 0;
    TensorRef init;
    int operand = ~0;
    TensorRef out;
    // Add, or Maximum: the row's largest element, a NaN among them propagated as StableHLO's maximum does
    // (the vector unit's vmax gives the other operand for a NaN: a witness register keeps the NaNs seen).
    OpKind kind = OpKind::Add;
};
struct ElementwiseKernel
{
    std::vector<ElementwiseStep> steps; // in program order; the last one's result is the kernel's
    std::vector<TensorRef> inputs;      // every operand from outside the kernel, once
    // With reductions the kernel's results are their sums (each reduction's `out`, all of one element
    // type), and no step's result is written but `outputs`.
    std::vector<ElementwiseReduction> reductions;
    // Steps whose results the kernel writes too, each to its `out` (multi-output fusion: a producer other
    // ops read as well), stored as the result is.
    struct Output
    {
        std::size_t step = 0;
        TensorRef out;
    };
    std::vector<Output> outputs;
};
// The registers a kernel's inputs and intermediate results take (the result is v6): at most this many.
inline constexpr int kElementwiseRegisters = 18;
void lowerElementwise(ProgramWriter& w, const ElementwiseKernel& kernel, const TensorRef& out);
// One op, its operands `in`.
void lowerElementwise(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                      const TensorRef& out);
// lower_elementwise.cpp: the vector instructions computing register `result` from the registers
// `operands` for an element-wise op, written last (an operand may not be `result`), with v3-v5, v30-v31
// (and v6) as temporaries and the constants setUpElementwiseConstants leaves in v7-v9 and v13-v15 (and
// v11-v12 for the roundings); empty if the op has no lowering for these types.
std::vector<std::string> elementwiseCode(const Operation& op, ElementType in, ElementType out,
                                         const std::vector<int>& operands, int result = 6);
void setUpElementwiseConstants(ProgramWriter& w, OpKind kind);
// The roundings, whose code reads two more constants (v11-v12).
inline bool isRounding(OpKind kind)
{
    return kind == OpKind::Floor || kind == OpKind::Ceil || kind == OpKind::RoundNearestEven ||
           kind == OpKind::RoundNearestAfz;
}
// Registers of elementwiseCode: operands and results where the caller puts them (the kernels: v0-v2, v10,
// v16-v29 and the result v6; a reducer region: v16 up); temporaries v3-v5, v30-v31 (and v6 for atan2); the
// constants setUpElementwiseConstants leaves in these (and, for the roundings, v11-v12).
inline constexpr int kIntOne = 7, kAllOnes = 8, kAbsMask = 9, kSignMask = 13, kOne = 14, kZero = 15;

// Integers are held as 32-bit words, their value modulo 2^32 (storageBytes): every integer type but i1 is
// a word the s32 code computes on; ui32 and ui64's low half compare and convert as unsigned words.
inline bool heldAsWord(ElementType type)
{
    return !isFloat(type) && type != ElementType::I1;
}
inline bool unsignedWord(ElementType type)
{
    return isUnsigned(type) && integerBits(type) >= 32;
}
// lower_integers.cpp: what the s32 code cannot do for the other integer types (bring an 8- or 16-bit result
// back to its width, convert unsigned words, saturate a float into a narrow type), which elementwiseCode
// hands over when needsIntegerCode says so.
bool needsIntegerCode(const Operation& op, ElementType in, ElementType out);
std::vector<std::string> integerElementwiseCode(const Operation& op, ElementType in, ElementType out,
                                                const std::vector<int>& operands, int result);
// An element's 32-bit word in HBM, VMEM or a register: f32 bits, or an integer modulo 2^32.
std::uint32_t wordOf(ElementType type, double value);

// lower_region.cpp: a reducer region's body as vector code over registers (one lane per reduction):
// `arguments` are its arguments' registers; returns the registers of its results. Values take v16 up to
// `lastRegister`. Every op of the body must be element-wise or a constant.
std::vector<int> regionCode(ProgramWriter& w, const Body& region, const std::vector<int>& arguments,
                            int lastRegister);
// The constants regionCode's code for `region` reads (setUpElementwiseConstants), written once before it.
void setUpRegionConstants(ProgramWriter& w, const Body& region);

// Writes `value`'s 32 bits into every element of `out` (a splat of a scalar operand).
void lowerSplat(ProgramWriter& w, const TensorRef& scalar, const TensorRef& out);

// lower_movement.cpp: broadcast_in_dim, transpose, slice, reverse, concatenate and pad as DMA descriptors
// from HBM into a VMEM copy of the result, written back in one piece.
void lowerMovement(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                   const TensorRef& out);

// lower_reduce.cpp: reduce with a one-op reducer (add, maximum, minimum) over any dimensions, on the
// vector unit and the cross-lane unit.
void lowerReduce(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const std::vector<TensorRef>& out);
// The pieces reduce_window shares: the reducer's kind (or a located refusal), its identity, a VMEM area of
// `rows` rows of `width` elements (padded to 128 lanes, filled with the identity), and the combination of
// every row into one element of `out` (initial value last).
OpKind reducerKind(const Operation& op);
// A reducer of one add, maximum or minimum of its two arguments, which the faster paths take.
bool isSimpleReducer(const Operation& op);
// Register blocks (staging[i]: `width` blocks of `padded` elements of input i) combined with any
// element-wise `region`, initial values first, then block 0, 1, ...: the interpreter's order.
void combineBlocks(ProgramWriter& w, const Body& region, const std::vector<std::uint64_t>& staging,
                   std::int64_t padded, std::int64_t width, std::int64_t outputs,
                   const std::vector<TensorRef>& inits, const std::vector<TensorRef>& out);
float reducerIdentity(OpKind kind);
struct ReductionRows
{
    OpKind kind = OpKind::Add;
    std::int64_t rows = 0, lanes = 0, rowBytes = 0, groups = 0;
    std::uint64_t staging = 0, results = 0;
};
ReductionRows reductionRows(ProgramWriter& w, OpKind kind, std::int64_t rows, std::int64_t width);
// The results leave on `results` when given (a kernel combining slab after slab keeps to one flag), else on
// a stream of their own.
void combineRows(ProgramWriter& w, const ReductionRows& rows, const TensorRef& init, const TensorRef& out,
                 DmaStream* results = nullptr);
// The other layout, used when it fits: one block of `outputs` elements (padded to a vector register) per
// reduced element, so whole registers combine in the interpreter's own order (initial value, then every
// element in row-major order): the results are those of the reference interpreter, bit for bit. Element
// (output r, reduced j) is at staging + (j * padded + r) * 4.
struct ReductionColumns
{
    OpKind kind = OpKind::Add;
    std::int64_t outputs = 0, width = 0, padded = 0;
    std::uint64_t staging = 0, results = 0;
};
bool fitsColumns(const ProgramWriter& w, std::int64_t outputs, std::int64_t width);
ReductionColumns reductionColumns(ProgramWriter& w, OpKind kind, std::int64_t outputs, std::int64_t width);
void combineColumns(ProgramWriter& w, const ReductionColumns& columns, const TensorRef& init,
                    const TensorRef& out);

// lower_window.cpp: reduce_window (its windows gathered into reduction rows) and convolution (im2col: the
// windows gathered into a patch matrix in HBM, then dot_general on the MXU).
void lowerReduceWindow(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                       const TensorRef& out);
void lowerConvolution(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                      const TensorRef& out);

// lower_dot.cpp: dot_general and dot on the MXU (f32): operands brought into 128-wide panels and 128 x 128
// weight blocks, products popped and accumulated over K on the vector unit. With `bias` (output fusion,
// lower_fusion.h planBiasFusions) `out` is the result of `bias->add`: the bias vector is added to each
// register of the last K block's sums before they are written, when the op is one tile; else an
// element-wise pass adds it (`broadcast`: the vector as the add reads it) after the matmul. So is a residual
// (a tensor of the result's elements, added after the bias; in the tiles only in unrolled code).
struct DotBias
{
    TensorRef vector, broadcast;
    const Operation* add = nullptr;
    bool dotFirst = true; // the add's first operand is the dot's result
    // A residual added after the bias (`residualAdd`, its first operand the biased result or not).
    std::optional<TensorRef> residual;
    const Operation* residualAdd = nullptr;
    bool residualDotFirst = true;
};
void lowerDot(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in, const TensorRef& out,
              const DotBias* bias = nullptr);

// lower_collectives.cpp: all_reduce, all_gather, reduce_scatter and collective_permute over ICI, for the
// chip `chip` of `chips` whose copy of the program is being written.
struct ChipContext
{
    int chip = 0;
    int chips = 1;
};
void lowerCollective(ProgramWriter& w, const Operation& op, const TensorRef& x, const TensorRef& out,
                     const ChipContext& chip);

// lower_gather.cpp: gather as one DMA per slice from an HBM address the scalar unit computes from the start
// indices (brought into SMEM), into a VMEM copy of the result.
void lowerGather(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                 const TensorRef& out);
// lower_scatter.cpp: scatter as one read-modify-write of a window per index vector, in order: the window of
// the result at an HBM address the scalar unit computes from the indices (in SMEM) and the matching window
// of the updates into VMEM, the update computation on the vector unit, the window written back.
void lowerScatter(ProgramWriter& w, const Operation& op, const std::vector<TensorRef>& in,
                  const TensorRef& out);
// lower_dynamic_slice.cpp: dynamic_slice and dynamic_update_slice as one strided DMA between HBM buffers,
// its address from the start indices (in SMEM, or known when compiling), clamped so the window fits.
void lowerDynamicSlice(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out);
void lowerDynamicUpdateSlice(ProgramWriter& w, const std::vector<TensorRef>& in, const TensorRef& out);
// The values an integer argument of `body` is given when a module is compiled to be run (the same ones the
// reference interpreter gets): its type's range within 32 bits, and from 0 to the last start a gather
// allows where the argument is (or becomes, reshaped or converted) a gather's start indices: token ids
// that name rows of the embedding table, as real inputs do.
std::pair<std::int64_t, std::int64_t> integerArgumentRange(const Body& body, std::uint32_t argument);

// lower_batch_norm.cpp: batch_norm_training (results: output, mean, variance) and batch_norm_inference as
// ops of their own (reductions, element-wise ops, broadcasts), each handed to `emit`: lower_expand.cpp
// appends them to the module (a TensorRef's `address` then names a value, not an HBM address).
struct OpEmitter
{
    std::function<std::vector<TensorRef>(const Operation&, const std::vector<TensorRef>&)> op;
    std::function<TensorRef(const TensorValue&, const std::string&)> constant;
};
std::vector<TensorRef> lowerBatchNorm(const Operation& op, const std::vector<TensorRef>& in,
                                      const OpEmitter& emit);

// lower_chlo.cpp: chlo.atan, asin, acos, atanh, asinh, acosh, sinh and cosh as the StableHLO ops chlo's
// legalization writes for them, handed to `emit` as the batch norms' pieces are.
bool isExpandedChlo(OpKind kind);
std::vector<TensorRef> lowerChlo(const Operation& op, const std::vector<TensorRef>& in,
                                 const OpEmitter& emit);

// Loads a scalar operand's 32 bits into every element of vector register `vreg`: an immediate when the
// value is known, else through SMEM (a 4-byte DMA and a scalar load).
void broadcastScalar(ProgramWriter& w, const TensorRef& scalar, int vreg);

} // namespace xps::shlo::lower

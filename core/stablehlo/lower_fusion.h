#pragma once
// Loop fusion of element-wise ops (XLA's kLoop fusion, its simplest form): an element-wise op whose result
// only element-wise ops of the same element count read, all of them in one fusion, is computed inside that
// fusion's kernel, once, in a register, instead of going to HBM and back. A fusion is a graph of such ops
// under one root, which writes the only result; its inputs stream once however many of its ops read them.
// GELU's nine ops become one kernel reading x once and writing once, where they read 13 tensors and wrote 9.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stablehlo/lower_kernels.h"
#include "stablehlo/module.h"

namespace xps::shlo::lower {

// For every value of `body`: the ops reading it, in program order, and the op computing it (-1 for an
// argument).
struct ValueUses
{
    std::vector<std::vector<std::size_t>> readers;
    std::vector<std::int32_t> producer;
};
ValueUses valueUses(const Body& body);

// A conversion that keeps every value's bytes in HBM: a type to itself, an integer to a 32- or 64-bit one
// (each is held as its value modulo 2^32), or to a wider type that holds it as it is (i1 to anything, ui8 to
// i16). It is an alias, no kernel; f16 and bf16 are packed in 2 bytes, so their conversions are kernels.
bool sameBytes(ElementType from, ElementType to);

// The fusions of `body`. `rootOf`: for every op, the op whose kernel computes it: itself for a kernel's root
// (or an op not fused), a later op for a member of that op's fusion; -1 for an op with no fusion (not
// element-wise, or a reduce nothing joins). `members`: each fusion's ops in program order, its root last.
// `duplicated`: a conversion computed inside every fusion that reads it, with no kernel of its own.
// A fusion's root is an element-wise op, or a reduce over the innermost dimension (fusibleReduceWidth):
// then the kernel computes the reduce's operand from its members and sums each row as it goes, never
// writing the operand out (XLA's reduction fusion). `registers` bounds a fusion's inputs plus its
// results kept in registers. Ops marked in `excluded` (folded to constants) join no fusion. An f16 or bf16
// intermediate joins only with `excessPrecision` (CompileOptions): fused, it is not rounded to its type.
// `written`: members other than a fusion's root whose results its kernel writes too (multi-output fusion:
// a producer other ops read as well).
struct FusionPlan
{
    std::vector<std::int32_t> rootOf;
    std::vector<bool> duplicated;
    std::map<std::size_t, std::vector<std::size_t>> members;
    std::set<std::size_t> written;
};
FusionPlan planFusion(const Body& body, int registers, const std::vector<bool>& excluded = {},
                      bool excessPrecision = false);

// A reduce whose kernel can compute its operand (an add or a maximum over the innermost dimension of a
// float operand
// whose rows are a multiple of 128 long, at most 4096, and number a multiple of 8): that dimension's size;
// 0 otherwise.
std::int64_t fusibleReduceWidth(const Body& body, const Operation& op);
// The registers a fused reduction keeps besides its operand: 2 for a sum, 4 for a maximum (its NaN witness).
int reductionRegisters(const Operation& reduce);

// The strides of broadcast_in_dim `op` read in registers (TensorRef::broadcastStrides): one per result
// dimension, in elements of the row-major operand, 0 along a dimension it is broadcast over (or one of
// size 1 it expands); composed with `operandStrides` when the operand is itself such a view (empty: a tensor
// in HBM of type `operand`). Nothing for a broadcast whose dimensions do not increase (one that transposes
// as it broadcasts), which is written out.
std::optional<std::vector<std::int64_t>>
broadcastStrides(const Operation& op, const TensorType& operand,
                 const std::vector<std::int64_t>& operandStrides = {});

// For every op of `body`: true for a broadcast_in_dim every reader of which is an element-wise kernel or
// another such broadcast. It is never written to HBM: the kernels reading it hold it in registers, fetching
// only its operand (lower_elementwise_kernel.cpp), as XLA's fusions never write a broadcast out.
std::vector<bool> registerBroadcasts(const Body& body);

// Output fusion of a bias into dot_general (XLA's): for each dot_general whose result only an add reads, the
// add's other operand a broadcast along the result's last dimension of a vector (a bias) ready before the
// dot runs, and the add a kernel of its own: the add and the bias, by the dot's index. The dot's kernel adds
// the bias to each register of results before writing them, so the result goes to HBM once, as the add's. An
// f16 or bf16 result joins only with excess precision (fused, the sum is not rounded before the add). A
// residual add of the biased result (a transformer's skip connection) joins too, its tensor added after the
// bias.
struct ResidualFusion
{
    std::size_t add = 0;     // the op, after the bias's (through reshapes)
    std::uint32_t value = 0; // the tensor it adds, ready before the dot
};
struct BiasFusion
{
    std::size_t add = 0, broadcast = 0; // the ops
    std::uint32_t vector = 0;           // the value the add adds along the rows (the broadcast's operand)
    std::uint32_t source = 0; // the same bytes, ready before the dot (the vector, or what it reshapes)
    std::optional<ResidualFusion> residual;
};
// The kernel's view of a bias fusion of the dot_general computing `dotResult`: the vector (its HBM bytes
// from `values`), the broadcast as the add reads it, the residual.
DotBias dotBias(const Body& body, const BiasFusion& fusion, const std::vector<TensorRef>& values,
                std::uint32_t dotResult);
std::map<std::size_t, BiasFusion> planBiasFusions(const Body& body, const FusionPlan& plan,
                                                  const std::vector<bool>& excluded, bool excessPrecision);

// lower_fusion_kernel.cpp: the element-wise kernel of the fusion `members` of `body` (sorted), run where op
// `root` is: each op's operands are its fused producers' registers or the kernel's inputs (`values`, every
// outside value once); each reduce member a reduction of the kernel. `out`: what the kernel writes as its
// result (the first reduction's sums, or the last step's result); `results`: every value it writes, by the
// member computing it (the root's, each reduce's and each of `written`), given HBM by `allocate`. `fused`:
// the result names of the members but the root, for the kernel's region. An op the kernel cannot compute
// is a MemberError naming it.
struct MemberError
{
    const Operation* member = nullptr;
    std::string message;
};
struct FusionKernel
{
    ElementwiseKernel kernel;
    TensorRef out;
    std::vector<std::pair<std::size_t, TensorRef>> results;
    std::string fused;
};
FusionKernel fusionKernel(const Body& body, std::size_t root, const std::vector<std::size_t>& members,
                          const std::set<std::size_t>& written, const std::vector<TensorRef>& values,
                          const std::function<TensorRef(const Operation&)>& allocate);

} // namespace xps::shlo::lower

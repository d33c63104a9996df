#pragma once
// Loop fusion of element-wise ops (XLA's kLoop fusion, its simplest form): an element-wise op whose result
// only one element-wise op of the same element count reads is computed inside that op's kernel, in
// registers, instead of going to HBM and back. A fusion is a tree of such ops under one root, which writes
// the only result; its inputs stream once however many of its ops read them. GELU's nine ops become one
// kernel reading x once and writing once, where they read 13 tensors and wrote 9.

#include <cstdint>
#include <vector>

#include "stablehlo/module.h"

namespace xps::shlo::lower {

// A conversion that keeps every value's bytes in HBM: a type to itself, an integer to a 32- or 64-bit one
// (each is held as its value modulo 2^32), or to a wider type that holds it as it is (i1 to anything, ui8 to
// i16). It is an alias, no kernel; f16 and bf16 are packed in 2 bytes, so their conversions are kernels.
bool sameBytes(ElementType from, ElementType to);

// For every op of `body`, the op whose kernel computes it: itself for a kernel's root (or an op not fused),
// a later op for a member of that op's fusion; -1 for an op that is not element-wise. `registers` bounds a
// fusion's inputs plus its results kept in registers (every op's but the root's).
// Ops marked in `excluded` (folded to constants) join no fusion.
std::vector<std::int32_t> planFusion(const Body& body, int registers, const std::vector<bool>& excluded = {});

// A broadcast_in_dim whose result each vector register (1024 elements) of an element-wise kernel sees the
// same way: element e of the result is element e % period of the operand. True of a scalar (period 1) and
// of an operand the result repeats along its leading dimensions, when its size divides 1024 (a bias row of
// 256). 0 for any other broadcast.
inline constexpr std::int64_t kRegisterElements = 1024;
std::int64_t broadcastPeriod(const Operation& op, const TensorType& operand);

// For every op of `body`: true for a broadcast_in_dim with a period whose every reader is an element-wise
// kernel. Such a broadcast is never written to HBM: the kernels reading it hold its pattern in a register
// (lower_elementwise_kernel.cpp), where a bias row's broadcast was a kernel writing the whole tensor.
std::vector<bool> registerBroadcasts(const Body& body);

} // namespace xps::shlo::lower

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

// For every op of `body`, the op whose kernel computes it: itself for a kernel's root (or an op not fused),
// a later op for a member of that op's fusion; -1 for an op that is not element-wise. `registers` bounds a
// fusion's inputs plus its results kept in registers (every op's but the root's).
std::vector<std::int32_t> planFusion(const Body& body, int registers);

} // namespace xps::shlo::lower

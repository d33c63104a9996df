#pragma once
// The one place the GRM calls BLAS (Debian's OpenBLAS): the MXU's products, and the benchmark's reference
// rate through the same calls. OpenBLAS picks its kernels for the CPU when it loads, unless the environment
// says otherwise (OPENBLAS_CORETYPE); describe() says which are in use, so a number can be read against it.

#include <string>

namespace xps::sim::blas {

// One BLAS thread: the GRM steps chips in a fixed order on one thread and must be deterministic.
void useOneThread();

// C = A x B, row-major single precision: A is m x k, B is k x n, C is m x n (leading dimensions k, n, n).
void sgemm(int m, int n, int k, const float* a, const float* b, float* c);

// "OpenBLAS 0.3.21, Cooperlake kernels" (and "(OPENBLAS_CORETYPE=...)" when the environment chose them).
std::string describe();

} // namespace xps::sim::blas

#include "blas.h"

#include <cblas.h>

#include <cstdlib>

namespace xps::sim::blas {

void useOneThread()
{
    openblas_set_num_threads(1);
}

void sgemm(int m, int n, int k, const float* a, const float* b, float* c)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

std::string describe()
{
    std::string config = openblas_get_config(); // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY ..."
    config = config.substr(0, config.find(' ', config.find(' ') + 1)); // "OpenBLAS 0.3.21"
    std::string out = config + ", " + openblas_get_corename() + " kernels";
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE"))
        out += std::string(" (OPENBLAS_CORETYPE=") + forced + " in the environment)";
    return out;
}

} // namespace xps::sim::blas

// C = beta * C, for alpha == 0 (scale_c.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace sgemm {

// BLAS with alpha == 0: C = beta * C, and A and B are not read, so Inf or NaN there cannot
// reach C through 0 * Inf. With beta == 0 too, C is set to zero without being read. Every
// rung gets this from launch(), before its own kernel would multiply alpha into a sum.
cudaError_t launch_scale_c(int M, int N, float beta, float* C, int ldc, cudaStream_t stream);

}  // namespace sgemm

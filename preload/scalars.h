// Alpha and beta in device memory (CUBLAS_POINTER_MODE_DEVICE), read on the device (scalars.cu):
// the product runs with alpha = 1, beta = 0 into a workspace W, then C = alpha W + beta C.
#pragma once

#include <cuda_runtime_api.h>

namespace sgemm::preload {

// For each of `batch` column-major m x n problems: C_i = *alpha * W_i + *beta * C_i, with W_i at
// W + i * m * n (leading dimension m) and C_i at C + i * stride_c, or at c_array[i] when c_array
// is not null (an array in device memory). BLAS's rules: *beta == 0 does not read C (NaN there
// is overwritten), *alpha == 0 does not use W (NaN or Inf of A and B do not reach C).
cudaError_t launch_apply_scalars(int m, int n, int batch, const float* alpha, const float* beta,
                                 const float* W, float* C, long long ldc, long long stride_c,
                                 float* const* c_array, cudaStream_t stream);

// pointers[i] = W + i * stride, i < batch: the pointer array of the product's results.
cudaError_t launch_fill_pointers(float* W, long long stride, int batch, float** pointers,
                                 cudaStream_t stream);

}  // namespace sgemm::preload

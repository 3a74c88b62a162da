// The batched calls' CUDA-core kernel (ffma_batched.cu): many small problems in one launch, on
// any GPU, any K, alignment and leading dimension.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/batch.h"  // Batch: the problems after the first
#include "sgemm/sgemm.h"    // Gemm: the first problem

namespace sgemm {

// `problems` problems of `gemm`'s shape (row-major N, N; at most runtime::kMaxGridZ), problem 0's
// operands in `gemm`, the others as `batch` says: one launch, the grid's z the problem. Plain
// FP32 FFMA, each element's sum in k order (FP32's componentwise bound, as rung 5's sums).
cudaError_t launch_ffma_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                                cudaStream_t stream);

}  // namespace sgemm

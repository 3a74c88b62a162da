// The batched calls' tensor-core kernel for small problems (tf32_batched.cu): 3xTF32 on
// mma.sync, FP32's accuracy, compute capability 8.0 and up, any alignment, K >= 16.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/batch.h"  // Batch: the problems after the first
#include "sgemm/sgemm.h"    // Gemm: the first problem

namespace sgemm {

// Below this K three TF32 products miss FP32's bound (rung 17's FFMA takes such batches).
constexpr int kMinTf32BatchedK = 16;

// `problems` problems of `gemm`'s shape (row-major N, N; at most runtime::kMaxGridZ), problem 0's
// operands in `gemm`, the others as `batch` says: one launch, each block walking its tile of C
// through several problems. cudaErrorInvalidValue for K < kMinTf32BatchedK.
cudaError_t launch_tf32_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                                cudaStream_t stream);

}  // namespace sgemm

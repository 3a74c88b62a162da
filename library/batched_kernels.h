// The kernels a strided batch can run on (library/batched.cu, rule 4), and the batched call with
// one of them named: what the batched bench times each of (bench/batched.cpp --kernel) and what
// the tests run each of on every shape, so that the choice among them is made from measurements
// of all of them.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "sgemm/sgemm.h"  // Layout, Op, Status

namespace sgemm {

enum class BatchedKernel {
  automatic,       // the library's choice: rules 1 to 4 (batched.cu)
  rung15_batch,    // rung 15's batch: its pre-pass path from 256^3 a problem, else fused (K >= 16)
  rung15_split_a,  // rung 15's batch with A split by the main kernel; 128 x 64 tiles where N <= 64
  rung19_tiles,    // rung 19's 64 x 64 tiles, 3xTF32 (K >= 16)
  rung17_ffma,     // rung 17's FFMA tiles
  ffma_tiles,      // ffma_batched.cu: FFMA, 64 x 64 tiles, any GPU
};

// Every kernel, for lookups by name and for tests that run each.
constexpr BatchedKernel kBatchedKernels[] = {
    BatchedKernel::automatic,    BatchedKernel::rung15_batch, BatchedKernel::rung15_split_a,
    BatchedKernel::rung19_tiles, BatchedKernel::rung17_ffma,  BatchedKernel::ffma_tiles};

const char* to_string(BatchedKernel kernel);
// The kernel of that name ("automatic", "rung15_batch", ...), or false.
bool batched_kernel_named(const std::string& name, BatchedKernel* kernel);

// gemm_strided_batched (sgemm/sgemm.h), the same checks and answers; a kernel other than
// `automatic` takes every problem in one launch a chunk (rule 4), where alpha != 0. A 3xTF32
// kernel asked for K < 16, or off Hopper, answers as its launcher does.
Status gemm_strided_batched_on(BatchedKernel kernel, Layout layout, Op opA, Op opB, int M, int N,
                               int K, float alpha, const float* A, int lda, long long strideA,
                               const float* B, int ldb, long long strideB, float beta, float* C,
                               int ldc, long long strideC, int batch, cudaStream_t stream,
                               std::string* why = nullptr);

}  // namespace sgemm

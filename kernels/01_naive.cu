// Rung 1: naive.
// One thread computes one element of C: the dot product of a row of A and a column of B,
// read straight from global memory. A warp is 32 threads with consecutive threadIdx.x.
//
// threadIdx.x picks the ROW of C, the wrong choice on purpose: a warp's load of A touches
// 32 rows, 32 separate memory sectors where one would do, and so does its store of C.
#include <cuda_runtime.h>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::naive {

constexpr int kBlockRows = 32;  // threads along x: 32 consecutive rows of C
constexpr int kBlockCols = 32;  // threads along y: 32 consecutive columns of C

__global__ void __launch_bounds__(kBlockRows* kBlockCols)
    sgemm_naive(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                float beta, float* C, int ldc) {
  const int row = blockIdx.x * kBlockRows + threadIdx.x;  // consecutive lanes: next row
  const int col = blockIdx.y * kBlockCols + threadIdx.y;
  if (row >= M || col >= N) return;

  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * lda + k] * B[k * ldb + col];

  // BLAS semantics: with beta == 0, C is not read (it may hold NaN).
  float* c = &C[row * ldc + col];
  *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(kBlockRows, kBlockCols);
  const dim3 grid((M + kBlockRows - 1) / kBlockRows, (N + kBlockCols - 1) / kBlockCols);
  sgemm_naive<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::naive

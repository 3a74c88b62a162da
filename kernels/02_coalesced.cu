// Rung 2: global-memory coalescing.
// One thread computes one element of C: the dot product of a row of A and a column of B,
// read straight from global memory. A warp is 32 threads with consecutive threadIdx.x.
//
// threadIdx.x now picks the COLUMN of C: a warp's loads of B and stores of C are 32
// consecutive floats, which coalesce into 4 sectors, and its load of A is one broadcast.
#include <cuda_runtime.h>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::coalesced {

constexpr int kBlockCols = 32;  // threads along x: 32 consecutive columns of C
constexpr int kBlockRows = 32;  // threads along y: 32 consecutive rows of C

__global__ void __launch_bounds__(kBlockRows* kBlockCols)
    sgemm_coalesced(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                    int ldb, float beta, float* C, int ldc) {
  const int col = blockIdx.x * kBlockCols + threadIdx.x;  // consecutive lanes: next column
  const int row = blockIdx.y * kBlockRows + threadIdx.y;
  if (row >= M || col >= N) return;

  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[row * lda + k] * B[k * ldb + col];

  // BLAS semantics: with beta == 0, C is not read (it may hold NaN).
  float* c = &C[row * ldc + col];
  *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(kBlockCols, kBlockRows);
  const dim3 grid((N + kBlockCols - 1) / kBlockCols, (M + kBlockRows - 1) / kBlockRows);
  sgemm_coalesced<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::coalesced

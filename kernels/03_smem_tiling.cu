// Rung 3: shared-memory tiling.
// The block walks K in steps of BK. At each step its threads copy a BM x BK tile of A and a
// BK x BN tile of B into shared memory, wait at a barrier, and each thread then reads its row
// of As and its column of Bs from there. In rung 2 the BN threads of a row each fetched the
// same element of A from global memory; now the block fetches it once and reuses it BN times.
//
// BK = 2 * BN: each thread copies two elements of each tile per step, and the block meets
// half as many barriers as with BK = BN. Elements outside the matrix are stored as zero, so
// the inner loop needs no bounds checks and any M, N, K works.
#include <cuda_runtime.h>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::smem_tiling {

constexpr int BM = 32;  // rows of C per block (threads along y)
constexpr int BN = 32;  // columns of C per block (threads along x)
constexpr int BK = 64;  // depth of the A and B tiles staged per step
static_assert(BM == BN && BK % BN == 0, "each thread loads BK / BN elements of As and of Bs");

__global__ void __launch_bounds__(BM* BN)
    sgemm_smem_tiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                      int ldb, float beta, float* C, int ldc) {
  __shared__ float As[BM][BK];  // As[r][k] = A[blockRow + r][k0 + k]
  __shared__ float Bs[BK][BN];  // Bs[k][c] = B[k0 + k][blockCol + c]

  const int threadCol = threadIdx.x;  // consecutive lanes: next column (coalesced, rung 2)
  const int threadRow = threadIdx.y;
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int row = blockRow + threadRow;
  const int col = blockCol + threadCol;

  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    // BK / BN elements of each tile per thread, zero outside the matrix.
    for (int kk = 0; kk < BK; kk += BN) {
      const int colA = k0 + kk + threadCol;
      As[threadRow][kk + threadCol] = (row < M && colA < K) ? A[row * lda + colA] : 0.f;
      const int rowB = k0 + kk + threadRow;
      Bs[kk + threadRow][threadCol] = (rowB < K && col < N) ? B[rowB * ldb + col] : 0.f;
    }
    __syncthreads();  // the tiles are complete before anyone reads them

    // BK is a compile-time constant: unrolled, the loop leaves no counter or branch behind.
#pragma unroll
    for (int k = 0; k < BK; ++k) acc += As[threadRow][k] * Bs[k][threadCol];
    __syncthreads();  // everyone is done reading before the next step overwrites them
  }

  if (row >= M || col >= N) return;
  // BLAS semantics: with beta == 0, C is not read (it may hold NaN).
  float* c = &C[row * ldc + col];
  *c = beta == 0.f ? alpha * acc : alpha * acc + beta * *c;
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(BN, BM);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_smem_tiling<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::smem_tiling

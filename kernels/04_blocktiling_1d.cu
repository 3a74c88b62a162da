// Rung 4: 1D register blocking.
// Each thread computes TM elements of C, a short column, instead of one. In rung 3 every FMA
// needed two shared-memory loads; here a thread loads one value of Bs into a register and
// reuses it for TM FMAs against TM values of As: TM FMAs for TM + 1 loads.
//
// The block tile grows to 64 x 64 and BK shrinks to 8, so the kThreads threads copy exactly
// one element of each tile per step.
#include <cuda_runtime.h>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::blocktiling_1d {

constexpr int BM = 64;  // rows of C per block
constexpr int BN = 64;  // columns of C per block
constexpr int BK = 8;   // depth of the A and B tiles staged per step
constexpr int TM = 8;   // rows of C per thread: the register tile of this rung
constexpr int kThreads = BM * BN / TM;
static_assert(BM % TM == 0, "a thread's TM rows lie inside the block tile");
static_assert(kThreads == BM * BK, "each thread loads one element of As");
static_assert(kThreads == BK * BN, "each thread loads one element of Bs");

__global__ void __launch_bounds__(kThreads)
    sgemm_blocktiling_1d(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                         int ldb, float beta, float* C, int ldc) {
  __shared__ float As[BM * BK];  // As[r * BK + k] = A[blockRow + r][k0 + k]
  __shared__ float Bs[BK * BN];  // Bs[k * BN + c] = B[k0 + k][blockCol + c]

  const int threadCol = threadIdx.x % BN;  // consecutive lanes: next column (coalesced)
  const int threadRow = threadIdx.x / BN;  // this thread owns rows threadRow*TM .. +TM-1
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int innerColA = threadIdx.x % BK;  // the element of the A tile this thread loads
  const int innerRowA = threadIdx.x / BK;
  const int innerColB = threadIdx.x % BN;  // the element of the B tile this thread loads
  const int innerRowB = threadIdx.x / BN;

  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // One element of each tile per thread, zero outside the matrix.
    const int rowA = blockRow + innerRowA, colA = k0 + innerColA;
    As[innerRowA * BK + innerColA] = (rowA < M && colA < K) ? A[rowA * lda + colA] : 0.f;
    const int rowB = k0 + innerRowB, colB = blockCol + innerColB;
    Bs[innerRowB * BN + innerColB] = (rowB < K && colB < N) ? B[rowB * ldb + colB] : 0.f;
    __syncthreads();  // the tiles are complete before anyone reads them

    // BK is a compile-time constant: unrolled, the loop leaves no counter or branch behind.
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k * BN + threadCol];  // one load, reused for TM FMAs
      for (int i = 0; i < TM; ++i) acc[i] += As[(threadRow * TM + i) * BK + k] * b;
    }
    __syncthreads();  // everyone is done reading before the next step overwrites them
  }

  const int col = blockCol + threadCol;
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
    if (row >= M || col >= N) continue;
    // BLAS semantics: with beta == 0, C is not read (it may hold NaN).
    float* c = &C[row * ldc + col];
    *c = beta == 0.f ? alpha * acc[i] : alpha * acc[i] + beta * *c;
  }
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_blocktiling_1d<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::blocktiling_1d

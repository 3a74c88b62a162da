// Rung 5: 2D register blocking.
// Each thread computes a TM x TN micro-tile of C. Per step of k it loads TM values of As and
// TN of Bs into registers and does TM * TN FMAs with them (rung 4: TM FMAs for TM + 1 loads).
//
// The block tile grows to 128 x 128 and BK to 16: each staged element serves more FMAs, and
// each thread copies several elements of each tile per step.
#include <cuda_runtime.h>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::blocktiling_2d {

constexpr int BM = 128;  // rows of C per block
constexpr int BN = 128;  // columns of C per block
constexpr int BK = 16;   // depth of the A and B tiles staged per step
constexpr int TM = 8;    // rows of C per thread
constexpr int TN = 8;    // columns of C per thread: with TM, the register tile of this rung
constexpr int kThreads = (BM / TM) * (BN / TN);
static_assert(BM % TM == 0 && BN % TN == 0, "micro-tiles cover the block tile exactly");
static_assert(kThreads % BK == 0 && (BM * BK) % kThreads == 0,
              "the threads load the A tile in whole passes of kThreads / BK rows");
static_assert(kThreads % BN == 0 && (BK * BN) % kThreads == 0,
              "the threads load the B tile in whole passes of kThreads / BN rows");
constexpr int kStrideA = kThreads / BK;  // rows of the A tile loaded per pass
constexpr int kStrideB = kThreads / BN;  // rows of the B tile loaded per pass

__global__ void __launch_bounds__(kThreads)
    sgemm_blocktiling_2d(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                         int ldb, float beta, float* C, int ldc) {
  __shared__ float As[BM * BK];  // As[r * BK + k] = A[blockRow + r][k0 + k]
  __shared__ float Bs[BK * BN];  // Bs[k * BN + c] = B[k0 + k][blockCol + c]

  const int threadCol = threadIdx.x % (BN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = threadIdx.x / (BN / TN);  // and rows threadRow*TM .. of the tile
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int innerColA = threadIdx.x % BK;  // the first element of the A tile this thread loads
  const int innerRowA = threadIdx.x / BK;
  const int innerColB = threadIdx.x % BN;  // the first element of the B tile this thread loads
  const int innerRowB = threadIdx.x / BN;

  float acc[TM * TN] = {};
  float regM[TM];  // a column slice of As
  float regN[TN];  // a row slice of Bs
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Several elements of each tile per thread, zero outside the matrix.
    for (int offset = 0; offset < BM; offset += kStrideA) {
      const int rowA = blockRow + innerRowA + offset, colA = k0 + innerColA;
      As[(innerRowA + offset) * BK + innerColA] =
          (rowA < M && colA < K) ? A[rowA * lda + colA] : 0.f;
    }
    for (int offset = 0; offset < BK; offset += kStrideB) {
      const int rowB = k0 + innerRowB + offset, colB = blockCol + innerColB;
      Bs[(innerRowB + offset) * BN + innerColB] =
          (rowB < K && colB < N) ? B[rowB * ldb + colB] : 0.f;
    }
    __syncthreads();  // the tiles are complete before anyone reads them

    // Kept rolled on purpose: unrolled, nvcc would fetch a thread's As values for consecutive
    // k (adjacent in a row of As) with wide loads. Rolled, each k reads a column slice of As,
    // TM scalar loads: the cost rung 6 removes by storing As transposed.
#pragma unroll 1
    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + k];
      for (int j = 0; j < TN; ++j) regN[j] = Bs[k * BN + threadCol * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();  // everyone is done reading before the next step overwrites them
  }

  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
    for (int j = 0; j < TN; ++j) {
      const int col = blockCol + threadCol * TN + j;
      if (row >= M || col >= N) continue;
      // BLAS semantics: with beta == 0, C is not read (it may hold NaN).
      float* c = &C[row * ldc + col];
      *c = beta == 0.f ? alpha * acc[i * TN + j] : alpha * acc[i * TN + j] + beta * *c;
    }
  }
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_blocktiling_2d<<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::blocktiling_2d

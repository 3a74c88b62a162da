// Rung 6: vectorized memory access. The arithmetic is rung 5's; only the width of the loads
// and stores changes, and the layout of As.
//
// Each thread loads its share of the A and B tiles as float4s: one 128-bit load (LDG.E.128)
// instead of four 32-bit ones. As is stored transposed, As[k * BM + r], so the TM values of A
// a thread needs at step k sit side by side and arrive in TM / 4 LDS.128, like those of Bs.
// The transpose costs four scalar stores per float4, once per tile instead of every step.
//
// A float4 needs a 16-byte aligned address: launch() takes the vector path only when every
// address the kernel forms is one; otherwise the same kernel loads scalars.
#include <cuda_runtime.h>

#include <cstdint>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::vectorized {

constexpr int BM = 128;  // rows of C per block
constexpr int BN = 128;  // columns of C per block
constexpr int BK = 16;   // depth of the A and B tiles staged per step
constexpr int TM = 8;    // rows of C per thread
constexpr int TN = 8;    // columns of C per thread: with TM, the register tile
constexpr int kThreads = (BM / TM) * (BN / TN);
static_assert(BM % TM == 0 && BN % TN == 0, "micro-tiles cover the block tile exactly");
static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread's slices of As and Bs are whole float4s");
static_assert(BK % 4 == 0 && BN % 4 == 0, "tile rows are whole float4s");
static_assert(kThreads % (BK / 4) == 0 && (BM * BK / 4) % kThreads == 0,
              "the threads load the A tile in whole passes of float4s");
static_assert(kThreads % (BN / 4) == 0 && (BK * BN / 4) % kThreads == 0,
              "the threads load the B tile in whole passes of float4s");
constexpr int kStrideA = kThreads / (BK / 4);  // rows of the A tile loaded per pass
constexpr int kStrideB = kThreads / (BN / 4);  // rows of the B tile loaded per pass

// Four consecutive elements of `row` from column `col`, zero at columns >= `cols`.
// One 128-bit load when the caller guarantees 16-byte alignment and all four are inside.
template <bool kVectorized>
__device__ __forceinline__ float4 load4(const float* row, int col, int cols) {
  if (kVectorized && col + 3 < cols) return *reinterpret_cast<const float4*>(row + col);
  return make_float4(col + 0 < cols ? row[col + 0] : 0.f, col + 1 < cols ? row[col + 1] : 0.f,
                     col + 2 < cols ? row[col + 2] : 0.f, col + 3 < cols ? row[col + 3] : 0.f);
}

// Two blocks per SM (at most 128 registers a thread), so one computes while the other waits.
template <bool kVectorized>
__global__ void __launch_bounds__(kThreads, 2)
    sgemm_vectorized(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                     int ldb, float beta, float* C, int ldc) {
  __shared__ alignas(16) float As[BK * BM];  // As[k * BM + r] = A[blockRow + r][k0 + k]
  __shared__ alignas(16) float Bs[BK * BN];  // Bs[k * BN + c] = B[k0 + k][blockCol + c]

  const int threadCol = threadIdx.x % (BN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = threadIdx.x / (BN / TN);  // and rows threadRow*TM .. of the tile
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  const int innerColA = threadIdx.x % (BK / 4);  // the first float4 of the A tile it loads
  const int innerRowA = threadIdx.x / (BK / 4);
  const int innerColB = threadIdx.x % (BN / 4);  // the first float4 of the B tile it loads
  const int innerRowB = threadIdx.x / (BN / 4);

  float acc[TM * TN] = {};
  float regM[TM];  // a column slice of A: a row of As
  float regN[TN];  // a row slice of Bs
  for (int k0 = 0; k0 < K; k0 += BK) {
    // One float4 of each tile per pass, zero outside the matrix; As is written transposed.
    for (int offset = 0; offset < BM; offset += kStrideA) {
      const int rowA = blockRow + innerRowA + offset, colA = k0 + innerColA * 4;
      const float4 a =
          rowA < M ? load4<kVectorized>(A + rowA * lda, colA, K) : make_float4(0.f, 0.f, 0.f, 0.f);
      As[(innerColA * 4 + 0) * BM + innerRowA + offset] = a.x;
      As[(innerColA * 4 + 1) * BM + innerRowA + offset] = a.y;
      As[(innerColA * 4 + 2) * BM + innerRowA + offset] = a.z;
      As[(innerColA * 4 + 3) * BM + innerRowA + offset] = a.w;
    }
    for (int offset = 0; offset < BK; offset += kStrideB) {
      const int rowB = k0 + innerRowB + offset, colB = blockCol + innerColB * 4;
      *reinterpret_cast<float4*>(&Bs[(innerRowB + offset) * BN + innerColB * 4]) =
          rowB < K ? load4<kVectorized>(B + rowB * ldb, colB, N) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    __syncthreads();  // the tiles are complete before anyone reads them

    // Unrolled now: a step of k reads As and Bs in whole float4s, so unrolling costs no
    // extra registers and lets the loads of one k overlap the FMAs of the last.
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&regM[i]) =
            *reinterpret_cast<const float4*>(&As[k * BM + threadRow * TM + i]);
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&regN[j]) =
            *reinterpret_cast<const float4*>(&Bs[k * BN + threadCol * TN + j]);
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();  // everyone is done reading before the next step overwrites them
  }

  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
    if (row >= M) break;
    for (int j = 0; j < TN; j += 4) {
      const int col = blockCol + threadCol * TN + j;
      float* c = &C[row * ldc + col];
      const float* r = &acc[i * TN + j];
      if (kVectorized && col + 3 < N) {  // one 128-bit store (and load, when beta != 0)
        float4 out = make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]);
        if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
          const float4 old = *reinterpret_cast<const float4*>(c);
          out.x += beta * old.x, out.y += beta * old.y, out.z += beta * old.z,
              out.w += beta * old.w;
        }
        *reinterpret_cast<float4*>(c) = out;
        continue;
      }
      for (int jj = 0; jj < 4 && col + jj < N; ++jj)
        c[jj] = beta == 0.f ? alpha * r[jj] : alpha * r[jj] + beta * c[jj];
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  const dim3 block(kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool vectorized =
      aligned16(A) && aligned16(B) && aligned16(C) && lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0;
  if (vectorized)
    sgemm_vectorized<true>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    sgemm_vectorized<false>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace sgemm::vectorized

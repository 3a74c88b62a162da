// Rung 7: autotuned tiles. Rung 6's kernel with its tile parameters (BM, BN, BK, TM, TN)
// turned into template parameters, chosen by measurement instead of by hand: they trade
// registers, shared memory, resident warps and shared loads per FMA in ways no napkin settles.
// scripts/autotune compiles every combination that Tile's static_asserts allow, checks each
// against cuBLAS and times it; launch() at the bottom runs the winner.
#include <cuda_runtime.h>

#include <cstdint>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::autotuned {

// Four consecutive elements of `row` from column `col`, zero at columns >= `cols`.
// One 128-bit load when the caller guarantees 16-byte alignment and all four are inside.
template <bool kVectorized>
__device__ __forceinline__ float4 load4(const float* row, int col, int cols) {
  if (kVectorized && col + 3 < cols) return *reinterpret_cast<const float4*>(row + col);
  return make_float4(col + 0 < cols ? row[col + 0] : 0.f, col + 1 < cols ? row[col + 1] : 0.f,
                     col + 2 < cols ? row[col + 2] : 0.f, col + 3 < cols ? row[col + 3] : 0.f);
}

// BM x BN: C per block; BK: depth staged per step; TM x TN: C per thread.
template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "micro-tiles cover the block tile exactly");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread's slices of As and Bs are whole float4s");
  static_assert(BK % 4 == 0 && BN % 4 == 0, "tile rows are whole float4s");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(kThreads % (BK / 4) == 0 && (BM * BK / 4) % kThreads == 0,
                "the threads load the A tile in whole passes of float4s");
  static_assert(kThreads % (BN / 4) == 0 && (BK * BN / 4) % kThreads == 0,
                "the threads load the B tile in whole passes of float4s");
  static_assert((BM + BN) * BK * 4 <= 48 * 1024, "As and Bs fit in 48 KiB of static shared memory");
  // Blocks resident per SM: with 64 accumulators a thread fits in 128 registers, so as many
  // blocks as fill 512 threads; bigger register tiles need up to 255, one block.
  static constexpr int kMinBlocks = TM * TN > 64 || kThreads >= 512 ? 1 : 512 / kThreads;
  static constexpr int kStrideA = kThreads / (BK / 4);  // rows of the A tile loaded per pass
  static constexpr int kStrideB = kThreads / (BN / 4);  // rows of the B tile loaded per pass
};

// kMinBlocks caps the registers a thread may use so that many blocks fit.
template <int BM, int BN, int BK, int TM, int TN, bool kVectorized>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN>::kThreads,
                                  Tile<BM, BN, BK, TM, TN>::kMinBlocks)
    sgemm_autotuned(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                    int ldb, float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, TM, TN>;
  // The tiles of A and B this block multiplies, staged in shared memory.
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
    for (int offset = 0; offset < BM; offset += T::kStrideA) {
      const int rowA = blockRow + innerRowA + offset, colA = k0 + innerColA * 4;
      const float4 a =
          rowA < M ? load4<kVectorized>(A + rowA * lda, colA, K) : make_float4(0.f, 0.f, 0.f, 0.f);
      As[(innerColA * 4 + 0) * BM + innerRowA + offset] = a.x;
      As[(innerColA * 4 + 1) * BM + innerRowA + offset] = a.y;
      As[(innerColA * 4 + 2) * BM + innerRowA + offset] = a.z;
      As[(innerColA * 4 + 3) * BM + innerRowA + offset] = a.w;
    }
    for (int offset = 0; offset < BK; offset += T::kStrideB) {
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

  // Unrolled, so that acc[] is indexed with constants and stays in registers.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = blockRow + threadRow * TM + i;
    if (row >= M) break;
#pragma unroll
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

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int BM, int BN, int BK, int TM, int TN>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  const dim3 block(Tile<BM, BN, BK, TM, TN>::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool vectorized =
      aligned16(A) && aligned16(B) && aligned16(C) && lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0;
  if (vectorized)
    sgemm_autotuned<BM, BN, BK, TM, TN, true>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    sgemm_autotuned<BM, BN, BK, TM, TN, false>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

// The tile scripts/autotune chose at 4096 on the H200 and on the H100 (every candidate's time
// is in results/<gpu>/autotune.csv); on another GPU, run scripts/autotune there.
runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  return launch_tile<128, 128, 32, 16, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace sgemm::autotuned

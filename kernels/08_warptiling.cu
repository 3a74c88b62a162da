// Rung 8: warptiling. Three levels of tiling: the block tile is split into warp tiles of
// WM x WN, each warp walks WMITER x WNITER sub-tiles of its warp tile, and in each sub-tile
// each thread computes a TM x TN micro-tile from registers.
//
// A warp's 32 lanes tile one small sub-tile, so every LDS.128 a warp issues reads a short
// contiguous run of As or Bs that several lanes share, free of bank conflicts. A thread's
// register tile can then grow (more FFMA per shared load) without spreading a warp's reads.
//
// A register tile this large leaves room for one block per SM, and no other block computes
// while it waits for global memory. So the block hides its own loads: the next tile travels
// into registers while this one is computed, then into the other of two shared buffers, with
// one barrier per step. Its transposed stores into As are swizzled (row XOR a multiple of 8
// that changes with k) so that a warp's scalar stores spread over all 32 banks.
#include <cuda_runtime.h>

#include <cstdint>

#include "launchers.h"  // Gemm, and the one launcher signature every rung shares

namespace sgemm::warptiling {

// Four consecutive elements of `row` from column `col`, zero at columns >= `cols`.
// One 128-bit load when the caller guarantees 16-byte alignment and all four are inside.
template <bool kVectorized>
__device__ __forceinline__ float4 load4(const float* row, int col, int cols) {
  if (kVectorized && col + 3 < cols) return *reinterpret_cast<const float4*>(row + col);
  return make_float4(col + 0 < cols ? row[col + 0] : 0.f, col + 1 < cols ? row[col + 1] : 0.f,
                     col + 2 < cols ? row[col + 2] : 0.f, col + 3 < cols ? row[col + 3] : 0.f);
}

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / (WMITER > 0 ? WMITER : 1);  // rows of one warp sub-tile
  static constexpr int WSUBN = WN / WNITER;                     // columns of one
  static constexpr int kAccumulators = WM * WN / 32;            // elements of C per thread
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WMITER >= 1 && (WM * WN) % (32 * TM * TN * WNITER) == 0,
                "a warp's 32 threads cover its tile in whole sub-tiles");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles cover the warp tile exactly");
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 threads of a warp tile one sub-tile with their micro-tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread's slices of As and Bs are whole float4s");
  static_assert(BK % 4 == 0 && BN % 4 == 0, "tile rows are whole float4s");
  static_assert(BM % 32 == 0, "the As swizzle permutes rows within groups of 32");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(kThreads % (BK / 4) == 0 && (BM * BK / 4) % kThreads == 0,
                "the threads load the A tile in whole passes of float4s");
  static_assert(kThreads % (BN / 4) == 0 && (BK * BN / 4) % kThreads == 0,
                "the threads load the B tile in whole passes of float4s");
  static_assert(2 * (BM + BN) * BK * 4 <= 48 * 1024,
                "two buffers of As and Bs fit in 48 KiB of static shared memory");
  // Blocks resident per SM: with 64 accumulators a thread fits in 128 registers, so as many
  // blocks as fill 512 threads; bigger register tiles need up to 255, one block.
  static constexpr int kMinBlocks = kAccumulators > 64 || kThreads >= 512 ? 1 : 512 / kThreads;
  static constexpr int kStrideA = kThreads / (BK / 4);  // rows of the A tile loaded per pass
  static constexpr int kStrideB = kThreads / (BN / 4);  // rows of the B tile loaded per pass
  static constexpr int kLoadsA = BM / kStrideA;         // float4s of A per thread per tile
  static constexpr int kLoadsB = BK / kStrideB;         // float4s of B per thread per tile
};

// Where element r of row k of As is stored: r XOR a multiple of 8 that changes every four k.
// A warp's four scalar stores per float4 then hit 32 different banks, and each aligned
// group of four r stays together, so the reads remain LDS.128.
__device__ __forceinline__ int swizzle(int r, int k) { return r ^ ((k / 4) % 4 * 8); }

// kMinBlocks caps the registers a thread may use so that many blocks fit.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, bool kVectorized>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN>::kMinBlocks)
    sgemm_warptiling(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                     int ldb, float beta, float* C, int ldc) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN>;
  // The tiles of A and B this block multiplies, staged in shared memory.
  // Two buffers of each tile: the block computes on one while the next tile fills the other.
  __shared__ alignas(
      16) float As[2][BK * BM];  // As[.][k * BM + swizzle(r, k)] = A[blockRow + r][k0 + k]
  __shared__ alignas(16) float Bs[2][BK * BN];  // Bs[.][k * BN + c] = B[k0 + k][blockCol + c]

  // Warps tile the block tile: warpIdx over (BM/WM, BN/WN), column fastest.
  const int warpIdx = threadIdx.x / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  // Lanes tile one sub-tile: lane over (WSUBM/TM, WSUBN/TN), column fastest.
  const int lane = threadIdx.x % 32;
  const int threadCol = lane % (T::WSUBN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = lane / (T::WSUBN / TN);  // and rows threadRow*TM .. of each sub-tile
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;
  // Loads: threadIdx.x over (kStrideA, BK/4) float4s of the (BM, BK) A tile, a pass of
  // kStrideA rows at a time; over (kStrideB, BN/4) of the (BK, BN) B tile likewise.
  const int innerColA = threadIdx.x % (BK / 4);  // the first float4 of the A tile it loads
  const int innerRowA = threadIdx.x / (BK / 4);
  const int innerColB = threadIdx.x % (BN / 4);  // the first float4 of the B tile it loads
  const int innerRowB = threadIdx.x / (BN / 4);

  // The next tiles, on their way from global memory, zero outside the matrix.
  // nextA[l]: row innerRowA + l*kStrideA, columns innerColA*4 .. +3 of the A tile;
  // nextB[l]: row innerRowB + l*kStrideB, columns innerColB*4 .. +3 of the B tile.
  float4 nextA[T::kLoadsA], nextB[T::kLoadsB];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      const int rowA = blockRow + innerRowA + l * T::kStrideA, colA = k0 + innerColA * 4;
      nextA[l] =
          rowA < M ? load4<kVectorized>(A + rowA * lda, colA, K) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l) {
      const int rowB = k0 + innerRowB + l * T::kStrideB, colB = blockCol + innerColB * 4;
      nextB[l] =
          rowB < K ? load4<kVectorized>(B + rowB * ldb, colB, N) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };
  // Registers to shared buffer `buf`; As is written transposed and swizzled.
  auto stash = [&](int buf) {
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      const int r = innerRowA + l * T::kStrideA, k = innerColA * 4;
      As[buf][(k + 0) * BM + swizzle(r, k + 0)] = nextA[l].x;
      As[buf][(k + 1) * BM + swizzle(r, k + 1)] = nextA[l].y;
      As[buf][(k + 2) * BM + swizzle(r, k + 2)] = nextA[l].z;
      As[buf][(k + 3) * BM + swizzle(r, k + 3)] = nextA[l].w;
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l)
      *reinterpret_cast<float4*>(&Bs[buf][(innerRowB + l * T::kStrideB) * BN + innerColB * 4]) =
          nextB[l];
  };

  // acc[i * WNITER*TN + j]: i over (WMITER, TM), j over (WNITER, TN): this thread's
  // element (threadRow*TM + i%TM) of sub-tile row i/TM, (threadCol*TN + j%TN) of column j/TN.
  float acc[T::WMITER * TM * WNITER * TN] = {};
  float regM[T::WMITER * TM];  // regM[i]: i over (WMITER, TM), rows of As at this k
  float regN[WNITER * TN];     // regN[j]: j over (WNITER, TN), columns of Bs at this k
  fetch(0);
  stash(0);
  __syncthreads();
  for (int k0 = 0, buf = 0; k0 < K; k0 += BK, buf ^= 1) {
    const bool more = k0 + BK < K;
    if (more) fetch(k0 + BK);  // in flight while this tile is computed

#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const int r = warpRow * WM + wm * T::WSUBM + threadRow * TM + i;
          *reinterpret_cast<float4*>(&regM[wm * TM + i]) =
              *reinterpret_cast<const float4*>(&As[buf][k * BM + swizzle(r, k)]);
        }
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
          *reinterpret_cast<float4*>(&regN[wn * TN + j]) = *reinterpret_cast<const float4*>(
              &Bs[buf][k * BN + warpCol * WN + wn * T::WSUBN + threadCol * TN + j]);
#pragma unroll
      for (int i = 0; i < T::WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i * WNITER * TN + j] += regM[i] * regN[j];
    }

    if (more) stash(buf ^ 1);
    __syncthreads();  // one barrier a step: the other buffer is full, and this one is free
  }

  // Unrolled, so that acc[] is indexed with constants and stays in registers.
#pragma unroll
  for (int i = 0; i < T::WMITER * TM; ++i) {
    const int row = blockRow + warpRow * WM + (i / TM) * T::WSUBM + threadRow * TM + i % TM;
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < WNITER * TN; j += 4) {
      const int col = blockCol + warpCol * WN + (j / TN) * T::WSUBN + threadCol * TN + j % TN;
      float* c = &C[row * ldc + col];
      const float* r = &acc[i * WNITER * TN + j];
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

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  const dim3 block(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN>::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool vectorized =
      aligned16(A) && aligned16(B) && aligned16(C) && lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0;
  if (vectorized)
    sgemm_warptiling<BM, BN, BK, WM, WN, WNITER, TM, TN, true>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    sgemm_warptiling<BM, BN, BK, WM, WN, WNITER, TM, TN, false>
        <<<grid, block, 0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  return cudaGetLastError();
}

// The tile scripts/autotune chose at 4096 on the H200 and on the H100 (every candidate's time
// is in results/<gpu>/autotune.csv); on another GPU, run scripts/autotune there.
runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  return launch_tile<128, 256, 16, 64, 64, 4, 4, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                    stream);
}

}  // namespace sgemm::warptiling

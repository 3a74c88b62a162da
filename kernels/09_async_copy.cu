// Rung 9: asynchronous copies. cp.async (SASS LDGSTS) copies tiles from global to shared memory
// with no register in between, into a ring of STAGES buffers: STAGES - 1 tiles are in flight
// while the block computes on one. A copy cannot transpose, so A moves in 4-byte copies into
// rung 8's As; B in 16-byte ones where aligned. Any alignment keeps the ring; edges zero-fill.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "launchers.h"       // Gemm, and the one launcher signature every rung shares
#include "runtime/device.h"  // the shared-memory opt-in

namespace sgemm::async_copy {

// 16 bytes, global to shared: the first `valid` floats are read, the rest zero. L2 only (.cg).
__device__ __forceinline__ void copy16(float* dst, const float* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(valid * 4)
               : "memory");
}

// 4 bytes: *src if `valid`, else zero. .ca: L1 too, for the warp's next copies of a sector.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}

// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile.
// STAGES: buffers of the ring.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
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
  static_assert(BK % 16 == 0 && BN % 128 == 0,
                "a warp copies blocks of 4 chunks of A along k and 32 chunks of B along a row");
  static_assert(BM % 32 == 0, "the As swizzle permutes rows within groups of 32");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(BM % (kThreads / 4) == 0,
                "the warps copy the A tile in whole passes of 8 rows x 4 chunks each");
  static_assert(kThreads % (BN / 4) == 0 && BK % (kThreads / (BN / 4)) == 0,
                "the warps copy the B tile in whole passes of 32 chunks of a row each");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static constexpr int kSharedBytes = STAGES * (BM + BN) * BK * 4;  // the ring, As and Bs
  static_assert(kSharedBytes <= 227 * 1024,
                "the ring fits in the 227 KiB of shared memory a block may have on an H100");
  // Blocks resident per SM: with 64 accumulators a thread fits in 128 registers, so as many
  // blocks as fill 512 threads; bigger register tiles need up to 255, one block.
  static constexpr int kMinBlocks = kAccumulators > 64 || kThreads >= 512 ? 1 : 512 / kThreads;
  static constexpr int kStrideA = kThreads / 4;           // rows of the A tile copied per pass
  static constexpr int kStrideB = kThreads / (BN / 4);    // rows of the B tile copied per pass
  static constexpr int kLoadsA = BM * BK / 4 / kThreads;  // chunks of A per thread per tile
  static constexpr int kLoadsB = BK * BN / 4 / kThreads;  // chunks of B per thread per tile
};

// Rung 8's swizzle: element r of row k of As is stored at r XOR a multiple of 8.
__device__ __forceinline__ int swizzle(int r, int k) { return r ^ ((k / 4) % 4 * 8); }

// kMinBlocks caps the registers a thread may use so that many blocks fit.
// kAlignedB, alignedC: pointer 16-byte aligned, ld a multiple of 4 (16-byte copies, stores).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES,
          bool kAlignedB>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kMinBlocks)
    sgemm_async_copy(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                     int ldb, float beta, float* C, int ldc, bool alignedC) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  extern __shared__ float4 ring[];  // the ring: STAGES buffers of each tile
  // As[.][k * BM + swizzle(r, k)] = A[blockRow + r][k0 + k]
  float(*As)[BK * BM] = reinterpret_cast<float(*)[BK * BM]>(ring);
  // Bs[.][k * BN + c] = B[k0 + k][blockCol + c]
  float(*Bs)[BK * BN] = reinterpret_cast<float(*)[BK * BN]>(As + STAGES);

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
  const int innerRowA = warpIdx * 8;             // the first row of its warp's block of A
  const int innerColB = threadIdx.x % (BN / 4);  // the chunk of the B tile it copies
  const int innerRowB = threadIdx.x / (BN / 4);

  // Starts copying the tiles at k0 into buffer `buf`, zero past K and N (rows of A past M repeat
  // row M-1). A warp copies blocks of 8 rows x 16 k of A; each instruction writes 32 banks.
  auto fetch = [&](int k0, int buf) {
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      const int r0 = innerRowA + l % (BM / T::kStrideA) * T::kStrideA;
      const int kb = l / (BM / T::kStrideA) * 16;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int r = r0 + lane / 4, k = kb + lane % 4 * 4 + q;  // lane over (8 rows, 4 k-groups)
        const int rowA = min(blockRow + r, M - 1), colA = k0 + k;
        copy4(&As[buf][k * BM + swizzle(r, k)], A + rowA * lda + (colA < K ? colA : 0), colA < K);
      }
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l) {
      const int k = innerRowB + l * T::kStrideB, rowB = k0 + k;
      if constexpr (kAlignedB) {
        const int colB = blockCol + innerColB * 4;
        const int valid = rowB < K ? min(max(N - colB, 0), 4) : 0;  // floats inside the matrix
        copy16(&Bs[buf][k * BN + innerColB * 4], B + (valid ? rowB * ldb + colB : 0), valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int c = (innerColB - lane) * 4 + q * 32 + lane;
          const int colB = blockCol + c;
          const bool valid = rowB < K && colB < N;
          copy4(&Bs[buf][k * BN + c], B + (valid ? rowB * ldb + colB : 0), valid);
        }
      }
    }
  };

  // acc[i * WNITER*TN + j]: i over (WMITER, TM), j over (WNITER, TN): this thread's
  // element (threadRow*TM + i%TM) of sub-tile row i/TM, (threadCol*TN + j%TN) of column j/TN.
  float acc[T::WMITER * TM * WNITER * TN] = {};
  float regM[T::WMITER * TM];  // regM[i]: i over (WMITER, TM), rows of As at this k
  float regN[WNITER * TN];     // regN[j]: j over (WNITER, TN), columns of Bs at this k
  // Tiles 0 .. STAGES-2 start, one group each (empty past K: group g is always tile g).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s * BK < K) fetch(s * BK, s);
    commit();
  }
  for (int k0 = 0, buf = 0; k0 < K; k0 += BK, buf = buf + 1 < STAGES ? buf + 1 : 0) {
    wait_pending<STAGES - 2>();  // this thread's copies of this tile have landed
    __syncthreads();             // everyone's have, and the buffer computed on last step is free
    const int ahead = k0 + (STAGES - 1) * BK;
    if (ahead < K) fetch(ahead, buf > 0 ? buf - 1 : STAGES - 1);  // in flight for STAGES-1 steps
    commit();

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
      if (alignedC && col + 3 < N) {  // one 128-bit store (and load, when beta != 0)
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

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  const dim3 block(T::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  // One kernel per alignment of B; C's is a run-time flag, A's does not matter.
  auto run = [&](auto alignedB) {
    constexpr auto kernel =
        sgemm_async_copy<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, decltype(alignedB)::value>;
    const cudaError_t err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
    if (err != cudaSuccess) return err;
    kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                     aligned16(C) && ldc % 4 == 0);
    return cudaGetLastError();
  };
  return aligned16(B) && ldb % 4 == 0 ? run(std::true_type{}) : run(std::false_type{});
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  //                BM   BN  BK  WM  WN WNITER TM TN STAGES
  return launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 3>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                       stream);
}

}  // namespace sgemm::async_copy

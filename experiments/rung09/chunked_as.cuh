// Design (b) of rung 9, measured beside the rung (design (a), kernels/09_async_copy.cu): As
// keeps A's 16-byte chunks ([m][k], swizzled by row) so that A moves in 16-byte copies, and
// the inner loop reads one float4 along k per row for four steps of k. It lost: 80% of
// cuBLAS at 4096^3 against (a)'s 90%, with dispatch stalls at 255 registers
// (experiments/notebook/results/h100/notebook.txt). Kept as the experiment's evidence.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace sgemm::async_copy_chunked {

// 16 bytes from global `src` to shared `dst` (both 16-byte aligned): the first `valid`
// floats (0 to 4) are read, the rest of dst is zero-filled. .cg: cached in L2 only.
__device__ __forceinline__ void copy16(float* dst, const float* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(valid * 4)
               : "memory");
}

// 4 bytes: *src if `valid`, else zero (src is not read). .ca: cached in L1 as well, since
// the rest of each 32-byte sector arrives through the warp's next copies.
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
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile;
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
  static_assert(TM == 4 && TN % 4 == 0,
                "a thread's rows of As are the 4 rows that the swizzle spreads over the banks, "
                "and its slices of Bs are whole float4s");
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
  // blocks as fill 512 threads; bigger register tiles need up to 255 (all of them at the
  // default tile), one block.
  static constexpr int kMinBlocks = kAccumulators > 64 || kThreads >= 512 ? 1 : 512 / kThreads;
  static constexpr int kStrideA = kThreads / 4;           // rows of the A tile copied per pass
  static constexpr int kStrideB = kThreads / (BN / 4);    // rows of the B tile copied per pass
  static constexpr int kLoadsA = BM * BK / 4 / kThreads;  // chunks of A per thread per tile
  static constexpr int kLoadsB = BK * BN / 4 / kThreads;  // chunks of B per thread per tile
};

// Where row r of a column of chunks of As is stored: a permutation of each group of 32 rows.
// A warp reads rows 4t + i together (t = 0..7: its thread rows), and its copies write 8
// consecutive rows together; either set of 8 rows lands in the 8 different 16-byte slots
// of the 32 banks, so neither conflicts:   r % 32 = 4t + i  ->  8i + (t + 2i) % 8.
__device__ __forceinline__ int swizzle(int r) {
  return r / 32 * 32 + r % 4 * 8 + (r / 4 + r % 4 * 2) % 8;
}

// kMinBlocks caps the registers a thread may use so that many blocks fit. kAlignedA,
// kAlignedB, alignedC: the operand's pointer is 16-byte aligned and its ld a multiple of 4,
// so that its tiles move in 16-byte copies (A, B) or 128-bit stores (C).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES,
          bool kAlignedA, bool kAlignedB>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kMinBlocks)
    sgemm_async_copy(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                     int ldb, float beta, float* C, int ldc, bool alignedC) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  // The ring, in dynamic shared memory: STAGES buffers of each tile.
  extern __shared__ float4 ring[];
  // As[.][4 * (c * BM + swizzle(r)) + kk] = A[blockRow + r][k0 + 4 * c + kk]
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
  // Copies: a warp copies 32 chunks (float4s) per pass. Of the (BM, BK) A tile, a block of
  // (8 rows, 4 chunks): warps over kStrideA rows, then over the BK/16 columns of such blocks;
  // of the (BK, BN) B tile, threadIdx.x over (kStrideB, BN/4) as in rung 8.
  const int innerColA = lane / 8;     // the chunk of its warp's block it copies (16-byte copies)
  const int innerRowA = warpIdx * 8;  // the block's first row
  const int innerColB = threadIdx.x % (BN / 4);  // the chunk of the B tile it copies
  const int innerRowB = threadIdx.x / (BN / 4);

  // Starts copying the tiles at k0 into buffer `buf`, zero past the end of K and of N; rows
  // of A past M are copied from row M-1 instead, as they only feed rows of C that are never
  // stored. 16-byte copies: lane n copies chunk n of its warp's 32. 4-byte copies: copy q of
  // lane n copies float n % 4 of chunk 8q + n / 4, so that each instruction writes 32 banks.
  auto fetch = [&](int k0, int buf) {
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      // This pass's block of A: rows r0 .. r0+7, chunks c0 .. c0+3 of the tile.
      const int r0 = innerRowA + l % (BM / T::kStrideA) * T::kStrideA;
      const int c0 = l / (BM / T::kStrideA) * 4;
      if constexpr (kAlignedA) {
        const int r = r0 + lane % 8, c = c0 + innerColA;  // lane over (8 rows, 4 chunks)
        const int rowA = min(blockRow + r, M - 1), colA = k0 + c * 4;
        const int valid = min(max(K - colA, 0), 4);  // floats of the chunk inside the row
        copy16(&As[buf][4 * (c * BM + swizzle(r))], A + rowA * lda + (valid ? colA : 0), valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int r = r0 + lane / 4, c = c0 + q, kk = lane % 4;  // lane over (8 rows, 4 floats)
          const int rowA = min(blockRow + r, M - 1), colA = k0 + c * 4 + kk;
          copy4(&As[buf][4 * (c * BM + swizzle(r)) + kk], A + rowA * lda + (colA < K ? colA : 0),
                colA < K);
        }
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
          // lane over 32 consecutive floats of its warp's 128 (innerColB - lane: the first chunk)
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
  float regM[T::WMITER * TM * 4];  // regM[i*4 + kk]: i over (WMITER, TM), kk over 4 k of As
  float regN[WNITER * TN];         // regN[j]: j over (WNITER, TN), columns of Bs at this k
  // Tiles 0 .. STAGES-2 start on their way, one group each; a group stays empty past the end
  // of K, so that group g is always tile g and the wait below counts right.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s * BK < K) fetch(s * BK, s);
    commit();
  }
  for (int k0 = 0, buf = 0; k0 < K; k0 += BK, buf = buf + 1 < STAGES ? buf + 1 : 0) {
    wait_pending<STAGES - 2>();  // this thread's copies of this tile have landed
    __syncthreads();  // one barrier a step: everyone's have, and everyone is done with the
                      // buffer computed on last step, which the next tile now refills
    const int ahead = k0 + (STAGES - 1) * BK;
    if (ahead < K) fetch(ahead, buf > 0 ? buf - 1 : STAGES - 1);  // in flight for STAGES-1 steps
    commit();

    // Unrolled: per chunk of 4 k, one float4 of As for each of the thread's rows, then four
    // steps of k that each read a row slice of Bs and reuse those As registers.
#pragma unroll
    for (int kc = 0; kc < BK / 4; ++kc) {
#pragma unroll
      for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          // r over (BM/WM, WMITER, WSUBM/TM, TM): (warpRow, wm, threadRow, i)
          const int r = warpRow * WM + wm * T::WSUBM + threadRow * TM + i;
          *reinterpret_cast<float4*>(&regM[(wm * TM + i) * 4]) =
              *reinterpret_cast<const float4*>(&As[buf][4 * (kc * BM + swizzle(r))]);
        }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const int k = kc * 4 + kk;
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
          for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(&regN[wn * TN + j]) = *reinterpret_cast<const float4*>(
                &Bs[buf][k * BN + warpCol * WN + wn * T::WSUBN + threadCol * TN + j]);
#pragma unroll
        for (int i = 0; i < T::WMITER * TM; ++i)
#pragma unroll
          for (int j = 0; j < WNITER * TN; ++j)
            acc[i * WNITER * TN + j] += regM[i * 4 + kk] * regN[j];
      }
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

// More than 48 KiB of dynamic shared memory is opt-in, per kernel and per device. The flags
// are function-local statics, one set per kernel, initialised thread-safely; two threads
// that race on a device both set the same value, which is harmless.
template <auto kernel>
cudaError_t allow_shared_bytes(int bytes) {
  constexpr int kMaxDevices = 64;
  static std::atomic<bool> allowed[kMaxDevices] = {};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess || (device < kMaxDevices && allowed[device].load())) return err;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess && device < kMaxDevices) allowed[device].store(true);
  return err;
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  const dim3 block(T::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  // One kernel per alignment of A and of B, decided per operand; C's is a run-time flag.
  auto run = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel = sgemm_async_copy<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES,
                                             decltype(alignedA)::value, decltype(alignedB)::value>;
    const cudaError_t err = allow_shared_bytes<kernel>(T::kSharedBytes);
    if (err != cudaSuccess) return err;
    kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                     aligned16(C) && ldc % 4 == 0);
    return cudaGetLastError();
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (aligned16(A) && lda % 4 == 0)
    return aligned16(B) && ldb % 4 == 0 ? run(Yes{}, Yes{}) : run(Yes{}, No{});
  return aligned16(B) && ldb % 4 == 0 ? run(No{}, Yes{}) : run(No{}, No{});
}

}  // namespace sgemm::async_copy_chunked

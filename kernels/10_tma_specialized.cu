// Rung 10: Hopper's data movement. Tiles now travel from global to shared memory by the Tensor
// Memory Accelerator (TMA): one instruction (cp.async.bulk.tensor, SASS UTMALDG) copies a whole
// tile, described by a tensor map that the launcher builds on the host; mbarriers in shared
// memory say when a buffer of the ring has landed and when it is free again; and a producer
// warpgroup issues the copies while two consumer warpgroups compute.
//
// In rung 9 every thread spent issue slots on its share of the copies: their addresses, the
// guards that zero-fill the edges, commit and wait, and one barrier per tile for the whole
// block. The kernel is issue-bound, so each of those instructions cost an FFMA. Now one thread
// issues two copies per tile, and TMA fills what lies past M, N or K with zeros. Each buffer
// has two mbarriers: `full` completes when the copies' bytes have landed, `empty` when every
// consumer warp has read the buffer. The consumers' loop is FFMA, LDS.128, one wait and one
// arrive: no __syncthreads.
//
// A block of more than 8 warps caps every thread at 168 registers (the register file is
// split among the SM's four schedulers), and the consumers need 240. setmaxnreg (sm_90a only)
// moves them: the producer warpgroup drops to 24 registers a thread and the consumers take
// what it frees.
//
// TMA copies rows as they lie and cannot transpose, so As holds A's box as [m][k]: BK = 32
// floats = 128 bytes a row, its 16-byte chunks permuted by TMA's 128-byte swizzle. A thread
// reads one chunk per row (LDS.128, four k) and keeps it for four steps of k; its rows are 8
// apart instead of consecutive, so that the 8 rows a warp reads at once lie in the swizzle's
// 8 phases: no bank conflicts.
//
// TMA needs A and B 16-byte aligned with lda and ldb multiples of 4; otherwise the launcher
// runs rung 9 (sgemm::async_copy::launch). The kernel is sm_90a code: on a GPU that is not
// compute capability 9.0 the launcher returns cudaErrorNoKernelImageForDevice.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <cstdint>

#include "hopper.cuh"  // mbarriers, TMA copies, setmaxnreg (docs/10 explains each)
#include "runtime.h"   // tensor maps, the shared-memory opt-in, the Hopper check
#include "sgemm.h"     // Gemm: the problem, as every rung's launcher takes it

namespace sgemm::async_copy {  // rung 9, the path for operands that TMA cannot read
cudaError_t launch(const Gemm& gemm, cudaStream_t stream);
}

namespace sgemm::tma_specialized {

using namespace hopper;

// BM x BN: C per block; BK: depth staged per step; WM x WN: C per consumer warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile;
// STAGES: buffers of the ring.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
struct Tile {
  static constexpr int kConsumerThreads = (BM / WM) * (BN / WN) * 32;  // one warp per warp tile
  static constexpr int kProducerThreads = 128;  // a warpgroup; one of its threads issues copies
  static constexpr int kThreads = kConsumerThreads + kProducerThreads;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / (WMITER > 0 ? WMITER : 1);  // rows of one warp sub-tile
  static constexpr int WSUBN = WN / WNITER;                     // columns of one
  static constexpr int kAccumulators = WM * WN / 32;            // elements of C per thread
  static constexpr int kThreadRows = WSUBM / TM;  // threads down a sub-tile: a thread's rows
                                                  // lie this many rows apart
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WMITER >= 1 && (WM * WN) % (32 * TM * TN * WNITER) == 0,
                "a warp's 32 threads cover its tile in whole sub-tiles");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles cover the warp tile exactly");
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 threads of a warp tile one sub-tile with their micro-tiles");
  static_assert(TN % 4 == 0, "a thread's slices of Bs are whole float4s");
  static_assert(kThreadRows % 8 == 0,
                "a warp reads 8 consecutive rows of As at once, one in each phase of the swizzle");
  static_assert(BK * 4 == 32 || BK * 4 == 64 || BK * 4 == 128,
                "a row of the A box is one swizzle span of 32, 64 or 128 bytes: BK = 8, 16, 32");
  static_assert(BM <= 256 && BN <= 256 && BK <= 256, "a TMA box is at most 256 elements a side");
  static_assert(kConsumerThreads % 128 == 0,
                "setmaxnreg acts on whole warpgroups: the consumers are whole warpgroups");
  static_assert(kThreads >= 32 && kThreads <= 1024, "a block has 32 to 1024 threads");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static constexpr int kStageBytesA = BM * BK * 4;  // one box of A: bytes its copy brings
  static constexpr int kStageBytesB = BK * BN * 4;  // one box of B
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;  // what `full` waits for
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 128 == 0,
                "every A box starts on a 1024-byte boundary (the swizzle's period), every B box "
                "on a 128-byte one (TMA's alignment in shared memory)");
  static constexpr int kSharedBytes = STAGES * kStageBytes + 1024;  // the ring, As and Bs, and
                                                                    // room to align it to 1024
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  // One block per SM (the ring takes most of its shared memory), and a register count at
  // launch that setmaxnreg can rely on.
  static constexpr int kMinBlocks = 1;
  // Registers. The register file is split among the SM's 4 schedulers (16384 each); a block of
  // w warps puts ceil(w / 4) on one scheduler, so a thread gets at most
  // 16384 / (32 * ceil(w / 4)), rounded down to a multiple of 8: 168 for 12 warps. The
  // producer warpgroup drops to kProducerRegs; the consumers rise to kConsumerRegs, paid for
  // by what the producer released.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;  // setmaxnreg's minimum
  static constexpr int kConsumerRegs =
      kLaunchRegs + kProducerThreads * (kLaunchRegs - kProducerRegs) / kConsumerThreads / 8 * 8;
  static_assert(kConsumerRegs <= 256 && kConsumerThreads * (kConsumerRegs - kLaunchRegs) <=
                                            kProducerThreads * (kLaunchRegs - kProducerRegs),
                "the consumers claim no more registers than the producer released");
};

// Where chunk c (floats 4c .. 4c+3) of row r of an A box lies, in floats from the box's
// start. TMA writes the box row by row, BK floats (one swizzle span) a row, and XORs the
// chunk's index, address bits [4, 4+b), with address bits [7, 7+b), b = log2(BK / 4): the
// 128-byte swizzle for BK = 32 (64-byte for 16, 32-byte for 8). Boxes start on 1024-byte
// boundaries, so offsets and addresses agree in those bits; the pattern repeats every 8 rows.
template <int BK>
__device__ __forceinline__ int swizzle(int r, int c) {
  return r * BK + 4 * (c ^ (r * BK / 32 % (BK / 4)));
}

// kMinBlocks = 1 fixes each thread's registers at launch (kLaunchRegs), which setmaxnreg then
// moves between the warpgroups. tmA, tmB: tensor maps of A and B (boxes of BM x BK and
// BK x BN). alignedC: C's pointer is 16-byte aligned and ldc a multiple of 4, so that its tiles
// move in 128-bit stores.
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
__global__ void __launch_bounds__(Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>::kMinBlocks)
    sgemm_tma_specialized(int M, int N, int K, float alpha, const __grid_constant__ CUtensorMap tmA,
                          const __grid_constant__ CUtensorMap tmB, float beta, float* C, int ldc,
                          bool alignedC) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  // The ring, in dynamic shared memory aligned to 1024 bytes: STAGES buffers of each tile.
  extern __shared__ float4 ring[];
  float4* ring1024 = ring + (1024 - smem_addr(ring) % 1024) % 1024 / 16;
  // As[.][swizzle<BK>(r, c) + q] = A[blockRow + r][k0 + 4c + q]: the box as TMA lays it out
  float(*As)[BK * BM] = reinterpret_cast<float(*)[BK * BM]>(ring1024);
  // Bs[.][k * BN + c] = B[k0 + k][blockCol + c]
  float(*Bs)[BK * BN] = reinterpret_cast<float(*)[BK * BN]>(As + STAGES);
  __shared__ uint64_t full[STAGES];   // buffer s holds its tiles: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  // Warps tile the block tile: warpIdx over (BM/WM, BN/WN), column fastest. The warps after
  // them, the last warpgroup, are the producer.
  const int warpIdx = threadIdx.x / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  // Lanes tile one sub-tile: lane over (WSUBM/TM, WSUBN/TN), column fastest.
  const int lane = threadIdx.x % 32;
  const int threadCol = lane % (T::WSUBN / TN);  // this thread owns columns threadCol*TN ..
  const int threadRow = lane / (T::WSUBN / TN);  // and rows threadRow + i*kThreadRows of each
  const int blockRow = blockIdx.y * BM;
  const int blockCol = blockIdx.x * BN;

  // Starts copying the tiles at k0 into buffer `buf`: announce the bytes on full[buf], then
  // one copy per tile, whose bytes complete full[buf] as they land. Parts of a box outside the
  // matrix (past M, N or K) arrive as zeros and count toward the bytes all the same.
  auto fetch = [&](int k0, int buf) {
    mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
    tma_load_2d(As[buf], &tmA, k0, blockRow, &full[buf]);  // A's box at (k, m) = (k0, blockRow)
    tma_load_2d(Bs[buf], &tmB, blockCol, k0, &full[buf]);  // B's box at (n, k) = (blockCol, k0)
  };

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmA);
    prefetch_tensormap(&tmB);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], T::kConsumerThreads / 32);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the block's one barrier: the mbarriers exist before anyone uses them

  if (threadIdx.x >= T::kConsumerThreads) {
    // The producer warpgroup gives its registers to the consumers, and one of its threads
    // keeps the ring full. Fill n of a buffer (phase = n % 2) waits for the consumers to
    // release fill n - 1: the completion of empty[buf] with parity (n - 1) % 2 = phase ^ 1. A
    // fresh mbarrier counts as having completed the phase before phase 0, so fill 0 does not
    // wait.
    release_registers<T::kProducerRegs>();
    if (threadIdx.x == T::kConsumerThreads)
      for (int k0 = 0, buf = 0, phase = 0; k0 < K; k0 += BK) {
        mbar_wait(&empty[buf], phase ^ 1);  // every consumer warp is done with this buffer
        fetch(k0, buf);
        if (++buf == STAGES) buf = 0, phase ^= 1;
      }
    return;
  }
  claim_registers<T::kConsumerRegs>();

  // acc[i * WNITER*TN + j]: i over (WMITER, TM), j over (WNITER, TN): this thread's
  // element (threadRow + (i%TM)*kThreadRows) of sub-tile row i/TM, (threadCol*TN + j%TN) of
  // column j/TN.
  float acc[T::WMITER * TM * WNITER * TN] = {};
  float regM[T::WMITER * TM * 4];  // regM[i * 4 + q]: i over (WMITER, TM) rows, q over 4 k
  float regN[WNITER * TN];         // regN[j]: j over (WNITER, TN), columns of Bs at this k
  // The thread's rows of As are r0 + wm*WSUBM + i*kThreadRows: r over (BM/WM, WMITER, TM,
  // kThreadRows) = (warp, sub-tile, row, thread). They lie multiples of 8 rows apart, whole
  // periods of the swizzle, so all of them keep r0's chunk order.
  const int r0 = warpRow * WM + threadRow;
  for (int k0 = 0, buf = 0, phase = 0; k0 < K; k0 += BK) {
    mbar_wait(&full[buf], phase);  // this buffer's tiles have landed

    // Per chunk c of 4 k: one float4 of As for each of the thread's rows, then four k that
    // each read four float4s of Bs and reuse those As registers.
#pragma unroll
    for (int c = 0; c < BK / 4; ++c) {
      const float* a = &As[buf][swizzle<BK>(r0, c)];
#pragma unroll
      for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i)
          *reinterpret_cast<float4*>(&regM[(wm * TM + i) * 4]) =
              *reinterpret_cast<const float4*>(a + (wm * T::WSUBM + i * T::kThreadRows) * BK);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int k = c * 4 + q;
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
            acc[i * WNITER * TN + j] += regM[i * 4 + q] * regN[j];
      }
    }
    __syncwarp();                             // every lane of this warp is done reading buf,
    if (lane == 0) mbar_arrive(&empty[buf]);  // so the warp releases it to the producer
    if (++buf == STAGES) buf = 0, phase ^= 1;
  }

  // Unrolled, so that acc[] is indexed with constants and stays in registers.
#pragma unroll
  for (int i = 0; i < T::WMITER * TM; ++i) {
    const int row =
        blockRow + warpRow * WM + (i / TM) * T::WSUBM + (i % TM) * T::kThreadRows + threadRow;
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
#endif  // sm_90a
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                        int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  const dim3 block(T::kThreads);
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  // The fallback: a tensor map needs a 16-byte aligned base and rows a multiple of 16 bytes
  // apart. Where A's or B's are not, rung 9 runs instead (C's alignment only matters to the
  // epilogue's stores, a run-time flag here as there).
  if (!aligned16(A) || !aligned16(B) || lda % 4 != 0 || ldb % 4 != 0)
    return async_copy::launch({M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream);
  constexpr auto kernel = sgemm_tma_specialized<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES>;
  constexpr CUtensorMapSwizzle kSwizzleA = BK == 32   ? CU_TENSOR_MAP_SWIZZLE_128B
                                           : BK == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                      : CU_TENSOR_MAP_SWIZZLE_32B;
  CUtensorMap tmA, tmB;  // built per call (pointers and sizes change); 128 bytes each
  constexpr CUtensorMapDataType kFloat = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmA, A, kFloat, M, K, lda, BM, BK, kSwizzleA);
  if (err == cudaSuccess)
    err = runtime::make_tensor_map(&tmB, B, kFloat, K, N, ldb, BK, BN, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (err != cudaSuccess) return err;
  kernel<<<grid, block, T::kSharedBytes, stream>>>(M, N, K, alpha, tmA, tmB, beta, C, ldc,
                                                   aligned16(C) && ldc % 4 == 0);
  return cudaGetLastError();
}

// The tile and ring of the prototype measured on an H100, 2026-11-21 (experiments/rung10,
// results/h100/experiments/rung10_prototype.txt): rung 9's tile with BK = 32 and 4 stages
// (193 KiB), 95.2% of cuBLAS at 4096^3 and 95.9% at 8192^3; BK = 16 with 8 stages 89.6%, no
// producer warp (8 warps at 255 registers) 88.2%, a persistent grid 92.8%.
cudaError_t launch(const Gemm& gemm, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = gemm;
  //                BM   BN  BK  WM  WN WNITER TM TN STAGES
  return launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 4>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                                                       stream);
}

}  // namespace sgemm::tma_specialized

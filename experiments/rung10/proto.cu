// Rung 10 prototype: an FFMA SGEMM fed by the Tensor Memory Accelerator (TMA) on sm_90a.
//
// The copies of A and B tiles are one instruction each (`cp.async.bulk.tensor`, SASS UTMALDG),
// issued by one thread into a ring of STAGES shared-memory stages. Each stage has two
// mbarriers: "full" (the producer announces the stage's bytes, TMA counts them in as they land)
// and "empty" (each consumer warp arrives once it has read the stage). The consumers are rung
// 9's warp tiles: no __syncthreads(), no global loads, no shared stores and no copy addresses
// in their instruction stream any more, only LDS.128 and FFMA and one wait and one arrive per
// stage.
//
// Two ways to issue the copies (template flag kSpecialized):
//   true:  warp specialization. A producer warpgroup (128 threads, one of which works) runs
//          ahead of 2 consumer warpgroups. A block of 12 warps would cap every thread at 168
//          registers, so the producer gives its registers away (setmaxnreg.dec 24) and the
//          consumers take them (setmaxnreg.inc 240): sm_90a only.
//   false: no producer warp. Consumer thread 0 issues the copy for k-tile g + STAGES - 2
//          when it starts k-tile g (waiting, if it must, for the warps to release g - 2).
//          The block stays 8 warps at 255 registers; plain sm_90 is enough.
//
// A arrives as TMA copies it: a BM x BK box, row m holds k contiguous ([m][k]), its 16-byte
// chunks permuted by the 128B (BK = 32; 64B for BK = 16) swizzle. As in rung 9 the consumer
// reads one chunk per row (LDS.128, four k-steps). A thread's rows are now kThreadRows (8)
// apart, not consecutive, so that the 8 rows a warp reads at once lie in 8 different phases
// of the swizzle: no bank conflicts. B arrives [k][n], unswizzled, as before.
//
// Edges: TMA fills out-of-bounds elements of a box with zeros, so any M, N, K works in the main
// loop; the epilogue checks rows and columns as before. TMA needs 16-byte aligned A and B and
// lda, ldb multiples of 4 floats; this launcher refuses anything else (rung 10 proper runs
// rung 9's path there). The grid is persistent (one block per SM walking tiles) or one block
// per tile, chosen at launch.
//
// Build and run (an H100 or H200; cuBLAS only as the timing reference):
//   nvcc -O3 -std=c++17 -arch=sm_90a -Xptxas -v -o proto proto.cu -lcublas
//   ./proto                  # checks every variant on odd and aligned shapes, then times 4096^3
//   ./proto 8192             # the same, timing 8192^3 (args: M [N [K [reps]]])
#include <cublas_v2.h>
#include <cuda.h>          // CUtensorMap and its enums (header only: libcuda is not linked)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace sgemm::tma {

// ---- PTX wrappers: one line each, so the kernel reads as the protocol it follows.

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// An mbarrier completes a phase when `count` arrivals have happened and every byte announced
// with expect_tx has landed; then its phase bit flips.
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
               : "memory");
}
// Makes the initialized barriers visible to the other threads and to the async proxy (TMA).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::
                   : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// Returns once the phase with this parity has completed (try_wait may suspend the thread for a
// while before it answers false; then we ask again).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
// One box of the tensor `map` at coordinates (c0 innermost, c1) into shared memory at `dst`;
// the bytes count toward `bar`'s transaction count.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
// setmaxnreg exists on sm_90a only; every warp of a warpgroup executes the same one.
template <int kRegs>
__device__ __forceinline__ void release_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
#endif
}
template <int kRegs>
__device__ __forceinline__ void claim_registers() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
#endif
}

// BM x BN: C per block; BK: depth of one stage; WM x WN: C per consumer warp, walked as
// WMITER x WNITER sub-tiles of WSUBM x WSUBN; TM x TN: C per thread in each sub-tile.
// STAGES: depth of the shared-memory ring.
// kSpecialized: a producer warpgroup issues the copies and hands its registers to the
//   consumers with setmaxnreg (sm_90a). Otherwise there is no producer warp: consumer thread 0
//   issues each copy, kLag stages behind the ring's free edge, and the block keeps 8 warps, so
//   every thread may use 255 registers without setmaxnreg (sm_90 is enough).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES,
          bool kSpecialized>
struct Tile {
  static constexpr int kConsumerThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int kConsumerWarps = kConsumerThreads / 32;
  static constexpr int kProducerThreads = kSpecialized ? 128 : 0;
  static constexpr int kThreads = kProducerThreads + kConsumerThreads;
  static constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static constexpr int WSUBM = WM / (WMITER > 0 ? WMITER : 1);  // rows of one warp sub-tile
  static constexpr int WSUBN = WN / WNITER;                     // columns of one
  static constexpr int kThreadRows = WSUBM / TM;  // threads down a sub-tile = how far apart a
                                                  // thread's rows are
  static constexpr int kRowBytesA = BK * 4;  // one row of the A box (k contiguous) = swizzle span
  static constexpr int kStageBytesA = BM * BK * 4;
  static constexpr int kStageBytesB = BK * BN * 4;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;
  static constexpr int kSmemBytes = STAGES * kStageBytes + 1024;  // + room to align to 1024
  static constexpr int kLag = 1;  // in-line producer: stages of slack before it must wait
  // Registers. The register file is split among the SM's 4 schedulers (16384 each); a block of
  // w warps puts ceil(w / 4) on one scheduler, so a thread gets at most
  // 16384 / (32 * ceil(w / 4)) rounded down to 8: 8 warps -> 255, 9..12 warps -> 168.
  // With kSpecialized the producer warpgroup drops to kProducerRegs and the consumers rise to
  // kConsumerRegs, which the registers the producer released must cover.
  static constexpr int kLaunchRegs = 16384 / (32 * ((kThreads / 32 + 3) / 4)) / 8 * 8;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs =
      kSpecialized ? std::min(240, kLaunchRegs + kProducerThreads * (kLaunchRegs - kProducerRegs) /
                                                     std::max(kConsumerThreads, 1) / 8 * 8)
                   : kLaunchRegs;

  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile exactly");
  static_assert(WMITER >= 1 && (WM * WN) % (32 * TM * TN * WNITER) == 0,
                "a warp's 32 threads cover its tile in whole sub-tiles");
  static_assert(WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles cover the warp tile exactly");
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 threads of a warp tile one sub-tile with their micro-tiles");
  static_assert(TN % 4 == 0, "a thread's slice of a Bs row is whole float4s");
  static_assert(kThreadRows % 8 == 0,
                "a warp reads 8 consecutive A rows at once: one per swizzle phase, no conflicts");
  static_assert(kRowBytesA == 32 || kRowBytesA == 64 || kRowBytesA == 128,
                "an A box row is exactly one swizzle span (32, 64 or 128 bytes): BK = 8, 16, 32");
  static_assert(BM <= 256 && BN <= 256 && BK <= 256, "a TMA box has at most 256 elements a side");
  static_assert(BN * 4 % 16 == 0, "the B box's inner extent is a multiple of 16 bytes");
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 128 == 0,
                "every A box starts on a 1024-byte boundary (the swizzle pattern's period), "
                "every B box on a 128-byte one (TMA's smallest shared-memory alignment)");
  static_assert(kSmemBytes + 2 * STAGES * 8 <= 227 * 1024, "the ring fits in 227 KiB");
  static_assert(STAGES >= 2 + kLag || kSpecialized, "the in-line producer keeps a stage ahead");
  static_assert(!kSpecialized || kConsumerThreads % 128 == 0,
                "setmaxnreg acts on whole warpgroups: the consumers are whole warpgroups");
  static_assert(!kSpecialized || kConsumerThreads * (kConsumerRegs - kLaunchRegs) <=
                                     kProducerThreads * (kLaunchRegs - kProducerRegs),
                "the producer releases at least as many registers as the consumers claim");
};

// Where chunk kc (floats 4kc .. 4kc+3) of row r of an A box lies, in floats from the box's
// start (1024-byte aligned). TMA stores the box row by row (BK floats = one swizzle span of
// BK * 4 bytes) and XORs the 16-byte chunk index, address bits [4, 4+b), with address bits
// [7, 7+b), b = log2(BK / 4): the 128B (BK = 32), 64B (16) or 32B (8) swizzle mode.
template <int BK>
__device__ __forceinline__ int swizzle(int r, int kc) {
  return r * BK + 4 * (kc ^ (r * BK / 32 % (BK / 4)));
}

// Which block tile the linear index `tile` is: groups of `group` tile-rows, walked
// column by column inside a group (group = 1: row by row, as blockIdx.x/y did).
__device__ __forceinline__ void tile_coords(int tile, int tilesM, int tilesN, int group,
                                            int& tileRow, int& tileCol) {
  const int perGroup = group * tilesN;
  const int first = tile / perGroup * group;
  const int rows = min(tilesM - first, group);
  const int inGroup = tile % perGroup;
  tileRow = first + inGroup % rows;
  tileCol = inGroup / rows;
}

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES,
          bool kSpecialized>
__global__ void __launch_bounds__(
    Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, kSpecialized>::kThreads, 1)
    sgemm_tma(int M, int N, int K, float alpha, const __grid_constant__ CUtensorMap tmA,
              const __grid_constant__ CUtensorMap tmB, float beta, float* C, int ldc, int group) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, kSpecialized>;
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (kSpecialized) {  // built without sm_90a: no setmaxnreg, consumers would spill
    __trap();
    return;
  }
#endif
  // The ring, in dynamic shared memory aligned to 1024 bytes: STAGES boxes of each tile.
  extern __shared__ uint8_t smemRaw[];
  __shared__ uint64_t fullBar[STAGES];   // stage s holds data: 1 arrival + the TMA bytes
  __shared__ uint64_t emptyBar[STAGES];  // stage s is free again: one arrival per consumer warp
  uint8_t* smem = smemRaw + ((1024 - smem_addr(smemRaw) % 1024) % 1024);
  // As[s][swizzle<BK>(r, kc) + kk] = A[blockRow + r][k0 + 4 * kc + kk]   (the box as TMA lays it)
  float(*As)[BM * BK] = reinterpret_cast<float(*)[BM * BK]>(smem);
  // Bs[s][k * BN + c] = B[k0 + k][blockCol + c]
  float(*Bs)[BK * BN] = reinterpret_cast<float(*)[BK * BN]>(As + STAGES);

  const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
  const int numTiles = tilesM * tilesN;
  const int numK = (K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmA);  // the descriptors' first use will not wait for them
    prefetch_tensormap(&tmB);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&fullBar[s], 1);
      mbar_init(&emptyBar[s], T::kConsumerWarps);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the only block-wide barrier: the barriers exist before anyone uses them

  // The producer's side of the protocol, for one k-tile: wait until the consumers have
  // released the stage (a fresh barrier counts as having completed the phase before phase 0,
  // so the first pass, parity 1, does not wait), announce the bytes, start both copies.
  int pTile = blockIdx.x, pK = 0, pStage = 0, pRow = 0, pCol = 0;
  uint32_t pPhase = 0;
  auto produce = [&] {
    mbar_wait(&emptyBar[pStage], pPhase ^ 1);
    if (pK == 0) tile_coords(pTile, tilesM, tilesN, group, pRow, pCol);
    mbar_arrive_expect_tx(&fullBar[pStage], T::kStageBytes);
    tma_load_2d(As[pStage], &tmA, pK * BK, pRow * BM, &fullBar[pStage]);  // A box at {k, m}
    tma_load_2d(Bs[pStage], &tmB, pCol * BN, pK * BK, &fullBar[pStage]);  // B box at {n, k}
    if (++pK == numK) pK = 0, pTile += gridDim.x;
    if (++pStage == STAGES) pStage = 0, pPhase ^= 1;
  };

  if constexpr (kSpecialized) {
    if (threadIdx.x < T::kProducerThreads) {
      // ---------------- Producer warpgroup: one thread keeps the ring full, across tiles.
      release_registers<T::kProducerRegs>();
      if (threadIdx.x == 0)
        while (pTile < numTiles) produce();
      return;
    }
    claim_registers<T::kConsumerRegs>();
  } else {
    // In-line producer: consumer thread 0 fills the first stages now, one more per k-tile later.
    if (threadIdx.x == 0)
      for (int s = 0; s < STAGES - 1 - T::kLag && pTile < numTiles; ++s) produce();
  }

  // ---------------- Consumers: rung 9's warp tiles, reading the ring.
  const int ct = threadIdx.x - T::kProducerThreads;  // consumer thread index
  const int warpIdx = ct / 32;
  const int warpCol = warpIdx % (BN / WN);  // this warp owns columns warpCol*WN ..
  const int warpRow = warpIdx / (BN / WN);  // and rows warpRow*WM .. of the block tile
  const int lane = ct % 32;
  const int threadCol = lane % (T::WSUBN / TN);  // columns threadCol*TN .. of each sub-tile
  const int threadRow = lane / (T::WSUBN / TN);  // rows threadRow + kThreadRows*i of each one

  // The thread's first row of the A box; its rows are r0 + wm * WSUBM + i * kThreadRows:
  // r over (BM / WM, WMITER, TM, WSUBM / TM) = warp, sub-tile, row, thread.
  const int r0 = warpRow * WM + threadRow;
  static_assert(T::WSUBM % 8 == 0 && WM % 8 == 0, "rows 8 apart share a swizzle pattern");
  // acc[i * WNITER * TN + j]: i over (WMITER, TM), j over (WNITER, TN)
  float acc[T::WMITER * TM * WNITER * TN];
  float regM[T::WMITER * TM * 4];  // regM[i * 4 + kk]: i over (WMITER, TM) rows, kk over 4 k
  float regN[WNITER * TN];         // regN[j]: j over (WNITER, TN), a row slice of Bs
  int stage = 0;
  uint32_t phase = 0;
  for (int tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    int tileRow, tileCol;
    tile_coords(tile, tilesM, tilesN, group, tileRow, tileCol);
#pragma unroll
    for (int i = 0; i < T::WMITER * TM * WNITER * TN; ++i) acc[i] = 0.f;

    for (int kt = 0; kt < numK; ++kt) {
      if constexpr (!kSpecialized)
        if (ct == 0 && pTile < numTiles) produce();  // refill the stage freed kLag tiles ago
      mbar_wait(&fullBar[stage], phase);  // the TMA bytes of this stage have landed

      // Unrolled: per chunk of 4 k, one float4 of As for each of the thread's rows, then four
      // steps of k that each read a row slice of Bs and reuse those As registers.
#pragma unroll
      for (int kc = 0; kc < BK / 4; ++kc) {
        // The thread's rows are r0 + wm * WSUBM + i * kThreadRows, multiples of 8 apart: one
        // period of the swizzle, so they share r0's chunk order.
        const float* a = &As[stage][swizzle<BK>(r0, kc)];
#pragma unroll
        for (int wm = 0; wm < T::WMITER; ++wm)
#pragma unroll
          for (int i = 0; i < TM; ++i)
            *reinterpret_cast<float4*>(&regM[(wm * TM + i) * 4]) = *reinterpret_cast<const float4*>(
                a + (wm * T::WSUBM + i * T::kThreadRows) * BK);
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          const int k = kc * 4 + kk;
#pragma unroll
          for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int j = 0; j < TN; j += 4)
              *reinterpret_cast<float4*>(&regN[wn * TN + j]) = *reinterpret_cast<const float4*>(
                  &Bs[stage][k * BN + warpCol * WN + wn * T::WSUBN + threadCol * TN + j]);
#pragma unroll
          for (int i = 0; i < T::WMITER * TM; ++i)
#pragma unroll
            for (int j = 0; j < WNITER * TN; ++j)
              acc[i * WNITER * TN + j] += regM[i * 4 + kk] * regN[j];
        }
      }
      __syncwarp();  // every lane of this warp has read the stage
      if (lane == 0) mbar_arrive(&emptyBar[stage]);
      if (++stage == STAGES) stage = 0, phase ^= 1;
    }

    // Epilogue, as rung 9 (a thread's rows are kThreadRows apart now). The producer is already
    // filling the ring with the next tile's first k-tiles.
    const int blockRow = tileRow * BM, blockCol = tileCol * BN;
    const bool vec = (ldc % 4 == 0) && (reinterpret_cast<uintptr_t>(C) % 16 == 0);
#pragma unroll
    for (int i = 0; i < T::WMITER * TM; ++i) {
      const int row = blockRow + warpRow * WM + (i / TM) * T::WSUBM +
                      (i % TM) * T::kThreadRows + threadRow;
      if (row >= M) continue;
#pragma unroll
      for (int j = 0; j < WNITER * TN; j += 4) {
        const int col = blockCol + warpCol * WN + (j / TN) * T::WSUBN + threadCol * TN + j % TN;
        float* c = &C[row * ldc + col];
        const float* r = &acc[i * WNITER * TN + j];
        if (vec && col + 3 < N) {  // one 128-bit store (and load, when beta != 0)
          float4 out = make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]);
          if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read
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
}

// ---- Host side.

// cuTensorMapEncodeTiled lives in the driver (libcuda). The runtime hands out its address, so
// the program links only cudart. Looked up once.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A row-major rows x cols matrix with leading dimension ld (floats), read in boxes of
// boxRows x boxCols. Dimension 0 is the contiguous one (columns). Out-of-bounds elements of a
// box arrive as zeros (OOB_FILL_NONE).
bool make_map(CUtensorMap* map, const float* base, int rows, int cols, int ld, int boxRows,
              int boxCols, CUtensorMapSwizzle swizzle) {
  const auto encode = encode_tiled();
  if (!encode) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};  // bytes, dim 1
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(boxCols), static_cast<cuuint32_t>(boxRows)};
  const cuuint32_t step[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides,
                box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

struct Options {
  bool persistent = true;
  int group = 8;
};

template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int STAGES,
          bool kSpecialized>
cudaError_t launch_tile(int M, int N, int K, float alpha, const float* A, int lda,
                        const float* B, int ldb, float beta, float* C, int ldc,
                        cudaStream_t stream, Options opt) {
  using T = Tile<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, kSpecialized>;
  // TMA's rules: 16-byte aligned base, row pitch a multiple of 16 bytes.
  auto aligned16 = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (!aligned16(A) || !aligned16(B) || lda % 4 != 0 || ldb % 4 != 0)
    return cudaErrorInvalidValue;  // rung 10 proper: run rung 9's path instead
  int device = 0, major = 0, minor = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  if (major != 9 || minor != 0) return cudaErrorNoKernelImageForDevice;  // sm_90a code only

  constexpr CUtensorMapSwizzle kSwizzle = T::kRowBytesA == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                          : T::kRowBytesA == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                                : CU_TENSOR_MAP_SWIZZLE_32B;
  CUtensorMap tmA, tmB;
  if (!make_map(&tmA, A, M, K, lda, BM, BK, kSwizzle) ||
      !make_map(&tmB, B, K, N, ldb, BK, BN, CU_TENSOR_MAP_SWIZZLE_NONE))
    return cudaErrorInvalidValue;

  auto kernel = sgemm_tma<BM, BN, BK, WM, WN, WNITER, TM, TN, STAGES, kSpecialized>;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes);
  if (err != cudaSuccess) return err;
  const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
  const int grid = opt.persistent ? std::min(tiles, sms) : tiles;
  kernel<<<grid, T::kThreads, T::kSmemBytes, stream>>>(M, N, K, alpha, tmA, tmB, beta, C, ldc,
                                                       opt.group);
  return cudaGetLastError();
}

}  // namespace sgemm::tma

// ======================================================================================
// Test driver: exact and tolerance checks against an FP64-accumulating reference, timing
// against cuBLAS SGEMM (true FP32) in the same process.

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                   \
                   cudaGetErrorString(e_));                                             \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)
#define CHECK_CUBLAS(x)                                                                       \
  do {                                                                                        \
    cublasStatus_t s_ = (x);                                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

// ref = sum_k A[i][k] B[k][j] in double, and bound = sum_k |A||B| for the error bound.
__global__ void reference(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                          double* ref, double* bound) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= N || row >= M) return;
  double s = 0, b = 0;
  for (int k = 0; k < K; ++k) {
    const double p = double(A[(size_t)row * lda + k]) * double(B[(size_t)k * ldb + col]);
    s += p, b += fabs(p);
  }
  ref[(size_t)row * N + col] = s, bound[(size_t)row * N + col] = b;
}

using Launch = cudaError_t (*)(int, int, int, float, const float*, int, const float*, int, float,
                               float*, int, cudaStream_t, sgemm::tma::Options);
struct Variant {
  const char* name;
  Launch launch;
};
// The variants the design doc asks to compare first (see design.md, "What to measure first").
const Variant kVariants[] = {
    {"BK32 S4 specialized+setmaxnreg (384)",
     sgemm::tma::launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 4, true>},
    {"BK16 S8 specialized+setmaxnreg (384)",
     sgemm::tma::launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 8, true>},
    {"BK32 S4 in-line producer (256 thr)",
     sgemm::tma::launch_tile<128, 256, 32, 64, 64, 4, 4, 4, 4, false>},
    {"BK16 S8 in-line producer (256 thr)",
     sgemm::tma::launch_tile<128, 256, 16, 64, 64, 4, 4, 4, 8, false>},
    // 12 consumer warps (3 per scheduler) with smaller register tiles (96 accumulators).
    {"192x192 BK32 S4 in-line (384 thr)",
     sgemm::tma::launch_tile<192, 192, 32, 64, 48, 3, 4, 4, 4, false>},
    {"192x192 BK32 S4 specialized (512 thr)",
     sgemm::tma::launch_tile<192, 192, 32, 64, 48, 3, 4, 4, 4, true>},
};

struct Problem {
  int M, N, K, lda, ldb, ldc;
};

// Fills A and B, runs `v`, compares with the reference. Whole-number inputs make every partial
// sum exact in FP32 (|sum| < 2^24), so the check is equality; real inputs use the bound
// |c - ref| <= 2 K u sum|a||b| (u = 2^-24). C is poisoned with NaN first (beta = 0 never reads
// it); with beta != 0 it holds ones.
bool check(const Variant& v, Problem p, bool whole, float beta, sgemm::tma::Options opt) {
  const size_t nA = (size_t)p.M * p.lda, nB = (size_t)p.K * p.ldb, nC = (size_t)p.M * p.ldc;
  std::vector<float> hA(nA), hB(nB), hC(nC);
  std::mt19937 rng(1234 + p.M + 7 * p.N + 31 * p.K);
  std::uniform_int_distribution<int> small(-2, 2);
  std::uniform_real_distribution<float> real(-1.f, 1.f);
  for (auto& x : hA) x = whole ? float(small(rng)) : real(rng);
  for (auto& x : hB) x = whole ? float(small(rng)) : real(rng);
  for (auto& x : hC) x = beta == 0.f ? NAN : 1.f;
  float *A, *B, *C;
  double *ref, *bound;
  CHECK_CUDA(cudaMalloc(&A, nA * 4));
  CHECK_CUDA(cudaMalloc(&B, nB * 4));
  CHECK_CUDA(cudaMalloc(&C, nC * 4));
  CHECK_CUDA(cudaMalloc(&ref, (size_t)p.M * p.N * 8));
  CHECK_CUDA(cudaMalloc(&bound, (size_t)p.M * p.N * 8));
  CHECK_CUDA(cudaMemcpy(A, hA.data(), nA * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(B, hB.data(), nB * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(C, hC.data(), nC * 4, cudaMemcpyHostToDevice));
  const float alpha = whole ? 1.f : 1.5f;
  CHECK_CUDA(v.launch(p.M, p.N, p.K, alpha, A, p.lda, B, p.ldb, beta, C, p.ldc, nullptr, opt));
  reference<<<dim3((p.N + 127) / 128, p.M), 128>>>(p.M, p.N, p.K, A, p.lda, B, p.ldb, ref, bound);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> hRef((size_t)p.M * p.N), hBound((size_t)p.M * p.N);
  CHECK_CUDA(cudaMemcpy(hC.data(), C, nC * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hRef.data(), ref, hRef.size() * 8, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hBound.data(), bound, hBound.size() * 8, cudaMemcpyDeviceToHost));
  long bad = 0;
  double worst = 0;
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      const double want = alpha * hRef[(size_t)i * p.N + j] + (beta != 0.f ? beta * 1.0 : 0.0);
      const double got = hC[(size_t)i * p.ldc + j];
      const double tol =
          whole ? 0.0 : 2.0 * p.K * std::ldexp(1.0, -24) * std::fabs(alpha) * hBound[(size_t)i * p.N + j] + 1e-30;
      const double e = std::fabs(got - want);
      if (!(e <= tol)) {  // NaN fails
        if (bad < 3)
          std::printf("    C[%d][%d] = %.9g, want %.9g (tolerance %.3g)\n", i, j, got, want, tol);
        ++bad;
      }
      if (std::isfinite(e)) worst = std::max(worst, e);
    }
  // Elements between N and ldc must be untouched (still the poison/ones).
  for (int i = 0; i < p.M && !bad; ++i)
    for (int j = p.N; j < p.ldc; ++j) {
      const float x = hC[(size_t)i * p.ldc + j];
      if (beta == 0.f ? !std::isnan(x) : x != 1.f) {
        std::printf("    C[%d][%d] beyond N was written\n", i, j);
        ++bad;
        break;
      }
    }
  std::printf("  %-36s %5dx%5dx%5d ld %d/%d/%d %-5s beta=%g %-10s %s (max err %.3g)\n", v.name,
              p.M, p.N, p.K, p.lda, p.ldb, p.ldc, whole ? "exact" : "real", beta,
              opt.persistent ? "persistent" : "grid", bad ? "FAIL" : "pass", worst);
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(ref), cudaFree(bound);
  return bad == 0;
}

// Median time of `reps` runs of f (ms), after a warm-up.
template <class F>
float median_ms(F f, int reps) {
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventRecord(t0));
    f();
    CHECK_CUDA(cudaEventRecord(t1));
    CHECK_CUDA(cudaEventSynchronize(t1));
    CHECK_CUDA(cudaEventElapsedTime(&ms[i], t0, t1));
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(t0), cudaEventDestroy(t1);
  return ms[reps / 2];
}

int main(int argc, char** argv) {
  int dev = 0;
  if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int clockKHz = 0;
  cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0);
  std::printf("GPU: %s, %d SMs, CC %d.%d, max SM clock %d MHz\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, clockKHz / 1000);
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "this prototype holds sm_90a code only (H100/H200)\n");
    return 1;
  }

  // 1. Checks: aligned and odd shapes (M, N, K not multiples of the tile; lda, ldb padded to 4).
  bool ok = true;
  const Problem shapes[] = {{256, 512, 256, 256, 512, 512},  {1000, 1000, 1000, 1000, 1000, 1000},
                            {129, 257, 33, 36, 260, 257},     {1, 1, 1, 4, 4, 1},
                            {777, 333, 4099, 4100, 336, 335}, {2048, 2048, 2048, 2048, 2048, 2048}};
  std::printf("checks:\n");
  for (const Variant& v : kVariants)
    for (const Problem& p : shapes)
      for (bool persistent : {true, false}) {
        sgemm::tma::Options opt{persistent, 8};
        ok &= check(v, p, true, 0.f, opt);
        ok &= check(v, p, false, 0.f, opt);
      }
  ok &= check(kVariants[0], {300, 200, 100, 100, 200, 204}, false, 0.5f, {true, 8});
  if (!ok) {
    std::printf("CHECKS FAILED: no timing\n");
    return 1;
  }

  // 2. Timing at one size (default 4096^3), every variant, persistent or not, vs cuBLAS.
  const int M = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int N = argc > 2 ? std::atoi(argv[2]) : M;
  const int K = argc > 3 ? std::atoi(argv[3]) : M;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 20;
  float *A, *B, *C;
  CHECK_CUDA(cudaMalloc(&A, (size_t)M * K * 4));
  CHECK_CUDA(cudaMalloc(&B, (size_t)K * N * 4));
  CHECK_CUDA(cudaMalloc(&C, (size_t)M * N * 4));
  {
    std::vector<float> h(std::max((size_t)M * K, (size_t)K * N));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> real(-1.f, 1.f);
    for (auto& x : h) x = real(rng);
    CHECK_CUDA(cudaMemcpy(A, h.data(), (size_t)M * K * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(B, h.data(), (size_t)K * N * 4, cudaMemcpyHostToDevice));
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // true FP32, never TF32
  const float one = 1.f, zero = 0.f;
  const double flop = 2.0 * M * N * K;
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B as the left operand.
  auto cublas = [&] {
    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
  };
  const float msRef = median_ms(cublas, reps);
  std::printf("\n%dx%dx%d, median of %d:\n  %-36s %-10s %8.3f ms %8.0f GFLOP/s\n", M, N, K, reps,
              "cuBLAS SGEMM", "", msRef, flop / msRef / 1e6);
  for (const Variant& v : kVariants)
    for (bool persistent : {true, false}) {
      sgemm::tma::Options opt{persistent, 8};
      const float ms = median_ms(
          [&] { CHECK_CUDA(v.launch(M, N, K, 1.f, A, K, B, N, 0.f, C, N, nullptr, opt)); }, reps);
      std::printf("  %-36s %-10s %8.3f ms %8.0f GFLOP/s %6.1f%% of cuBLAS\n", v.name,
                  persistent ? "persistent" : "grid", ms, flop / ms / 1e6, 100.f * msRef / ms);
    }
  const float msRef2 = median_ms(cublas, reps);  // clocks drift: cuBLAS again, after
  std::printf("  %-36s %-10s %8.3f ms %8.0f GFLOP/s (again, after)\n", "cuBLAS SGEMM", "", msRef2,
              flop / msRef2 / 1e6);
  cublasDestroy(handle);
  cudaFree(A), cudaFree(B), cudaFree(C);
  return 0;
}

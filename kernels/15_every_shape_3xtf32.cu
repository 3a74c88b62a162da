// Rung 15: FP32 accuracy on tensor cores for every shape. Rung 14 runs a pre-pass that splits A
// and B into TF32 hi and lo parts in a workspace, then wgmma over 128 x 128 tiles, for every
// problem. Where that is slow the tensor cores are not why: at 128^3 to 512^3 the launches and
// the pre-pass take longer than cuBLAS's whole call; on 256 x 4096 x 4096 or 1024 x 1024 x 65536
// the 64 tiles of C fill half of 132 SMs while each walks all of K. Now:
//
//  - One launch where the pre-pass costs more than it saves: a fused kernel loads FP32 tiles into
//    registers, splits them and stores hi and lo into shared memory as wgmma reads them (B
//    transposed on the way) while the tensor cores multiply the stage before. Any alignment and
//    leading dimension; no workspace; the guard flags are the block's own.
//  - Slices of K where C has few tiles. On the pre-pass path a tile's slices are one cluster and
//    add their sums in rank order through distributed shared memory (rung 17's exchange); the
//    fused kernel's go through a workspace and a second kernel. Bitwise the same on every run.
//  - Many tiles: at most one block per SM, each walking several tiles (its producer fills the
//    ring for the next tile while the consumers store this one); the pre-pass is one launch.
//  - Where C has few columns (or few rows), the main kernel splits A (or B, computing
//    C^T = B^T A^T) itself, in registers, and flags its rows: that operand crosses memory once.
//  - The choice per problem: rung 14's pre-pass path where the pre-pass costs less than the
//    fused kernel's split, else the fused kernel, with as many slices as fill the GPU.
//
// What stays rung 14's: the split (round to nearest, cut near FLT_MAX), the three products per
// k8 step, small products first, summed by the tensor cores over chunks of K (PROMOTE stages)
// and promoted into FP32 sums in registers, and the guard path for Inf, NaN and values below
// 2^-114. The kernels are sm_90a code: on a GPU that is not compute capability 9.0 the
// launcher returns cudaErrorNoKernelImageForDevice.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "entries.h"            // launch_config and the other entries this file defines
#include "hopper/hopper.cuh"    // mbarriers, TMA copies, setmaxnreg, wgmma (docs/10 explains each)
#include "hopper/pipeline.cuh"  // the ring, producer loop, register split, tile order (rungs 10, 14)
#include "launchers.h"          // Gemm, and the one launcher signature every rung shares
#include "runtime/batch.h"      // Batch: a batch's problems, the grid's z
#include "runtime/device.h"     // the shared-memory opt-in, the Hopper check
#include "runtime/tensor_map.h"                 // tensor maps
#include "runtime/workspace.h"                  // the workspace
#include "split_3xtf32/batch_prepass.cuh"       // a batch's pre-pass: every problem, one launch
#include "split_3xtf32/every_shape_slices.cuh"  // loads, slices' sums, the pre-pass in one launch
#include "split_3xtf32/split_3xtf32.cuh"  // rung 14's split, guard path, pre-pass, wgmma stage, epilogue

namespace sgemm::every_shape_3xtf32 {

using namespace hopper;
using namespace pipeline;

using namespace split_3xtf32;

// ---- The main kernel.

// BN: columns of C per block (one m64nBNk8 wgmma); BK: depth of one stage (16 or 32 floats:
// one 64- or 128-byte swizzle span per row); STAGES: buffers of the ring; PROMOTE: stages per
// chunk of K that the tensor cores sum before the chunk is added to FP32 accumulators in
// registers. kSplitsA: a stage holds A itself, which the consumers split (no A_hi, A_lo boxes).
// kStagedC: after the ring, room for the block's tile of C, which TMA stores.
template <int BN, int BK, int STAGES, int PROMOTE, bool kSplitsA = false, bool kStagedC = false>
struct Tile {
  static constexpr int kConsumers = 2;                     // consumer warpgroups
  static constexpr int WGM = 64;                           // rows of C per consumer warpgroup
  static constexpr int BM = kConsumers * WGM;              // rows of C per block
  static constexpr int kThreads = 128 * (kConsumers + 1);  // + the producer warpgroup
  static constexpr int kConsumerWarps = kConsumers * 4;    // each arrives on `empty`
  static constexpr int kSpan = BK * 4;                     // bytes of a box's row: the swizzle span
  static constexpr int kBoxBytesA = BM * BK * 4;           // A_hi's box (A_lo's the same)
  static constexpr int kBoxBytesB = BN * BK * 4;           // Bt_hi's box (Bt_lo's the same)
  static constexpr int kBoxesA = kSplitsA ? 1 : 2;         // A, or A_hi and A_lo
  static constexpr int kStageBytes = kBoxesA * kBoxBytesA + 2 * kBoxBytesB;  // `full` waits for
  static constexpr int kStagingBytes = kStagedC ? BM * BN * 4 : 0;  // C: [2][BN/32][64][32]
  static constexpr int kSharedBytes = STAGES * kStageBytes + kStagingBytes + 1024;  // + alignment
  static constexpr int kAccumulators = BN / 2;  // per thread (m64 x BN over 128 threads)
  static_assert(BK == 16 || BK == 32, "a box row is one 64- or 128-byte swizzle span");
  static_assert(BN == 128 || (BN == 64 && kSplitsA),
                "the wgmma shapes hopper.cuh wraps: m64n128k8; m64n64k8 with A split in "
                "registers, for a batch of narrow problems");
  static_assert(kBoxBytesA % 1024 == 0 && kBoxBytesB % 1024 == 0 && (WGM * BK * 4) % 1024 == 0,
                "every box and each warpgroup's rows of A start on a 1024-byte boundary, so "
                "the descriptors' base offset is 0");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static_assert(kSharedBytes + 2 * STAGES * 8 <= 227 * 1024,
                "the ring and its mbarriers fit in the 227 KiB of shared memory a block may have");
  static_assert(2 * kAccumulators <= 192,
                "the tensor cores' and the FP32 sums fit in a consumer's registers");
  static_assert(PROMOTE > 0 && PROMOTE % 2 == 0,
                "chunks of whole stages; the second warpgroup promotes half a chunk after the "
                "first");
  // One block per SM, 12 warps: 168 registers a thread at launch; the producer drops to 40 (its
  // walk over tiles spills at rung 14's 24) and the consumers rise to 232 (pipeline.cuh).
  using Registers = RegisterSplit<kThreads, 128, 40>;
};

// Tiles are walked in groups of `groupRows` tile rows, down the columns of each group, so that
// the blocks running at once share rows of A and columns of B in L2. guard: the pre-pass's
// flags, rows of A (kSplitsA: the split's own) then columns of B (M + N), for all of K; A and B:
// the caller's operands, which the guard path reads. Two ways to run:
//  - One slice of K (gridDim.y == 1): block x multiplies tiles x, x + gridDim.x, ... (at most
//    one block per SM: each walks several tiles), its producer filling the ring for the next
//    tile while the consumers store this one, and writes C.
//  - Slices of K (gridDim.y == slices > 1): the blocks (x, 0 .. slices-1) are one cluster; block
//    (x, z) multiplies tile x over [z * kSlice, min(K, (z + 1) * kSlice)) into its own shared
//    memory, and each finishes 1/slices of the tile's rows, adding the slices' sums in rank order
//    through distributed shared memory (as rung 17): one launch, bitwise the same every run.
// kBatched (one slice; split_3xtf32/batch_prepass.cuh's planes): the tiles of `problems`
// problems, problem after problem; a tile's boxes are at rows z * Mp and z * Np of the planes,
// its flags at z * (M + N), its A, B and C problem z's of `batch`.
template <int BN, int BK, int STAGES, int PROMOTE, bool kSlices, bool kSplitsA, bool kTransposed,
          bool kBatched = false>
__global__ void __launch_bounds__(Tile<BN, BK, STAGES, PROMOTE, kSplitsA>::kThreads, 1)
    sgemm_every_shape_3xtf32(int M, int N, int K, float alpha,
                             const __grid_constant__ CUtensorMap tmAhi,
                             const __grid_constant__ CUtensorMap tmAlo,
                             const __grid_constant__ CUtensorMap tmBhi,
                             const __grid_constant__ CUtensorMap tmBlo, const int* guard,
                             const float* A, int lda, const float* B, int ldb, float beta, float* C,
                             int ldc, bool pairedC, int groupRows, int kSlice, const int* limits,
                             runtime::Batch batch, int problems,
                             const __grid_constant__ CUtensorMap tmC, bool stagedC) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  static_assert(!kBatched || (!kSlices && (kSplitsA || !kTransposed)),
                "a batch: one slice; the pre-pass splits both operands, or the one the consumers "
                "do not");
  // A batch whose consumers split A stores C's tiles through TMA where C allows a map (stagedC).
  constexpr bool kStagedC = kBatched && kSplitsA && !kTransposed;
  using T = Tile<BN, BK, STAGES, PROMOTE, kSplitsA, kStagedC>;
  constexpr int BM = T::BM;
  // The ring, aligned to 1024 bytes: stage s holds [A_hi | A_lo | Bt_hi | Bt_lo] (kSplitsA:
  // [A | Bt_hi | Bt_lo]), each box
  // [rows][BK] as TMA writes it (rows kSpan bytes apart, 16-byte chunks swizzled).
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  __shared__ uint64_t full[STAGES];   // buffer s holds its boxes: 1 arrival and their bytes
  __shared__ uint64_t empty[STAGES];  // buffer s is read: one arrival per consumer warp

  const int slices = kSlices ? static_cast<int>(gridDim.y) : 1;
  // limits (rung 16's slow path): only the tiles of C's first Mx rows and Nx columns, read here
  const int Mx = limits ? min(M, limits[0]) : M, Nx = limits ? min(N, limits[1]) : N;
  const int tilesPer = ((Mx + BM - 1) / BM) * ((Nx + BN - 1) / BN);  // a problem's
  const int tiles = kBatched ? tilesPer * problems : tilesPer;
  if (kSlices && static_cast<int>(blockIdx.x) >= tiles) return;  // the whole cluster, at once
  const int myTiles =
      kSlices ? 1 : (tiles - static_cast<int>(blockIdx.x) + gridDim.x - 1) / gridDim.x;
  const int kBegin = blockIdx.y * kSlice, kEnd = min(K, kBegin + kSlice);
  const int kTiles = (kEnd - kBegin + BK - 1) / BK;  // a slice's last box stops at K, not kEnd:
                                                     // kSlice is a multiple of BK
  auto origin_of = [&](int t) {                      // this block's tile t (in its problem)
    const int tile = static_cast<int>(blockIdx.x + t * gridDim.x);
    return tile_origin(kBatched ? tile % tilesPer : tile, Mx, Nx, BM, BN, groupRows);
  };
  auto problem_of = [&](int t) {  // kBatched: tile t's problem
    return kBatched ? static_cast<int>(blockIdx.x + t * gridDim.x) / tilesPer : 0;
  };

  if (threadIdx.x == 0) {
    prefetch_tensormap(&tmAhi);
    prefetch_tensormap(&tmAlo);
    prefetch_tensormap(&tmBhi);
    prefetch_tensormap(&tmBlo);
    ring_init<STAGES>(full, empty, 1, T::kConsumerWarps);
  }
  __syncthreads();  // the mbarriers exist before anyone uses them

  if (threadIdx.x >= 128 * T::kConsumers) {
    // The producer warpgroup: one thread issues the four boxes of each stage, tile after tile.
    // Boxes past M, N or K arrive as zeros and count toward the bytes all the same.
    release_registers<T::Registers::kProducerRegs>();
    if (threadIdx.x == 128 * T::kConsumers)
      produce<STAGES>(empty, 0, myTiles * kTiles, 1, [&](int i, int buf) {
        const int t = kSlices ? 0 : i / kTiles;  // (one tile with slices)
        int2 origin = origin_of(t);
        if (kBatched)  // the problem's rows of the planes (batch_prepass.cuh)
          origin.x += kSplitsA ? 0 : problem_of(t) * tile_rows(M),
              origin.y += problem_of(t) * tile_rows(N);
        const int k0 = kBegin + i % kTiles * BK;
        uint8_t* stage = ring + buf * T::kStageBytes;
        mbar_arrive_expect_tx(&full[buf], T::kStageBytes);
        uint8_t* b = stage + T::kBoxesA * T::kBoxBytesA;
        if constexpr (kBatched && kSplitsA) {  // the caller's operand: the problem, a coordinate
          if (kTransposed)
            for (int q = 0; q < BM / 32; ++q)
              tma_load_3d(stage + q * BK * T::kSpan, &tmAhi, origin.x + 32 * q, k0, problem_of(t),
                          &full[buf]);
          else
            tma_load_3d(stage, &tmAhi, k0, origin.x, problem_of(t), &full[buf]);
        } else if (kTransposed) {  // B^T's rows are B's columns: boxes [BK][32] of B, 32 columns
          for (int q = 0; q < BM / 32; ++q)
            tma_load_2d(stage + q * BK * T::kSpan, &tmAhi, origin.x + 32 * q, k0, &full[buf]);
        } else {
          tma_load_2d(stage, &tmAhi, k0, origin.x, &full[buf]);
        }
        if (!kSplitsA) tma_load_2d(stage + T::kBoxBytesA, &tmAlo, k0, origin.x, &full[buf]);
        tma_load_2d(b, &tmBhi, k0, origin.y, &full[buf]);
        tma_load_2d(b + T::kBoxBytesB, &tmBlo, k0, origin.y, &full[buf]);
      });
    if (kSlices) cluster_sync_shared(), cluster_sync_relaxed();  // the consumers' two
    return;
  }
  claim_registers<T::Registers::kConsumerRegs>();

  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows wg*WGM .. of the block tile
  const int lane = threadIdx.x % 32;
  // The tile's guard flags, in shared memory rather than one global load per element in the
  // epilogue: rows of A, then columns of B (the consumers are BM + BN threads). kBatched: tile
  // t's in buffer t % 2, each thread's loaded a tile ahead (hiding the latency), and no barrier
  // at a tile's start: the last tile's epilogue reads the other buffer, and this one's last
  // readers (tile t - 2's) finished before the vote of tile t - 1 that this thread passed.
  static_assert(128 * T::kConsumers >= BM + BN, "a consumer thread per flag");
  constexpr int kGuardBuffers = kBatched ? 2 : 1;
  __shared__ int rowGuards[kGuardBuffers][BM], colGuards[kGuardBuffers][BN];
  static_assert(
      T::kSharedBytes + sizeof(rowGuards) + sizeof(colGuards) + 2 * STAGES * 8 <= 227 * 1024,
      "the ring, C's staging, the flags and the mbarriers fit in the 227 KiB of "
      "shared memory a block may have");
  // kBatched: the pre-pass's flag this thread copies for tile u (a column of B's; a row of A's
  // unless the split sees A's rows itself).
  auto flag_of = [&](int u) {
    const int2 origin = origin_of(u);
    const int* flags = guard + static_cast<long long>(problem_of(u)) * (M + N);
    const int row = origin.x + static_cast<int>(threadIdx.x);       // (threadIdx.x < BM)
    const int col = origin.y + static_cast<int>(threadIdx.x) - BM;  // (threadIdx.x >= BM)
    if (threadIdx.x < BM) return !kSplitsA && row < M ? flags[row] : 0;
    return threadIdx.x < BM + BN && col < N ? flags[M + col] : 0;
  };
  int nextFlag = kBatched && myTiles > 0 ? flag_of(0) : 0;
  // acc[4j + 2i + c] = C[blockRow + wg*WGM + 16warp + lane/4 + 8i][blockCol + 8j + 2(lane%4) + c]
  // (the wgmma fragment): the tensor cores' sum over the current chunk of K. sum[]: the FP32
  // sum of the chunks before it, in the same layout.
  float acc[T::kAccumulators];
  float sum[T::kAccumulators];
  // sum += acc, in FP32 on the CUDA cores (round to nearest), once acc's wgmmas have completed.
  auto promote = [&] {
    fence_accumulators(acc);
#pragma unroll
    for (int e = 0; e < T::kAccumulators; ++e) sum[e] += acc[e];
  };
  WgmmaRing<STAGES> at{full, empty};  // the next buffer to read, and the one to release
  // Waits for the next buffer and issues its wgmmas into acc as one group: per k8 step the
  // small products first. accumulate = 0: the first wgmma overwrites acc (a chunk's first stage).
  auto issue_stage = [&](int accumulate, RowsSeen& seen) {
    at.wait();  // this buffer's four boxes have landed
    const uint8_t* stage = ring + at.buf * T::kStageBytes;
    const uint8_t* a = stage + wg * T::WGM * T::kSpan;  // this warpgroup's rows of A_hi (or A)
    const uint8_t* b = stage + T::kBoxesA * T::kBoxBytesA;
    if constexpr (kSplitsA)
      mma_stage_split_a<BN, BK, T::kSpan, kTransposed, kBatched>(acc, a, b, b + T::kBoxBytesB,
                                                                 accumulate, seen);
    else
      mma_stage<BN, BK, T::kSpan>(acc, a, a + T::kBoxBytesA, b, b + T::kBoxBytesB, accumulate);
    fence_accumulators(acc);
  };

  int t = 0;
  for (; t < myTiles; ++t) {
    int* rowGuard = rowGuards[t % kGuardBuffers];
    int* colGuard = colGuards[t % kGuardBuffers];
    if constexpr (kBatched) {
      // (kSplitsA: the rows' flags are the split's, which each warp writes for its own rows
      // after its products; a write here could land after one of those.)
      if (threadIdx.x < BM) {
        if (!kSplitsA) rowGuard[threadIdx.x] = nextFlag;
      } else if (threadIdx.x < BM + BN) {
        colGuard[threadIdx.x - BM] = nextFlag;
      }
      if (t + 1 < myTiles) nextFlag = flag_of(t + 1);
    } else {
      const int2 origin = origin_of(t);   // (recomputed for the epilogue: registers are scarce)
      sync_role(1, 128 * T::kConsumers);  // the last tile's epilogue is done with the flags
      if (threadIdx.x < BM)
        rowGuard[threadIdx.x] = origin.x + threadIdx.x < M ? guard[origin.x + threadIdx.x] : 0;
      else if (BM + BN == 128 * T::kConsumers || threadIdx.x < BM + BN)  // (BN < 128: some idle)
        colGuard[threadIdx.x - BM] =
            origin.y + threadIdx.x - BM < N ? guard[M + origin.y + threadIdx.x - BM] : 0;
      sync_role(1, 128 * T::kConsumers);
    }

#pragma unroll
    for (int e = 0; e < T::kAccumulators; ++e) acc[e] = sum[e] = 0.f;
    // A chunk's end drains the warpgroup's wgmmas (wait_group 0) before the add. The second
    // warpgroup's chunks start half a chunk later, so that while one warpgroup drains and adds,
    // the other keeps the tensor cores busy.
    int untilPromote = PROMOTE - wg * (PROMOTE / 2);
    int accumulate = 0;
    RowsSeen seen;  // kSplitsA: A's rows as the split saw them (the pre-pass does not read A)
    for (int kt = 0; kt < kTiles; ++kt) {
      issue_stage(accumulate, seen);
      accumulate = 1;
      if (--untilPromote == 0) {  // the chunk's end: release both its buffers
        at.release_all(lane);
        promote();
        untilPromote = PROMOTE;
        accumulate = 0;
      } else {
        at.release_previous(lane);
      }
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    at.release_pending(lane);   // the ring is the producer's again, for the next tile
    if (accumulate) promote();  // the last, partial chunk
    int rowsFlagged = 0;        // kBatched and kSplitsA: any of the warp's rows
    if constexpr (kSplitsA) {   // the flags of the warp's own 16 rows, which it alone stores
      const int first = wg * T::WGM + threadIdx.x / 32 % 4 * 16 + lane / 4;
      int any = 0;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int flag = seen.template flag<kBatched>(i);
        if (lane % 4 == 0) rowGuard[first + 8 * i] = flag;
        any |= flag;
      }
      if constexpr (kBatched) rowsFlagged = __any_sync(~0u, any);
      __syncwarp();
    }

    if (kSlices) break;  // the one tile: its partial sums meet the cluster's below
    // kBatched: whether the tile has a flagged row or column (each consumer thread brings its
    // warp's rows or, from the pre-pass, the row or column whose flag it loaded)
    bool flagged = true;
    if constexpr (kBatched) {
      int mine = rowsFlagged;
      if (!kSplitsA && threadIdx.x < BM) mine |= rowGuard[threadIdx.x];
      if (threadIdx.x >= BM && threadIdx.x < BM + BN) mine |= colGuard[threadIdx.x - BM];
      flagged = sync_role_any(1, 128 * T::kConsumers, mine != 0);
    }
    const int2 origin = origin_of(t);
    const float *a = A, *b = B;
    float* c = C;
    if (kBatched) runtime::select_problem(batch, problem_of(t), a, b, c);
    // A batch's tiles are mostly whole, unflagged and finite: then no test per element.
    const bool quick =
        !flagged && origin.x + BM <= M && origin.y + BN <= N && all_finite<T::kAccumulators>(sum);
    if constexpr (kStagedC)
      if (stagedC) {  // through shared memory, then TMA stores of whole lines, asynchronous
        float* staging =
            reinterpret_cast<float*>(ring + STAGES * T::kStageBytes) + wg * T::WGM * BN;
        const bool issuer = threadIdx.x % 128 == 0;
        if (issuer) bulk_wait_read<0>();  // the last tile's stores have read the staging
        sync_role(2 + wg, 128);
        const int rowBase = origin.x + wg * T::WGM;
        if (quick)
          stage_inside<BN>(sum, rowBase, origin.y, alpha, beta, c, ldc, staging);
        else
          stage_guarded<BN>(sum, rowBase, origin.x, origin.y, rowGuard, colGuard, M, N, K, alpha, a,
                            lda, b, ldb, beta, c, ldc, staging);
        fence_async_shared();  // the staging is written before TMA reads it
        sync_role(2 + wg, 128);
        if (issuer) {
#pragma unroll
          for (int q = 0; q < BN / 32; ++q)
            tma_store_3d(&tmC, staging + q * T::WGM * 32, origin.y + 32 * q, rowBase,
                         problem_of(t));
          bulk_commit();
        }
        continue;
      }
    if constexpr (kBatched && !kTransposed)
      if (quick && pairedC) {
        store_inside<BN>(sum, origin.x + wg * T::WGM, origin.y, alpha, beta, c, ldc);
        continue;
      }
    store_fragment<BN, kTransposed>(sum, origin.x + wg * T::WGM, origin.x, origin.y, rowGuard,
                                    colGuard, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, pairedC,
                                    nullptr);
  }
  if constexpr (kStagedC)  // the block's shared memory outlives its stores
    if (stagedC && threadIdx.x % 128 == 0) bulk_wait<0>();
  if (!kSlices) return;
  const int2 origin = origin_of(0);
  const int blockRow = origin.x, blockCol = origin.y;
  int *rowGuard = rowGuards[0], *colGuard = colGuards[0];  // (one problem: one buffer)

  // Slices: the partial tile P (BM, kPitch), row-major in the ring, which both warpgroups are
  // done reading (and no copy is in flight: every fill was waited for). The pitch of BN + 8
  // floats puts a warp's 8 rows of 64-bit stores on distinct banks, two wavefronts.
  constexpr int kPitch = BN + 8;
  static_assert(BM * kPitch * 4 <= STAGES * T::kStageBytes, "the partial tile fits the ring");
  float* P = reinterpret_cast<float*>(ring);
  sync_role(1, 128 * T::kConsumers);
  {
    const int warp = threadIdx.x / 32 % 4;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
        *reinterpret_cast<float2*>(
            &P[(wg * T::WGM + warp * 16 + i * 8 + lane / 4) * kPitch + j * 8 + 2 * (lane % 4)]) =
            make_float2(sum[4 * j + 2 * i], sum[4 * j + 2 * i + 1]);
    const int first = wg * T::WGM + warp * 16 + lane / 4;  // kSplitsA: a row's flag beside it
    if (kSplitsA && lane % 4 == 0)
      P[first * kPitch + BN] = rowGuard[first], P[(first + 8) * kPitch + BN] = rowGuard[first + 8];
  }
  cluster_sync_shared();  // every rank's partial tile is written and visible to the cluster

  // Rank r finishes rows [r, r + 1) * BM / slices of the tile, float4 by float4: the slices'
  // sums added in rank order 0, 1, ... (rank 0's as it is: -0 stays -0), then alpha, beta and
  // the guard path, as store_fragment does.
  const int rank = cluster_rank();
  const int firstRow = rank * BM / slices, rows = (rank + 1) * BM / slices - firstRow;
  if constexpr (kSplitsA) {  // a row's flag: any slice's
    for (int r = firstRow + threadIdx.x; r < firstRow + rows; r += 128 * T::kConsumers) {
      int flag = 0;
      for (int z = 0; z < slices; ++z)
        flag |= load_dsmem(map_rank(smem_addr(&P[r * kPitch + BN]), z)).x != 0.f;
      rowGuard[r] = flag;
    }
    sync_role(1, 128 * T::kConsumers);
  }
#pragma unroll 1
  for (int q = threadIdx.x; q < rows * (BN / 4); q += 128 * T::kConsumers) {
    const int r = firstRow + q / (BN / 4), c = q % (BN / 4) * 4;
    const unsigned address = smem_addr(&P[r * kPitch + c]);
    float4 s = load_dsmem(map_rank(address, 0));
#pragma unroll 1
    for (int z = 1; z < slices; ++z) {
      const float4 p = load_dsmem(map_rank(address, z));
      s.x += p.x, s.y += p.y, s.z += p.z, s.w += p.w;
    }
    const int row = blockRow + r;
    if (row >= M) continue;
    float* out = C + static_cast<long long>(row) * ldc + blockCol + c;
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const int col = blockCol + c + h;
      if (col >= N) continue;
      float v = h == 0 ? s.x : h == 1 ? s.y : h == 2 ? s.z : s.w;
      const bool guarded = rowGuard[r] || colGuard[c + h] || !isfinite(v);
      if (kTransposed) {  // C^T's (row, col) is C's (col, row)
        if (guarded) v = fp32_dot(A, lda, B, ldb, K, col, row);
        float* o = C + static_cast<long long>(col) * ldc + row;
        *o = beta == 0.f ? alpha * v : alpha * v + beta * *o;
        continue;
      }
      if (guarded) v = fp32_dot(A, lda, B, ldb, K, row, col);
      out[h] = beta == 0.f ? alpha * v : alpha * v + beta * out[h];  // beta == 0: C is not read
    }
  }
  cluster_sync_relaxed();  // no block exits while another may still read its shared memory
#endif  // sm_90a
}

// Blocks of a cluster, a tile's slices: 8 is the portable most; 8 blocks of one per SM fit any GPC.
constexpr int kMostRanks = 8;

// The main kernel splits A where N <= kSplitAMaxN, B where M <= kSplitAMaxN < N (C^T = B^T A^T,
// run_prepass): on an H100 and an H200 5-16% over the pre-pass at N 768-1024, none at 2048.
constexpr int kSplitAMaxN = 1024;

// ---- The main kernel's launch.

// The main kernel on split operands: with one slice, at most one block per SM, each walking
// several tiles; with several, one cluster of `slices` blocks per tile. Where s holds no planes
// of A, the kernel reads A (16-byte aligned rows) and splits it. kTransposed: M x N is C^T (the
// kernel reads B as its A; A, B and C stay the caller's, for the guard path and the stores).
template <int BN, int BK, int STAGES, int PROMOTE, bool kSplitsA, bool kTransposed = false>
cudaError_t multiply(int M, int N, int K, float alpha, const Split& s, const float* A, int lda,
                     const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream,
                     int groupRows, int slices, int kSlice, int sms, const int* limits) {
  using T = Tile<BN, BK, STAGES, PROMOTE, kSplitsA>;
  constexpr auto one =
      sgemm_every_shape_3xtf32<BN, BK, STAGES, PROMOTE, false, kSplitsA, kTransposed>;
  constexpr auto sliced =
      sgemm_every_shape_3xtf32<BN, BK, STAGES, PROMOTE, true, kSplitsA, kTransposed>;
  const auto kernel = slices > 1 ? sliced : one;
  SplitMaps maps;
  cudaError_t err = slices > 1 ? runtime::allow_shared_bytes<sliced>(T::kSharedBytes)
                               : runtime::allow_shared_bytes<one>(T::kSharedBytes);
  if (err == cudaSuccess)
    err = split_maps<T::BM, BN, BK, kTransposed>(&maps, s, M, N, K, kTransposed ? B : A,
                                                 kTransposed ? ldb : lda);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((M + T::BM - 1) / T::BM) * ((N + BN - 1) / BN);
  if (tiles > 0x7fffffff || slices < 1 || slices > kMostRanks) return cudaErrorInvalidValue;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(slices > 1 ? tiles : std::min<long long>(tiles, sms)),
                        static_cast<unsigned>(slices));
  config.blockDim = dim3(T::kThreads);
  config.dynamicSmemBytes = T::kSharedBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(slices);
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = slices > 1 ? 1 : 0;
  err = cudaLaunchKernelEx(&config, kernel, M, N, K, alpha, maps.Ahi, maps.Alo, maps.Bhi, maps.Blo,
                           static_cast<const int*>(s.guard), A, lda, B, ldb, beta, C, ldc,
                           aligned8(C) && ldc % 2 == 0, std::max(1, groupRows), kSlice, limits,
                           runtime::Batch{}, 1, CUtensorMap{}, false);
  return err != cudaSuccess ? err : cudaGetLastError();
}

// K cut into `slices` slices of whole stages of `bk` (fewer where K is short): kSlice.
struct Slicing {
  int slices, kSlice;
  Slicing(int K, int want, int bk) {
    const int kTiles = (K + bk - 1) / bk;
    want = std::max(1, std::min(want, kTiles));
    kSlice = (kTiles + want - 1) / want * bk;
    slices = (K + kSlice - 1) / kSlice;
  }
};

cudaError_t run_fused(const Gemm& g, int slices, cudaStream_t stream, const int* limits);

// ---- Rung 14's pre-pass path.

// Rung 14's path, with slices of K: split into the workspace (one launch), multiply (the slices
// meet in the cluster, not in the workspace); the workspace goes back to the pool after the
// kernels. Where the workspace cannot hold the split operands, the fused kernel runs, which needs
// none. The main kernel splits A itself (where N <= kSplitAMaxN and A's rows are 16-byte
// aligned) or B (where M <= kSplitAMaxN < N and B's are), or neither: the operand it splits
// crosses memory once, not three times, but each column of tiles splits it again, which pays
// only where C has few columns. It splits B as the A of C^T = B^T A^T: A's split, which needs no
// transpose (A's rows are K-major already), is its B, and C^T's tiles land in C.
template <int BN, int BK, int STAGES, int PROMOTE>
cudaError_t run_prepass(const Gemm& g, int want, int sms, cudaStream_t stream, const int* limits,
                        int groupRows = 8) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const Slicing cut(K, std::min(want, kMostRanks), BK);
  const bool transposed = M <= kSplitAMaxN && N > kSplitAMaxN && aligned16(B, ldb) && !limits;
  const bool splitA = !transposed && (N > kSplitAMaxN || !aligned16(A, lda));  // else in-kernel
  const int Mk = transposed ? N : M, Nk = transposed ? M : N;  // the kernel's C: M x N, or C^T
  runtime::Workspace<float> W(split_floats(Mk, Nk, K, splitA), stream);
  if (W.error() == cudaErrorMemoryAllocation) return run_fused(g, 1, stream, limits);
  if (W.error() != cudaSuccess) return W.error();
  const Split s = split_layout(W.get(), Mk, Nk, K, splitA);
  const cudaError_t err =
      transposed ? split_a_as_b(g, s, stream) : split_operands_together(g, s, stream, limits);
  if (err != cudaSuccess) return err;
  if (splitA)  // a ring of 3 stages of 64 KiB; with A alone (no A_hi, A_lo), of 4 of 48 KiB
    return multiply<BN, BK, STAGES, PROMOTE, false, false>(M, N, K, alpha, s, A, lda, B, ldb, beta,
                                                           C, ldc, stream, groupRows, cut.slices,
                                                           cut.kSlice, sms, limits);
  constexpr auto straight = multiply<BN, BK, STAGES + 1, PROMOTE, true, false>;
  constexpr auto swapped = multiply<BN, BK, STAGES + 1, PROMOTE, true, true>;
  return (transposed ? swapped : straight)(Mk, Nk, K, alpha, s, A, lda, B, ldb, beta, C, ldc,
                                           stream, groupRows, cut.slices, cut.kSlice, sms, limits);
}

// ---- One launch: the split inside the kernel.

// The fused kernel's tile: 128 x 128 of C, two warpgroups of 64 rows each, stages of 32 k in a
// ring of two in shared memory: [A_hi | A_lo | Bt_hi | Bt_lo], 16 KiB each, K-major rows of
// 128 bytes under the 128-byte swizzle, as rung 14's TMA writes them. Its 256 threads also load
// and split the next stage while the tensor cores multiply this one.
struct Fused {
  static constexpr int BM = 128, BN = 128, BK = 32;
  static constexpr int kThreads = 256;
  static constexpr int kSpan = BK * 4;                         // bytes of a row of a tile
  static constexpr int kTileBytes = BM * kSpan;                // one of the four (BN == BM)
  static constexpr int kStageBytes = 4 * kTileBytes;           // 64 KiB
  static constexpr int kSharedBytes = 2 * kStageBytes + 1024;  // the ring, aligned to 1024
  static constexpr int kAccumulators = BN / 2;                 // per thread, per set
  static_assert(BN == BM, "A's and Bt's tiles have the same shape");
  static_assert(BM * BK / 4 == 4 * kThreads && BN * BK / 4 == 4 * kThreads,
                "each thread loads four float4 of A and four of B per stage");
  static_assert(kSharedBytes <= 227 * 1024, "the ring fits in a block's shared memory");
};

// Byte offset of the 16-byte chunk c (floats 4c .. 4c+3 of k) of row r in a K-major tile of
// 128-byte rows that starts on a 1024-byte boundary, under the 128-byte swizzle: the chunk's
// index XOR the row's phase, r % 8.
__device__ __forceinline__ int swizzled(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }

// Splits four floats (split above) and stores hi and lo at `hi`, `hi + lo_offset` bytes in
// shared memory; true when one of them needs the guard path.
__device__ __forceinline__ bool split_store(const float4& x, uint8_t* hi, int lo_offset) {
  float4 h, l;
  split(x.x, &h.x, &l.x), split(x.y, &h.y, &l.y), split(x.z, &h.z, &l.z), split(x.w, &h.w, &l.w);
  *reinterpret_cast<float4*>(hi) = h;
  *reinterpret_cast<float4*>(hi + lo_offset) = l;
  return needs_guard(x.x) || needs_guard(x.y) || needs_guard(x.z) || needs_guard(x.w);
}

// Tile blockIdx.x of C (walked in groups of `groupRows` tile rows, as rung 14's) over slice
// blockIdx.y of K: [z * kSlice, min(K, (z + 1) * kSlice)). With one slice (partial == nullptr)
// it writes C, with alpha, beta and the guard path; with several it writes its raw sums to
// partial + z * M * N (rows N apart) and its guard flags to guards + z * (M + N) (rows of A,
// then columns of B), and sum_slices finishes. kBatched: blockIdx.z picks the problem of
// `batch` (runtime/batch.h), each with one slice (the batched library calls, library/batched.cu).
template <int PROMOTE, bool kAlignedA, bool kAlignedB, bool kBatched = false>
__global__ void __launch_bounds__(Fused::kThreads, 1)
    sgemm_every_shape_3xtf32_fused(int M, int N, int K, int kSlice, float alpha, const float* A,
                                   int lda, const float* B, int ldb, float beta, float* C, int ldc,
                                   float* partial, int* guards, bool pairedC, int groupRows,
                                   const int* limits, runtime::Batch batch) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  if constexpr (kBatched) runtime::select_problem(batch, A, B, C);
  using F = Fused;
  constexpr int BM = F::BM, BN = F::BN, BK = F::BK;
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  __shared__ int rowGuard[BM], colGuard[BN];  // this tile's rows of A, columns of B: flagged

  // limits (rung 16's slow path): only the tiles of C's first Mx rows and Nx columns
  const int Mx = limits ? min(M, limits[0]) : M, Nx = limits ? min(N, limits[1]) : N;
  if (static_cast<int>(blockIdx.x) >= ((Mx + BM - 1) / BM) * ((Nx + BN - 1) / BN)) return;
  const int2 origin = tile_origin(static_cast<int>(blockIdx.x), Mx, Nx, BM, BN, groupRows);
  const int blockRow = origin.x, blockCol = origin.y;  // (lambdas below capture them)
  const int kBegin = blockIdx.y * kSlice, kEnd = min(K, kBegin + kSlice);
  const int kTiles = (kEnd - kBegin + BK - 1) / BK;

  const int tid = threadIdx.x;
  if (tid < BM) rowGuard[tid] = colGuard[tid] = 0;
  __syncthreads();  // zeroed before store() below sets flags: another warp's 1 must not be lost

  // Each thread moves chunk cA (k 4cA .. 4cA+3) of rows rA + 32i of A's tile, i < 4, and the
  // 4 x 4 block k 4aB .. 4aB+3 x columns 4jB .. 4jB+3 of B's, which it transposes: a warp
  // reads 4 whole rows of A's tile (4 x 128 bytes) or one whole row of B's (512 bytes).
  const int cA = tid % 8, rA = tid / 8;
  const int jB = tid % 32, aB = tid / 32;
  float4 ra[4];  // (4) A(rA + 32i, 4cA .. 4cA+3)
  float4 rb[4];  // (4) B(4aB + q, 4jB .. 4jB+3)
  auto load = [&](int kt) {
    const int k0 = kBegin + kt * BK;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = blockRow + rA + 32 * i;
      ra[i] = row < M ? load4<kAlignedA>(A + static_cast<long long>(row) * lda, k0 + 4 * cA, kEnd)
                      : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int k = k0 + 4 * aB + q;
      rb[q] = k < kEnd ? load4<kAlignedB>(B + static_cast<long long>(k) * ldb, blockCol + 4 * jB, N)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
    }
  };
  // Splits what load() brought into stage `buf`: A's rows as they are, B's columns as rows.
  auto store = [&](int buf) {
    uint8_t* stage = ring + buf * F::kStageBytes;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (split_store(ra[i], stage + swizzled(rA + 32 * i, cA), F::kTileBytes))
        rowGuard[rA + 32 * i] = 1;
    uint8_t* bt = stage + 2 * F::kTileBytes;
    const float4 n0 = make_float4(rb[0].x, rb[1].x, rb[2].x, rb[3].x);  // column 4jB, 4 k
    const float4 n1 = make_float4(rb[0].y, rb[1].y, rb[2].y, rb[3].y);
    const float4 n2 = make_float4(rb[0].z, rb[1].z, rb[2].z, rb[3].z);
    const float4 n3 = make_float4(rb[0].w, rb[1].w, rb[2].w, rb[3].w);
    const float4* columns[4] = {&n0, &n1, &n2, &n3};
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (split_store(*columns[c], bt + swizzled(4 * jB + c, aB), F::kTileBytes))
        colGuard[4 * jB + c] = 1;
  };

  const int wg = tid / 128;  // rows wg*64 .. of the tile
  // acc[4j + 2i + c] = C[blockRow + wg*64 + 16warp + lane/4 + 8i][blockCol + 8j + 2(lane%4) + c]
  // (the wgmma fragment): the tensor cores' sum over this chunk of K; sum: the FP32 sum of the
  // chunks before it.
  float acc[F::kAccumulators], sum[F::kAccumulators];
#pragma unroll
  for (int e = 0; e < F::kAccumulators; ++e) acc[e] = sum[e] = 0.f;
  // The stage's wgmmas as one group (mma_stage).
  auto issue = [&](int buf, int accumulate) {
    const uint8_t* stage = ring + buf * F::kStageBytes;
    const uint8_t* a = stage + wg * 64 * F::kSpan;
    mma_stage<BN, BK, F::kSpan>(acc, a, a + F::kTileBytes, stage + 2 * F::kTileBytes,
                                stage + 3 * F::kTileBytes, accumulate);
  };

  // The first stage, then per stage: its wgmmas, the next stage's loads and split while they
  // run, and one barrier (each thread's stores fenced for the async proxy before it).
  if (kTiles > 0) load(0), store(0);
  fence_async_shared();
  __syncthreads();
  int accumulate = 0, inChunk = 0;
  for (int kt = 0; kt < kTiles; ++kt) {
    issue(kt & 1, accumulate);
    if (kt + 1 < kTiles) load(kt + 1), store((kt + 1) & 1);
    wgmma_wait<0>();
    fence_accumulators(acc);
    accumulate = 1;
    if (++inChunk == PROMOTE || kt + 1 == kTiles) {  // the chunk's end: into the FP32 sums
#pragma unroll
      for (int e = 0; e < F::kAccumulators; ++e) sum[e] += acc[e];
      inChunk = 0, accumulate = 0;
    }
    fence_async_shared();
    __syncthreads();  // the next stage is stored, and both warpgroups are done with this one
  }

  if (partial != nullptr) {  // one slice of several: this slice's flags, then its raw sums
    int* flags = guards + static_cast<long long>(blockIdx.y) * (M + N);
    if (tid < BM && blockRow + tid < M) flags[blockRow + tid] = rowGuard[tid];
    if (tid < BN && blockCol + tid < N) flags[M + blockCol + tid] = colGuard[tid];
  }
  store_fragment<BN>(sum, blockRow + wg * 64, blockRow, blockCol, rowGuard, colGuard, M, N, K,
                     alpha, A, lda, B, ldb, beta, C, ldc, pairedC, partial);
#endif  // sm_90a
}

// ---- The launcher.

constexpr int kPromote = 4;  // stages per chunk the tensor cores sum: 128 k (rung 14's)

// The fused kernel over slices of K: one launch for one slice; with several, the slices' sums
// and flags go to the workspace and sum_slices finishes (where the workspace cannot hold them,
// one slice runs, which needs none).
cudaError_t run_fused(const Gemm& g, int want, cudaStream_t stream, const int* limits) {
  const int M = g.M, N = g.N, K = g.K;  // (a lambda below cannot capture structured bindings)
  const Slicing cut(K, want, Fused::BK);
  const long long count = static_cast<long long>(M) * N;
  runtime::Workspace<float> W(cut.slices > 1 ? cut.slices * (count + M + N) : 0, stream);
  if (W.error() == cudaErrorMemoryAllocation) return run_fused(g, 1, stream, limits);
  if (W.error() != cudaSuccess) return W.error();
  float* partial = cut.slices > 1 ? W.get() : nullptr;
  int* guards = cut.slices > 1 ? reinterpret_cast<int*>(W.get() + cut.slices * count) : nullptr;
  const long long tiles =
      static_cast<long long>((M + Fused::BM - 1) / Fused::BM) * ((N + Fused::BN - 1) / Fused::BN);
  if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(tiles), cut.slices);
  auto start = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel = sgemm_every_shape_3xtf32_fused<kPromote, decltype(alignedA)::value,
                                                           decltype(alignedB)::value>;
    const cudaError_t allowed = runtime::allow_shared_bytes<kernel>(Fused::kSharedBytes);
    if (allowed != cudaSuccess) return allowed;
    kernel<<<grid, Fused::kThreads, Fused::kSharedBytes, stream>>>(
        M, N, K, cut.kSlice, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, partial, guards,
        aligned8(g.C) && g.ldc % 2 == 0, 8, limits, runtime::Batch{});
    return cudaGetLastError();
  };
  const bool a16 = aligned16(g.A, g.lda), b16 = aligned16(g.B, g.ldb);
  const cudaError_t err = a16 ? (b16 ? start(std::true_type{}, std::true_type{})
                                     : start(std::true_type{}, std::false_type{}))
                              : (b16 ? start(std::false_type{}, std::true_type{})
                                     : start(std::false_type{}, std::false_type{}));
  if (err != cudaSuccess || !partial) return err;
  return sum_slices(g, cut.slices, partial, guards, M + N, stream, limits);
}

// A batch in the fused kernel, one slice, the grid's z the problem. Its alignment holds for
// every problem: strides that keep it, and no pointer arrays (whose pointers the host does not
// read).
cudaError_t run_fused_batch(const Gemm& g, const runtime::Batch& batch, int problems,
                            cudaStream_t stream) {
  const long long tiles = static_cast<long long>((g.M + Fused::BM - 1) / Fused::BM) *
                          ((g.N + Fused::BN - 1) / Fused::BN);
  if (tiles > 0x7fffffff) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(problems));
  const bool pairedC = aligned8(g.C) && g.ldc % 2 == 0 && !batch.C && batch.strideC % 2 == 0;
  auto start = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel = sgemm_every_shape_3xtf32_fused<kPromote, decltype(alignedA)::value,
                                                           decltype(alignedB)::value, true>;
    const cudaError_t allowed = runtime::allow_shared_bytes<kernel>(Fused::kSharedBytes);
    if (allowed != cudaSuccess) return allowed;
    kernel<<<grid, Fused::kThreads, Fused::kSharedBytes, stream>>>(
        g.M, g.N, g.K, g.K, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, nullptr, nullptr,
        pairedC, 8, nullptr, batch);
    return cudaGetLastError();
  };
  const bool a16 = aligned16(g.A, g.lda) && !batch.A && batch.strideA % 4 == 0;
  const bool b16 = aligned16(g.B, g.ldb) && !batch.B && batch.strideB % 4 == 0;
  return a16 ? (b16 ? start(std::true_type{}, std::true_type{})
                    : start(std::true_type{}, std::false_type{}))
             : (b16 ? start(std::false_type{}, std::true_type{})
                    : start(std::false_type{}, std::false_type{}));
}

// A batch on rung 14's pre-pass path: every problem split in one launch
// (split_3xtf32/batch_prepass.cuh), then the main kernel over every problem's tiles, at most
// one block per SM, each walking tiles problem after problem (its producer loads the next
// tile's boxes while the consumers store this one). Where the workspace cannot hold the split
// batch, the fused kernel runs, which needs none.
cudaError_t run_prepass_batch(const Gemm& g, const runtime::Batch& batch, int problems, int sms,
                              cudaStream_t stream) {
  // A ring of 3 stages of 64 KiB (A_hi, A_lo, Bt_hi, Bt_lo), as run_prepass's with both planes.
  //                BN  BK STAGES PROMOTE
  using T = Tile<128, 32, 3, kPromote>;
  constexpr auto kernel = sgemm_every_shape_3xtf32<128, 32, 3, kPromote, false, false, false, true>;
  const long long tiles =
      static_cast<long long>((g.M + T::BM - 1) / T::BM) * ((g.N + 127) / 128) * problems;
  const long long rows = static_cast<long long>(problems) * (tile_rows(g.M) + tile_rows(g.N));
  if (tiles > 0x7fffffff || rows > 0x7fffffff) return cudaErrorInvalidValue;
  runtime::Workspace<float> W(batch_split_floats(g.M, g.N, g.K, problems), stream);
  if (W.error() == cudaErrorMemoryAllocation) return run_fused_batch(g, batch, problems, stream);
  if (W.error() != cudaSuccess) return W.error();
  const BatchSplit b = batch_split_layout(W.get(), g.M, g.N, g.K, problems);
  cudaError_t err = split_batch_operands(g, b, batch, problems, stream);
  if (err == cudaSuccess) err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  SplitMaps maps;  // the planes of the whole batch as one tall problem
  if (err == cudaSuccess)
    err = split_maps<T::BM, 128, 32>(&maps, b.s, static_cast<int>(problems * b.Mp),
                                     static_cast<int>(problems * b.Np), g.K);
  if (err != cudaSuccess) return err;
  kernel<<<static_cast<unsigned>(std::min<long long>(tiles, sms)), T::kThreads, T::kSharedBytes,
           stream>>>(g.M, g.N, g.K, g.alpha, maps.Ahi, maps.Alo, maps.Bhi, maps.Blo, b.s.guard, g.A,
                     g.lda, g.B, g.ldb, g.beta, g.C, g.ldc,
                     aligned8(g.C) && g.ldc % 2 == 0 && !batch.C && batch.strideC % 2 == 0, 8, g.K,
                     nullptr, batch, problems, CUtensorMap{}, false);
  return cudaGetLastError();
}

// The stride the map of a batch's operand X (rows x `ld`, problems `stride` apart) is given:
// with one problem, any stride BLAS accepts (0, or past all memory) reads only problem 0, so
// the map's is one problem's extent.
long long map_stride(int problems, int rows, int ld, long long stride) {
  return problems > 1 ? stride : static_cast<long long>(rows) * ld;
}

// Whether the main kernel can read a batch's operand X itself through one tensor map of the
// whole batch: strided (the host does not read pointer arrays), rows and problems 16-byte
// aligned, each problem past the last one's rows (TMA's strides grow outward, below 2^40 bytes).
bool fits_batch_map(const float* X, const float* const* array, int rows, int ld, long long stride,
                    int problems) {
  stride = map_stride(problems, rows, ld, stride);
  return !array && aligned16(X, ld) && stride % 4 == 0 &&
         stride >= static_cast<long long>(rows) * ld && stride < (1LL << 40) / 4;
}

// A batch whose larger operand the main kernel splits itself (kSplitsA), as run_prepass does
// for one problem: that operand crosses memory once, in boxes of the caller's matrix through a
// three-dimensional map (problem, row, k), and the pre-pass splits the other alone. A where
// M >= N; else B (kTransposed: C^T = B^T A^T, the kernel's M x N is N x M), so that the narrow
// side of C is the tile's columns: BN 64 where it is at most 64 (attention's P V: half of a
// 128-wide tile would be zeros), else 128. Where the workspace cannot hold the other operand's
// planes, the fused kernel runs, which needs none.
template <int BN, int STAGES, bool kTransposed>
cudaError_t run_split_a_batch(const Gemm& g, const runtime::Batch& batch, int problems, int sms,
                              cudaStream_t stream) {
  using T = Tile<BN, 32, STAGES, kPromote, true, !kTransposed>;  // the kernel's (kStagedC)
  constexpr auto kernel =
      sgemm_every_shape_3xtf32<BN, 32, STAGES, kPromote, false, true, kTransposed, true>;
  constexpr CUtensorMapDataType kFloat = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  constexpr CUtensorMapSwizzle kSwizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  const int Mk = kTransposed ? g.N : g.M, Nk = kTransposed ? g.M : g.N;  // the kernel's C
  const long long tiles =
      static_cast<long long>((Mk + T::BM - 1) / T::BM) * ((Nk + BN - 1) / BN) * problems;
  const long long rows = static_cast<long long>(problems) * tile_rows(Nk);  // of its B's planes
  if (tiles > 0x7fffffff || rows > 0x7fffffff) return cudaErrorInvalidValue;
  runtime::Workspace<float> W(batch_split_floats(Mk, Nk, g.K, problems, false), stream);
  if (W.error() == cudaErrorMemoryAllocation) return run_fused_batch(g, batch, problems, stream);
  if (W.error() != cudaSuccess) return W.error();
  const BatchSplit b = batch_split_layout(W.get(), Mk, Nk, g.K, problems, false);
  cudaError_t err = kTransposed ? split_batch_a_as_b(g, b, batch, problems, stream)
                                : split_batch_operands(g, b, batch, problems, stream);
  if (err == cudaSuccess) err = runtime::allow_shared_bytes<kernel>(T::kSharedBytes);
  SplitMaps maps;  // its A: the caller's A, or B in boxes [BK][32] (split_maps' kMajorM)
  if (err == cudaSuccess)
    err = kTransposed
              ? runtime::make_batch_tensor_map(&maps.Ahi, g.B, kFloat, problems, g.K, g.N, g.ldb,
                                               map_stride(problems, g.K, g.ldb, batch.strideB), 32,
                                               32, kSwizzle)
              : runtime::make_batch_tensor_map(&maps.Ahi, g.A, kFloat, problems, g.M, g.K, g.lda,
                                               map_stride(problems, g.M, g.lda, batch.strideA),
                                               T::BM, 32, kSwizzle);
  maps.Alo = maps.Ahi;
  for (auto [map, plane] : {std::pair{&maps.Bhi, b.s.Bhi}, {&maps.Blo, b.s.Blo}})
    if (err == cudaSuccess)
      err = runtime::make_tensor_map(map, plane, kFloat, rows, g.K, b.s.Kp, BN, 32, kSwizzle);
  if (err != cudaSuccess) return err;
  // C through TMA stores where it allows a map of the batch (else the consumers store it) and
  // its rows are whole 16 bytes: a store writes the whole of the last 16 bytes it touches.
  CUtensorMap mapC{};
  const bool stagedC =
      !kTransposed && Nk % 4 == 0 &&
      fits_batch_map(g.C, batch.C, Mk, g.ldc, batch.strideC, problems) &&
      runtime::make_batch_tensor_map(&mapC, g.C, kFloat, problems, Mk, Nk, g.ldc,
                                     map_stride(problems, Mk, g.ldc, batch.strideC), T::WGM, 32,
                                     kSwizzle) == cudaSuccess;
  kernel<<<static_cast<unsigned>(std::min<long long>(tiles, sms)), T::kThreads, T::kSharedBytes,
           stream>>>(Mk, Nk, g.K, g.alpha, maps.Ahi, maps.Alo, maps.Bhi, maps.Blo, b.s.guard, g.A,
                     g.lda, g.B, g.ldb, g.beta, g.C, g.ldc,
                     aligned8(g.C) && g.ldc % 2 == 0 && !batch.C && batch.strideC % 2 == 0, 8, g.K,
                     nullptr, batch, problems, mapC, stagedC);
  return cudaGetLastError();
}

// Problems from this many multiply-adds take the pre-pass path in a batch: the split's traffic
// (each operand read once, written twice) beside the products, as rung 15's kFusedBelow for one
// problem, where the fused kernel's split in every tile costs more.
constexpr double kBatchPrepassFrom = 256.0 * 256.0 * 256.0;

// A batch (entries.h: launch_batched): the pre-pass path or the fused kernel, one slice.
cudaError_t launch_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                           cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  if (problems < 1 || problems > runtime::kMaxGridZ) return cudaErrorInvalidValue;
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  const double volume = static_cast<double>(g.M) * g.N * g.K;
  return volume >= kBatchPrepassFrom ? run_prepass_batch(g, batch, problems, sms, stream)
                                     : run_fused_batch(g, batch, problems, stream);
}

// A batch with its larger operand split by the main kernel (entries.h: launch_batched_split_a),
// where that operand allows one map of the whole batch (or, failing that, the other).
cudaError_t launch_batched_split_a(const Gemm& g, const runtime::Batch& batch, int problems,
                                   cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  if (problems < 1 || problems > runtime::kMaxGridZ) return cudaErrorInvalidValue;
  const bool aFits = fits_batch_map(g.A, batch.A, g.M, g.lda, batch.strideA, problems);
  const bool bFits = fits_batch_map(g.B, batch.B, g.K, g.ldb, batch.strideB, problems);
  const bool splitB = bFits && (g.M < g.N || !aFits);
  if (!splitB && !aFits) return launch_batched(g, batch, problems, stream);
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  //         BN STAGES: a ring of 6 x 32 KiB, or of 4 x 48 KiB (3 beside C's 64 KiB); kTransposed
  if (splitB)
    return g.M <= 64 ? run_split_a_batch<64, 6, true>(g, batch, problems, sms, stream)
                     : run_split_a_batch<128, 4, true>(g, batch, problems, sms, stream);
  return g.N <= 64 ? run_split_a_batch<64, 6, false>(g, batch, problems, sms, stream)
                   : run_split_a_batch<128, 3, false>(g, batch, problems, sms, stream);
}

// How one problem runs: the fused kernel or rung 14's pre-pass path, K cut into `slices`.
struct Plan {
  bool fused = false;
  int slices = 1;
};

// The choice, from measurements of both paths with 1 to 16 slices on the bench's 19 shapes
// (NVIDIA H200, experiments/rung15/results/h200/rung15_configs_v3.txt;
// docs/15_every_shape_3xtf32.md):
//  - below kFusedBelow multiply-adds (128^3 to 512^3) the fused kernel, with as many slices as
//    fill the GPU (at most kMostSlices), where it beats the pre-pass path;
//  - above, the pre-pass path; where the tiles of C fill at most half the GPU, K is cut into as
//    many slices as the SMs hold (a cluster of at most kMostRanks blocks per tile), each of at
//    least one chunk (kPromote stages); else one slice, each block walking several tiles.
constexpr double kFusedBelow = 768.0 * 768.0 * 768.0;
constexpr int kMostSlices = 16;

Plan choose(int M, int N, int K, int sms) {
  Plan plan;
  const long long tiles = static_cast<long long>((M + 127) / 128) * ((N + 127) / 128);
  plan.fused = static_cast<double>(M) * N * K < kFusedBelow;
  if (plan.fused)
    plan.slices = static_cast<int>(std::min<long long>((sms + tiles - 1) / tiles, kMostSlices));
  else
    plan.slices = static_cast<int>(std::max<long long>(
        1, std::min<long long>({sms / tiles, kMostRanks, K / (kPromote * 32)})));
  return plan;
}

cudaError_t run(const Gemm& g, const Plan& plan, int sms, cudaStream_t stream,
                const int* limits = nullptr) {
  //                          BN  BK STAGES PROMOTE
  return plan.fused ? run_fused(g, plan.slices, stream, limits)
                    : run_prepass<128, 32, 3, kPromote>(g, plan.slices, sms, stream, limits);
}

// For measuring the choice (experiments/rung15): `path` 0 the fused kernel, 1 rung 14's
// pre-pass path, with `slices` slices, whatever choose() would pick.
cudaError_t launch_config(int path, int slices, const Gemm& gemm, cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  int sms = 0;
  if (err == cudaSuccess) err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  return run(gemm, Plan{path == 0, slices}, sms, stream);
}

// Below this K three TF32 products miss FP32's componentwise bound (rung 13's kMinK).
constexpr int kMinK = 16;

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  if (gemm.K >= 1 && gemm.K < kMinK)
    return runtime::LaunchAnswer::hand_on(FallbackReason::shape_unsuitable);
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  return run(gemm, choose(gemm.M, gemm.N, gemm.K, sms), sms, stream);
}

// Rung 16's slow path: this rung on C's first limits[0] rows and limits[1] columns alone (as far
// as M and N), the limits read on the device when the kernels run, so that a count the GPU
// computed needs no trip to the host (a CUDA graph replays the launch as it is). Rung 16 checks
// the GPU and K >= kMinK first. (Tiles of 128 that cross a limit compute their whole tile.)
cudaError_t launch_limited(const Gemm& gemm, const int* limits, cudaStream_t stream) {
  int sms = 0;
  const cudaError_t err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  return run(gemm, choose(gemm.M, gemm.N, gemm.K, sms), sms, stream, limits);
}

}  // namespace sgemm::every_shape_3xtf32

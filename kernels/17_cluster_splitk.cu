// Rung 17: small problems, split inside one launch. Rung 11 cuts K into slices when tiles are
// few, but its slices meet in the workspace: a second kernel reads them back and adds them. On
// 128^3 to 512^3 the whole product takes 9 to 16 us in cuBLAS, and rung 11's two launches, the
// round trip through device memory and its deep, TMA-fed tiles (whose ring takes a while to
// fill) cost more than the arithmetic: 72-87% of cuBLAS. Here the blocks that share a tile of
// C and split its K form one thread-block cluster (Hopper: up to 8 blocks, 16 with the
// non-portable attribute, on one GPC). Each block computes its slice's partial tile into its
// own shared memory; then the cluster's blocks read each other's shared memory (distributed
// shared memory, DSMEM) and each adds its share of the tile's elements over the blocks in rank
// order 0, 1, ..., n-1, applies alpha and beta, and stores. One launch, no workspace, no
// atomics: every element is the same sum in the same order on every run, bit for bit.
//
// The tile is small and shallow (BK = 16, a three-buffer cp.async ring of 4-byte copies, which
// read any pointer and any leading dimension), because a small problem is a latency problem:
// one wave of blocks, each walking a few k-tiles, where a deep pipeline would never fill. The
// arithmetic is plain FFMA into FP32 accumulators, so FP32 semantics (Inf, NaN, subnormals,
// FLT_MAX) and the componentwise error bound come as they do for rung 5's sums.
//
// The launcher picks a tile and a cluster size per problem by a rule read off measurements
// (choose(), below; docs/17_cluster_splitk.md). On an H200 that beat cuBLAS SGEMM from 64^3 to
// 512^3 (104-170%) and lost from about 1000^3 up (81-93%), where rungs 11 and 15 are faster:
// rung 18 routes only small problems here, but every shape is correct.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "entries.h"          // launch_config and the other entries this file defines
#include "hopper/hopper.cuh"  // smem_addr, the cluster's barriers, DSMEM loads
#include "launchers.h"        // Gemm, and the one launcher signature every rung shares
#include "runtime/batch.h"    // Batch: a batch's problems, the grid's z
#include "runtime/device.h"   // the shared-memory opt-in, device facts, PerDevice

namespace sgemm::cluster_splitk {

namespace cg = cooperative_groups;

constexpr int kMaxRanks = 16;  // blocks of a cluster: 8 portable, 16 with the opt-in

// BM x BN: C per block; BK: depth of K per stage; TM x TN: C per thread; STAGES: buffers of the
// cp.async ring.
template <int BM, int BN, int BK, int TM, int TN, int STAGES>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);  // one micro-tile per thread
  static constexpr int kStrideA = BM + 4;  // As row pitch: +4 spreads the transposing stores
                                           // over banks and keeps float4 reads aligned
  static constexpr int kStageFloats = BK * kStrideA + BK * BN;  // As (BK, BM+4), Bs (BK, BN)
  static constexpr int kRingFloats = STAGES * kStageFloats;
  static constexpr int kPartialFloats = BM * BN;  // the partial tile (BM, BN), after the loop
  static constexpr int kSharedBytes =
      4 * (kRingFloats > kPartialFloats ? kRingFloats : kPartialFloats);
  // Blocks of 256 threads ask for two an SM: the 128 x 128 tile then keeps to 128 registers
  // (at 130 one block fit, and 4096^3 lost 7%). Smaller blocks: no minimum (0), which left
  // their loops as measured (a minimum of 1 doubled the 32 x 64 tiles' register bank conflicts).
  static constexpr int kMinBlocks = kThreads > 128 ? 2 : 0;
  static constexpr int kRowsA = kThreads / BK;  // rows of A one pass of copies covers
  static constexpr int kRowsB = kThreads / BN;  // rows of B (k) one pass covers
  static_assert(BM % TM == 0 && BN % TN == 0, "micro-tiles cover the block tile exactly");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "a thread reads its As and Bs slices as float4s");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert(BK % 8 == 0 && kThreads / 32 % (BK / 8) == 0 && BM % kRowsA == 0,
                "A's copies: warps of 8 k x 4 rows cover BK, and passes of kRowsA rows cover BM");
  static_assert(BN / TN % 8 == 0 && BM / TM % 4 == 0, "warps of 4 x 8 micro-tiles");
  static_assert(kThreads % BN == 0 && BK % kRowsB == 0,
                "B's copies: a thread keeps one column, and passes of kRowsB k cover BK");
  static_assert(kPartialFloats % 4 == 0 && kPartialFloats / 4 >= kMaxRanks,
                "the tile is whole float4s, at least one for each rank of a cluster");
  static_assert(STAGES >= 2, "a ring of at least two buffers");
  static_assert(kSharedBytes <= 227 * 1024, "fits the shared memory a block may have");
};

// cp.async of 4 bytes, zeros when `valid` is false (src is not read). .ca: the rest of each
// 32-byte sector arrives through the warp's next copies.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(hopper::smem_addr(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Block (x, y) of a cluster of n blocks along x: tile (x / n, y) of C, over slice x % n (its
// rank) of K. kSlice: the depth of K a block walks, a multiple of BK; rank r walks
// [r * kSlice, min(K, (r + 1) * kSlice)), possibly nothing. kBatched: blockIdx.z picks the
// problem of `batch` (runtime/batch.h; the batched library calls, library/batched.cu).
template <int BM, int BN, int BK, int TM, int TN, int STAGES, bool kBatched = false>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN, STAGES>::kThreads,
                                  Tile<BM, BN, BK, TM, TN, STAGES>::kMinBlocks)
    sgemm_cluster_splitk(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                         const float* B, int ldb, float beta, float* C, int ldc,
                         runtime::Batch batch) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  if constexpr (kBatched) runtime::select_problem(batch, A, B, C);
  using T = Tile<BM, BN, BK, TM, TN, STAGES>;
  extern __shared__ float4 shared[];
  float* ring = reinterpret_cast<float*>(shared);
  // As[s][k * kStrideA + r] = A[blockRow + r][k0 + k]: transposed by the copies (BK, BM+4)
  // Bs[s][k * BN + c]       = B[k0 + k][blockCol + c]                          (BK, BN)
  auto As = [&](int s) { return ring + s * T::kStageFloats; };
  auto Bs = [&](int s) { return ring + s * T::kStageFloats + BK * T::kStrideA; };

  const cg::cluster_group cluster = cg::this_cluster();
  const int ranks = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());  // blockIdx.x % ranks
  const int blockCol = static_cast<int>(blockIdx.x) / ranks * BN;
  const int blockRow = static_cast<int>(blockIdx.y) * BM;
  const int kBegin = rank * kSlice;
  const int kEnd = min(K, kBegin + kSlice);
  const int kTiles = kEnd > kBegin ? (kEnd - kBegin + BK - 1) / BK : 0;

  // The copies. A: in a warp, lanes cover 8 k by 4 rows (k = lane % 8, row = lane / 8), and
  // warps cover BK, then the rows; a thread keeps its k and rows rowA + kRowsA * i. Each
  // transposing store As[k][r] then lands on its own bank (k * (BM+4) + r: 4k + r mod 32), where
  // 32 k of one row hit 8 banks four times each. B: a thread keeps column tid % BN and k = tid /
  // BN + kRowsB * i; a warp reads 32 consecutive floats of a row.
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int kA = warp % (BK / 8) * 8 + lane % 8, rowA = warp / (BK / 8) * 4 + lane / 8;
  const int colB = tid % BN, kB = tid / BN;
  const float* srcA = A + static_cast<long long>(blockRow + rowA) * lda + kBegin + kA;
  const float* srcB = B + static_cast<long long>(kBegin + kB) * ldb + blockCol + colB;
  const bool colValid = blockCol + colB < N;
  // A k-tile inside C's rows and columns and the slice copies with no tests: one address and
  // one cp.async a copy. The others test each copy, and write zeros (reading nothing) past M,
  // N or the slice's end.
  const bool inside = blockRow + BM <= M && blockCol + BN <= N;
  auto load_tile = [&](int t, int s) {
    const int k0 = t * BK;  // from kBegin
    const float* a = srcA + k0;
    const float* b = srcB + static_cast<long long>(k0) * ldb;
    float* as = As(s) + kA * T::kStrideA + rowA;
    float* bs = Bs(s) + kB * BN + colB;
    if (inside && kBegin + k0 + BK <= kEnd) {
#pragma unroll
      for (int i = 0; i < BM / T::kRowsA; ++i)
        copy4(as + i * T::kRowsA, a + static_cast<long long>(lda) * (i * T::kRowsA), true);
#pragma unroll
      for (int i = 0; i < BK / T::kRowsB; ++i)
        copy4(bs + i * T::kRowsB * BN, b + static_cast<long long>(ldb) * (i * T::kRowsB), true);
      return;
    }
#pragma unroll
    for (int i = 0; i < BM / T::kRowsA; ++i) {
      const bool valid = blockRow + rowA + i * T::kRowsA < M && kBegin + k0 + kA < kEnd;
      copy4(as + i * T::kRowsA, valid ? a + static_cast<long long>(lda) * (i * T::kRowsA) : A,
            valid);
    }
#pragma unroll
    for (int i = 0; i < BK / T::kRowsB; ++i) {
      const bool valid = colValid && kBegin + k0 + kB + i * T::kRowsB < kEnd;
      copy4(bs + i * T::kRowsB * BN, valid ? b + static_cast<long long>(ldb) * (i * T::kRowsB) : B,
            valid);
    }
  };

  // Threads tile the block tile in warps of 4 x 8 micro-tiles (rows x columns), warps along N
  // first: at one k a warp reads 4 float4s of As and 8 of Bs, one shared-memory wavefront
  // each (a warp of 2 x 16 micro-tiles read 16 float4s of Bs, two wavefronts).
  constexpr int kWarpsAlongN = BN / TN / 8;
  const int threadCol = warp % kWarpsAlongN * 8 + lane % 8;  // columns threadCol*TN ..
  const int threadRow = warp / kWarpsAlongN * 4 + lane / 8;  // rows threadRow*TM ..
  float acc[TM * TN] = {};                                   // acc[i * TN + j]: (TM, TN)
  float regM[2][TM], regN[2][TN];  // (2, TM), (2, TN): As and Bs at k and k + 1

  // The ring: STAGES-1 tiles in flight ahead of the one being read. Every thread commits one
  // group per step, empty or not, so that wait_copies<STAGES-2> always means "tile t landed".
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < kTiles) load_tile(s, s);
    commit();
  }
  for (int t = 0; t < kTiles; ++t) {
    wait_copies<STAGES - 2>();
    __syncthreads();  // tile t is in for every thread, and buffer (t-1) % STAGES is read
    if (t + STAGES - 1 < kTiles) load_tile(t + STAGES - 1, (t + STAGES - 1) % STAGES);
    commit();
    const float* as = As(t % STAGES);
    const float* bs = Bs(t % STAGES);
    // As and Bs at one k into registers, two sets: k + 1's loads are written before k's FFMAs.
    // ptxas schedules the same code as from one set (it hoists the loads by itself, 4-16 FFMAs
    // ahead; at 512^3 ncu still finds the FFMAs waiting on them, 31% of the loop's stalls):
    // the two sets state the order the loop needs, not a change the compiler sees.
    auto load_k = [&](int k, float* m, float* n) {
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&m[i]) =
            *reinterpret_cast<const float4*>(&as[k * T::kStrideA + threadRow * TM + i]);
#pragma unroll
      for (int j = 0; j < TN; j += 4)
        *reinterpret_cast<float4*>(&n[j]) =
            *reinterpret_cast<const float4*>(&bs[k * BN + threadCol * TN + j]);
    };
    load_k(0, regM[0], regN[0]);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float* m = regM[k % 2];
      const float* n = regN[k % 2];
      if (k + 1 < BK) {
        load_k(k + 1, regM[(k + 1) % 2], regN[(k + 1) % 2]);
      }
      // Rung 10's order: pairs of columns (one register of each bank), each walked down the
      // rows and back up for the next pair, so that every FFMA shares an operand with the one
      // before and the operand reuse cache serves it (row by row, 80% of them read two or
      // three operands from one bank).
#pragma unroll
      for (int p = 0; p < TN / 2; ++p)
#pragma unroll
        for (int step = 0; step < TM; ++step) {
          const int i = p % 2 == 0 ? step : TM - 1 - step;
          acc[i * TN + 2 * p] += m[i] * n[2 * p];
          acc[i * TN + 2 * p + 1] += m[i] * n[2 * p + 1];
        }
    }
  }
  wait_copies<0>();  // only empty groups remain; none may land on the partial tile
  __syncthreads();   // every thread is done reading the ring, which now holds the partial tile

  // The partial tile P (BM, BN), row-major, in this block's shared memory.
  float* P = ring;
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      *reinterpret_cast<float4*>(&P[(threadRow * TM + i) * BN + threadCol * TN + j]) = make_float4(
          acc[i * TN + j], acc[i * TN + j + 1], acc[i * TN + j + 2], acc[i * TN + j + 3]);
  hopper::cluster_sync_shared();  // every rank's partial tile is written and visible to the cluster

  // Rank r finishes float4s [r, r+1) * kChunks / ranks of the tile: it reads them from every
  // rank's P (its own included) and adds them in rank order 0, 1, ..., so that each element
  // is the same sum, in the same order, on every run. Loads go out kInFlight ranks at a time
  // (DSMEM latency overlaps; registers stay few), the additions stay in rank order.
  constexpr int kChunks = T::kPartialFloats / 4;
  constexpr int kInFlight = 4;
  const int first = rank * kChunks / ranks, last = (rank + 1) * kChunks / ranks;
  for (int q = first + tid; q < last; q += T::kThreads) {
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s0 = 0; s0 < ranks; s0 += kInFlight) {
      float4 part[kInFlight];
#pragma unroll
      for (int s = 0; s < kInFlight; ++s)
        if (s0 + s < ranks)
          part[s] = hopper::load_dsmem(hopper::map_rank(hopper::smem_addr(&P[4 * q]), s0 + s));
#pragma unroll
      for (int s = 0; s < kInFlight; ++s)
        if (s0 + s < ranks) {
          if (s0 + s == 0) {
            sum = part[0];  // rank 0's partial as it is: -0 stays -0, as one block's sum
          } else {
            sum.x += part[s].x, sum.y += part[s].y, sum.z += part[s].z, sum.w += part[s].w;
          }
        }
    }
    const int row = blockRow + q * 4 / BN, col = blockCol + q * 4 % BN;
    if (row >= M) continue;
    float* c = C + static_cast<long long>(row) * ldc + col;
    const float s4[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
    for (int jj = 0; jj < 4; ++jj)
      if (col + jj < N)  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
        c[jj] = beta == 0.f ? alpha * s4[jj] : alpha * s4[jj] + beta * c[jj];
  }
  hopper::cluster_sync_relaxed();  // no block exits while another may still read its shared memory
#endif  // sm_90a
}

using TileLauncher = cudaError_t (*)(int ranks, int kSlice, const Gemm& g, cudaStream_t stream);
using BatchedTileLauncher = cudaError_t (*)(int ranks, int kSlice, const Gemm& g,
                                            const runtime::Batch& batch, int problems,
                                            cudaStream_t stream);

// Tile (x, y) of C with K split over a cluster of `ranks` blocks along x; kBatched: z = problem.
template <int BM, int BN, int BK, int TM, int TN, int STAGES, bool kBatched>
cudaError_t launch_tile_of(int ranks, int kSlice, const Gemm& g, const runtime::Batch& batch,
                           int problems, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, TM, TN, STAGES>;
  constexpr auto kernel = sgemm_cluster_splitk<BM, BN, BK, TM, TN, STAGES, kBatched>;
  // Opt-ins, once per device: shared memory past 48 KiB, clusters past 8 blocks.
  static runtime::PerDevice<bool> opted;
  bool done = false;
  cudaError_t err = opted.get(&done, [](int, bool* out) {
    *out = true;
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
    return e != cudaSuccess
               ? e
               : cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  });
  if (err != cudaSuccess) return err;
  cudaLaunchConfig_t config = {};
  // x: tiles of N times the cluster (<= 2^14 * 16); y: tiles of M (<= 2^15 for M <= 2^20).
  config.gridDim =
      dim3(static_cast<unsigned>((g.N + BN - 1) / BN * ranks),
           static_cast<unsigned>((g.M + BM - 1) / BM), static_cast<unsigned>(problems));
  config.blockDim = dim3(T::kThreads);
  config.dynamicSmemBytes = T::kSharedBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(ranks);
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  err = cudaLaunchKernelEx(&config, kernel, g.M, g.N, g.K, kSlice, g.alpha, g.A, g.lda, g.B, g.ldb,
                           g.beta, g.C, g.ldc, batch);
  return err != cudaSuccess ? err : cudaGetLastError();
}

template <int BM, int BN, int BK, int TM, int TN, int STAGES>
cudaError_t launch_tile(int ranks, int kSlice, const Gemm& g, cudaStream_t stream) {
  return launch_tile_of<BM, BN, BK, TM, TN, STAGES, false>(ranks, kSlice, g, runtime::Batch{}, 1,
                                                           stream);
}

// A tile of the table: its shape and its kernel.
struct Config {
  int BM, BN, BK;
  TileLauncher run;
};

// Every tile was measured with clusters of 1 to 16 blocks on 13 shapes (NVIDIA H200,
// experiments/rung17/configs.cu, experiments/rung17/results/h200/rung17_configs_v1.txt, v3 and v7
// for the later ones). choose() below takes the first (small problems), the seventh (small problems
// with long slices) or the fourth (the rest); the others stay for the experiment and the tests,
// which run every tile.
//                                   BM   BN  BK  TM TN STAGES
constexpr Config kConfigs[] = {
    {32, 64, 16, &launch_tile<32, 64, 16, 4, 4, 3>},      // 128 threads
    {64, 64, 16, &launch_tile<64, 64, 16, 4, 4, 3>},      // 256
    {128, 64, 16, &launch_tile<128, 64, 16, 8, 4, 3>},    // 256
    {128, 128, 16, &launch_tile<128, 128, 16, 8, 8, 3>},  // 256
    {32, 64, 32, &launch_tile<32, 64, 32, 4, 4, 3>},      // 128: the first, k-tiles twice as deep
    {64, 64, 16, &launch_tile<64, 64, 16, 8, 4, 3>},      // 128: cuBLAS's small tile, 8 x 4 a
    {64, 64, 32, &launch_tile<64, 64, 32, 8, 4, 3>},      // 128  thread (12 FFMA per LDS.128)
    {32, 64, 16, &launch_tile<32, 64, 16, 8, 4, 3>},      // 64: the first, 8 x 4 a thread
    {32, 64, 32, &launch_tile<32, 64, 32, 4, 4, 4>},      // 128: the fifth, four buffers
};
constexpr int kConfigCount = sizeof kConfigs / sizeof kConfigs[0];
constexpr const Config& kSmallTile = kConfigs[0];
constexpr const Config& kLargeTile = kConfigs[3];
constexpr const Config& kDeepTile = kConfigs[6];
// From this depth of K per rank on (as the small tile's ranks cut it), a small problem takes the
// 64 x 64 tile with 8 x 4 a thread and k-tiles of 32, one block an SM: more FFMAs per shared
// load and per barrier (rung17_configs_v7.txt: 512^3 105.1% against 101.0% for the small tile,
// 128 x 128 x 4096 90.6% against 84.4%; at 128^3 and 256^3, whose ranks walk 16 and 32 k, the
// small tile stays the fastest).
constexpr int kDeepFrom = 256;

struct Plan {
  const Config* config = nullptr;
  int ranks = 1, kSlice = 0;
};

// Whole k-tiles per slice, `ranks` slices.
int slice_of(int K, int ranks, int BK) { return (K + ranks * BK - 1) / (ranks * BK) * BK; }

// The largest cluster size (1, 2, 4, 8, 16) with at most `maxBlocks` blocks of `tiles` tiles
// each, and a k-tile for every rank.
int ranks_for(long long tiles, long long maxBlocks, int K, int BK) {
  int ranks = 1;
  while (ranks < kMaxRanks && tiles * ranks * 2 <= maxBlocks) {
    const int kSlice = slice_of(K, ranks * 2, BK);
    if ((K + kSlice - 1) / kSlice < ranks * 2) break;  // a rank would have no k
    ranks *= 2;
  }
  return ranks;
}

// The rule, read off the measurements (rung17_configs_v1.txt; doc 17 shows them). A block of
// this kernel waits on memory more than it computes, so what pays is blocks in flight:
//  - Few tiles (the 32 x 64 tiles fit in one wave): the small tile, K split until about two
//    blocks per SM. At 128^3, 256^3, 512^3 and 128 x 128 x 4096 that was the fastest of the 20
//    variants (8, 8, 2 and 16 blocks a cluster); at 256^3 and 512^3 four per SM lost 13% and 7%.
//    Where a rank's slice is then kDeepFrom deep or more, the deep tile instead, K split until
//    its tiles fill the SMs once (v7: at 512^3 2 blocks a cluster, at 128 x 128 x 4096 16).
//  - Else the 128 x 128 tile, whose loop is the fastest per k on long K, split until the tiles
//    fill the SMs once: 1000^3, 1024^3, 4096 x 256 x 4096 and 1024 x 1024 x 65536 took 2 blocks
//    a cluster, the fastest there; at 2048^3 and 4096^3, 1 (within 1% of the fastest).
Plan choose(int M, int N, int K, int sms) {
  auto tiles = [M, N](const Config& c) {
    return static_cast<long long>((M + c.BM - 1) / c.BM) * ((N + c.BN - 1) / c.BN);
  };
  const Config& c = tiles(kSmallTile) <= sms ? kSmallTile : kLargeTile;
  const long long maxBlocks = &c == &kSmallTile ? 2LL * sms : sms;
  Plan plan;
  plan.config = &c;
  plan.ranks = ranks_for(tiles(c), maxBlocks, K, c.BK);
  plan.kSlice = slice_of(K, plan.ranks, c.BK);
  if (&c == &kSmallTile && plan.kSlice >= kDeepFrom) {
    plan.config = &kDeepTile;
    plan.ranks = ranks_for(tiles(kDeepTile), sms, K, kDeepTile.BK);
    plan.kSlice = slice_of(K, plan.ranks, kDeepTile.BK);
  }
  return plan;
}

// For experiments/rung17 and the tests: tile `config` of the table on a cluster of `ranks`,
// whatever the rule would choose.
int config_count() { return kConfigCount; }
cudaError_t launch_config(int config, int ranks, const Gemm& g, cudaStream_t stream) {
  if (config < 0 || config >= kConfigCount || ranks < 1 || ranks > kMaxRanks)
    return cudaErrorInvalidValue;
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  return kConfigs[config].run(ranks, slice_of(g.K, ranks, kConfigs[config].BK), g, stream);
}

// ---- Batches (entries.h: launch_batched): the grid's z is the problem, so that the batch's
// tiles fill the GPU where one problem's would not, with no split of K until they do.
struct BatchedConfig {
  int BM, BN, BK;
  BatchedTileLauncher run;
};
// The table's fourth tile (128 x 128, 8 x 8 a thread) and its seventh (64 x 64 x 32, 8 x 4).
constexpr BatchedConfig kBatchedLarge = {128, 128, 16,
                                         &launch_tile_of<128, 128, 16, 8, 8, 3, true>};
constexpr BatchedConfig kBatchedSmall = {64, 64, 32, &launch_tile_of<64, 64, 32, 8, 4, 3, true>};

// The 128 x 128 tile where C's problems are at least that large in both dimensions, else the
// 64 x 64 one (rung 17's deep tile: little of it is wasted on 64 x 64 problems); K split over a
// cluster only while the batch's tiles fill less than one wave (ranks_for, as choose() does).
cudaError_t launch_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                           cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  int sms = 0;
  if (err == cudaSuccess) err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  if (problems < 1 || problems > runtime::kMaxGridZ) return cudaErrorInvalidValue;
  const BatchedConfig& c = g.M >= 128 && g.N >= 128 ? kBatchedLarge : kBatchedSmall;
  const long long tiles =
      static_cast<long long>((g.M + c.BM - 1) / c.BM) * ((g.N + c.BN - 1) / c.BN) * problems;
  const int ranks = ranks_for(tiles, sms, g.K, c.BK);
  return c.run(ranks, slice_of(g.K, ranks, c.BK), g, batch, problems, stream);
}

runtime::LaunchAnswer launch(const Gemm& g, cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  const Plan plan = choose(g.M, g.N, g.K, sms);
  return plan.config->run(plan.ranks, plan.kSlice, g, stream);
}

}  // namespace sgemm::cluster_splitk

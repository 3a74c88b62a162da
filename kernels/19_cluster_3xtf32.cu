// Rung 19: small problems on the tensor cores. Rung 17 brought 128^3 to 512^3 past cuBLAS with
// FFMA by cutting K across the blocks of a cluster, so that a problem of few tiles fills the
// GPU, and adding the slices' partial tiles in rank order through distributed shared memory.
// Rung 15's tensor-core path could not follow there: at those sizes it runs its fused kernel
// (the split into TF32 hi and lo parts as a stage is stored) over slices of K, then a second
// kernel that adds the slices from a workspace. Here rung 15's fused kernel meets rung 17's
// cluster:
//
//  - 64 x 64 tiles of C, one warpgroup a block: wgmma m64n64k8, 3xTF32 (rung 15's split as each
//    stage is stored, three products a k step, small ones first; FP32 sums every kPromote
//    stages): a small problem has four times the tiles of rung 15's 128 x 128.
//  - K cut into the cluster's `ranks` slices (rung 17); each block writes its partial tile to
//    its own shared memory, and each rank finishes 1/ranks of the tile's rows, adding the
//    slices in rank order: one launch, no workspace, bitwise the same on every run.
//  - The split's guard test (Inf, NaN, below 2^-114) sets a bit per row and column of the tile,
//    the ranks' bits meet in the sum, and the guard path redoes those elements.
//
// Every shape and alignment (rung 15's loads: 16 bytes where aligned, else 4), K >= 16.
// Clusters, distributed shared memory and wgmma are Hopper's: sm_90a code.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "entries.h"                      // launch_batched, launch_config
#include "hopper/hopper.cuh"              // wgmma, descriptors, the cluster's barriers, DSMEM
#include "launchers.h"                    // Gemm, the launcher signature every rung shares
#include "runtime/batch.h"                // Batch: a batch's problems, the grid's z
#include "runtime/device.h"               // the shared-memory opt-in, the Hopper check
#include "split_3xtf32/split_3xtf32.cuh"  // load4, split, needs_guard, mma_stage, fp32_dot

namespace sgemm::cluster_3xtf32 {

using namespace split_3xtf32;

// ---- The tile.

// 64 x 64 of C a block, one warpgroup, stages of 32 k in a ring of two in shared memory:
// [A_hi | A_lo | Bt_hi | Bt_lo], 8 KiB each, K-major rows of 128 bytes under the 128-byte
// swizzle, as rung 15's fused kernel stores them. Its 128 threads load and split the next stage
// while the tensor cores multiply this one. After the last stage the ring holds the partial tile
// P (BM, kPitch).
struct Tile {
  static constexpr int BM = 64;  // rows of C a block
  static constexpr int BN = 64;  // columns
  static constexpr int BK = 32;  // k a stage
  static constexpr int kThreads = 128;
  static constexpr int kSpan = BK * 4;                         // bytes of a row of a tile
  static constexpr int kTileBytes = BM * kSpan;                // one of the four (BN == BM)
  static constexpr int kStageBytes = 4 * kTileBytes;           // 32 KiB
  static constexpr int kSharedBytes = 2 * kStageBytes + 1024;  // the ring, aligned to 1024
  static constexpr int kAccumulators = BN / 2;                 // per thread, per set
  static constexpr int kPitch = BN + 4;  // P's rows: a warp's float2 stores hit 32 banks
  static constexpr int kPromote = 4;     // stages per chunk the tensor cores sum (rung 15's)
  static_assert(BN == BM, "A's and Bt's tiles have the same shape");
  static_assert(BM * BK / 4 == 4 * kThreads && BN * BK / 4 == 4 * kThreads,
                "each thread loads four float4 of A and four of B per stage");
  static_assert(BM * kPitch * 4 <= 2 * kStageBytes, "P fits the ring");
  static_assert(BM == 64 && BN == 64, "a row's and a column's flags: one bit of a 64-bit mask");
};

// Byte offset of the 16-byte chunk c (floats 4c .. 4c+3 of k) of row r in a K-major tile of
// 128-byte rows that starts on a 1024-byte boundary, under the 128-byte swizzle.
__device__ __forceinline__ int swizzled(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }

// Splits four floats and stores hi and lo at `hi`, `hi + lo_offset` bytes in shared memory;
// true when one of them needs the guard path.
__device__ __forceinline__ bool split_store(const float4& x, uint8_t* hi, int lo_offset) {
  float4 h, l;
  split(x.x, &h.x, &l.x), split(x.y, &h.y, &l.y), split(x.z, &h.z, &l.z), split(x.w, &h.w, &l.w);
  *reinterpret_cast<float4*>(hi) = h;
  *reinterpret_cast<float4*>(hi + lo_offset) = l;
  return needs_guard(x.x) || needs_guard(x.y) || needs_guard(x.z) || needs_guard(x.w);
}

// The guard path (rung 15's fp32_dot), called, not inlined: it rarely runs, and a small problem's
// kernel runs once through code fetched from memory, where every inlined copy costs.
__device__ __noinline__ float guard_path(const float* A, int lda, const float* B, int ldb, int K,
                                         int row, int col) {
  return fp32_dot(A, lda, B, ldb, K, row, col);
}

// Block (x, y) of a cluster of `ranks` blocks along y: tile x of C (64 x 64 tiles, row by
// row) over slice y of K, [y * kSlice, min(K, (y + 1) * kSlice)); kSlice a multiple of 4.
// kBatched: blockIdx.z picks the problem of `batch`.
template <bool kAlignedA, bool kAlignedB, bool kBatched>
__global__ void __launch_bounds__(Tile::kThreads)
    sgemm_cluster_3xtf32(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                         const float* B, int ldb, float beta, float* C, int ldc,
                         runtime::Batch batch) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile;
  constexpr int BM = T::BM, BN = T::BN, BK = T::BK;
  if constexpr (kBatched) runtime::select_problem(batch, A, B, C);
  extern __shared__ uint8_t raw[];
  uint8_t* ring = raw + (1024 - smem_addr(raw) % 1024) % 1024;
  // The rows (bits 0-63) and columns (64-127) of the tile whose inputs this block split and the
  // tensor cores cannot answer.
  __shared__ uint4 flagged;

  const int tilesN = (N + BN - 1) / BN;
  const int blockRow = blockIdx.x / tilesN * BM, blockCol = blockIdx.x % tilesN * BN;
  const int ranks = static_cast<int>(gridDim.y), rank = static_cast<int>(blockIdx.y);
  const int kBegin = rank * kSlice, kEnd = min(K, kBegin + kSlice);
  const int kTiles = kEnd > kBegin ? (kEnd - kBegin + BK - 1) / BK : 0;

  const int tid = threadIdx.x;
  if (tid == 0) flagged = make_uint4(0, 0, 0, 0);

  // Each thread moves chunk cA (k 4cA .. 4cA+3) of rows rA + 16i of A's tile, i < 4, and the
  // 4 x 4 block k 4aB .. 4aB+3 x columns 4jB .. 4jB+3 of B's, which it transposes.
  const int cA = tid % 8, rA = tid / 8;
  const int jB = tid % 16, aB = tid / 16;
  float4 ra[4];  // (4) A(rA + 16i, 4cA .. 4cA+3)
  float4 rb[4];  // (4) B(4aB + q, 4jB .. 4jB+3)
  auto load = [&](int kt) {
    const int k0 = kBegin + kt * BK;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = blockRow + rA + 16 * i;
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
  // Flags of what this thread split: bit i of rowsSeen, row rA + 16i; bit c of colsSeen,
  // column 4jB + c.
  uint32_t rowsSeen = 0, colsSeen = 0;
  // Splits what load() brought into stage `buf`: A's rows as they are, B's columns as rows.
  auto store = [&](int buf) {
    uint8_t* stage = ring + buf * T::kStageBytes;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      rowsSeen |= split_store(ra[i], stage + swizzled(rA + 16 * i, cA), T::kTileBytes) << i;
    uint8_t* bt = stage + 2 * T::kTileBytes;
    const float4 n0 = make_float4(rb[0].x, rb[1].x, rb[2].x, rb[3].x);  // column 4jB, 4 k
    const float4 n1 = make_float4(rb[0].y, rb[1].y, rb[2].y, rb[3].y);
    const float4 n2 = make_float4(rb[0].z, rb[1].z, rb[2].z, rb[3].z);
    const float4 n3 = make_float4(rb[0].w, rb[1].w, rb[2].w, rb[3].w);
    const float4* columns[4] = {&n0, &n1, &n2, &n3};
#pragma unroll
    for (int c = 0; c < 4; ++c)
      colsSeen |= split_store(*columns[c], bt + swizzled(4 * jB + c, aB), T::kTileBytes) << c;
  };

  // acc[4j + 2i + c] = P[16warp + lane/4 + 8i][8j + 2(lane%4) + c] (the wgmma fragment): the
  // tensor cores' sum over this chunk of K; sum: the FP32 sum of the chunks before it.
  float acc[T::kAccumulators], sum[T::kAccumulators];
#pragma unroll
  for (int e = 0; e < T::kAccumulators; ++e) acc[e] = sum[e] = 0.f;
  auto issue = [&](int buf, int accumulate) {
    const uint8_t* stage = ring + buf * T::kStageBytes;
    mma_stage<BN, BK, T::kSpan>(acc, stage, stage + T::kTileBytes, stage + 2 * T::kTileBytes,
                                stage + 3 * T::kTileBytes, accumulate);
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
    if (++inChunk == T::kPromote || kt + 1 == kTiles) {  // the chunk's end: into the FP32 sums
#pragma unroll
      for (int e = 0; e < T::kAccumulators; ++e) sum[e] += acc[e];
      inChunk = 0, accumulate = 0;
    }
    fence_async_shared();
    __syncthreads();  // the next stage is stored, and the warpgroup is done with this one
  }

  // The partial tile P (BM, kPitch) in the ring: this slice's sums. The flags into `flagged`
  // (rarely set).
  float* P = reinterpret_cast<float*>(ring);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (rowsSeen >> i & 1) atomicOr(&flagged.x + i / 2, 1u << (rA + 16 * i) % 32);
  if (colsSeen) atomicOr(&flagged.z + jB / 8, colsSeen << jB % 8 * 4);
  const int warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int r = 16 * warp + lane / 4 + 8 * i, c = 8 * j + 2 * (lane % 4);
      *reinterpret_cast<float2*>(&P[r * T::kPitch + c]) =
          make_float2(sum[4 * j + 2 * i], sum[4 * j + 2 * i + 1]);
    }
  hopper::cluster_sync_shared();  // every rank's P and flags are written and visible

  // Each rank's float4 at `address` of its shared memory, combined in rank order by
  // add(total, next); the loads four at a time, so that their trips across the cluster overlap.
  auto over_ranks = [ranks](unsigned address, auto add) {
    float4 total;
    for (int z0 = 0; z0 < ranks; z0 += 4) {
      float4 p[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (z0 + j < ranks) p[j] = hopper::load_dsmem(hopper::map_rank(address, z0 + j));
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (z0 + j < ranks) total = z0 + j == 0 ? p[j] : add(total, p[j]);
    }
    return total;
  };
  // Every rank's flags: bit r of rowFlags, row r of the tile; bit c of colFlags, column c.
  const float4 f = over_ranks(smem_addr(&flagged), [](float4 a, float4 b) {
    return make_float4(__uint_as_float(__float_as_uint(a.x) | __float_as_uint(b.x)),
                       __uint_as_float(__float_as_uint(a.y) | __float_as_uint(b.y)),
                       __uint_as_float(__float_as_uint(a.z) | __float_as_uint(b.z)),
                       __uint_as_float(__float_as_uint(a.w) | __float_as_uint(b.w)));
  });
  const uint64_t rowFlags = __float_as_uint(f.x) | uint64_t{__float_as_uint(f.y)} << 32;
  const uint64_t colFlags = __float_as_uint(f.z) | uint64_t{__float_as_uint(f.w)} << 32;
  // Rank r finishes rows [r, r + 1) * BM / ranks of the tile, a float4 at a time: the ranks'
  // sums in rank order (rank 0's as it is: -0 stays -0), then alpha, beta and the guard path,
  // where a flag or a sum not finite says.
  const int first = rank * BM / ranks, rows = (rank + 1) * BM / ranks - first;
  for (int q = tid; q < rows * (BN / 4); q += T::kThreads) {
    const int r = first + q / (BN / 4), c = q % (BN / 4) * 4;
    const float4 s = over_ranks(smem_addr(&P[r * T::kPitch + c]), [](float4 a, float4 b) {
      return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    });
    const int row = blockRow + r;
    if (row >= M) continue;
    float* out = C + static_cast<std::size_t>(row) * ldc;
    const float v4[4] = {s.x, s.y, s.z, s.w};
    const bool rowFlagged = rowFlags >> r & 1;
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const int col = blockCol + c + h;
      if (col >= N) continue;
      float v = v4[h];
      if (rowFlagged || colFlags >> (c + h) & 1 || !isfinite(v))
        v = guard_path(A, lda, B, ldb, K, row, col);
      out[col] = beta == 0.f ? alpha * v : alpha * v + beta * out[col];  // beta 0: C not read
    }
  }
  hopper::cluster_sync_relaxed();  // no block exits while another may still read its memory
#endif  // sm_90a
}

// ---- The launcher.

// Blocks of a cluster: launch_config takes up to 16 (with the non-portable opt-in); the rule
// below up to 8, the portable most (16 lost everywhere in experiments/rung19).
constexpr int kMostRanks = 16;
constexpr int kMaxRanks = 8;
// A slice of K is a whole number of these: half a stage, so that 128^3 can take 8 slices.
constexpr int kSliceUnit = 16;
// Blocks an SM runs at once (its shared memory holds three; two were the fastest fill).
constexpr int kBlocksPerSm = 2;

int slice_of(int K, int ranks) {
  return (K + ranks * kSliceUnit - 1) / (ranks * kSliceUnit) * kSliceUnit;
}

// The cluster's size for a problem of `tiles` tiles: the most, a power of two, whose blocks fill
// the GPU at most once (kBlocksPerSm a SM), each slice at least kSliceUnit deep.
int ranks_for(long long tiles, int K, int sms) {
  int ranks = 1;
  while (ranks * 2 <= kMaxRanks && tiles * ranks * 2 <= kBlocksPerSm * sms &&
         K >= ranks * 2 * kSliceUnit)
    ranks *= 2;
  return ranks;
}

template <bool kBatched>
cudaError_t run(const Gemm& g, int ranks, const runtime::Batch& batch, int problems,
                cudaStream_t stream) {
  const long long tiles =
      static_cast<long long>((g.M + Tile::BM - 1) / Tile::BM) * ((g.N + Tile::BN - 1) / Tile::BN);
  if (tiles > 0x7fffffff || ranks < 1 || ranks > kMostRanks) return cudaErrorInvalidValue;
  const int kSlice = slice_of(g.K, ranks);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(ranks),
                        static_cast<unsigned>(problems));
  config.blockDim = dim3(Tile::kThreads);
  config.dynamicSmemBytes = Tile::kSharedBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(ranks);
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  auto start = [&](auto alignedA, auto alignedB) {
    constexpr auto kernel =
        sgemm_cluster_3xtf32<decltype(alignedA)::value, decltype(alignedB)::value, kBatched>;
    // Opt-ins, once per device: shared memory past 48 KiB, clusters past 8 blocks.
    static runtime::PerDevice<bool> opted;
    bool done = false;
    cudaError_t err = opted.get(&done, [](int, bool* out) {
      *out = true;
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSharedBytes);
      return e != cudaSuccess
                 ? e
                 : cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    });
    if (err != cudaSuccess) return err;
    err = cudaLaunchKernelEx(&config, kernel, g.M, g.N, g.K, kSlice, g.alpha, g.A, g.lda, g.B,
                             g.ldb, g.beta, g.C, g.ldc, batch);
    return err != cudaSuccess ? err : cudaGetLastError();
  };
  const bool a16 = aligned16(g.A, g.lda) && !batch.A && batch.strideA % 4 == 0;
  const bool b16 = aligned16(g.B, g.ldb) && !batch.B && batch.strideB % 4 == 0;
  return a16 ? (b16 ? start(std::true_type{}, std::true_type{})
                    : start(std::true_type{}, std::false_type{}))
             : (b16 ? start(std::false_type{}, std::true_type{})
                    : start(std::false_type{}, std::false_type{}));
}

// Below this K three TF32 products miss FP32's componentwise bound (rung 13's kMinK).
constexpr int kMinK = 16;

cudaError_t launch_config(int ranks, const Gemm& gemm, cudaStream_t stream) {
  const cudaError_t err = runtime::require_sm90();
  return err != cudaSuccess ? err : run<false>(gemm, ranks, runtime::Batch{}, 1, stream);
}

cudaError_t launch_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                           cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  if (problems < 1 || problems > runtime::kMaxGridZ || g.K < kMinK) return cudaErrorInvalidValue;
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((g.M + Tile::BM - 1) / Tile::BM) *
                          ((g.N + Tile::BN - 1) / Tile::BN) * problems;
  return run<true>(g, ranks_for(tiles, g.K, sms), batch, problems, stream);
}

runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream) {
  cudaError_t err = runtime::require_sm90();
  if (err != cudaSuccess) return err;
  if (gemm.K >= 1 && gemm.K < kMinK)
    return runtime::LaunchAnswer::hand_on(FallbackReason::shape_unsuitable);
  int sms = 0;
  err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  const long long tiles = static_cast<long long>((gemm.M + Tile::BM - 1) / Tile::BM) *
                          ((gemm.N + Tile::BN - 1) / Tile::BN);
  return run<false>(gemm, ranks_for(tiles, gemm.K, sms), runtime::Batch{}, 1, stream);
}

}  // namespace sgemm::cluster_3xtf32

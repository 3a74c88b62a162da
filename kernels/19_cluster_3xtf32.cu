// Rung 19: small problems on tensor cores. Rung 17 brought 128^3 to 512^3 past cuBLAS with
// FFMA by cutting K across the blocks of a cluster, so that a problem of few tiles fills the
// GPU, and adding the slices' partial tiles in rank order through distributed shared memory.
// The tensor-core rungs could not follow there: rung 15 pays a pre-pass or a second kernel to
// sum its slices. Here rung 13's arithmetic meets rung 17's cluster:
//
//  - 3xTF32 on mma.sync (rung 13): each operand split into TF32 big and small parts as a fragment
//    is read, three products a step, small ones first, into a fresh partial sum that FADD adds to
//    the accumulator.
//  - 64 x 64 tiles of C, 8 warps of 32 x 16: a small problem has many tiles.
//  - K cut into the cluster's `ranks` slices (rung 17); each block writes its partial tile to
//    its own shared memory, and each rank finishes 1/ranks of the tile's rows, adding the
//    slices in rank order: one launch, no workspace, bitwise the same on every run.
//  - No flag pass: as a stage lands, each thread tests the elements it copied for what the
//    tensor cores cannot answer (Inf, NaN, near FLT_MAX, below 2^-114), once a block, not once
//    a warp that reads them; the threads' flags meet in the block's bit masks, the ranks' in the
//    sum, and the guard path (rung 13's fp32_dot) redoes the flagged rows and columns.
//
// Every shape and alignment (rung 13's copies: 16 bytes where aligned, else 4), K >= 16.
// Clusters and distributed shared memory are Hopper's: sm_90a code.
// Needs: sm_90a   (cmake/ladder.cmake finds this line: CMakeLists.txt builds the file for it)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "entries.h"          // launch_batched, launch_config
#include "hopper/hopper.cuh"  // smem_addr, the cluster's barriers, DSMEM loads
#include "launchers.h"        // Gemm, and the one launcher signature every rung shares
#include "runtime/batch.h"    // Batch: a batch's problems, the grid's z
#include "runtime/device.h"   // the shared-memory opt-in, the Hopper check

namespace sgemm::cluster_3xtf32 {

// ---- Rung 13's pieces: copies, the split, the guard test, the guard path, mma.sync.

// 16 bytes, global to shared: the first `valid` floats are read, the rest zero. L2 only (.cg).
__device__ __forceinline__ void copy16(float* dst, const float* src, int valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(hopper::smem_addr(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(valid * 4)
               : "memory");
}

// 4 bytes: *src if `valid`, else zero.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(hopper::smem_addr(dst)),
               "l"(__cvta_generic_to_global(src)), "r"(valid ? 4 : 0)
               : "memory");
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// x = big + small (rung 13's split): big = tf32(x), small = tf32(x - big).
__device__ __forceinline__ void split_tf32(float x, uint32_t& big, uint32_t& small) {
  big = to_tf32(x);
  small = to_tf32(x - __uint_as_float(big & 0xffffe000u));
}

// The bits of |x| order as the magnitudes do: 0x1.ffep127 (the first to round to Inf in TF32)
// and 0x1p-114 (kSmallestExactSplit) as bits.
constexpr uint32_t kRoundsToInfBits = 0x7f7ff000u, kSmallestExactSplitBits = 0x06800000u;

// Inf, NaN, big rounding to Inf, or nonzero below 2^-114: the guard path's. Two integer tests
// (0 < m < tiny is m - 1 < tiny - 1, unsigned).
__device__ __forceinline__ bool needs_guard(float x) {
  const uint32_t m = __float_as_uint(x) & 0x7fffffffu;
  return m >= kRoundsToInfBits || m - 1u < kSmallestExactSplitBits - 1u;
}

// The guard path: C's element (row, col) summed again in plain FP32 on the CUDA cores.
__device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                          int col) {
  float sum = 0.f;
#pragma unroll 1
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<std::size_t>(row) * lda + k],
               B[static_cast<std::size_t>(k) * ldb + col], sum);
  return sum;
}

// d += p q: p (16 x 8, row, k) TF32, q (8 x 8, k, col) TF32, d (16 x 8) FP32. Lane (g = l/4,
// t = l%4): p = P(g,t), P(g+8,t), P(g,t+4), P(g+8,t+4); q = Q(t,g), Q(t+4,g);
// d = D(g,2t), D(g,2t+1), D(g+8,2t), D(g+8,2t+1).
__device__ __forceinline__ void mma_m16n8k8(float (&d)[4], const uint32_t (&p)[4],
                                            const uint32_t (&q)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(q[0]), "r"(q[1]));
}

// ---- The tile.

// 64 x 64 of C a block, 8 warps of WM x WN = 32 x 16 (a 2 x 4 grid), stages of BK = 32 k in a
// ring of 3. As (BM, BK + 4) and Bs (BK, BN + 8): a fragment's 32 lanes hit 32 banks.
// (experiments/rung19: on an H200 these warps beat 4 of 32 x 32 at 128^3 to 512^3.)
struct Tile {
  static constexpr int BM = 64, BN = 64, BK = 32, WM = 32, WN = 16, STAGES = 3;
  static constexpr int kWarps = (BM / WM) * (BN / WN), kThreads = kWarps * 32;
  static constexpr int MI = WM / 16, NI = WN / 8;  // m16 and n8 mma tiles of a warp
  static constexpr int kStrideA = BK + 4, kStrideB = BN + 8;
  static constexpr int kFloatsA = BM * kStrideA, kFloatsB = BK * kStrideB;
  static constexpr int kPitch = BN + 4;  // the partial tile P (BM, kPitch), in the ring
  static constexpr int kSharedBytes = STAGES * (kFloatsA + kFloatsB) * 4;
  static constexpr int kMinBlocks = 2;  // blocks an SM holds: at most 128 registers a thread
  static constexpr int kLoadsA = BM * BK / 4 / kThreads;  // 16-byte chunks a thread a stage
  static constexpr int kLoadsB = BK * BN / 4 / kThreads;
  static_assert(BM * kPitch <= STAGES * (kFloatsA + kFloatsB), "P fits the ring");
  static_assert(BM == 64 && BN == 64, "a row's and a column's flags: one bit of a 64-bit mask");
  static_assert(kThreads % (BN / 4) == 0, "a thread copies the same columns of B every pass");
  static_assert(kLoadsA * kThreads * 4 == BM * BK && kLoadsB * kThreads * 4 == BK * BN,
                "the threads copy the tiles in whole passes");
  static_assert(BM % 32 == 0, "every rank of a cluster of up to 16 finishes whole rows");
};

// Block (x, y) of a cluster of `ranks` blocks along y: tile x of C (64 x 64 tiles, row by
// row) over slice y of K, [y * kSlice, min(K, (y + 1) * kSlice)); kSlice a multiple of 4.
// kBatched: blockIdx.z picks the problem of `batch`.
template <bool kAlignedA, bool kAlignedB, bool kBatched>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    sgemm_cluster_3xtf32(int M, int N, int K, int kSlice, float alpha, const float* A, int lda,
                         const float* B, int ldb, float beta, float* C, int ldc,
                         runtime::Batch batch) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // compiled out (SGEMM_NO_SM90A): the launcher never starts this kernel
#else
  using T = Tile;
  constexpr int BM = T::BM, BN = T::BN, BK = T::BK;
  if constexpr (kBatched) runtime::select_problem(batch, A, B, C);
  extern __shared__ float4 shared[];
  float* ring = reinterpret_cast<float*>(shared);
  // As[s][r * kStrideA + k] = A[blockRow + r][k0 + k]   (BM, BK)
  // Bs[s][k * kStrideB + c] = B[k0 + k][blockCol + c]   (BK, BN)
  auto As = [&](int s) { return ring + s * T::kFloatsA; };
  auto Bs = [&](int s) { return ring + T::STAGES * T::kFloatsA + s * T::kFloatsB; };
  // The rows (bits 0-63) and columns (64-127) of the tile whose inputs this block read and the
  // tensor cores cannot answer.
  __shared__ uint4 flagged;

  const int tilesN = (N + BN - 1) / BN;
  const int blockRow = blockIdx.x / tilesN * BM, blockCol = blockIdx.x % tilesN * BN;
  const int ranks = static_cast<int>(gridDim.y), rank = static_cast<int>(blockIdx.y);
  const int kBegin = rank * kSlice, kEnd = min(K, kBegin + kSlice);
  const int steps = kEnd > kBegin ? (kEnd - kBegin + BK - 1) / BK : 0;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int wr = warp / (BN / T::WN) * T::WM, wc = warp % (BN / T::WN) * T::WN;
  if (tid == 0) flagged = make_uint4(0, 0, 0, 0);

  // The chunks of 4 floats this thread copies each stage: of A, row tid / 8 + 32 l at k
  // tid % 8 * 4; of B, row k tid / 16 + 16 l at columns tid % 16 * 4 + [0, 4).
  auto chunkA = [&](int l) { return tid + l * T::kThreads; };
  // Stage s of this slice into buffer `buf`, zero past K and N; rows of A past M repeat row
  // M - 1 (their results are not stored).
  auto fetch = [&](int s, int buf) {
    const int k0 = kBegin + s * BK;
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      const int i = chunkA(l), r = i / (BK / 4), k = i % (BK / 4) * 4;
      const float* row = A + static_cast<std::size_t>(min(blockRow + r, M - 1)) * lda;
      float* dst = As(buf) + r * T::kStrideA + k;
      const int valid = min(max(kEnd - (k0 + k), 0), 4);  // floats of the chunk in the slice
      if constexpr (kAlignedA) {
        copy16(dst, row + (valid ? k0 + k : 0), valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) copy4(dst + q, q < valid ? row + k0 + k + q : row, q < valid);
      }
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l) {
      const int i = chunkA(l), k = i / (BN / 4), c = i % (BN / 4) * 4;
      const int rowB = k0 + k, colB = blockCol + c;
      float* dst = Bs(buf) + k * T::kStrideB + c;
      const int valid = rowB < kEnd ? min(max(N - colB, 0), 4) : 0;
      const float* src = B + (valid ? static_cast<std::size_t>(rowB) * ldb + colB : 0);
      if constexpr (kAlignedB) {
        copy16(dst, src, valid);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) copy4(dst + q, q < valid ? src + q : src, q < valid);
      }
    }
  };
  // Flags of the chunks this thread copied into buffer `buf` (landed: its own copies): bit l of
  // rowsSeen, row tid / 8 + 32 l; bit q of colsSeen, column tid % 16 * 4 + q.
  uint32_t rowsSeen = 0, colsSeen = 0;
  auto test = [&](int buf) {
#pragma unroll
    for (int l = 0; l < T::kLoadsA; ++l) {
      const int i = chunkA(l);
      const float4 v =
          *reinterpret_cast<const float4*>(As(buf) + i / (BK / 4) * T::kStrideA + i % (BK / 4) * 4);
      rowsSeen |= (needs_guard(v.x) | needs_guard(v.y) | needs_guard(v.z) | needs_guard(v.w)) << l;
    }
#pragma unroll
    for (int l = 0; l < T::kLoadsB; ++l) {
      const int i = chunkA(l);
      const float4 v =
          *reinterpret_cast<const float4*>(Bs(buf) + i / (BN / 4) * T::kStrideB + i % (BN / 4) * 4);
      colsSeen |=
          needs_guard(v.x) | needs_guard(v.y) << 1 | needs_guard(v.z) << 2 | needs_guard(v.w) << 3;
    }
  };

  float acc[T::MI][T::NI][4] = {};
#pragma unroll
  for (int s = 0; s < T::STAGES - 1; ++s) {
    if (s < steps) fetch(s, s);
    commit();
  }
  for (int s = 0; s < steps; ++s) {
    wait_pending<T::STAGES - 2>();
    __syncthreads();  // stage s has landed for everyone; the buffer of stage s-1 is free
    test(s % T::STAGES);
    if (s + T::STAGES - 1 < steps) fetch(s + T::STAGES - 1, (s + T::STAGES - 1) % T::STAGES);
    commit();
    const float* as = As(s % T::STAGES);
    const float* bs = Bs(s % T::STAGES);
#pragma unroll
    for (int k8 = 0; k8 < BK; k8 += 8) {
      uint32_t aBig[T::MI][4], aSmall[T::MI][4], bBig[T::NI][2], bSmall[T::NI][2];
#pragma unroll
      for (int mi = 0; mi < T::MI; ++mi) {
        const float* a = as + (wr + mi * 16 + g) * T::kStrideA + k8 + t;
        split_tf32(a[0], aBig[mi][0], aSmall[mi][0]);
        split_tf32(a[8 * T::kStrideA], aBig[mi][1], aSmall[mi][1]);
        split_tf32(a[4], aBig[mi][2], aSmall[mi][2]);
        split_tf32(a[8 * T::kStrideA + 4], aBig[mi][3], aSmall[mi][3]);
      }
#pragma unroll
      for (int ni = 0; ni < T::NI; ++ni) {
        const float* b = bs + (k8 + t) * T::kStrideB + wc + ni * 8 + g;
        split_tf32(b[0], bBig[ni][0], bSmall[ni][0]);
        split_tf32(b[4 * T::kStrideB], bBig[ni][1], bSmall[ni][1]);
      }
#pragma unroll
      for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < T::NI; ++ni) {
          float part[4] = {0.f, 0.f, 0.f, 0.f};  // small products first, then big x big
          mma_m16n8k8(part, aSmall[mi], bBig[ni]);
          mma_m16n8k8(part, aBig[mi], bSmall[ni]);
          mma_m16n8k8(part, aBig[mi], bBig[ni]);
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][ni][e] += part[e];
        }
    }
  }
  wait_pending<0>();
  __syncthreads();  // the ring is read: it holds the partial tile from here

  // The partial tile P (BM, kPitch): this slice's sums. The flags into `flagged` (rarely set).
  float* P = ring;
#pragma unroll
  for (int l = 0; l < T::kLoadsA; ++l)
    if (rowsSeen >> l & 1) atomicOr(&flagged.x + l, 1u << chunkA(0) / (BK / 4));
  if (colsSeen) atomicOr(&flagged.z + tid % (BN / 4) / 8, colsSeen << tid % 8 * 4);
#pragma unroll
  for (int mi = 0; mi < T::MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < T::NI; ++ni) {
      const int r = wr + mi * 16 + g, c = wc + ni * 8 + 2 * t;
      *reinterpret_cast<float2*>(&P[r * T::kPitch + c]) =
          make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(&P[(r + 8) * T::kPitch + c]) =
          make_float2(acc[mi][ni][2], acc[mi][ni][3]);
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
  const float4 f = over_ranks(hopper::smem_addr(&flagged), [](float4 a, float4 b) {
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
    const float4 s = over_ranks(hopper::smem_addr(&P[r * T::kPitch + c]), [](float4 a, float4 b) {
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
        v = fp32_dot(A, lda, B, ldb, K, row, col);
      out[col] = beta == 0.f ? alpha * v : alpha * v + beta * out[col];  // beta 0: C not read
    }
  }
  hopper::cluster_sync_relaxed();  // no block exits while another may still read its memory
#endif  // sm_90a
}

// ---- The launcher.

// Blocks of a cluster: 8 portable, 16 with the opt-in (as rung 17).
constexpr int kMaxRanks = 16;
// A slice of K is a whole number of these: half a stage, so that 128^3 can take 8 slices.
constexpr int kSliceUnit = 16;

int slice_of(int K, int ranks) {
  return (K + ranks * kSliceUnit - 1) / (ranks * kSliceUnit) * kSliceUnit;
}

// The cluster's size for a problem of `tiles` tiles: the most, a power of two, whose blocks fill
// the GPU at most once, each slice at least kSliceUnit deep.
int ranks_for(long long tiles, int K, int sms) {
  int ranks = 1;
  while (ranks * 2 <= kMaxRanks && tiles * ranks * 2 <= sms && K >= ranks * 2 * kSliceUnit)
    ranks *= 2;
  return ranks;
}

inline bool aligned(const void* p, int bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

template <bool kBatched>
cudaError_t run(const Gemm& g, int ranks, const runtime::Batch& batch, int problems,
                cudaStream_t stream) {
  const long long tiles =
      static_cast<long long>((g.M + Tile::BM - 1) / Tile::BM) * ((g.N + Tile::BN - 1) / Tile::BN);
  if (tiles > 0x7fffffff || ranks < 1 || ranks > kMaxRanks) return cudaErrorInvalidValue;
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
    cudaError_t err = runtime::allow_shared_bytes<kernel>(Tile::kSharedBytes);
    if (err == cudaSuccess && ranks > 8)
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (err != cudaSuccess) return err;
    err = cudaLaunchKernelEx(&config, kernel, g.M, g.N, g.K, kSlice, g.alpha, g.A, g.lda, g.B,
                             g.ldb, g.beta, g.C, g.ldc, batch);
    return err != cudaSuccess ? err : cudaGetLastError();
  };
  const bool a16 = aligned(g.A, 16) && g.lda % 4 == 0 && !batch.A && batch.strideA % 4 == 0;
  const bool b16 = aligned(g.B, 16) && g.ldb % 4 == 0 && !batch.B && batch.strideB % 4 == 0;
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

// Rung 14's 3xTF32 machinery, for the rungs that multiply split operands on wgmma (14, 15): the
// split of FP32 into TF32 hi and lo parts (rna, cut near FLT_MAX), the guard test and the guard
// path (fp32_dot) for what the tensor cores cannot answer as FP32 does, the pre-pass kernels
// that split and pack A and B K-major into the workspace, one stage's wgmmas (small products
// first) and the epilogue from the wgmma fragment. Rung 14 teaches it and includes it;
// docs/14_wgmma_3xtf32.md explains it, with this header's code (the split itself is rung 13's,
// docs/13_mma_3xtf32.md).
//
// Its code lives in namespace sgemm::split_3xtf32; the rungs that use it name it with `using
// namespace split_3xtf32`. Its kernels and fp32_dot are static: each rung's translation unit keeps
// its own copy, as its own kernels.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "hopper/hopper.cuh"     // wgmma descriptors and fences
#include "runtime/tensor_map.h"  // the split planes' tensor maps

namespace sgemm::split_3xtf32 {

using namespace hopper;

// ---- Loads at any alignment (the fused kernels of rungs 15 and 19).

// Four floats of `row` from `col` on, zeros from `limit` on: one 16-byte load where the four
// are whole and aligned (kAligned: the row's start and `col` are 16-byte aligned).
template <bool kAligned>
__device__ __forceinline__ float4 load4(const float* row, int col, int limit) {
  if (kAligned && col + 3 < limit) return *reinterpret_cast<const float4*>(row + col);
  float v[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) v[q] = col + q < limit ? row[col + q] : 0.f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

inline bool aligned8(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; }

inline bool aligned16(const float* X, int ld) {
  return reinterpret_cast<std::uintptr_t>(X) % 16 == 0 && ld % 4 == 0;
}

// ---- The pre-pass: split into TF32 hi and lo parts, and pack K-major.

// x rounded to TF32 (10 explicit mantissa bits), to nearest with ties away from zero: the
// low 13 bits of the result are zero, so wgmma reads it exactly.
__device__ __forceinline__ float tf32_rna(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

// x with its low 13 bits cut off: TF32 rounded toward zero.
__device__ __forceinline__ float tf32_cut(float x) {
  return __uint_as_float(__float_as_uint(x) & 0xffffe000u);
}

// From here up, rounding to the nearest TF32 overflows to Inf (the largest TF32 is
// 0x7f7fe000; halfway from it to 2^128 is 0x7f7ff000).
constexpr float kTf32RoundsToInf = 0x1.ffep127f;

// Below this magnitude the lo part of a split falls under 2^-126, where TF32 keeps steps of
// 2^-136 only (its subnormals): x = hi + lo no longer holds to 2^-22 of x. As FP32 bits.
constexpr unsigned kSmallestExactSplit = 0x06800000u;  // 2^-114
constexpr unsigned kInfinity = 0x7f800000u;

// True for an input the tensor cores cannot be trusted with: Inf, NaN, or a nonzero value
// below 2^-114. Its row of A or column of B takes the guard path. On the bits of |x|, so that
// zero (0 - 1 wraps around) is not tiny.
__device__ __forceinline__ bool needs_guard(float x) {
  const unsigned magnitude = __float_as_uint(x) & 0x7fffffffu;
  return magnitude - 1u < kSmallestExactSplit - 1u || magnitude >= kInfinity;
}

// x = hi + lo + (a remainder below 2^-22 |x|): hi = tf32(x), and x - hi is exact in FP32. Where
// rounding would overflow, hi is cut instead (x - hi stays exact). An infinite or NaN x keeps
// lo = 0, so that hi carries it alone (inf - inf would make a NaN); the products of such an
// hi with the other operand's parts are what the guard path in the epilogue answers.
__device__ __forceinline__ void split(float x, float* hi, float* lo) {
  const float h = fabsf(x) >= kTf32RoundsToInf ? tf32_cut(x) : tf32_rna(x);  // NaN: rounded
  *hi = h;
  *lo = isfinite(h) ? tf32_rna(x - h) : 0.f;
}

// split() on the bits, for the main kernel's A: for every finite x the same hi and lo (cvt.rna
// is this add of half a TF32 step and the clearing of 13 bits), in 7 instructions instead of
// about 12. Inf and NaN give other bits: their rows take the guard path, which does not read them.
// kRoundsAll (a batch's kernels): every x rounded, 5 instructions; from kTf32RoundsToInf up hi
// is then Inf, and RowsSeen's flag<true> flags those rows too (values within 2^-12 of FLT_MAX).
// (One problem's kernels keep the 7 of the ladder's measured SASS until they are measured.)
constexpr unsigned kRoundsToInfBits = 0x7f7ff000u;  // kTf32RoundsToInf
template <bool kRoundsAll = false>
__device__ __forceinline__ void split_finite(float x, uint32_t* hi, uint32_t* lo) {
  const uint32_t bits = __float_as_uint(x);
  const uint32_t h =
      (bits + (kRoundsAll || (bits & 0x7fffffffu) < kRoundsToInfBits ? 0x1000u : 0u)) & 0xffffe000u;
  *hi = h;  // (otherwise, from 0x1.ffep127 up, cut: rounding would overflow)
  *lo = (__float_as_uint(x - __uint_as_float(h)) + 0x1000u) & 0xffffe000u;
}

// The guard path: C's element (row, col) summed again in plain FP32 on the CUDA cores. The
// epilogue calls it for the rows and columns the pre-pass flagged, and where the tensor cores'
// sum is not finite (it passed FLT_MAX). An Inf or NaN input's products with the other
// operand's hi and lo parts (Inf * 0 where a lo part is 0, Inf - Inf where hi and lo differ in
// sign) make NaN where IEEE arithmetic, and cuBLAS SGEMM, may give +-Inf; here Inf, NaN and
// Inf * 0 follow IEEE as cuBLAS's FFMAs do, and inputs below 2^-114 keep all their bits.
static __device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                                 int col) {
  float sum = 0.f;
#pragma unroll 1  // rarely run: one short loop per element of the epilogue, not an unrolled one
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<long long>(row) * lda + k], B[static_cast<long long>(k) * ldb + col],
               sum);
  return sum;
}

// A (rows x cols, leading dimension ld, any alignment) -> hi, lo (leading dimension ldp), same
// orientation: K stays contiguous; guard[r] = 1 where row r holds an input needs_guard names
// (guard is zeroed before; every writer writes the same 1, once a thread per row). Each thread
// splits 4 elements 256 apart (4 loads in flight; 8 moved no more bytes a second); a warp reads
// and writes 128 contiguous bytes.
constexpr int kSplitThreads = 256;
constexpr int kSplitPerThread = 4;
// Block (bx, by) of a (gx, gy) grid of kSplitThreads threads.
__device__ __forceinline__ void split_rows_block(int bx, int by, int gx, int gy, int rows, int cols,
                                                 const float* X, long long ld, float* hi, float* lo,
                                                 long long ldp, int* guard) {
  for (int r = by; r < rows; r += gy) {
    const float* x = X + r * ld;
    bool flagged = false;
    for (int c0 = bx * kSplitThreads * kSplitPerThread + threadIdx.x; c0 < cols;
         c0 += gx * kSplitThreads * kSplitPerThread) {
      float v[kSplitPerThread];
#pragma unroll
      for (int i = 0; i < kSplitPerThread; ++i) {
        const int c = c0 + i * kSplitThreads;
        v[i] = c < cols ? x[c] : 0.f;
      }
#pragma unroll
      for (int i = 0; i < kSplitPerThread; ++i) {
        const int c = c0 + i * kSplitThreads;
        if (c >= cols) continue;
        split(v[i], &hi[r * ldp + c], &lo[r * ldp + c]);
        flagged |= needs_guard(v[i]);
      }
    }
    if (flagged) guard[r] = 1;
  }
}
static __global__ void __launch_bounds__(kSplitThreads)
    split_rows(int rows, int cols, const float* X, long long ld, float* hi, float* lo,
               long long ldp, int* guard) {
  split_rows_block(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, rows, cols, X, ld, hi, lo, ldp,
                   guard);
}

// B (rows = K x cols = N, leading dimension ld) -> hi, lo transposed (N x K, leading dimension
// ldp), through a kTile x kTile tile in shared memory (kTile + 1 columns: the transposed reads
// hit 32 banks), so that both the reads along n and the writes along k are coalesced; guard[n] =
// 1 where column n of B holds an input needs_guard names. Each thread loads its kTile^2 / 256
// elements before it stores any. Large B takes 64 x 64 tiles (16 loads a thread): with 32 x 32,
// 4 a thread, too few bytes were in flight to cover the memory's latency (256 x 4096 x 4096:
// 2.6 TB/s, where split_rows moves 3.8). Small B keeps 32 x 32: four times the blocks, each done
// sooner (1000^3 lost 3 us with 64 x 64).
constexpr int kTransposeThreadsX = 32;  // blockDim.x: a warp spans 32 consecutive floats
constexpr int kTransposeRows = 8;       // blockDim.y
constexpr int kTransposeThreads = kTransposeThreadsX * kTransposeRows;
constexpr long long kWideTransposeFrom = 1LL << 22;  // elements of B from which 64 x 64 pays
inline int transpose_tile_for(int N, int K) {
  return static_cast<long long>(N) * K >= kWideTransposeFrom ? 64 : 32;
}
// Block (bx, by) of a (gx, gy) grid of (kTransposeThreadsX, kTransposeRows) threads; this thread
// is (tx, ty) of it.
template <int kTile>
__device__ __forceinline__ void split_transpose_block(int bx, int by, int gy, int tx, int ty,
                                                      int rows, int cols, const float* X,
                                                      long long ld, float* hi, float* lo,
                                                      long long ldp, int* guard) {
  static_assert(kTile % kTransposeThreadsX == 0 && kTile / kTransposeRows <= 32, "the tile");
  __shared__ float tile[kTile][kTile + 1];             // tile[k][n]
  constexpr int kSteps = kTile / kTransposeRows;       // rows of the tile per thread
  constexpr int kHalves = kTile / kTransposeThreadsX;  // columns per thread
  const int c0 = bx * kTile;
  unsigned flagged = 0;  // bit j: column c0 + ty + j * kTransposeRows
  for (int r0 = by * kTile; r0 < rows; r0 += gy * kTile) {
#pragma unroll
    for (int j = 0; j < kSteps; ++j)
#pragma unroll
      for (int h = 0; h < kHalves; ++h) {
        const int i = ty + j * kTransposeRows, x = tx + h * kTransposeThreadsX;
        const int r = r0 + i, c = c0 + x;
        tile[i][x] = r < rows && c < cols ? X[r * ld + c] : 0.f;
      }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kSteps; ++j)
#pragma unroll
      for (int h = 0; h < kHalves; ++h) {
        const int i = ty + j * kTransposeRows, x = tx + h * kTransposeThreadsX;
        const int n = c0 + i, k = r0 + x;  // element (n, k) of the transpose
        if (n >= cols || k >= rows) continue;
        const float v = tile[x][i];
        split(v, &hi[n * ldp + k], &lo[n * ldp + k]);
        flagged |= static_cast<unsigned>(needs_guard(v)) << j;
      }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < kSteps; ++j)
    if (flagged >> j & 1) guard[c0 + ty + j * kTransposeRows] = 1;
}
template <int kTile>
__global__ void __launch_bounds__(kTransposeThreads)
    split_transpose(int rows, int cols, const float* X, long long ld, float* hi, float* lo,
                    long long ldp, int* guard) {
  split_transpose_block<kTile>(blockIdx.x, blockIdx.y, gridDim.y, threadIdx.x, threadIdx.y, rows,
                               cols, X, ld, hi, lo, ldp, guard);
}

// C's elements (row, col) and (row, col + 1) = v0, v1 (+ beta times their old values), where
// they lie inside C: c is C's row `row`. kTransposedC: they are C's (col, row) and (col + 1, row).
__device__ __forceinline__ void store_pair(float* C, float* c, int row, int col, float v0, float v1,
                                           int N, float beta, int ldc, bool pairedC,
                                           bool transposedC) {
  if (transposedC) {  // the kernel multiplied B^T A^T: its (row, col) is C's (col, row)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float* out = C + static_cast<long long>(col + h) * ldc + row;
      if (col + h < N) *out = beta == 0.f ? (h ? v1 : v0) : (h ? v1 : v0) + beta * *out;
    }
  } else if (pairedC && col + 1 < N) {  // one 64-bit store (and load, when beta != 0)
    float2 out = make_float2(v0, v1);
    if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
      const float2 old = *reinterpret_cast<const float2*>(c + col);
      out.x += beta * old.x, out.y += beta * old.y;
    }
    *reinterpret_cast<float2*>(c + col) = out;
  } else {
    if (col < N) c[col] = beta == 0.f ? v0 : v0 + beta * c[col];
    if (col + 1 < N) c[col + 1] = beta == 0.f ? v1 : v1 + beta * c[col + 1];
  }
}

// store_fragment's stores where some of the thread's elements take the guard path: each element
// tested, and summed again on the CUDA cores where its row or column is flagged or its sum is not
// finite.
template <int BN, bool kTransposedC>
__device__ __forceinline__ void store_guarded(const float* sum, int rowBase, int blockRow,
                                              int blockCol, const int* rowGuard,
                                              const int* colGuard, int M, int N, int K, float alpha,
                                              const float* A, int lda, const float* B, int ldb,
                                              float beta, float* C, int ldc, bool pairedC) {
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = rowBase + warp * 16 + i * 8 + lane / 4;
    if (row >= M) continue;
    const bool guardRow = rowGuard[row - blockRow];
    float* c = C + static_cast<long long>(row) * ldc;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = blockCol + j * 8 + 2 * (lane % 4);
      float r[2] = {sum[4 * j + 2 * i], sum[4 * j + 2 * i + 1]};
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (col + h < N && (guardRow || colGuard[col - blockCol + h] || !isfinite(r[h])))
          r[h] = kTransposedC ? fp32_dot(A, lda, B, ldb, K, col + h, row)
                              : fp32_dot(A, lda, B, ldb, K, row, col + h);
      store_pair(C, c, row, col, alpha * r[0], alpha * r[1], N, beta, ldc, pairedC, kTransposedC);
    }
  }
}

// Whether every one of a thread's n sums is finite: eight independent chains of tests, so that
// they overlap rather than wait on each other.
template <int n>
__device__ __forceinline__ bool all_finite(const float* sum) {
  bool bad[8] = {};
#pragma unroll
  for (int e = 0; e < n; ++e) bad[e % 8] |= !isfinite(sum[e]);
  return !(bad[0] | bad[1] | bad[2] | bad[3] | bad[4] | bad[5] | bad[6] | bad[7]);
}

// A thread's 64 values where none needs a test: its warp's rows and the tile's columns lie
// inside C, none of them is flagged, its sums are finite. put(i, j, at, pair) takes each pair of
// the fragment, at its place in C (the arithmetic of store_pair; C read only where beta != 0).
template <int BN, typename Put>
__device__ __forceinline__ void inside_pairs(const float* sum, int rowBase, int blockCol,
                                             float alpha, float beta, float* C, int ldc,
                                             Put&& put) {
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float* c = C + static_cast<long long>(rowBase + warp * 16 + i * 8 + lane / 4) * ldc + blockCol +
               2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      float2 out = make_float2(alpha * sum[4 * j + 2 * i], alpha * sum[4 * j + 2 * i + 1]);
      if (beta != 0.f) {  // BLAS semantics: with beta == 0, C is not read (it may hold NaN)
        const float2 old = *reinterpret_cast<const float2*>(c + 8 * j);
        out.x += beta * old.x, out.y += beta * old.y;
      }
      put(i, j, c + 8 * j, out);
    }
  }
}

// store_fragment for such a thread, where C takes 64-bit stores: a row's address once, the pairs
// at fixed offsets from it.
template <int BN>
__device__ __forceinline__ void store_inside(const float* sum, int rowBase, int blockCol,
                                             float alpha, float beta, float* C, int ldc) {
  inside_pairs<BN>(sum, rowBase, blockCol, alpha, beta, C, ldc,
                   [](int, int, float* at, float2 pair) { *reinterpret_cast<float2*>(at) = pair; });
}

// The epilogue through shared memory, for TMA stores of the tile: `staging` holds this
// warpgroup's 64 rows of the tile as BN / 32 boxes of [64 rows][32 columns] under the 128-byte
// swizzle (16-byte chunk q of row r at q ^ r % 8), as a map with boxes of 64 x 32 lays them out;
// the 8 rows a warp writes at once land on distinct chunks (two wavefronts, no more).
//   staging  [BN / 32][64][32] floats, 1024-byte aligned
// Pair (i, j) of the thread's fragment (as store_fragment numbers them): its place in `staging`.
template <int BN>
__device__ __forceinline__ float2* staged_pair(float* staging, int i, int j) {
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
  const int r = warp * 16 + i * 8 + lane / 4;  // in the warpgroup's 64 rows; r % 8 == lane / 4
  const int chunk = (2 * (j % 4) + lane % 4 / 2) ^ (lane / 4);
  return reinterpret_cast<float2*>(staging + j / 4 * 64 * 32 + r * 32 + chunk * 4 + 2 * (lane % 2));
}

// store_inside's values, staged.
template <int BN>
__device__ __forceinline__ void stage_inside(const float* sum, int rowBase, int blockCol,
                                             float alpha, float beta, float* C, int ldc,
                                             float* staging) {
  inside_pairs<BN>(
      sum, rowBase, blockCol, alpha, beta, C, ldc,
      [&](int i, int j, float*, float2 pair) { *staged_pair<BN>(staging, i, j) = pair; });
}

// store_fragment's values, staged, each element tested as store_guarded tests it. Elements
// outside C are staged too (the stores drop them) but never take the guard path.
template <int BN>
__device__ __forceinline__ void stage_guarded(const float* sum, int rowBase, int blockRow,
                                              int blockCol, const int* rowGuard,
                                              const int* colGuard, int M, int N, int K, float alpha,
                                              const float* A, int lda, const float* B, int ldb,
                                              float beta, const float* C, int ldc, float* staging) {
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = rowBase + warp * 16 + i * 8 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = blockCol + j * 8 + 2 * (lane % 4);
      float v[2] = {sum[4 * j + 2 * i], sum[4 * j + 2 * i + 1]};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const bool inside = row < M && col + h < N;
        if (inside && (rowGuard[row - blockRow] || colGuard[col - blockCol + h] || !isfinite(v[h])))
          v[h] = fp32_dot(A, lda, B, ldb, K, row, col + h);
        v[h] = alpha * v[h];
        if (beta != 0.f && inside)
          v[h] = v[h] + beta * C[static_cast<long long>(row) * ldc + col + h];
      }
      *staged_pair<BN>(staging, i, j) = make_float2(v[0], v[1]);
    }
  }
}

// The epilogue of both kernels, straight from the wgmma fragment of one warpgroup: its rows
// start at `rowBase` of C (64 of them), its columns at `blockCol` (BN); each thread holds pairs
// of adjacent columns, sum[4j + 2i + c] = C[rowBase + 16warp + lane/4 + 8i][blockCol + 8j +
// 2(lane%4) + c]. With `partial` (one slice of several) it writes the raw sums to partial +
// blockIdx.y * M * N, rows N apart; else C = alpha * sum + beta * C, where the guard path redoes
// what the tensor cores cannot answer (see fp32_dot): rows and columns the tile's flags name
// (rowGuard from blockRow, colGuard from blockCol, in shared memory) and sums not finite.
// kTransposedC: M x N is C^T (C = A B computed as C^T = B^T A^T; A, B and C the caller's).
template <int BN, bool kTransposedC = false>
__device__ __forceinline__ void store_fragment(const float* sum, int rowBase, int blockRow,
                                               int blockCol, const int* rowGuard,
                                               const int* colGuard, int M, int N, int K,
                                               float alpha, const float* A, int lda, const float* B,
                                               int ldb, float beta, float* C, int ldc, bool pairedC,
                                               float* partial) {
  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
  if (partial != nullptr) {
    float* out = partial + static_cast<long long>(blockIdx.y) * M * N;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = rowBase + warp * 16 + i * 8 + lane / 4;
      if (row >= M) continue;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = blockCol + j * 8 + 2 * (lane % 4);
        if (col < N) out[static_cast<long long>(row) * N + col] = sum[4 * j + 2 * i];
        if (col + 1 < N) out[static_cast<long long>(row) * N + col + 1] = sum[4 * j + 2 * i + 1];
      }
    }
    return;
  }
  // One test for the thread's 64 elements: a flagged row or column, or a sum not finite. Almost
  // always none is, and the stores below need no test per element; else the guard path per
  // element, as every element would take it (the same results either way).
  bool anyGuarded = false;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = rowBase + warp * 16 + i * 8 + lane / 4;
    anyGuarded |= row < M && rowGuard[row - blockRow];
  }
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = blockCol + j * 8 + 2 * (lane % 4);
    anyGuarded |=
        (col < N && colGuard[col - blockCol]) || (col + 1 < N && colGuard[col + 1 - blockCol]);
  }
#pragma unroll
  for (int e = 0; e < 2 * BN / 4; ++e) anyGuarded |= !isfinite(sum[e]);
  if (anyGuarded) {
    store_guarded<BN, kTransposedC>(sum, rowBase, blockRow, blockCol, rowGuard, colGuard, M, N, K,
                                    alpha, A, lda, B, ldb, beta, C, ldc, pairedC);
    return;
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = rowBase + warp * 16 + i * 8 + lane / 4;
    if (row >= M) continue;
    float* c = C + static_cast<long long>(row) * ldc;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = blockCol + j * 8 + 2 * (lane % 4);
      const float v0 = alpha * sum[4 * j + 2 * i], v1 = alpha * sum[4 * j + 2 * i + 1];
      store_pair(C, c, row, col, v0, v1, N, beta, ldc, pairedC, kTransposedC);
    }
  }
}

// ---- The main kernels' parts.

// One stage's wgmmas as one group, for both kernels: per k8 step the small products first
// (lo x hi, hi x lo), then hi x hi. The four planes are K-major rows of kSpan bytes under the
// 128- or 64-byte swizzle: this warpgroup's 64 rows of A_hi and A_lo, and BN rows of Bt_hi and
// Bt_lo. accumulate = 0: the first wgmma overwrites acc (a chunk's first stage).
template <int BN, int BK, int kSpan>
__device__ __forceinline__ void mma_stage(float (&acc)[BN / 2], const uint8_t* aHiPlane,
                                          const uint8_t* aLoPlane, const uint8_t* bHiPlane,
                                          const uint8_t* bLoPlane, int accumulate) {
  const uint64_t aHi = make_descriptor<kSpan>(aHiPlane), aLo = make_descriptor<kSpan>(aLoPlane);
  const uint64_t bHi = make_descriptor<kSpan>(bHiPlane), bLo = make_descriptor<kSpan>(bLoPlane);
  fence_accumulators(acc);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < BK / 8; ++kk) {
    const uint64_t step = kk * 32 >> 4;  // k = 8kk: 32 bytes into each row, in 16-byte units
    WgmmaTf32<BN>::mma(acc, aLo + step, bHi + step, kk == 0 ? accumulate : 1);
    WgmmaTf32<BN>::mma(acc, aHi + step, bLo + step, 1);
    WgmmaTf32<BN>::mma(acc, aHi + step, bHi + step, 1);
  }
  wgmma_commit();
}

// The split also keeps what the pre-pass's flags would say of A's rows, so that the pre-pass
// does not read A at all: over a thread's elements of its two rows (row, row + 8), the least
// magnitude - 1 and the greatest magnitude, as FP32 bits (three instructions an element).
// needs_guard holds for one of them exactly when lowest < 2^-114 - 1 or highest >= Inf.
// kRoundsAll (split_finite's): the flag also holds from kTf32RoundsToInf up.
struct RowsSeen {
  uint32_t lowest[2] = {~0u, ~0u}, highest[2] = {0u, 0u};
  __device__ __forceinline__ void see(int i, float x) {
    const uint32_t magnitude = __float_as_uint(x) & 0x7fffffffu;
    lowest[i] = min(lowest[i], magnitude - 1u);  // zero wraps around: never the least
    highest[i] = max(highest[i], magnitude);
  }
  // Row i's flag for the whole row: the four lanes that hold a row (lane / 4) agree.
  template <bool kRoundsAll = false>
  __device__ __forceinline__ int flag(int i) const {
    int f = lowest[i] < kSmallestExactSplit - 1u ||
            highest[i] >= (kRoundsAll ? kRoundsToInfBits : kInfinity);
    f |= __shfl_xor_sync(~0u, f, 1);
    return f | __shfl_xor_sync(~0u, f, 2);
  }
};

// The same stage with A split here: aPlane holds this warpgroup's 64 rows of FP32 A as TMA
// wrote them (128-byte rows, 16-byte chunks swizzled: chunk q of row r at q ^ r % 8). Each
// thread loads its fragment's 4 elements per k8 step, splits them as the pre-pass would
// (split_finite), and hands hi and lo to wgmma in registers: where no guard flag is set, the
// products are those of mma_stage, bit for bit.
// wgmma reads its A registers until its group completes. So the stage is two groups of two k8
// steps, each half with registers of its own: before a half's registers are written again,
// wait_group 1 retires the group that read them last (the last stage's same half), while the
// group issued just before keeps the tensor cores busy.
// kMajorM: aPlane holds the 64 rows as two boxes of 32, each [BK][32 rows] with the rows
// contiguous (B^T, as TMA reads it from a row-major B), chunk q of k-row k at q ^ k % 8.
template <int BN, int BK, int kSpan, bool kMajorM = false, bool kRoundsAll = false>
__device__ __forceinline__ void mma_stage_split_a(float (&acc)[BN / 2], const uint8_t* aPlane,
                                                  const uint8_t* bHiPlane, const uint8_t* bLoPlane,
                                                  int accumulate, RowsSeen& seen) {
  static_assert(kSpan == 128 && BK == 32 && (BN == 128 || BN == 64),
                "128-byte rows of A; m64n128k8 or m64n64k8");
  const uint64_t bHi = make_descriptor<kSpan>(bHiPlane), bLo = make_descriptor<kSpan>(bLoPlane);
  const int lane = threadIdx.x % 32, row = threadIdx.x / 32 % 4 * 16 + lane / 4;
  const unsigned base = smem_addr(aPlane);
  uint32_t hi[2][2][4], lo[2][2][4];  // [half][its k8 step][a0..a3 of the wgmma fragment]
  unsigned majorM[4];  // kMajorM: element v's place in every k8 step (k % 8 fixes the swizzle)
#pragma unroll
  for (int v = 0; v < 4; ++v) {
    const int r = row + 8 * (v % 2), k8 = lane % 4 + 4 * (v / 2);
    majorM[v] = r / 32 * BK * kSpan + k8 * kSpan + ((r % 32 / 4 ^ k8) * 16) + r % 4 * 4;
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    wgmma_wait<1>();
#pragma unroll
    for (int step = 0; step < 2; ++step)
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const int r = row + 8 * (v % 2), k = 16 * half + 8 * step + lane % 4 + 4 * (v / 2);
        const float x =
            load_shared(base + (kMajorM ? (16 * half + 8 * step) * kSpan + majorM[v]
                                        : r * kSpan + ((k / 4 ^ r % 8) * 16) + k % 4 * 4));
        split_finite<kRoundsAll>(x, &hi[half][step][v], &lo[half][step][v]);
        seen.see(v % 2, x);
      }
    fence_accumulators(acc);
    wgmma_fence();
#pragma unroll
    for (int step = 0; step < 2; ++step) {
      const int kk = 2 * half + step;
      const uint64_t at = kk * 32 >> 4;  // k = 8kk: 32 bytes into each row, in 16-byte units
      WgmmaTf32Regs<BN>::mma(acc, lo[half][step], bHi + at, kk == 0 ? accumulate : 1);
      WgmmaTf32Regs<BN>::mma(acc, hi[half][step], bLo + at, 1);
      WgmmaTf32Regs<BN>::mma(acc, hi[half][step], bHi + at, 1);
    }
    wgmma_commit();
  }
}

// ---- The workspace of the pre-pass path.

// The workspace: the split operands A_hi, A_lo (M x Kp) and Bt_hi, Bt_lo (N x Kp), K
// contiguous, rows Kp floats apart (K rounded up to 4: 16-byte aligned rows for TMA; the
// padding is never read, the tensor maps end at K), then the guard flags, M for the rows of A
// and N for the columns of B.
struct Split {
  float *Ahi, *Alo, *Bhi, *Blo;
  int* guard;
  int Kp;
};
inline int padded_depth(int K) { return (K + 3) / 4 * 4; }
// splitA = false (rung 15, where A's rows are 16-byte aligned): no planes of A (A_hi = A_lo =
// null); the main kernel reads A itself and splits it.
inline size_t split_floats(int M, int N, int K, bool splitA = true) {  // a flag: a float's bytes
  return (static_cast<size_t>(splitA ? M : 0) + N) * 2 * padded_depth(K) + M + N;
}
inline Split split_layout(float* W, int M, int N, int K, bool splitA = true) {
  const int Kp = padded_depth(K);
  const size_t a = splitA ? static_cast<size_t>(M) * Kp : 0, b = static_cast<size_t>(N) * Kp;
  float* A = splitA ? W : nullptr;
  int* guard = reinterpret_cast<int*>(W + 2 * a + 2 * b);
  return {A, A ? A + a : nullptr, W + 2 * a, W + 2 * a + b, guard, Kp};
}

// The tensor maps the main kernel reads the split operands through: A's planes in boxes of BM
// rows, B's (transposed) in boxes of BN, each box BK floats of K, swizzled as BK needs.
struct SplitMaps {
  CUtensorMap Ahi, Alo, Bhi, Blo;  // built per call (pointers and sizes change)
};
// Where s has no planes of A, Ahi and Alo both map the caller's A (rows lda floats apart);
// kMajorM: A is the problem's A^T, a row-major K x M (B of C^T = B^T A^T), in boxes [BK][32].
template <int BM, int BN, int BK, bool kMajorM = false>
cudaError_t split_maps(SplitMaps* maps, const Split& s, int M, int N, int K,
                       const float* A = nullptr, int lda = 0) {
  constexpr CUtensorMapSwizzle kSwizzle =
      BK == 32 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  constexpr CUtensorMapDataType kFloat = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const float* aHi = s.Ahi ? s.Ahi : A;
  const float* aLo = s.Ahi ? s.Alo : A;
  const int ldA = s.Ahi ? s.Kp : lda;
  cudaError_t err = cudaSuccess;
  if (kMajorM)  // one map: the kernel reads no A_lo
    err = runtime::make_tensor_map(&maps->Ahi, A, kFloat, K, M, lda, BK, 32, kSwizzle);
  else
    err = runtime::make_tensor_map(&maps->Ahi, aHi, kFloat, M, K, ldA, BM, BK, kSwizzle);
  // Without planes of A both maps are of the caller's A, the same arguments: encoded once.
  if (err == cudaSuccess && !kMajorM && s.Ahi)
    err = runtime::make_tensor_map(&maps->Alo, aLo, kFloat, M, K, ldA, BM, BK, kSwizzle);
  if (kMajorM || !s.Ahi) maps->Alo = maps->Ahi;
  for (auto [map, plane] : {std::pair{&maps->Bhi, s.Bhi}, {&maps->Blo, s.Blo}})
    if (err == cudaSuccess)
      err = runtime::make_tensor_map(map, plane, kFloat, N, K, s.Kp, BN, BK, kSwizzle);
  return err;
}

// The pre-pass's grids: split_rows' over A (M x K), split_transpose's over B (K x N).
inline dim3 split_rows_grid(int M, int K) {
  return dim3((K + kSplitThreads * kSplitPerThread - 1) / (kSplitThreads * kSplitPerThread),
              std::min(M, 65535));
}
inline dim3 split_transpose_grid(int N, int K, int tile) {
  return dim3((N + tile - 1) / tile, std::min((K + tile - 1) / tile, 65535));
}

// The guard flags (M + N) zeroed on the stream, before a pre-pass sets some of them.
inline cudaError_t clear_flags(const Split& s, int M, int N, cudaStream_t stream) {
  return cudaMemsetAsync(s.guard, 0, (static_cast<size_t>(M) + N) * sizeof(int), stream);
}

// The pre-pass: the flags zeroed; A -> A_hi, A_lo; B -> Bt_hi, Bt_lo; the flags set.
inline cudaError_t split_operands(int M, int N, int K, const float* A, int lda, const float* B,
                                  int ldb, const Split& s, cudaStream_t stream) {
  cudaError_t err = clear_flags(s, M, N, stream);
  if (err != cudaSuccess) return err;
  if (s.Ahi)  // (else the main kernel splits A and flags its rows)
    split_rows<<<split_rows_grid(M, K), kSplitThreads, 0, stream>>>(M, K, A, lda, s.Ahi, s.Alo,
                                                                    s.Kp, s.guard);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  const int tile = transpose_tile_for(N, K);
  const dim3 grid = split_transpose_grid(N, K, tile), block(kTransposeThreadsX, kTransposeRows);
  if (tile == 64)
    split_transpose<64><<<grid, block, 0, stream>>>(K, N, B, ldb, s.Bhi, s.Blo, s.Kp, s.guard + M);
  else
    split_transpose<32><<<grid, block, 0, stream>>>(K, N, B, ldb, s.Bhi, s.Blo, s.Kp, s.guard + M);
  return cudaGetLastError();
}

}  // namespace sgemm::split_3xtf32

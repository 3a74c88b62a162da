// Rung 16's lines' statistics, what the FP32 guarantee measures of each row of A and column of B
// before the integer path: Stats (the sum of squares, whose root gives the scale, and the
// magnitude, exponent range and Inf/NaN that the certificate and the prediction read), the
// Line and Tally the pre-pass fills for the certificate, the Plan (the decisions made on the
// device), the magnitude bytes of the bound plane, the block reductions that merge them in a
// fixed order, and the statistics' kernels (the first pass over A and over B) with their launch
// (queue_statistics). Rung 16 (kernels/16_ozaki_int8.cu) includes it at its top; its code is in
// namespace sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ozaki/ozaki_bits.cuh"  // bits_of
#include "sgemm/sgemm.h"         // Gemm: the problem, as queue_statistics takes it

namespace sgemm::ozaki {

// ---- A line's statistics.

// The rule before the certificate: only rows (of A) or columns (of B) whose nonzero magnitudes
// span more than 2^kMaxSpan left the integer path. Below it the error stayed relative to the
// line's norm, and a line's small elements meeting another's large ones broke FP32's bound.
// The certificate decides now; a line's flags still record the span (kWide), which nothing reads.
constexpr int kMaxSpan = 24;

// A line's flags (Line::flags).
constexpr int kNonFinite = 1;  // holds Inf or NaN: every product in its line takes the slow path
constexpr int kInexact = 2;    // some element rounded when scaled: the certificate counts it
constexpr int kWide = 4;       // spans more than 2^kMaxSpan (the rule before the certificate)

// The exponent of |x| (floor(log2 |x|)) for a finite nonzero x, subnormals included.
__device__ __forceinline__ int exponent_of(uint32_t bits) {
  const int biased = bits >> 23 & 0xff;
  return biased ? biased - 127 : -118 - __clz(bits & 0x7fffff);
}

// A row's (or column's) statistics, merged in a fixed order: the sum of squares in FP64 (no
// overflow near FLT_MAX, no underflow of subnormals' squares), the largest and smallest
// exponents of its nonzero elements, and whether it holds an Inf or NaN.
// (Plain data, no constructor: it also lives in __shared__ arrays. Start from Stats::none().)
struct Stats {
  double squares, magnitude;  // sum x^2, sum |x|
  int maxExp, minExp;
  int nonFinite;
  static __device__ Stats none() { return {0.0, 0.0, -1000, 1000, 0}; }
  __device__ void add(float x) {
    const uint32_t bits = __float_as_uint(x);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
      nonFinite = 1;
    } else if (bits & 0x7fffffffu) {
      squares = fma(double(x), double(x), squares);
      magnitude += fabs(double(x));
      const int e = exponent_of(bits);
      maxExp = max(maxExp, e), minExp = min(minExp, e);
    }
  }
  __device__ void merge(const Stats& o) {
    squares += o.squares, magnitude += o.magnitude;
    maxExp = max(maxExp, o.maxExp), minExp = min(minExp, o.minExp);
    nonFinite |= o.nonFinite;
  }
  // The scale exponent: the largest s with 2^s ||x|| <= 2^T (0 for a zero row).
  __device__ int scale(double T) const {
    return squares > 0 ? static_cast<int>(floor(T - 0.5 * log2(squares))) : 0;
  }
  __device__ int flags() const {
    return (nonFinite ? kNonFinite : 0) | (maxExp - minExp > kMaxSpan ? kWide : 0);
  }
  // e with the line's RMS 2^e near 2^3 (magnitude_byte); 0 for a zero line.
  __device__ int magnitude_exponent(int K) const {
    return squares > 0 ? 3 - static_cast<int>(floor(0.5 * log2(squares / K))) : 0;
  }
};

// What the certificate (ozaki_certificate.cuh) needs of a row of A or a column of B, besides
// its scale: filled by the pre-pass, read by the bound plane's epilogue.
struct Line {
  double integers;   // sum of |x 2^s| rounded: the scaled integers' magnitudes, exactly
  double norm;       // the 2-norm (Cauchy-Schwarz bounds |c_ij| for the overflow guard)
  int scale;         // s
  int magnitudeExp;  // e: the magnitude bytes are min(127, floor(|x| 2^e))
  int flags;         // kNonFinite, kInexact, kWide
};

// A line's sums over its elements, merged in any order: every term is an integer and every sum
// stays below 2^53, so the sums are exact and the result does not depend on the order.
struct Tally {
  unsigned long long integers;
  int inexact;
  __device__ void merge(const Tally& o) { integers += o.integers, inexact |= o.inexact; }
};

// What the GPU decides, in the workspace, so that no decision waits for the host (a CUDA graph
// replays the launch as it was captured): the counts the kernels make, whether the integer
// path runs, and what each of the launcher's three calls of rung 15 computes. A kernel whose
// gate is 0 returns at once.
struct Plan {
  int flagged[2];   // rows, columns holding an uncertified element (sgemm_ozaki_int8_list)
  int heavy[2];     // rows, columns the prediction names heavy (sgemm_ozaki_int8_predict)
  int sampled[2];   // sampled rows, columns holding an uncertified sampled element
  int integer;      // the integer path runs: its kernels' gate
  int reconstruct;  // the reconstruction writes C
  int narrow;       // a sampled pair certified with less than kHalfBoundMargin to spare
  int halfBound;    // the bound plane sums every other k-tile (sgemm_ozaki_int8_decide)
  // rung 15's limits (kernels/15: launch_limited), rows then columns: the whole problem as the
  // prediction decides, the flagged rows of C gathered, the flagged columns gathered, or the
  // whole problem after the certificate (more flagged than the slow path's buffers hold)
  int wholePath[2], rowsPath[2], columnsPath[2], latePath[2];
};

// The magnitude byte: min(127, floor(|x| 2^e)), from the bits: a lower bound of |x| 2^e. The
// line's RMS maps to 2^3 (Stats::magnitude_exponent), so that the bulk of a line keeps 3 to 7
// bits and only elements above 16 times the RMS are clipped: a line's largest element would
// leave its small ones as zeros. sum_k bytes_A bytes_B fits INT32 for K up to kBoundMaxK (the
// rung's).
__host__ __device__ __forceinline__ uint32_t magnitude_byte(float x, int e) {
  const uint32_t bits = bits_of(x);
  const int biased = bits >> 23 & 0xff;
  const uint32_t m = (bits & 0x7fffff) | (biased ? 0x800000u : 0u);
  const int shift = (biased ? biased - 150 : -149) + e;  // |x| 2^e = m 2^shift
  // A left shift of 8 takes any m >= 1 to 256 or more, which clips to 127 (m 2^8 < 2^32).
  const int right = min(max(-shift, 0), 31), left = min(max(shift, 0), 8);
  const uint32_t v = m >> right << left;
  return biased == 0xff ? 0u : min(v, 127u);
}

// ---- Block reductions, in a fixed order.

// Sums a value over the block in a fixed order: lanes by a butterfly, then warps in turn.
// T has merge() and is plain data; shuffle(T, offset) exchanges it between lanes.
template <int kThreads, class T, class Shuffle>
__device__ T block_merge(T mine, T* shared, Shuffle shuffle) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) mine.merge(shuffle(mine, o));
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = mine;
  __syncthreads();
  T all = shared[0];
  for (int w = 1; w < kThreads / 32; ++w) all.merge(shared[w]);
  __syncthreads();  // shared is free for the next row
  return all;
}

template <int kThreads>
__device__ Stats block_stats(Stats s, Stats* shared) {
  return block_merge<kThreads>(s, shared, [](const Stats& x, int o) {
    Stats other = Stats::none();
    other.squares = __shfl_xor_sync(0xffffffffu, x.squares, o);
    other.magnitude = __shfl_xor_sync(0xffffffffu, x.magnitude, o);
    other.maxExp = __shfl_xor_sync(0xffffffffu, x.maxExp, o);
    other.minExp = __shfl_xor_sync(0xffffffffu, x.minExp, o);
    other.nonFinite = __shfl_xor_sync(0xffffffffu, x.nonFinite, o);
    return other;
  });
}

template <int kThreads>
__device__ Tally block_tally(Tally t, Tally* shared) {
  return block_merge<kThreads>(t, shared, [](const Tally& x, int o) {
    return Tally{__shfl_xor_sync(0xffffffffu, x.integers, o),
                 __shfl_xor_sync(0xffffffffu, x.inexact, o)};
  });
}

// ---- The statistics' kernels: the first pass over the rows of A and the columns of B.

// The prediction's sample: kSampleLines rows and columns (all of them where there are fewer),
// groups of 32 adjacent lines spread evenly, so that a warp reads 32 adjacent columns of B.
// Their statistics come first (Lines::sampled), and the prediction reads only them; every
// line's (Lines::all) follow for the integer path alone, gated by plan->integer.
constexpr int kSampleLines = 256, kSampleGroups = kSampleLines / 32;
__host__ __device__ inline int sample_count(int n) { return n < kSampleLines ? n : kSampleLines; }
__host__ __device__ inline int sampled_line(int t, int n) {
  return n <= kSampleLines ? t : t / 32 * (n / kSampleGroups) + t % 32;  // n / 8 >= 32
}
enum class Lines { sampled, all };
// The t-th line of `lines` among n, and how many there are.
__device__ __forceinline__ int line_of(Lines lines, int t, int n) {
  return lines == Lines::sampled ? sampled_line(t, n) : t;
}
__host__ __device__ inline int count_of(Lines lines, int n) {
  return lines == Lines::sampled ? sample_count(n) : n;
}

// The rows of A (M x K, leading dimension lda, any alignment), first pass: one block a row
// sums its statistics into stats[i].
constexpr int kRowThreads = 256;
__global__ void __launch_bounds__(kRowThreads)
    sgemm_ozaki_int8_row_stats(int M, int K, const float* A, long long lda, Stats* stats,
                               Lines lines, const Plan* plan) {
  __shared__ Stats partial[kRowThreads / 32];
  if (lines == Lines::all && !plan->integer) return;
  for (int t = blockIdx.x; t < count_of(lines, M); t += gridDim.x) {
    const int i = line_of(lines, t, M);
    const float* a = A + i * lda;
    Stats mine = Stats::none();
    for (int k = 4 * threadIdx.x; k < K; k += 4 * kRowThreads)
#pragma unroll
      for (int c = 0; c < 4; ++c)
        if (k + c < K) mine.add(a[k + c]);
    const Stats row = block_stats<kRowThreads>(mine, partial);
    if (threadIdx.x == 0) stats[i] = row;
  }
}

// The columns of B (K x N, leading dimension ldb), first pass: block (x, y) sums the
// statistics of 32 columns over slice y of K (kSliceRows rows), 8 rows at a time, into
// partial[y * N + column].
constexpr int kColumnTile = 32;
constexpr int kSliceRows = 512;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_column_stats(int K, int N, const float* B, long long ldb, Stats* partial,
                                  Lines lines, const Plan* plan) {
  __shared__ Stats rows[8][kColumnTile];
  if (lines == Lines::all && !plan->integer) return;
  const int t = blockIdx.x * kColumnTile + threadIdx.x;
  const bool counted = t < count_of(lines, N);
  const int j = counted ? line_of(lines, t, N) : 0;
  const int end = min(K, (blockIdx.y + 1) * kSliceRows);
  Stats mine = Stats::none();
  if (counted)
    for (int k = blockIdx.y * kSliceRows + threadIdx.y; k < end; k += 8) mine.add(B[k * ldb + j]);
  rows[threadIdx.y][threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.y == 0 && counted) {
    for (int y = 1; y < 8; ++y) mine.merge(rows[y][threadIdx.x]);
    partial[blockIdx.y * static_cast<long long>(N) + j] = mine;
  }
}

// Column j's slices merged in order into stats[j] (the columns' Stats, after the rows').
__device__ __forceinline__ Stats merge_column(int N, int K, const Stats* partial, int j,
                                              Stats* stats) {
  Stats x = Stats::none();
  const int slices = (K + kSliceRows - 1) / kSliceRows;
  for (int z = 0; z < slices; ++z) x.merge(partial[z * static_cast<long long>(N) + j]);
  stats[j] = x;
  return x;
}
// Every column's slices merged, for the integer path (the prediction merged the sampled ones).
__global__ void sgemm_ozaki_int8_column_merge(int N, int K, const Stats* partial, Stats* stats,
                                              const Plan* plan) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N && plan->integer) merge_column(N, K, partial, j, stats);
}

// The statistics' kernels: the rows' (one block a row) and the columns' (a block 32 columns and
// kSliceRows of K), of the sampled lines (their slices merged by sgemm_ozaki_int8_predict) or
// of all of them (merged by sgemm_ozaki_int8_column_merge); `all` is gated by plan->integer.
inline cudaError_t queue_statistics(const Gemm& g, Lines lines, Stats* stats, Stats* partial,
                                    const Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const int slices = (K + kSliceRows - 1) / kSliceRows, rows = count_of(lines, M);
  const unsigned columnTiles = (count_of(lines, N) + kColumnTile - 1) / kColumnTile;
  sgemm_ozaki_int8_row_stats<<<std::min(rows, 65535 * 8), kRowThreads, 0, stream>>>(
      M, K, A, lda, stats, lines, plan);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  sgemm_ozaki_int8_column_stats<<<dim3(columnTiles, slices), dim3(kColumnTile, 8), 0, stream>>>(
      K, N, B, ldb, partial, lines, plan);
  if ((err = cudaGetLastError()) != cudaSuccess || lines == Lines::sampled) return err;
  sgemm_ozaki_int8_column_merge<<<(N + 255) / 256, 256, 0, stream>>>(N, K, partial, stats + M,
                                                                     plan);
  return cudaGetLastError();
}

}  // namespace sgemm::ozaki

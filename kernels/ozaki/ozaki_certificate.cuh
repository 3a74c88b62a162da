// Rung 16's FP32 guarantee, for the rung that multiplies on INT8 tensor cores (16): the
// certificate, which checks every element of the integer path's result against FP32's
// componentwise bound (Certificate, LineBound, uncertified: the test the bound plane's epilogue
// makes; certificate_budget: the error it allows), and the prediction that runs before any
// integer work (sgemm_ozaki_int8_predict: heavy lines from the lines' statistics; the same
// certificate on a sample of rows and columns; sgemm_ozaki_int8_decide; queue_prediction, which
// the launcher calls), with sgemm_ozaki_int8_assign, which hands what the certificate flags to
// the slow path; and the bound plane's part of the INT8 GEMM (tile_bounds, certify). Rung 16
// (kernels/16_ozaki_int8.cu) includes it at its top; docs/16_ozaki_int8.md derives the
// certificate. Its code is in namespace sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "entries.h"  // every_shape_3xtf32::launch_limited: rung 15 on part of C (its slow path)
#include "ozaki/ozaki_bits.cuh"        // scale_to_integer
#include "ozaki/ozaki_statistics.cuh"  // Stats, Line, Tally, Plan, magnitude_byte, the sampled lines
#include "sgemm/sgemm.h"               // Gemm: the problem, as queue_prediction takes it

namespace sgemm::ozaki {

// ---- The certificate.

// The certificate: whether the integer path's result for C's element (i, j) is within FP32's
// bound, checked by the bound plane's epilogue for every element. Scaling rounds each A'_ik
// = rint(2^s_i a_ik) by at most 1/2 (and B' likewise), so the product's error is at most
//   E_ij = 2^-(s_i + t_j) (inexact_j sum_k |A'_ik| + inexact_i (sum_k |B'_kj| + K/2)) / 2,
// from the Lines alone. FP32's bound is relative to S_ij = sum_k |a_ik| |b_kj|; the bound
// plane gives a lower bound from the magnitude bytes q = min(127, floor(|x| 2^e)) <= |x| 2^e:
//   L_ij = 2^-(e_i + f_j) G_ij <= S_ij,   G = the INT8 product of the bytes, exact.
// (G over every other k-tile of 128 is a lower bound too, at half the bound plane's cost: where
// the sample certifies every pair with kHalfBoundMargin to spare, the plane sums only those.)
// An element is certified when E_ij <= budget L_ij (budget: docs/16), its lines hold no Inf
// or NaN, and |alpha| ||a_i|| ||b_j|| (>= |alpha c_ij|) stays far from FP32's overflow, near
// which SGEMM's own sums round otherwise. Every other element, and with it its
// row or column, goes to the slow path: a real GEMM (the launcher).
struct Certificate {
  const Line* lines;  // M rows of A, then N columns of B
  double budget;      // error allowed, in units of S_ij, before the rounding to FP32
  float alpha;
  int* failRow;  // [M]: set to 1 where a row holds an uncertified element
  int* failCol;  // [N]: likewise for columns
};

constexpr double kOverflowGuard = 0x1p126;  // |alpha| ||a|| ||b|| at or above: the slow path

// A line's part of the certificate, in FP64, computed once a block (into shared memory):
//   E_ij = (quantum_j reach_i + quantum_i reach_j) / 2,   budget L_ij = unit_i unit_j G_ij,
// reach = 2^-s (sum_k |x'_k| + K/2) (1 + 2^-20: the FP64 rounding of the test), quantum = 2^-s
// where an element rounded (0 where none did), unit = 2^-e (the budget folded into the rows'),
// norm = ||x|| (|alpha| folded into the rows'; Inf where the line holds Inf or NaN).
struct LineBound {
  double reach, quantum, unit, norm;
  int flags;
};

__device__ __forceinline__ LineBound line_bound(const Line& l, int K, double unitScale,
                                                double normScale) {
  return {ldexp(l.integers + 0.5 * K, -l.scale) * (1 + 0x1p-20),
          l.flags & kInexact ? ldexp(1.0, -l.scale) : 0.0, ldexp(unitScale, -l.magnitudeExp),
          l.flags & kNonFinite ? INFINITY : l.norm * normScale, l.flags};
}

__device__ __forceinline__ bool uncertified(const LineBound& a, const LineBound& b, int G) {
  // !(x < guard): a NaN (Inf times a zero line's norm) fails too.
  return 0.5 * (b.quantum * a.reach + a.quantum * b.reach) > a.unit * b.unit * G ||
         !(a.norm * b.norm < kOverflowGuard);
}

// The bound plane's part of a tile, into shared memory, kThreads threads: the LineBounds of its
// BM rows (from blockRow), then of its BN columns (from blockCol).
template <int BM, int BN, int kThreads>
__device__ __forceinline__ void tile_bounds(LineBound* bounds, const Certificate& cert, int M,
                                            int N, int K, int blockRow, int blockCol) {
  for (int t = threadIdx.x; t < BM + BN; t += kThreads) {
    if (t < BM ? blockRow + t >= M : blockCol + t - BM >= N) continue;
    bounds[t] = t < BM
                    ? line_bound(cert.lines[blockRow + t], K, cert.budget, fabs(double(cert.alpha)))
                    : line_bound(cert.lines[M + blockCol + t - BM], K, 1.0, 1.0);
  }
}

// The bound plane's epilogue: the certificate on a thread's elements of the tile, G from its
// wgmma fragment acc (rows rowOffset + lane / 4 + 8i of the tile, columns 8j + 2 (lane % 4) + c:
// acc[4j + 2i + c]); the rows and columns of those that fail are flagged.
template <int BM, int BN, int kCount>
__device__ __forceinline__ void certify(const int (&acc)[kCount], const LineBound* bounds,
                                        const Certificate& cert, int M, int N, int blockRow,
                                        int blockCol, int rowOffset, int lane) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = blockRow + rowOffset + i * 8 + lane / 4;
    if (row >= M) continue;
    const LineBound a = bounds[row - blockRow];
    bool rowFails = false;
#pragma unroll  // acc's indices must be constants: registers, not local memory
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int col = blockCol + j * 8 + 2 * (lane % 4) + c;
        if (col < N && uncertified(a, bounds[BM + col - blockCol], acc[4 * j + 2 * i + c])) {
          rowFails = true;
          cert.failCol[col] = 1;
        }
      }
    if (rowFails) cert.failRow[row] = 1;
  }
}

// The error the certificate allows, in units of S_ij = sum_k |a_ik||b_kj|, before the one
// rounding to FP32 (which adds u |c_ij| <= u S_ij): (min(K, sqrt(K) + 1) - 1) u. FP32's bound
// is gamma_K ~ K u; SGEMM's errors grow like sqrt(K) u, which the checks allow (docs/00).
inline double certificate_budget(int K) {
  return (std::min(static_cast<double>(K), std::sqrt(static_cast<double>(K)) + 1) - 1) * 0x1p-24;
}

// ---- The prediction.

// The prediction, one thread a sampled line (the sampled rows, then the sampled columns): a
// column's slices merged in order into stats[M + j]; then whether the line is heavy: whether the
// certificate would likely fail its products. An element's bound is about K 2^-T (rho_i + rho_j)
// S_ij / 2 for S_ij = sum_k |a_ik||b_kj| ~ ||a_i||_1 ||b_j||_1 / K, rho = ||x||_2 / ||x||_1 (from
// 1/sqrt(K) for even magnitudes to 1 for one dominant element); a line is heavy when its own term
// alone takes half the budget. heavy[0] and heavy[1] count the heavy sampled rows and columns,
// which sgemm_ozaki_int8_decide reads.
__global__ void sgemm_ozaki_int8_predict(int M, int N, int K, const Stats* partial, Stats* stats,
                                         double T, double budget, int* heavy) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x, rows = sample_count(M);
  if (t >= rows + sample_count(N)) return;
  const Stats x = t < rows ? stats[sampled_line(t, M)]
                           : merge_column(N, K, partial, sampled_line(t - rows, N), stats + M);
  const double rho = x.magnitude > 0 ? sqrt(x.squares) / x.magnitude : 0;
  if (x.nonFinite || K * exp2(-T) * rho > 0.5 * budget) atomicAdd(&heavy[t < rows ? 0 : 1], 1);
}

// ---- The decisions, on the device.

// The bound plane sums half of K's tiles (plan->halfBound) only where K is at least this (16
// k-tiles of 128), and where every sampled pair passes the certificate with G / kHalfBoundMargin:
// half of G, and a factor 2 for how unevenly the products spread over the k-tiles.
constexpr int kHalfBoundMinK = 2048;
constexpr int kHalfBoundMargin = 4;

// The slow path takes the problem whole when its rows or columns would cover more than this
// share of C: rung 15 on all of it then costs less than the integer path plus the rest.
constexpr double kSlowPathShare = 0.25;
// Below this K the prediction is not asked: short products are often exact (no element rounds
// when scaled, and the certificate then allows anything), and the problems are small.
constexpr int kPredictMinK = 64;
// The slow path's buffers hold this share of C's rows (or columns) at most: past it, after the
// certificate, the whole problem goes to rung 15 instead (the prediction should have seen it).
constexpr double kSlowPathMost = 0.5;
// The slow path is rung 15 from K = 16 on (its kMinK), sgemm_ozaki_int8_short below.
constexpr int kSlowPathMinK = 16;

// The heavy lines' estimate of the shares of rows and of columns the slow path would take (a
// heavy column puts a failure in every row, a heavy row one in every column), from the sample.
__device__ __forceinline__ double2 heavy_shares(int M, int N, const Plan* plan) {
  return {plan->heavy[1] ? 1.0 : static_cast<double>(plan->heavy[0]) / sample_count(M),
          plan->heavy[0] ? 1.0 : static_cast<double>(plan->heavy[1]) / sample_count(N)};
}
// Whether the heavy lines alone send the problem to rung 15: then the sample, which can only
// raise the shares, need not run (its kernels return at once; the decision is the same).
__device__ __forceinline__ bool heavy_decides(int M, int N, const Plan* plan) {
  const double2 shares = heavy_shares(M, N, plan);
  return fmin(shares.x, shares.y) > kSlowPathShare;
}

// The prediction's sample: the certificate itself, exactly as the bound plane's epilogue
// computes it, on the sampled rows and columns (sampled_line, ozaki_statistics.cuh).
// The sample's workspace: the sampled rows' Lines, then what is zeroed before each launch (the
// products G [rows][columns], the failure marks, the columns' tallies).
struct Sample {
  Line* rowLines;
  int* G;
  int *rowFails, *columnFails, *columnInexact;
  unsigned long long* columnIntegers;
};

// Sampled row t of A: its magnitude bytes, K contiguous (bytes [t][Kq], Kq = K rounded up to
// 4), and its Line, as sgemm_ozaki_int8_rows would store them.
__global__ void __launch_bounds__(kRowThreads)
    sgemm_ozaki_int8_sample_rows(int M, int N, int K, const float* A, long long lda,
                                 const Stats* stats, double T, uint8_t* bytes, int Kq, Line* lines,
                                 const Plan* plan) {
  __shared__ Tally partialTally[kRowThreads / 32];
  if (heavy_decides(M, N, plan)) return;
  const int i = sampled_line(blockIdx.x, M);
  const float* a = A + i * lda;
  const Stats row = stats[i];
  const int s = row.scale(T), e = row.magnitude_exponent(K);
  Tally tally{0, 0};
  for (int k = 4 * threadIdx.x; k < K; k += 4 * kRowThreads) {
    uint32_t word = 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (k + c >= K) break;
      const Scaled v = scale_to_integer(a[k + c], s);
      tally.integers += v.magnitude, tally.inexact |= v.inexact;
      word |= magnitude_byte(a[k + c], e) << (8 * c);
    }
    *reinterpret_cast<uint32_t*>(bytes + blockIdx.x * static_cast<size_t>(Kq) + k) = word;
  }
  const Tally all = block_tally<kRowThreads>(tally, partialTally);
  if (threadIdx.x == 0)
    lines[blockIdx.x] = {static_cast<double>(all.integers), sqrt(row.squares), s, e,
                         row.flags() | (all.inexact ? kInexact : 0)};
}

// Slice blockIdx.y (kSampleDepth of K) of sampled columns 32 blockIdx.x .. + 31 of B: their
// magnitude bytes, four k a word (words [Kq / 4][sampled], so that the products' threads read
// adjacent words), and their tallies, added to the columns' sums (integers: exact in any order).
constexpr int kSampleDepth = 512;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_sample_columns(int M, int K, int N, const float* B, long long ldb,
                                    const Stats* stats, double T, uint32_t* words, Sample sample,
                                    const Plan* plan) {
  __shared__ Tally partialTally[8][kColumnTile];
  if (heavy_decides(M, N, plan)) return;
  const int sampled = sample_count(N), t = blockIdx.x * kColumnTile + threadIdx.x;
  const int j = t < sampled ? sampled_line(t, N) : 0;
  const Stats column = stats[j];
  const int s = column.scale(T), e = column.magnitude_exponent(K);
  const int k4End = min((K + 3) / 4, static_cast<int>(blockIdx.y + 1) * kSampleDepth / 4);
  Tally tally{0, 0};
  if (t < sampled)
    for (int k4 = blockIdx.y * kSampleDepth / 4 + threadIdx.y; k4 < k4End; k4 += 8) {
      uint32_t word = 0;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int k = 4 * k4 + c;
        if (k >= K) break;
        const float x = B[k * ldb + j];
        const Scaled v = scale_to_integer(x, s);
        tally.integers += v.magnitude, tally.inexact |= v.inexact;
        word |= magnitude_byte(x, e) << (8 * c);
      }
      words[static_cast<size_t>(k4) * sampled + t] = word;
    }
  partialTally[threadIdx.y][threadIdx.x] = tally;
  __syncthreads();
  if (threadIdx.y != 0 || t >= sampled) return;
  for (int y = 1; y < 8; ++y) tally.merge(partialTally[y][threadIdx.x]);
  atomicAdd(&sample.columnIntegers[t], tally.integers);
  if (tally.inexact) atomicOr(&sample.columnInexact[t], 1);
}

// G = the INT8 product of the sampled rows' and columns' magnitude bytes, as the bound plane's:
// block (x, y) takes kSampleRowsPerBlock sampled rows over slice y (kSampleProductDepth of K),
// a thread a sampled column, four products of bytes a dp4a, the slices' sums added (exact).
constexpr int kSampleRowsPerBlock = 4, kSampleProductDepth = 1024;
__global__ void __launch_bounds__(kSampleLines)
    sgemm_ozaki_int8_sample_products(int M, int N, int K, const uint8_t* bytes, int Kq,
                                     const uint32_t* words, Sample sample, const Plan* plan) {
  const int rows = sample_count(M), columns = sample_count(N);
  const int t = threadIdx.x, r0 = blockIdx.x * kSampleRowsPerBlock;
  if (t >= columns || heavy_decides(M, N, plan)) return;
  const int k4Begin = blockIdx.y * kSampleProductDepth / 4;
  const int k4End = min(Kq / 4, k4Begin + kSampleProductDepth / 4);
  int G[kSampleRowsPerBlock] = {};
#pragma unroll 8
  for (int k4 = k4Begin; k4 < k4End; ++k4) {
    const int b = static_cast<int>(words[static_cast<size_t>(k4) * columns + t]);
#pragma unroll
    for (int r = 0; r < kSampleRowsPerBlock; ++r)
      if (r0 + r < rows)
        G[r] = __dp4a(
            *reinterpret_cast<const int*>(bytes + (r0 + r) * static_cast<size_t>(Kq) + 4 * k4), b,
            G[r]);
  }
#pragma unroll
  for (int r = 0; r < kSampleRowsPerBlock; ++r)
    if (r0 + r < rows) atomicAdd(&sample.G[(r0 + r) * columns + t], G[r]);
}

// The certificate on every sampled pair, a thread a pair: the test the bound plane's epilogue
// makes (uncertified), on the rows' Lines and the columns' (built here from their statistics
// and tallies, as sgemm_ozaki_int8_columns builds them); marks the rows and columns that fail.
__global__ void sgemm_ozaki_int8_sample_verdict(int M, int N, int K, const Stats* columnStats,
                                                double T, double budget, float alpha, Sample sample,
                                                Plan* plan) {
  const int rows = sample_count(M), columns = sample_count(N);
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= rows * columns || heavy_decides(M, N, plan)) return;
  const int i = p / columns, t = p % columns;
  const Stats column = columnStats[sampled_line(t, N)];
  const Line c{static_cast<double>(sample.columnIntegers[t]), sqrt(column.squares), column.scale(T),
               column.magnitude_exponent(K),
               column.flags() | (sample.columnInexact[t] ? kInexact : 0)};
  const LineBound a = line_bound(sample.rowLines[i], K, budget, fabs(double(alpha)));
  const LineBound b = line_bound(c, K, 1.0, 1.0);
  if (uncertified(a, b, sample.G[p] / kHalfBoundMargin)) plan->narrow = 1;
  if (uncertified(a, b, sample.G[p])) {
    sample.rowFails[i] = 1;
    sample.columnFails[t] = 1;
  }
}

// Before any integer work, one warp: whether the integer path runs, or rung 15 takes the
// whole problem (plan->wholePath). The prediction's two estimates of the share of rows and of
// columns that the slow path would take: the heavy lines' (heavy_shares), and the sample's (a
// row whose sampled columns hold a failure with probability q holds one among all N with about
// 1 - (1 - q)^(N / sampled columns)). The larger of each; rung 15 where both pass
// kSlowPathShare. (Where the heavy lines decide, the sample did not run: its marks are zeros.)
// And the bound plane's depth: half of K's tiles where no line is heavy and no sampled pair
// narrow (plan->narrow: certified by less than kHalfBoundMargin); kHalfBoundAlways (a choice
// the tests force, the rung's launch_half_bound_always): half wherever K >= kHalfBoundMinK.
template <bool kHalfBoundAlways>
__global__ void sgemm_ozaki_int8_decide(int M, int N, int K, int sampledRows, int sampledColumns,
                                        Sample sample, bool predict, Plan* plan) {
  int rowMarks = 0, columnMarks = 0;  // the warp sums the marks; lane 0 decides
  for (int i = threadIdx.x; i < sampledRows; i += 32) rowMarks += sample.rowFails[i];
  for (int t = threadIdx.x; t < sampledColumns; t += 32) columnMarks += sample.columnFails[t];
  rowMarks = __reduce_add_sync(0xffffffffu, rowMarks);
  columnMarks = __reduce_add_sync(0xffffffffu, columnMarks);
  if (threadIdx.x != 0) return;
  const double2 shares = heavy_shares(M, N, plan);
  double rows = shares.x, columns = shares.y;
  plan->sampled[0] = rowMarks, plan->sampled[1] = columnMarks;
  if (sampledRows > 0 && sampledColumns > 0) {
    const double q = static_cast<double>(plan->sampled[0]) / sampledRows;
    const double r = static_cast<double>(plan->sampled[1]) / sampledColumns;
    rows = fmax(rows, 1 - pow(1 - q, static_cast<double>(N) / sampledColumns));
    columns = fmax(columns, 1 - pow(1 - r, static_cast<double>(M) / sampledRows));
  }
  const bool whole = predict && fmin(rows, columns) > kSlowPathShare;
  plan->integer = !whole;
  if constexpr (kHalfBoundAlways)
    plan->halfBound = K >= kHalfBoundMinK;
  else
    plan->halfBound =
        predict && K >= kHalfBoundMinK && !plan->narrow && !plan->heavy[0] && !plan->heavy[1];
  if (whole) plan->wholePath[0] = M, plan->wholePath[1] = N;
}

// After the certificate (sgemm_ozaki_int8_list), one thread: the slow path by rows, or by
// columns where they cover less of C (as the reconstruction chooses); past its buffers' cap, the
// whole problem to rung 15 and no reconstruction.
__global__ void sgemm_ozaki_int8_assign(int M, int N, int rowsCap, int columnsCap, Plan* plan) {
  if (threadIdx.x != 0 || !plan->integer) return;
  const bool byRows =
      static_cast<long long>(plan->flagged[0]) * N <= static_cast<long long>(plan->flagged[1]) * M;
  const int slow = plan->flagged[byRows ? 0 : 1];
  if (slow > (byRows ? rowsCap : columnsCap)) {
    plan->latePath[0] = M, plan->latePath[1] = N;
    return;
  }
  plan->reconstruct = 1;
  if (byRows)
    plan->rowsPath[0] = slow, plan->rowsPath[1] = N;
  else
    plan->columnsPath[0] = M, plan->columnsPath[1] = slow;
}

// ---- The prediction, as the launcher queues it.

// After the lines' statistics (partial: the columns' slices; stats: the rows'), before any
// integer work: the heavy lines, the certificate on the sample (K >= kPredictMinK), the
// decision, and rung 15 on the whole problem where the prediction says so, queued now: while
// the GPU runs it, the host queues the rest, each kernel of which then returns at once.
// halfBoundAlways: the decision's kernel that forces the bound plane's depth (a test's choice).
inline cudaError_t queue_prediction(const Gemm& g, Stats* partial, Stats* stats, double T,
                                    double budget, uint8_t* rowBytes, int Kq, uint32_t* columnWords,
                                    const Sample& sample, Plan* plan, bool halfBoundAlways,
                                    cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const int sampledRows = sample_count(M), sampledColumns = sample_count(N);
  const dim3 columnBlock(kColumnTile, 8);
  auto launched = [] { return cudaGetLastError(); };
  cudaError_t err;
  sgemm_ozaki_int8_predict<<<(sampledRows + sampledColumns + 255) / 256, 256, 0, stream>>>(
      M, N, K, partial, stats, T, budget, plan->heavy);
  if ((err = launched()) != cudaSuccess) return err;
  const bool predict = K >= kPredictMinK;
  if (predict) {
    sgemm_ozaki_int8_sample_rows<<<sampledRows, kRowThreads, 0, stream>>>(
        M, N, K, A, lda, stats, T, rowBytes, Kq, sample.rowLines, plan);
    if ((err = launched()) != cudaSuccess) return err;
    const dim3 columnGrid((sampledColumns + kColumnTile - 1) / kColumnTile,
                          (K + kSampleDepth - 1) / kSampleDepth);
    sgemm_ozaki_int8_sample_columns<<<columnGrid, columnBlock, 0, stream>>>(
        M, K, N, B, ldb, stats + M, T, columnWords, sample, plan);
    if ((err = launched()) != cudaSuccess) return err;
    const dim3 productGrid((sampledRows + kSampleRowsPerBlock - 1) / kSampleRowsPerBlock,
                           (K + kSampleProductDepth - 1) / kSampleProductDepth);
    sgemm_ozaki_int8_sample_products<<<productGrid, kSampleLines, 0, stream>>>(
        M, N, K, rowBytes, Kq, columnWords, sample, plan);
    if ((err = launched()) != cudaSuccess) return err;
    const int pairs = sampledRows * sampledColumns;
    sgemm_ozaki_int8_sample_verdict<<<(pairs + 255) / 256, 256, 0, stream>>>(
        M, N, K, stats + M, T, budget, alpha, sample, plan);
    if ((err = launched()) != cudaSuccess) return err;
  }
  const auto decide =
      halfBoundAlways ? sgemm_ozaki_int8_decide<true> : sgemm_ozaki_int8_decide<false>;
  decide<<<1, 32, 0, stream>>>(M, N, K, predict ? sampledRows : 0, predict ? sampledColumns : 0,
                               sample, predict, plan);
  if ((err = launched()) != cudaSuccess) return err;
  if (predict &&
      (err = every_shape_3xtf32::launch_limited(g, plan->wholePath, stream)) != cudaSuccess)
    return err;  // (C is untouched: the chain may start again from it)
  return cudaSuccess;
}

}  // namespace sgemm::ozaki

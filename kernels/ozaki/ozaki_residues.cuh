// Rung 16's residues' planes, the second pass of its pre-pass: store_residues (four elements'
// residues mod each p_l and their magnitude bytes, as the rows' pass, sgemm_ozaki_int8_rows in
// kernels/16_ozaki_int8.cu, and the columns' pass here store them), and the columns' pass,
// which no rung teaches (the rows' pass for the columns of B, through a transpose: 8-bit wgmma
// reads both operands K-major), with its launch (queue_columns). Rung 16 includes it at its
// top; its code is in namespace sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ozaki/ozaki_bits.cuh"        // Crt, scale_to_integer, with_modulus, residue_byte
#include "ozaki/ozaki_statistics.cuh"  // Stats, Line, Tally, Plan, magnitude_byte, kColumnTile
#include "sgemm/sgemm.h"               // Gemm: the problem, as queue_columns takes it

namespace sgemm::ozaki {

// ---- Four elements' residues and magnitude bytes, as both passes store them.

// Four consecutive elements' residues, packed as 4 bytes, into each plane: plane l at
// planes + l * planeBytes; then their magnitude bytes into plane `count` (the bound plane).
__device__ __forceinline__ void store_residues(const float (&x)[4], int s, int e, int count,
                                               uint8_t* planes, size_t planeBytes, Tally& tally) {
  Scaled v[4];
  uint32_t bytes = 0;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    v[c] = scale_to_integer(x[c], s);
    bytes |= magnitude_byte(x[c], e) << (8 * c);
    tally.integers += v[c].magnitude;
    tally.inexact |= v[c].inexact;
  }
#pragma unroll
  for (int l = 0; l < kMaxModuli; ++l) {
    if (l >= count) break;
    uint32_t word = 0;
    with_modulus(l, [&](auto p) {
#pragma unroll
      for (int c = 0; c < 4; ++c) word |= residue_byte<decltype(p)::value>(v[c].value) << (8 * c);
    });
    *reinterpret_cast<uint32_t*>(planes + l * planeBytes) = word;
  }
  *reinterpret_cast<uint32_t*>(planes + count * planeBytes) = bytes;
}

// ---- The columns' pass: the rows' (sgemm_ozaki_int8_rows) through a transpose.

// The columns of B, second pass (the first, sgemm_ozaki_int8_column_stats, sums their
// statistics): block (x, y) takes the merged statistics of its 32 columns (their scales;
// block y = 0 stores the Lines' scale, exponent and flags), then transposes a 128 x 32
// tile of B through shared memory and stores its residues and magnitude bytes K-major: planes
// [count + 1][N][Kp]. Each block adds its rows' tallies to the columns' Lines (zeroed first):
// integer sums, the same in any order.
constexpr int kTransposeDepth = 128;
__global__ void __launch_bounds__(kColumnTile * 8)
    sgemm_ozaki_int8_columns(int K, int N, const float* B, long long ldb, const Stats* stats,
                             Crt crt, uint8_t* planes, int Kp, Line* lines, const Plan* plan) {
  __shared__ float4 tile[kColumnTile][kTransposeDepth / 4 + 1];  // [n][k]: 16-byte rows of k
  if (!plan->integer) return;
  __shared__ int columnScale[kColumnTile], columnExp[kColumnTile];
  const int n0 = blockIdx.x * kColumnTile, k0 = blockIdx.y * kTransposeDepth;
  const int x = threadIdx.x, y = threadIdx.y;
  if (y == 0) {
    if (n0 + x < N) {
      const Stats column = stats[n0 + x];
      columnScale[x] = column.scale(crt.T);
      columnExp[x] = column.magnitude_exponent(K);
      if (blockIdx.y == 0) {
        Line& line = lines[n0 + x];
        line.norm = sqrt(column.squares);
        line.scale = columnScale[x], line.magnitudeExp = columnExp[x];
        atomicOr(&line.flags, column.flags());
      }
    }
  }
  float* t = reinterpret_cast<float*>(tile);
  constexpr int kRow = kTransposeDepth + 4;  // floats from one n to the next
  for (int k = y; k < kTransposeDepth; k += 8)
    t[x * kRow + k] = k0 + k < K && n0 + x < N ? B[(k0 + k) * ldb + n0 + x] : 0.f;
  __syncthreads();
  // Warp y takes columns y, y + 8, ...: its 32 lanes the column's 128 k, 4 each; the tally is
  // summed over the warp (shuffles), and lane 0 adds it to the column's Line.
  const size_t planeBytes = static_cast<size_t>(N) * Kp;
  static_assert(kTransposeDepth == 4 * 32, "a warp covers a column's k, 4 elements a lane");
  for (int n = y; n < kColumnTile; n += 8) {
    const int k = k0 + 4 * x;
    if (n0 + n >= N) break;  // n grows: the rest are past N too
    Tally tally{0, 0};
    if (k < K) {
      const float4 v = tile[n][x];
      const float four[4] = {v.x, v.y, v.z, v.w};
      store_residues(four, columnScale[n], columnExp[n], crt.count,
                     planes + static_cast<size_t>(n0 + n) * Kp + k, planeBytes, tally);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      tally.integers += __shfl_xor_sync(0xffffffffu, tally.integers, o);
      tally.inexact |= __shfl_xor_sync(0xffffffffu, tally.inexact, o);
    }
    if (x == 0) {
      Line& line = lines[n0 + n];
      atomicAdd(&line.integers, static_cast<double>(tally.integers));  // exact: integers < 2^53
      if (tally.inexact) atomicOr(&line.flags, kInexact);
    }
  }
}

// The columns' pass, queued after the rows': a block 32 columns and kTransposeDepth of K.
inline cudaError_t queue_columns(const Gemm& g, const Stats* stats, const Crt& crt, uint8_t* planes,
                                 int Kp, Line* lines, const Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  const dim3 grid((N + kColumnTile - 1) / kColumnTile, (K + kTransposeDepth - 1) / kTransposeDepth);
  sgemm_ozaki_int8_columns<<<grid, dim3(kColumnTile, 8), 0, stream>>>(K, N, B, ldb, stats, crt,
                                                                      planes, Kp, lines, plan);
  return cudaGetLastError();
}

}  // namespace sgemm::ozaki

// Rung 15's plumbing: what carries its kernels and is not its lesson. The fused kernel's loads
// at any alignment; the slices' sums added from the workspace (a kernel and its launch); rung
// 14's pre-pass (split_3xtf32.cuh) in one launch. kernels/15_every_shape_3xtf32.cu holds the
// kernels, their launch and the choice; docs/15_every_shape_3xtf32.md explains them. In rung
// 15's namespace: its kernels are rung 15's, and only rung 15's file includes this header.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "sgemm/sgemm.h"                  // Gemm
#include "split_3xtf32/split_3xtf32.cuh"  // the split, the guard path, the pre-pass kernels

namespace sgemm::every_shape_3xtf32 {

using namespace split_3xtf32;

// ---- The fused kernel's slices, added from the workspace.

// The slices' sum: C = alpha * (W[0] + ... + W[slices-1]) + beta * C, every element adding
// its slices in the same order, whichever block finished first: bitwise the same on every
// run. Where a guard flag names the element's row or column (guards + z * guardStride, rows of
// A then columns of B: the fused kernel's flags per slice, stride M + N, or the pre-pass's for
// all of K, stride 0), or the sum is not finite, the guard path sums it again over all of K.
__global__ void sgemm_every_shape_3xtf32_sum(int M, int N, int K, int slices, float alpha,
                                             const float* W, const int* guards,
                                             long long guardStride, const float* A, int lda,
                                             const float* B, int ldb, float beta, float* C, int ldc,
                                             const int* limits) {
  const long long count = static_cast<long long>(M) * N;
  const int Mx = limits ? min(M, limits[0]) : M, Nx = limits ? min(N, limits[1]) : N;
  for (long long x = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       x < static_cast<long long>(Mx) * Nx; x += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(x / Nx), col = static_cast<int>(x % Nx);
    const long long e = static_cast<long long>(row) * N + col;
    float s = 0.f;
    int flagged = 0;
    for (int z = 0; z < slices; ++z) {
      s += W[z * count + e];
      flagged |= guards[z * guardStride + row] | guards[z * guardStride + M + col];
    }
    if (flagged || !isfinite(s)) s = fp32_dot(A, lda, B, ldb, K, row, col);
    float* c = C + static_cast<long long>(row) * ldc + col;
    *c = beta == 0.f ? alpha * s : alpha * s + beta * *c;  // beta == 0: C is not read
  }
}

// The fused kernel's slices: their sums and flags in the workspace, then sum_slices.
inline cudaError_t sum_slices(const Gemm& g, int slices, const float* partial, const int* guards,
                              long long guardStride, cudaStream_t stream, const int* limits) {
  const long long count = static_cast<long long>(g.M) * g.N;
  const long long blocks = std::min<long long>((count + 255) / 256, 4096);
  sgemm_every_shape_3xtf32_sum<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
      g.M, g.N, g.K, slices, g.alpha, partial, guards, guardStride, g.A, g.lda, g.B, g.ldb, g.beta,
      g.C, g.ldc, limits);
  return cudaGetLastError();
}

// ---- The pre-pass in one launch.

// Rung 14's two pre-pass kernels as one: blocks [0, A's) split rows of A as split_rows' grid
// would, the rest split and transpose B as split_transpose's would. The two halves run side by
// side, and a small problem waits for one launch instead of two (at 1000^3 the two took 4.8 and
// 6.6 us, one after the other).
static_assert(kSplitThreads == kTransposeThreads, "both halves: 256 threads");
__global__ void __launch_bounds__(kSplitThreads)
    split_both(int M, int N, int K, const float* A, int lda, const float* B, int ldb, Split s,
               dim3 gridA, dim3 gridB, int tileB, const int* limits) {
  const int blocksA = static_cast<int>(gridA.x * gridA.y);
  const int blocks = blocksA + static_cast<int>(gridB.x * gridB.y);
  if (limits) {  // the rows and columns that the limited tiles read, whole tiles of 128
    M = min(M, (limits[0] + 127) / 128 * 128), N = min(N, (limits[1] + 127) / 128 * 128);
    if (M == 0 || N == 0) return;
  }
  // Block b of the two grids; a limited launch has fewer blocks, each taking several b.
  for (int b = static_cast<int>(blockIdx.x); b < blocks; b += gridDim.x) {
    if (b < blocksA)
      split_rows_block(b % gridA.x, b / gridA.x, gridA.x, gridA.y, M, K, A, lda, s.Ahi, s.Alo, s.Kp,
                       s.guard);
    else if (tileB == 64)
      split_transpose_block<64>((b - blocksA) % gridB.x, (b - blocksA) / gridB.x, gridB.y,
                                threadIdx.x % kTransposeThreadsX, threadIdx.x / kTransposeThreadsX,
                                K, N, B, ldb, s.Bhi, s.Blo, s.Kp, s.guard + M);
    else
      split_transpose_block<32>((b - blocksA) % gridB.x, (b - blocksA) / gridB.x, gridB.y,
                                threadIdx.x % kTransposeThreadsX, threadIdx.x / kTransposeThreadsX,
                                K, N, B, ldb, s.Bhi, s.Blo, s.Kp, s.guard + M);
  }
}

// A limited launch's split_both: at most this many blocks, so that a call whose limits leave
// nothing to do (rung 16's slow path, mostly) returns in one wave of them.
constexpr long long kLimitedSplitBlocks = 2048;

// The pre-pass (split_operands) with its kernels as one launch: the flags zeroed, then both.
// Where s has no planes of A, A is not read: the main kernel splits it and flags its rows.
inline cudaError_t split_operands_together(const Gemm& g, const Split& s, cudaStream_t stream,
                                           const int* limits) {
  const int tileB = transpose_tile_for(g.N, g.K);
  const dim3 gridA = s.Ahi ? split_rows_grid(g.M, g.K) : dim3(0, 1);
  const dim3 gridB = split_transpose_grid(g.N, g.K, tileB);
  const long long blocks =
      static_cast<long long>(gridA.x) * gridA.y + static_cast<long long>(gridB.x) * gridB.y;
  if (blocks > 0x7fffffff) return split_operands(g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, s, stream);
  const cudaError_t err = clear_flags(s, g.M, g.N, stream);
  if (err != cudaSuccess) return err;
  const long long grid = limits ? std::min(blocks, kLimitedSplitBlocks) : blocks;
  split_both<<<static_cast<unsigned>(grid), kSplitThreads, 0, stream>>>(
      g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, s, gridA, gridB, tileB, limits);
  return cudaGetLastError();
}

// The transposed problem's pre-pass (C^T = B^T A^T): the caller's A (M x K, K contiguous) is
// already laid out as the kernel's Bt planes (its N = M rows of K), so split_rows splits it into
// them, no transpose, its rows' flags after the kernel's M = N rows'; B is not read here.
inline cudaError_t split_a_as_b(const Gemm& g, const Split& s, cudaStream_t stream) {
  const cudaError_t err = clear_flags(s, g.M, g.N, stream);
  if (err != cudaSuccess) return err;
  split_rows<<<split_rows_grid(g.M, g.K), kSplitThreads, 0, stream>>>(g.M, g.K, g.A, g.lda, s.Bhi,
                                                                      s.Blo, s.Kp, s.guard + g.N);
  return cudaGetLastError();
}

}  // namespace sgemm::every_shape_3xtf32

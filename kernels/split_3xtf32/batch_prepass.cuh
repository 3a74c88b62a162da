// Rung 15's pre-pass for a batch (library/batched.cu): every problem's A and B split into TF32 hi
// and lo planes in one launch, laid out so that the main kernel's tensor maps see the batch as
// one tall problem. Problem z's planes start at row z * Mp of A's and z * Np of B's, Mp and Np
// being M and N rounded up to whole tiles (128): a box of 128 rows never crosses into the next
// problem, and the rows between M and Mp (never written) only reach rows and columns of C the
// epilogue does not store. Its guard flags sit at z * (M + N): rows of A, then columns of B.
// Without planes of A (splitA = false: the main kernel reads A itself and splits it, flagging
// its rows), only B's planes and the flags.
//
//   A planes  (problems * Mp) x Kp    problem z: rows [z Mp, z Mp + M)
//   B planes  (problems * Np) x Kp    (B transposed: N x K per problem)
//   flags     problems * (M + N)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "launchers.h"                    // Gemm
#include "runtime/batch.h"                // Batch: a problem's operands
#include "split_3xtf32/split_3xtf32.cuh"  // split_rows_block, split_transpose_block, Split

namespace sgemm::every_shape_3xtf32 {

using namespace split_3xtf32;

// The layout above, for `problems` problems of M x N x K.
struct BatchSplit {
  Split s;         // problem 0's planes and flags; Kp the planes' row pitch
  long long perA;  // floats from one problem's A planes to the next's: Mp * Kp
  long long perB;  // Np * Kp
  int Mp, Np;
  int flagsA = 0;  // where A's row flags start in a problem's: 0, or N (split_batch_a_as_b)
};
constexpr int kBatchTile = 128;  // the main kernel's BM, a multiple of its BN: the row padding
__host__ __device__ inline int tile_rows(int n) {
  return (n + kBatchTile - 1) / kBatchTile * kBatchTile;
}
inline size_t batch_split_floats(int M, int N, int K, int problems, bool splitA = true) {
  const size_t rowsA = splitA ? tile_rows(M) : 0;
  return static_cast<size_t>(problems) * ((rowsA + tile_rows(N)) * 2 * padded_depth(K) + M + N);
}
inline BatchSplit batch_split_layout(float* W, int M, int N, int K, int problems,
                                     bool splitA = true) {
  BatchSplit b;
  b.Mp = tile_rows(M), b.Np = tile_rows(N);
  const int Kp = padded_depth(K);
  b.perA = splitA ? static_cast<long long>(b.Mp) * Kp : 0;
  b.perB = static_cast<long long>(b.Np) * Kp;
  const size_t a = static_cast<size_t>(problems) * b.perA,
               bb = static_cast<size_t>(problems) * b.perB;
  float* A = splitA ? W : nullptr;
  b.s = {
      A, A ? A + a : nullptr, W + 2 * a, W + 2 * a + bb, reinterpret_cast<int*>(W + 2 * a + 2 * bb),
      Kp};
  return b;
}

// Block (blockIdx.x, problem blockIdx.y): the blocks [0, A's) split rows of A as split_rows'
// grid would (none without planes of A), the rest split and transpose B in 32 x 32 tiles (the
// problems are small: rung 15's measure for 64 x 64 tiles starts at 4M elements of B).
static_assert(kSplitThreads == kTransposeThreads, "both halves: 256 threads");
__global__ void __launch_bounds__(kSplitThreads)
    split_batch(int M, int N, int K, const float* A, int lda, const float* B, int ldb, BatchSplit b,
                dim3 gridA, dim3 gridB, runtime::Batch batch, long long first) {
  const long long z = first + blockIdx.y;
  float* unusedC = nullptr;
  runtime::select_problem(batch, z, A, B, unusedC);
  const Split& s = b.s;
  int* guard = s.guard + z * (M + N);
  const int blocksA = static_cast<int>(gridA.x * gridA.y), block = static_cast<int>(blockIdx.x);
  if (block < blocksA)
    split_rows_block(block % gridA.x, block / gridA.x, gridA.x, gridA.y, M, K, A, lda,
                     s.Ahi + z * b.perA, s.Alo + z * b.perA, s.Kp, guard + b.flagsA);
  else
    split_transpose_block<32>((block - blocksA) % gridB.x, (block - blocksA) / gridB.x, gridB.y,
                              threadIdx.x % kTransposeThreadsX, threadIdx.x / kTransposeThreadsX, K,
                              N, B, ldb, s.Bhi + z * b.perB, s.Blo + z * b.perB, s.Kp, guard + M);
}

// The flags zeroed, then every problem split: a launch per 65535 problems (the grid's y).
inline cudaError_t split_batch_operands(const Gemm& g, const BatchSplit& b,
                                        const runtime::Batch& batch, int problems,
                                        cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(
      b.s.guard, 0, static_cast<size_t>(problems) * (g.M + g.N) * sizeof(int), stream);
  if (err != cudaSuccess) return err;
  // A's rows: at most 64 blocks of them a problem, each walking rows (the batch fills the GPU).
  const dim3 gridA =
      b.s.Ahi
          ? dim3((g.K + kSplitThreads * kSplitPerThread - 1) / (kSplitThreads * kSplitPerThread),
                 std::min(g.M, 64))
          : dim3(0, 0);
  const dim3 gridB = b.s.Bhi ? split_transpose_grid(g.N, g.K, 32) : dim3(0, 0);
  const long long blocks =
      static_cast<long long>(gridA.x) * gridA.y + static_cast<long long>(gridB.x) * gridB.y;
  if (blocks > 0x7fffffff) return cudaErrorInvalidValue;
  for (int first = 0; first < problems; first += 65535) {
    const int n = std::min(problems - first, 65535);
    split_batch<<<dim3(static_cast<unsigned>(blocks), n), kSplitThreads, 0, stream>>>(
        g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, b, gridA, gridB, batch, first);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

// C^T = B^T A^T, the main kernel reading B itself (kTransposed): b is the layout of its problem,
// N x M x K without planes of its A; A's rows are split into the planes it reads as its B (no
// transpose: they are K-major already), their flags after the N of its rows.
inline cudaError_t split_batch_a_as_b(const Gemm& g, const BatchSplit& b,
                                      const runtime::Batch& batch, int problems,
                                      cudaStream_t stream) {
  BatchSplit a = b;
  a.s.Ahi = b.s.Bhi, a.s.Alo = b.s.Blo, a.perA = b.perB, a.flagsA = g.N;
  a.s.Bhi = a.s.Blo = nullptr;
  return split_batch_operands(g, a, batch, problems, stream);
}

}  // namespace sgemm::every_shape_3xtf32

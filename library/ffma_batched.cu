// The batched calls' CUDA-core kernel: a batch of small problems (64^3, attention's P V) in one
// launch, each block one 64 x 64 tile of one problem (the grid's z), on any GPU.
//
// A batch of small problems fills the GPU with its many tiles; what a tile needs is not rung
// 17's split of K across a cluster (there are enough tiles already) nor a tensor core's 3xTF32
// with its split operands (three products and a pre-pass for a K of 64), but a short, tight loop
// that keeps the FMA pipe busy: rung 8's 8 x 8 register tile a thread (64 FFMA for four float4
// reads of shared memory), fed by rung 9's asynchronous copies three steps deep, which hold no
// registers, so that eight blocks fit an SM and a batch of 1,024 tiles runs in one wave. A's
// copies are 4 bytes each, B's 16 where its rows are 16-byte aligned: any alignment and leading
// dimension is read as it lies.
#include <cuda_runtime.h>

#include <cstdint>

#include "ffma_batched.h"  // Gemm, Batch and select_problem (runtime/batch.h)

namespace sgemm {
namespace {

constexpr int kThreads = 64;     // an 8 x 8 grid of threads
constexpr int kTile = 64;        // the block's tile of C: 64 x 64, 8 x 8 elements a thread
constexpr int kStep = 16;        // K a step
constexpr int kStages = 3;       // steps in shared memory: one multiplied, two arriving
constexpr int kPad = kTile + 4;  // As's rows start 16-byte aligned
constexpr int kBlocksPerSm = 8;  // registers capped at 128 a thread

// 4 bytes, global to shared, without passing through registers: *src where `inside`, else 0.
// Before compute capability 8.0 (no cp.async), a plain load and store.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool inside) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(inside ? 4 : 0)
               : "memory");
#else
  *dst = inside ? *src : 0.f;
#endif
}
// 16 bytes (B's rows where they are 16-byte aligned): the first `bytes` read, the rest zero. L2
// only (.cg): a block reads each of B's elements once.
__device__ __forceinline__ void copy16(float* dst, const float* src, int bytes) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(bytes)
               : "memory");
#else
  for (int j = 0; j < 4; ++j) dst[j] = 4 * j < bytes ? src[j] : 0.f;
#endif
}
__device__ __forceinline__ void commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Until at most kPending of this thread's committed groups are in flight.
template <int kPending>
__device__ __forceinline__ void wait_pending() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Thread (ty, tx) owns rows ty * 4 .. + 3 and 32 + ty * 4 .. + 3 of the tile, and the same
// columns of tx: two float4s of a k-row of As or Bs, 128 bytes apart, so that the 8 tx of a warp
// read 128 contiguous bytes of Bs at once (8 x 8 contiguous elements a thread would put two of
// them on the same banks: ncu counted 2 conflicts an LDS). A step of K in shared memory, kStages
// of them:
//   As[stage][k][m]: the step's A transposed (64 x 16 -> 16 x 64, rows padded by 4): a
//                    thread's 8 rows of one k as two float4s (4 distinct a warp: broadcast)
//   Bs[stage][k][n]: the step's B as it lies, 16 x 64: a thread's 8 columns as two float4s
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ffma_batched(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, runtime::Batch batch) {
  __shared__ __align__(16) float As[kStages][kStep][kPad];
  __shared__ __align__(16) float Bs[kStages][kStep][kTile];
  runtime::select_problem(batch, A, B, C);
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;

  // A step's copies: element e = threadIdx.x + 64 i. A's row e / 16 = rA + 4 i, k e % 16 (a warp
  // reads 2 rows x 16 k); B's k e / 64 = i, column e % 64 (a warp reads 32 columns), or, where
  // B's rows are 16-byte aligned, float4 f = threadIdx.x + 64 i: k f / 16 = kB + 4 i, columns
  // (f % 16) * 4 .. + 3 (4 copies a thread, not 16). Zero outside the problem, where a copy
  // reads nothing (its address is then never dereferenced). A step wholly inside the problem
  // (most of them) copies without a test.
  const int kA = threadIdx.x % kStep, rA = threadIdx.x / kStep;
  const float* aFrom = A + static_cast<long long>(row0 + rA) * lda + kA;
  unsigned rowsInside = 0;  // bit i: row rA + 4 i of the tile is inside A
#pragma unroll
  for (int i = 0; i < kTile * kStep / kThreads; ++i)
    rowsInside |= static_cast<unsigned>(row0 + rA + 4 * i < M) << i;
  const long long fourRows = 4LL * lda, fourRowsB = 4LL * ldb;
  const bool bVectors = reinterpret_cast<std::uintptr_t>(B) % 16 == 0 && ldb % 4 == 0;
  const int kB = threadIdx.x / 16, c4 = threadIdx.x % 16 * 4;
  const float* bFrom =
      bVectors ? B + static_cast<long long>(kB) * ldb + col0 + c4 : B + col0 + threadIdx.x;
  const int bBytes = 4 * min(max(N - col0 - c4, 0), 4);  // of a float4 of B, inside
  const bool bInside = col0 + static_cast<int>(threadIdx.x) < N;
  const bool tileInside = row0 + kTile <= M && col0 + kTile <= N;
  const auto copy_step_as = [&](int stage, int k0, bool all) {  // all: no element outside
    const bool kInside = k0 + kA < K;
    const float* a = aFrom + k0;
#pragma unroll
    for (int i = 0; i < kTile * kStep / kThreads; ++i, a += fourRows)
      copy4(&As[stage][kA][rA + 4 * i], a, all || (kInside && (rowsInside >> i & 1u)));
    const float* b = bFrom + static_cast<long long>(k0) * ldb;
    if (bVectors) {
#pragma unroll
      for (int i = 0; i < kStep * kTile / 4 / kThreads; ++i, b += fourRowsB)
        copy16(&Bs[stage][kB + 4 * i][c4], b, all || k0 + kB + 4 * i < K ? (all ? 16 : bBytes) : 0);
    } else {
#pragma unroll
      for (int i = 0; i < kStep; ++i, b += ldb)
        copy4(&Bs[stage][i][threadIdx.x], b, all || (bInside && k0 + i < K));
    }
  };
  const auto copy_step = [&](int stage, int k0) {
    if (tileInside && k0 + kStep <= K)
      copy_step_as(stage, k0, true);
    else
      copy_step_as(stage, k0, false);
  };

  const int steps = (K + kStep - 1) / kStep;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps) copy_step(s, s * kStep);
    commit();  // a group a step, empty past K: the count below stays uniform
  }
  float acc[8][8] = {};
  for (int t = 0; t < steps; ++t) {
    wait_pending<kStages - 2>();  // this thread's copies of step t have landed
    __syncthreads();              // everyone's have; and step t - 1 is multiplied, its stage free
    if (t + kStages - 1 < steps) copy_step((t + kStages - 1) % kStages, (t + kStages - 1) * kStep);
    commit();
    const int stage = t % kStages;
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      const float4 x0 = *reinterpret_cast<const float4*>(&As[stage][k][ty * 4]);
      const float4 x1 = *reinterpret_cast<const float4*>(&As[stage][k][32 + ty * 4]);
      const float4 y0 = *reinterpret_cast<const float4*>(&Bs[stage][k][tx * 4]);
      const float4 y1 = *reinterpret_cast<const float4*>(&Bs[stage][k][32 + tx * 4]);
      const float x[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
      const float y[8] = {y0.x, y0.y, y0.z, y0.w, y1.x, y1.y, y1.z, y1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);  // k in order
    }
  }

  // C = alpha * AB + beta * C, BLAS's: beta == 0 reads no C. Four columns as one float4 where
  // they are inside C and 16-byte aligned.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row0 + ty * 4 + i % 4 + 32 * (i / 4);
    if (row >= M) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + tx * 4 + 32 * h;
      float* p = C + static_cast<long long>(row) * ldc + col;
      const float* v = &acc[i][4 * h];
      if (col + 3 < N && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
        if (beta != 0.f) {
          const float4 c = *reinterpret_cast<const float4*>(p);
          out = make_float4(out.x + beta * c.x, out.y + beta * c.y, out.z + beta * c.z,
                            out.w + beta * c.w);
        }
        *reinterpret_cast<float4*>(p) = out;
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < N) p[j] = beta == 0.f ? alpha * v[j] : alpha * v[j] + beta * p[j];
      }
    }
  }
}

}  // namespace

cudaError_t launch_ffma_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                                cudaStream_t stream) {
  const dim3 grid((g.N + kTile - 1) / kTile, (g.M + kTile - 1) / kTile, problems);
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  ffma_batched<<<grid, kThreads, 0, stream>>>(g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb,
                                              g.beta, g.C, g.ldc, batch);
  return cudaGetLastError();
}

}  // namespace sgemm

// The batched calls' CUDA-core kernel: a batch of small problems (64^3, attention's P V) in one
// launch, each block one tile of one problem (the grid's z), on any GPU.
//
// A batch of small problems fills the GPU with its many tiles; what a tile needs is not rung
// 17's split of K across a cluster (there are enough tiles already) nor a tensor core's 3xTF32
// with its split operands (three products and a pre-pass for a K of 64), but a short, tight loop:
// rung 6's register tile read from shared memory as float4s, with the next step's operands
// loaded into registers while this step's are multiplied (rung 9's overlap, without cp.async, so
// that any alignment and leading dimension is read as it lies).
#include <cuda_runtime.h>

#include <cstdint>

#include "ffma_batched.h"
#include "launchers.h"      // Gemm
#include "runtime/batch.h"  // Batch, select_problem

namespace sgemm {
namespace {

constexpr int kThreads = 256;  // a 16 x 16 grid of threads
constexpr int kTileN = 64;     // 16 threads x 4 columns
constexpr int kStep = 16;      // K a step
// Blocks an SM holds at once, so that one block's loads and barriers hide behind another's
// products: registers capped at 85 a thread for 4 rows a thread, 128 for 8 (65,536 an SM).
template <int kRows>
constexpr int kBlocksPerSm = kRows == 4 ? 3 : 2;

// The tile of C is (16 * kRows) x 64; thread (ty, tx) owns rows ty * kRows .. + kRows - 1 and
// columns tx * 4 .. + 3. A step of K through shared memory, two buffers:
//   As[buf][k][m]: the step's A transposed (kTileM x 16 -> 16 x kTileM, rows padded by 4 so each
//                  starts 16-byte aligned), a thread's kRows values of one k as float4s
//   Bs[buf][k][n]: the step's B as it lies, 16 x 64, a thread's 4 columns as one float4
template <int kRows>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm<kRows>)
    ffma_batched(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, runtime::Batch batch) {
  constexpr int kTileM = 16 * kRows, kPadM = kTileM + 4;
  constexpr int kLoadsA = kTileM * kStep / kThreads, kLoadsB = kTileN * kStep / kThreads;
  __shared__ __align__(16) float As[2][kStep][kPadM];
  __shared__ __align__(16) float Bs[2][kStep][kTileN];
  runtime::select_problem(batch, A, B, C);
  const int row0 = blockIdx.y * kTileM, col0 = blockIdx.x * kTileN;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;

  // One step's operands, zero outside the problem. Element e = threadIdx.x + 256 i of a step:
  // A's row e / 16, k e % 16 (a warp reads 2 rows x 16 k); B's k e / 64, column e % 64 (a warp
  // reads 32 columns). A thread's elements are 16 rows of A, 4 k of B apart.
  const int kA = threadIdx.x % kStep, rA = threadIdx.x / kStep;
  const int cB = threadIdx.x % kTileN, kB = threadIdx.x / kTileN;
  const float* aFrom = A + static_cast<long long>(row0 + rA) * lda + kA;
  const float* bFrom = B + static_cast<long long>(kB) * ldb + col0 + cB;
  const bool bInside = col0 + cB < N;
  float a[kLoadsA], b[kLoadsB];
  const auto load = [&](int k0) {
#pragma unroll
    for (int i = 0; i < kLoadsA; ++i)
      a[i] = row0 + rA + 16 * i < M && k0 + kA < K
                 ? aFrom[static_cast<long long>(16 * i) * lda + k0]
                 : 0.f;
#pragma unroll
    for (int i = 0; i < kLoadsB; ++i)
      b[i] = bInside && k0 + kB + 4 * i < K ? bFrom[static_cast<long long>(k0 + 4 * i) * ldb] : 0.f;
  };
  const auto store = [&](int buf) {
#pragma unroll
    for (int i = 0; i < kLoadsA; ++i) As[buf][kA][rA + 16 * i] = a[i];
#pragma unroll
    for (int i = 0; i < kLoadsB; ++i) Bs[buf][kB + 4 * i][cB] = b[i];
  };

  float acc[kRows][4] = {};
  load(0);
  store(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += kStep) {
    const bool more = k0 + kStep < K;
    if (more) load(k0 + kStep);  // in flight while this step multiplies
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      float x[kRows];
#pragma unroll
      for (int q = 0; q < kRows / 4; ++q) {
        const float4 x4 = *reinterpret_cast<const float4*>(&As[buf][k][ty * kRows + 4 * q]);
        x[4 * q] = x4.x, x[4 * q + 1] = x4.y, x[4 * q + 2] = x4.z, x[4 * q + 3] = x4.w;
      }
      const float4 y4 = *reinterpret_cast<const float4*>(&Bs[buf][k][tx * 4]);
      const float y[4] = {y4.x, y4.y, y4.z, y4.w};
#pragma unroll
      for (int i = 0; i < kRows; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
    }
    // The other buffer was last read a step ago, before the barrier that ended it.
    if (more) {
      store(buf ^ 1);
      __syncthreads();
      buf ^= 1;
    }
  }

  // C = alpha * AB + beta * C, BLAS's: beta == 0 reads no C. Four columns as one float4 where
  // they are inside C and 16-byte aligned.
  const int col = col0 + tx * 4;
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = row0 + ty * kRows + i;
    if (row >= M) break;
    float* p = C + static_cast<long long>(row) * ldc + col;
    if (col + 3 < N && reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      float4 out =
          make_float4(alpha * acc[i][0], alpha * acc[i][1], alpha * acc[i][2], alpha * acc[i][3]);
      if (beta != 0.f) {
        const float4 c = *reinterpret_cast<const float4*>(p);
        out = make_float4(out.x + beta * c.x, out.y + beta * c.y, out.z + beta * c.z,
                          out.w + beta * c.w);
      }
      *reinterpret_cast<float4*>(p) = out;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (col + j < N) p[j] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * p[j];
    }
  }
}

template <int kRows>
cudaError_t launch_rows(const Gemm& g, const runtime::Batch& batch, int problems,
                        cudaStream_t stream) {
  const dim3 grid((g.N + kTileN - 1) / kTileN, (g.M + 16 * kRows - 1) / (16 * kRows), problems);
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  ffma_batched<kRows><<<grid, kThreads, 0, stream>>>(g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb,
                                                     g.beta, g.C, g.ldc, batch);
  return cudaGetLastError();
}

}  // namespace

// 128 x 64 tiles (8 rows a thread: 32 FFMA for three float4 reads) where a problem has 128 rows
// to give them; 64 x 64 below, so that a 64-row problem wastes none of its tile.
cudaError_t launch_ffma_batched(const Gemm& gemm, const runtime::Batch& batch, int problems,
                                cudaStream_t stream) {
  return gemm.M >= 128 ? launch_rows<8>(gemm, batch, problems, stream)
                       : launch_rows<4>(gemm, batch, problems, stream);
}

}  // namespace sgemm

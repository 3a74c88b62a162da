// The batched calls' CUDA-core kernel: a batch of small problems (64^3, attention's P V) in one
// launch, each block one 64 x 64 tile of one problem (the grid's z), or the same tile of four
// problems of at most 32 x 32, on any GPU.
//
// A batch of small problems fills the GPU with its many tiles; what a tile needs is not rung
// 17's split of K across a cluster (there are enough tiles already) nor a tensor core's 3xTF32
// with its split operands (three products and a pre-pass for a K of 64), but a short, tight loop
// that keeps the FMA pipe busy: rung 8's 8 x 8 register tile a thread (64 FFMA for four float4
// reads of shared memory), fed by rung 9's asynchronous copies, which hold no registers, so
// that eight blocks fit an SM and a batch of 1,024 tiles runs in one wave. Only two steps deep:
// the step multiplied and the next arriving. Where every block of a wave asks for two steps at
// once, each block's first one lands later (the memory serves them all interleaved) and the
// products start later; one step ahead took 1024 x 64^3 from 21.3 to 19.9 us on an H200
// (experiments/batched, eleventh step). A's copies are 4 bytes each, B's 16 where its rows are
// 16-byte aligned: any alignment and leading dimension is read as it lies.
#include <cuda_runtime.h>

#include <cstdint>

#include "ffma_batched.h"  // Gemm, Batch and select_problem (runtime/batch.h)

namespace sgemm {
namespace {

constexpr int kThreads = 64;     // a block
constexpr int kBlocksPerSm = 8;  // registers capped at 128 a thread

// A block's shape for tiles of kTile x kTile: (64 / kTile)^2 problems a block, each tile on a
// grid of kGrid x kGrid threads, 8 x 8 elements a thread. kTile 32 takes problems of at most 32
// x 32 four to a block, where a 64 x 64 tile would leave three quarters of its products unused.
// A step of K is kStep k (a block's step: 1024 floats of A and of B whatever kTile); kStages
// steps in shared memory, one multiplied and one arriving.
template <int kTile>
struct Shape {
  static constexpr int kProblems = (64 / kTile) * (64 / kTile);  // a block's
  static constexpr int kGrid = kTile / 8;                        // a tile's threads a side
  static constexpr int kSub = kGrid * kGrid;                     // a tile's threads
  static constexpr int kStep = 1024 / (kProblems * kTile);
  static constexpr int kStages = 2;
  static constexpr int kPadA = kTile + 4;  // As's rows start 16-byte aligned
  // Floats between two problems' steps in shared memory: a warp holds two problems (kTile 32),
  // and the skew of 16 puts their reads on distinct banks.
  static constexpr int kSkew = kProblems > 1 ? 16 : 0;
  static constexpr int kPlaneA = kStep * kPadA + kSkew;       // one problem's step of A, transposed
  static constexpr int kPlaneB = kStep * kTile + kSkew;       // one problem's step of B
  static constexpr int kRowsApartA = kSub / kStep;            // between a thread's copies of A
  static constexpr int kCopiesA = kTile * kStep / kSub;       // 4-byte copies a thread and step
  static constexpr int kCopiesB4 = kStep * kTile / 4 / kSub;  // 16-byte copies of B
  static constexpr int kCopiesB = kStep * kTile / kSub;       // or 4-byte ones
  static_assert(kSub * kProblems == kThreads, "every thread owns 8 x 8 elements of one tile");
  static_assert(kSub % kStep == 0 && kSub % (kTile / 4) == 0, "copies in whole rows");
  static_assert(kPlaneA % 4 == 0 && kPlaneB % 4 == 0, "every plane 16-byte aligned");
  static_assert(kStages * kProblems * (kPlaneA + kPlaneB) * 4 + 1024 <= 228 * 1024 / kBlocksPerSm,
                "kBlocksPerSm blocks fit an SM's shared memory");
};

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

// Thread (ty, tx) of its tile's grid owns rows ty * 4 .. + 3 and kTile / 2 + ty * 4 .. + 3 of
// the tile, and the same columns of tx: two float4s of a k-row of As or Bs, 128 (kTile 32: 64)
// bytes apart, so that the tx of a warp read contiguous bytes of Bs at once (8 x 8 contiguous
// elements a thread would put two of them on the same banks: ncu counted 2 conflicts an LDS). A
// step of K in shared memory, kStages of them, a plane a problem:
//   As[stage][problem][k][m]: the step's A transposed (kTile x kStep -> kStep x kTile, rows
//                             padded by 4): a thread's 8 rows of one k as two float4s (broadcast)
//   Bs[stage][problem][k][n]: the step's B as it lies, kStep x kTile: 8 columns as two float4s
// kWhole: every tile and every step of K lies wholly inside its problem, and B's rows and C's
// are 16-byte aligned (the launcher checks): the copies then test nothing and the stores are
// float4s without a test. The tests and the zero-filling copies of the general kernel cost it
// 10% at 1024 x 64^3 (experiments/batched, eleventh step).
template <int kTile, bool kWhole>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    ffma_batched(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc, runtime::Batch batch, int problems) {
  using S = Shape<kTile>;
  constexpr int kStep = S::kStep, kStages = S::kStages;
  __shared__ __align__(16) float As[kStages * S::kProblems * S::kPlaneA];
  __shared__ __align__(16) float Bs[kStages * S::kProblems * S::kPlaneB];
  // This thread's problem (of the block's kProblems) and place in its tile's grid. A block's
  // last problems may lie past the batch: they copy zeros (kWhole: problem 0) and store nothing.
  const int p = threadIdx.x / S::kSub, lt = threadIdx.x % S::kSub;
  const long long z = static_cast<long long>(blockIdx.z) * S::kProblems + p;
  const bool active = z < problems;
  const int rows = active ? M : 0, cols = active ? N : 0;  // of C this thread writes
  runtime::select_problem(batch, active ? z : 0, A, B, C);
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tx = lt % S::kGrid, ty = lt / S::kGrid;
  float* const aPlanes = As + p * S::kPlaneA;
  float* const bPlanes = Bs + p * S::kPlaneB;
  auto a_at = [&](int stage, int k, int m) {
    return aPlanes + stage * S::kProblems * S::kPlaneA + k * S::kPadA + m;
  };
  auto b_at = [&](int stage, int k, int n) {
    return bPlanes + stage * S::kProblems * S::kPlaneB + k * kTile + n;
  };

  // A step's copies, each thread's for its own problem: A's row rA + kRowsApartA i, k kA; B's
  // k kB + (kSub / (kTile / 4)) i, columns c4 .. c4 + 3, where B's rows are 16-byte aligned,
  // else element lt + kSub i of the step's kStep x kTile. Zero outside the problem, where a copy
  // reads nothing (its address is then never dereferenced). A step wholly inside the problem
  // (most of them) copies without a test.
  const int kA = lt % kStep, rA = lt / kStep;
  const float* aFrom = A + static_cast<long long>(row0 + rA) * lda + kA;
  unsigned rowsInside = 0;  // bit i: row rA + kRowsApartA i of the tile is inside A
#pragma unroll
  for (int i = 0; i < S::kCopiesA; ++i)
    rowsInside |= static_cast<unsigned>(row0 + rA + S::kRowsApartA * i < rows) << i;
  const long long rowsApartA = static_cast<long long>(S::kRowsApartA) * lda;
  constexpr int kRowsApartB = S::kSub / (kTile / 4);
  const long long rowsApartB = static_cast<long long>(kRowsApartB) * ldb;
  const bool bVectors = kWhole || (reinterpret_cast<std::uintptr_t>(B) % 16 == 0 && ldb % 4 == 0);
  const int kB = lt / (kTile / 4), c4 = lt % (kTile / 4) * 4;
  const float* bFrom = bVectors ? B + static_cast<long long>(kB) * ldb + col0 + c4 : B + col0;
  const int bBytes = 4 * min(max(cols - col0 - c4, 0), 4);  // of a float4 of B, inside
  const bool tileInside = row0 + kTile <= rows && col0 + kTile <= cols;
  const auto copy_step_as = [&](int stage, int k0, bool all) {  // all: no element outside
    const bool kInside = k0 + kA < K;
    const float* a = aFrom + k0;
#pragma unroll
    for (int i = 0; i < S::kCopiesA; ++i, a += rowsApartA)
      copy4(a_at(stage, kA, rA + S::kRowsApartA * i), a,
            all || (kInside && (rowsInside >> i & 1u)));
    const float* b = bFrom + static_cast<long long>(k0) * ldb;
    if (bVectors) {
#pragma unroll
      for (int i = 0; i < S::kCopiesB4; ++i, b += rowsApartB)
        copy16(b_at(stage, kB + kRowsApartB * i, c4), b,
               all || k0 + kB + kRowsApartB * i < K ? (all ? 16 : bBytes) : 0);
    } else {
#pragma unroll
      for (int i = 0; i < S::kCopiesB; ++i) {
        const int e = lt + S::kSub * i, k = e / kTile, n = e % kTile;
        copy4(b_at(stage, k, n), b + static_cast<long long>(k) * ldb + n,
              all || (col0 + n < cols && k0 + k < K));
      }
    }
  };
  const auto copy_step = [&](int stage, int k0) {
    if (kWhole || (tileInside && k0 + kStep <= K))
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
  constexpr int kHalf = kTile / 2;
  float acc[8][8] = {};
  for (int t = 0; t < steps; ++t) {
    wait_pending<kStages - 2>();  // this thread's copies of step t have landed
    __syncthreads();              // everyone's have; and step t - 1 is multiplied, its stage free
    if (t + kStages - 1 < steps) copy_step((t + kStages - 1) % kStages, (t + kStages - 1) * kStep);
    commit();
    const int stage = t % kStages;
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      const float4 x0 = *reinterpret_cast<const float4*>(a_at(stage, k, ty * 4));
      const float4 x1 = *reinterpret_cast<const float4*>(a_at(stage, k, kHalf + ty * 4));
      const float4 y0 = *reinterpret_cast<const float4*>(b_at(stage, k, tx * 4));
      const float4 y1 = *reinterpret_cast<const float4*>(b_at(stage, k, kHalf + tx * 4));
      const float x[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
      const float y[8] = {y0.x, y0.y, y0.z, y0.w, y1.x, y1.y, y1.z, y1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);  // k in order
    }
  }

  // C = alpha * AB + beta * C, BLAS's: beta == 0 reads no C. Four columns as one float4 where
  // they are inside C and 16-byte aligned (kWhole: all of them).
  if constexpr (kWhole) {
    if (!active) return;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = row0 + ty * 4 + i % 4 + kHalf * (i / 4);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float4* c = reinterpret_cast<float4*>(C + static_cast<long long>(row) * ldc + col0 +
                                              tx * 4 + kHalf * h);
        const float* v = &acc[i][4 * h];
        float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
        if (beta != 0.f) {
          const float4 old = *c;
          out = make_float4(out.x + beta * old.x, out.y + beta * old.y, out.z + beta * old.z,
                            out.w + beta * old.w);
        }
        *c = out;
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = row0 + ty * 4 + i % 4 + kHalf * (i / 4);
      if (row >= rows) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = col0 + tx * 4 + kHalf * h;
        float* c = C + static_cast<long long>(row) * ldc + col;
        const float* v = &acc[i][4 * h];
        if (col + 3 < cols && reinterpret_cast<std::uintptr_t>(c) % 16 == 0) {
          float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
          if (beta != 0.f) {
            const float4 old = *reinterpret_cast<const float4*>(c);
            out = make_float4(out.x + beta * old.x, out.y + beta * old.y, out.z + beta * old.z,
                              out.w + beta * old.w);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (col + j < cols) c[j] = beta == 0.f ? alpha * v[j] : alpha * v[j] + beta * c[j];
        }
      }
    }
  }
}

template <int kTile>
cudaError_t launch_tiles(const Gemm& g, const runtime::Batch& batch, int problems,
                         cudaStream_t stream) {
  constexpr int kProblems = Shape<kTile>::kProblems;
  const dim3 grid((g.N + kTile - 1) / kTile, (g.M + kTile - 1) / kTile,
                  (problems + kProblems - 1) / kProblems);
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  // Whole tiles and steps, B's rows and C's 16-byte aligned in every problem: the strided form
  // (the pointer arrays live on the device), with strides of whole 16 bytes.
  const auto aligned = [](const float* p, long long ld, long long stride) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0 && stride % 4 == 0;
  };
  const bool whole = !batch.A && !batch.B && !batch.C && g.M % kTile == 0 && g.N % kTile == 0 &&
                     g.K % Shape<kTile>::kStep == 0 && aligned(g.B, g.ldb, batch.strideB) &&
                     aligned(g.C, g.ldc, batch.strideC);
  const auto kernel = whole ? ffma_batched<kTile, true> : ffma_batched<kTile, false>;
  kernel<<<grid, kThreads, 0, stream>>>(g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C,
                                        g.ldc, batch, problems);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_ffma_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                                cudaStream_t stream) {
  return g.M <= 32 && g.N <= 32 ? launch_tiles<32>(g, batch, problems, stream)
                                : launch_tiles<64>(g, batch, problems, stream);
}

}  // namespace sgemm

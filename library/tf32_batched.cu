// The batched calls' tensor-core kernel for small problems (64^3 and the like): 3xTF32 on
// mma.sync, FP32's accuracy, any GPU from compute capability 8.0.
//
// A batch of 1,024 problems of 64^3 moves 48 MiB and multiplies 0.27 G multiply-adds. On the
// FFMA tiles (ffma_batched.cu) the multiply-adds take as long as the bytes, and a block waits for
// its operands, multiplies, then stores: the phases add up. Here three TF32 products a step do
// the arithmetic in a fraction of the time, and a block walks its tile through several problems
// (blockIdx.z, + gridDim.z, ...) with its copies running ahead across their boundaries: the next
// problem's operands arrive while this one multiplies and stores.
//
// Rung 13's split, small products first into a fresh partial sum each 8 k that FADD adds to the
// accumulator. What the tensor cores cannot answer as FP32 does is summed again in FP32 on the
// CUDA cores (the guard path): elements whose sum is not finite (Inf or NaN in their row or
// column, values that round to Inf, products past FLT_MAX) and the rows of A and columns of B
// that hold a nonzero value below 2^-114, whose small part TF32 cannot hold.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "runtime/device.h"  // multiprocessors
#include "tf32_batched.h"    // Gemm, Batch and select_problem (runtime/batch.h)

namespace sgemm {
namespace {

constexpr int kThreads = 128;         // four warps, 2 x 2, each 32 x 32 of C
constexpr int kTile = 64;             // the block's tile of C: 64 x 64
constexpr int kStep = 16;             // K a stage: two mma steps of 8
constexpr int kStages = 3;            // in shared memory: one split and multiplied, two arriving
constexpr int kChunk = 128;           // k the tensor cores sum before FADD takes over (rung 15's)
constexpr int kBlocksPerSm = 4;       // 128 registers a thread
constexpr int kBlocksPerSmLongK = 3;  // K > kChunk: 168
// Rows of the planes: 16 k and 4 floats of padding, 80 bytes, so that the 8 rows an ldmatrix
// reads at once start on 8 distinct 16-byte chunks of the 128 banks' bytes.
constexpr int kPitch = kStep + 4;
constexpr unsigned kTinyTwice = 2u * 0x06800000u;  // 2 |x| below 2 * 2^-114, as bits

// A stage, both operands K-major, as the m16n8k8 fragments read them:
//   A[m][k]: 64 x 16 of A as it lies, then its hi parts in place
//   B[n][k]: 16 x 64 of B transposed (its 4-byte copies put each element there), then hi parts
struct Stage {
  float A[kTile][kPitch];
  float B[kTile][kPitch];
};
// The block's shared memory: the ring of stages, the lo parts of the stage multiplied, and the
// flags of rows and columns holding a value below 2^-114, by problem parity.
struct Shared {
  Stage ring[kStages];
  Stage lo;
  uint32_t rowTiny[2][kTile], colTiny[2][kTile];
};
static_assert(sizeof(Shared) <= 48 * 1024, "static shared memory");

// 16 bytes, global to shared: the first `bytes` read, the rest zero. 4 bytes likewise.
__device__ __forceinline__ void copy16(float* dst, const float* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void copy4(float* dst, const float* src, bool inside) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(inside ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// x = hi + lo to about 2^-22 |x|, both TF32 with their low 13 bits clear: hi rounded to nearest
// (ties away, cvt.rna's integer form), lo the same of x - hi, which is exact. From 0x1.ffep127
// up hi is Inf, and the sums it reaches take the guard path.
__device__ __forceinline__ void split(float x, float& hi, float& lo) {
  hi = __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
  lo = __uint_as_float((__float_as_uint(x - hi) + 0x1000u) & 0xffffe000u);
}
// The least 2 |x| - 1 seen (zero wraps around to the largest): below kTinyTwice - 1, a nonzero
// value under 2^-114 was seen. Two instructions a value.
__device__ __forceinline__ void see(uint32_t& least, float x) {
  least = min(least, __float_as_uint(x) * 2u - 1u);
}

// Four 8 x 4 matrices of 32-bit values, row r of matrix q at the address lane 8q + r gives:
// lane (g, t) gets element (g, t) of each, m16n8k8's fragment order.
__device__ __forceinline__ void ldmatrix4(uint32_t (&r)[4], const float* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(row))));
}

// d += p q, m16n8k8: lane (g, t) holds p = P(g, t), P(g+8, t), P(g, t+4), P(g+8, t+4);
// q = Q(t, g), Q(t+4, g); d = D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1).
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&p)[4], uint32_t q0,
                                    uint32_t q1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(q0), "r"(q1));
}

// The guard path: C's element (row, col) summed again in plain FP32, k in order.
__device__ float fp32_dot(const float* A, int lda, const float* B, int ldb, int K, int row,
                          int col) {
  float sum = 0.f;
#pragma unroll 1  // rarely run
  for (int k = 0; k < K; ++k)
    sum = fmaf(A[static_cast<long long>(row) * lda + k], B[static_cast<long long>(k) * ldb + col],
               sum);
  return sum;
}

// Warp (wr, wc) owns rows wr .. + 31 and columns wc .. + 31 of the tile: two mma tiles of 16
// rows (mi) by four of 8 columns (ni); part[mi][ni]: their d-fragments, the tensor cores' sums of
// up to kChunk k. kLongK (K > kChunk): FP32 adds the chunks' sums in acc, 64 registers more
// (kBlocksPerSmLongK blocks an SM); otherwise part is the sum.
template <bool kLongK>
__global__ void __launch_bounds__(kThreads, kLongK ? kBlocksPerSmLongK : kBlocksPerSm)
    tf32_batched(int M, int N, int K, float alpha, const float* A0, int lda, const float* B0,
                 int ldb, float beta, float* C0, int ldc, runtime::Batch batch, int problems) {
  __shared__ __align__(16) Shared sh;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int wr = warp / 2 * 32, wc = warp % 2 * 32;  // the warp's first row and column

  // This block's problems, walked as one sequence of K stages.
  const int mine = (problems - static_cast<int>(blockIdx.z) + gridDim.z - 1) / gridDim.z;
  const auto operands = [&](int p, const float*& A, const float*& B, float*& C) {
    A = A0, B = B0, C = C0;
    runtime::select_problem(batch, blockIdx.z + static_cast<long long>(p) * gridDim.z, A, B, C);
  };

  // A stage's copies. A: float4 i = threadIdx.x + 128 j (j = 0, 1) is row i / 4, k 4 (i % 4)
  // (16 bytes where A's rows are 16-byte aligned, else 4 x 4); B: element (k, n) to B[n][k],
  // n = threadIdx.x % 64, k = threadIdx.x / 64 + 2 q (a warp reads 32 consecutive n of a row).
  // Zero outside the problem.
  const auto copy_stage = [&](Stage& s, const float* A, const float* B, int k0) {
    const bool vectorsA = reinterpret_cast<std::uintptr_t>(A) % 16 == 0 && lda % 4 == 0;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int i = threadIdx.x + kThreads * j, r = i / 4, k = i % 4 * 4;
      const int row = row0 + r, ka = k0 + k;
      if (vectorsA) {
        const int bytes = row < M ? 4 * min(max(K - ka, 0), 4) : 0;
        copy16(&s.A[r][k], bytes ? A + static_cast<long long>(row) * lda + ka : A, bytes);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool in = row < M && ka + q < K;
          copy4(&s.A[r][k + q], in ? A + static_cast<long long>(row) * lda + ka + q : A, in);
        }
      }
    }
    const int n = threadIdx.x % kTile, col = col0 + n;
#pragma unroll
    for (int q = 0; q < kStep / 2; ++q) {
      const int k = static_cast<int>(threadIdx.x) / kTile + 2 * q, kb = k0 + k;
      const bool in = col < N && kb < K;
      copy4(&s.B[n][k], in ? B + static_cast<long long>(kb) * ldb + col : B, in);
    }
  };
  int copyP = 0, copyK = 0;  // the next stage to copy: this block's problem copyP, k copyK
  const auto copy_next = [&](int slot) {
    if (copyP < mine) {
      const float *A, *B;
      float* C;
      operands(copyP, A, B, C);
      copy_stage(sh.ring[slot], A, B, copyK);
    }
    commit();  // a group a stage, empty past the last: the count below stays uniform
    copyK += kStep;
    if (copyK >= K) copyK = 0, ++copyP;
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) copy_next(s);
  float part[2][4][4] = {}, acc[2][4][4] = {};  // (acc: kLongK only)
  // This thread splits float4s j = 0, 1 of A and of B: rows (and columns) r4 and r4 + 32, k kq.
  const int r4 = threadIdx.x / 4, kq = threadIdx.x % 4 * 4;
  uint32_t rowLeast[2] = {~0u, ~0u}, colLeast[2] = {~0u, ~0u};
  for (int u = 0, p = 0, k = 0; p < mine; ++u) {
    wait_pending<kStages - 2>();  // this thread's copies of stage u have landed
    __syncthreads();              // everyone's have; and stage u - 1 is multiplied
    copy_next((u + kStages - 1) % kStages);
    Stage& s = sh.ring[u % kStages];

    // Each element split once: hi in place, lo in the lo stage. On the problem's last stage the
    // rows' and columns' flags (a row's four lanes agree first).
    const bool last = k + kStep >= K;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      float4* at[2] = {reinterpret_cast<float4*>(&s.A[r4 + 32 * j][kq]),
                       reinterpret_cast<float4*>(&s.B[r4 + 32 * j][kq])};
      float4* lo[2] = {reinterpret_cast<float4*>(&sh.lo.A[r4 + 32 * j][kq]),
                       reinterpret_cast<float4*>(&sh.lo.B[r4 + 32 * j][kq])};
#pragma unroll
      for (int o = 0; o < 2; ++o) {
        const float4 x = *at[o];
        float4 h, l;
        split(x.x, h.x, l.x), split(x.y, h.y, l.y), split(x.z, h.z, l.z), split(x.w, h.w, l.w);
        uint32_t& least = o == 0 ? rowLeast[j] : colLeast[j];
        see(least, x.x), see(least, x.y), see(least, x.z), see(least, x.w);
        *at[o] = h, *lo[o] = l;
      }
      if (last) {
#pragma unroll
        for (int o = 0; o < 2; ++o) {
          uint32_t& least = o == 0 ? rowLeast[j] : colLeast[j];
          least = min(least, __shfl_xor_sync(~0u, least, 1));
          least = min(least, __shfl_xor_sync(~0u, least, 2));
          (o == 0 ? sh.rowTiny : sh.colTiny)[p % 2][r4 + 32 * j] = least < kTinyTwice - 1u;
          least = ~0u;
        }
      }
    }
    __syncthreads();  // the stage is split

    // Two mma steps of 8 k, each three products, small ones first, into this chunk's sums.
#pragma unroll
    for (int k8 = 0; k8 < kStep; k8 += 8) {
      uint32_t hiA[2][4], loA[2][4];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
        const int r = wr + 16 * mi + lane % 8 + 8 * (lane / 8 % 2), c = k8 + 4 * (lane / 16);
        ldmatrix4(hiA[mi], &s.A[r][c]);
        ldmatrix4(loA[mi], &sh.lo.A[r][c]);
      }
#pragma unroll
      for (int pair = 0; pair < 2; ++pair) {
        // b0, b1 of mma tiles 2 pair and 2 pair + 1
        const int n = wc + 16 * pair + lane % 8 + 8 * (lane / 16), c = k8 + 4 * (lane / 8 % 2);
        uint32_t hiB[4], loB[4];
        ldmatrix4(hiB, &s.B[n][c]);
        ldmatrix4(loB, &sh.lo.B[n][c]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int ni = 2 * pair + h;
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) mma(part[mi][ni], loA[mi], hiB[2 * h], hiB[2 * h + 1]);
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) mma(part[mi][ni], hiA[mi], loB[2 * h], loB[2 * h + 1]);
#pragma unroll
          for (int mi = 0; mi < 2; ++mi) mma(part[mi][ni], hiA[mi], hiB[2 * h], hiB[2 * h + 1]);
        }
      }
    }
    k += kStep;
    if (kLongK && (k % kChunk == 0 || k >= K)) {  // FP32 takes the chunk's sums
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][ni][e] += part[mi][ni][e], part[mi][ni][e] = 0.f;
    }
    if (k < K) continue;
    const auto& sum = kLongK ? acc : part;

    // The problem's last stage: C = alpha * AB + beta * C (BLAS's: beta == 0 reads no C), the
    // guard path where a row or column is flagged or the sum is not finite.
    const float* A;
    const float* B;
    float* C;
    operands(p, A, B, C);
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wr + 16 * mi + g + 8 * h, row = row0 + r;
        if (row >= M) continue;
        const bool rowTiny = sh.rowTiny[p % 2][r];
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
          const int c = wc + 8 * ni + 2 * t, col = col0 + c;
          const float v[2] = {sum[mi][ni][2 * h], sum[mi][ni][2 * h + 1]};
          const bool guard[2] = {rowTiny || sh.colTiny[p % 2][c] || !isfinite(v[0]),
                                 rowTiny || sh.colTiny[p % 2][c + 1] || !isfinite(v[1])};
          float* to = C + static_cast<long long>(row) * ldc + col;
          if (!guard[0] && !guard[1] && col + 1 < N &&
              reinterpret_cast<std::uintptr_t>(to) % 8 == 0) {
            float2 out = make_float2(alpha * v[0], alpha * v[1]);
            if (beta != 0.f) {
              const float2 old = *reinterpret_cast<const float2*>(to);
              out.x += beta * old.x, out.y += beta * old.y;
            }
            *reinterpret_cast<float2*>(to) = out;
            continue;
          }
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            if (col + j >= N) continue;
            const float sum = guard[j] ? fp32_dot(A, lda, B, ldb, K, row, col + j) : v[j];
            to[j] = beta == 0.f ? alpha * sum : alpha * sum + beta * to[j];
          }
        }
      }
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int ni = 0; ni < 4; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f, part[mi][ni][e] = 0.f;
    k = 0, ++p;
  }
}

}  // namespace

cudaError_t launch_tf32_batched(const Gemm& g, const runtime::Batch& batch, int problems,
                                cudaStream_t stream) {
  if (g.K < kMinTf32BatchedK || problems < 1 || problems > runtime::kMaxGridZ)
    return cudaErrorInvalidValue;
  int sms = 0;
  const cudaError_t err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return err;
  const dim3 tiles((g.N + kTile - 1) / kTile, (g.M + kTile - 1) / kTile);
  if (tiles.y > 65535u) return cudaErrorInvalidConfiguration;
  // As many blocks as fit the GPU at once, each walking its tile through problems z, z + gridDim.z.
  const long long perProblem = static_cast<long long>(tiles.x) * tiles.y;
  const long long resident =
      static_cast<long long>(sms) * (g.K > kChunk ? kBlocksPerSmLongK : kBlocksPerSm);
  const int walkers = static_cast<int>(
      std::max(1LL, std::min<long long>(problems, (resident + perProblem - 1) / perProblem)));
  const auto kernel = g.K > kChunk ? tf32_batched<true> : tf32_batched<false>;
  kernel<<<dim3(tiles.x, tiles.y, walkers), kThreads, 0, stream>>>(
      g.M, g.N, g.K, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, batch, problems);
  return cudaGetLastError();
}

}  // namespace sgemm

// Rung 16's slow path, which no rung teaches: the lists of the rows and columns the certificate
// flags (a scan over a block), the gather and scatter between C (or A, B) and the compact
// problem the slow path multiplies, the slow path itself (rung 15 on the gathered rows or
// columns; below rung 15's shortest K, sgemm_ozaki_int8_short), and its launch after the
// reconstruction (queue_slow_path). Rung 16 (kernels/16_ozaki_int8.cu) includes it at its top;
// its code is in namespace sgemm::ozaki.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "ozaki/ozaki_certificate.cuh"  // the prediction, rung 15 on part of C (entries.h)
#include "ozaki/ozaki_statistics.cuh"   // Plan
#include "ozaki/ozaki_workspace.cuh"    // Memory: the slow path's buffers
#include "sgemm/sgemm.h"                // Gemm

namespace sgemm::ozaki {

// ---- The slow path's plumbing: which rows (columns) hold uncertified elements, and copies
// between C (or A, B) and the compact problem the slow path multiplies.

// Block 0 lists the flagged rows in order, block 1 the flagged columns: flags [n] -> list
// [count], plan->flagged[side] = count. Each thread takes a contiguous run of flags; a scan over
// the block's threads gives each run its place. One block a side: n is at most a few million.
constexpr int kListThreads = 1024;
__global__ void __launch_bounds__(kListThreads)
    sgemm_ozaki_int8_list(int M, int N, const int* fails, int* lists, Plan* plan) {
  __shared__ int offsets[kListThreads];
  if (!plan->integer) return;
  const int n = blockIdx.x == 0 ? M : N;
  const int* flags = fails + (blockIdx.x == 0 ? 0 : M);
  int* list = lists + (blockIdx.x == 0 ? 0 : M);
  const int run = (n + kListThreads - 1) / kListThreads;
  const int first = threadIdx.x * run, last = min(n, first + run);
  int mine = 0;
  for (int e = first; e < last; ++e) mine += flags[e] != 0;
  offsets[threadIdx.x] = mine;
  __syncthreads();
  for (int d = 1; d < kListThreads; d *= 2) {  // inclusive scan (Hillis-Steele)
    const int add = threadIdx.x >= d ? offsets[threadIdx.x - d] : 0;
    __syncthreads();
    offsets[threadIdx.x] += add;
    __syncthreads();
  }
  int at = offsets[threadIdx.x] - mine;
  for (int e = first; e < last; ++e)
    if (flags[e]) list[at++] = e;
  if (threadIdx.x == kListThreads - 1) plan->flagged[blockIdx.x] = offsets[threadIdx.x];
}

// Copies the listed rows (byRows) or columns of `matrix` (leading dimension ld) into `compact`
// or back (toCompact false): the first *counted of them, a count read here, on the device. Rows:
// compact is [cap][length]; columns: [length][cap]. Copying in, the lines after the last listed
// one, up to a multiple of 128 (rung 15's tile, at most cap), are zeroed: rung 15's tiles read
// them, and their results are never copied back.
__global__ void sgemm_ozaki_int8_compact(float* matrix, long long ld, float* compact,
                                         const int* list, const int* counted, int cap, int length,
                                         bool byRows, bool toCompact) {
  const int count = *counted;
  const int lines = toCompact ? min(cap, (count + 127) / 128 * 128) : count;
  const size_t total = static_cast<size_t>(lines) * length;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t outer = e / (byRows ? length : lines), inner = e % (byRows ? length : lines);
    const size_t at = byRows ? e : outer * cap + inner;  // in compact
    if ((byRows ? outer : inner) >= static_cast<size_t>(count)) {
      compact[at] = 0.f;  // (copying in only: copying back, lines == count)
      continue;
    }
    float* m = byRows ? matrix + list[outer] * ld + inner : matrix + outer * ld + list[inner];
    if (toCompact)
      compact[at] = *m;
    else
      *m = compact[at];
  }
}

// The slow path where K is below rung 15's shortest (kSlowPathMinK): the elements the plan
// gives it (the flagged rows or columns, or all of C), each a dot product in FP32 on the CUDA
// cores, in the order of k, as rung 15's guard path sums one.
__global__ void sgemm_ozaki_int8_short(int M, int N, int K, float alpha, const float* A,
                                       long long lda, const float* B, long long ldb, float beta,
                                       float* C, long long ldc, const int* fails,
                                       const Plan* plan) {
  const bool whole = plan->latePath[0] > 0, rows = plan->rowsPath[0] > 0;
  const bool columns = plan->columnsPath[1] > 0;
  if (!whole && !rows && !columns) return;
  const long long count = static_cast<long long>(M) * N;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(e / N), j = static_cast<int>(e % N);
    if (!whole && !(rows && fails[i]) && !(columns && fails[M + j])) continue;
    float sum = 0.f;
    for (int k = 0; k < K; ++k) sum = fmaf(A[i * lda + k], B[k * ldb + j], sum);
    float* c = C + i * ldc + j;
    *c = beta == 0.f ? alpha * sum : alpha * sum + beta * *c;  // beta == 0: C is not read
  }
}

// The flagged rows (byRows) or columns of C, computed by rung 15 as one compact GEMM: their rows
// of A (columns of B) and of C gathered, multiplied, C's scattered back. The count is on the
// device (limits: rows, columns, as the Plan holds them); the buffers hold cap lines, and rung 15
// computes only the tiles the count reaches. With a count of 0 every kernel returns at once.
inline cudaError_t slow_path(const Gemm& g, const int* list, const int* limits, int cap,
                             bool byRows, float* buffers, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  float* compactOperand = buffers;
  float* compactC = buffers + static_cast<size_t>(cap) * K;
  const int* counted = limits + (byRows ? 0 : 1);
  const int threads = 256;
  auto copy = [&](float* matrix, long long ld, float* compact, int length, bool in) {
    const size_t total = static_cast<size_t>(cap) * length;
    // (a grid that walks the buffers: with a count of 0 it returns in one wave)
    const unsigned blocks =
        static_cast<unsigned>(std::min<size_t>((total + threads - 1) / threads, 2048));
    sgemm_ozaki_int8_compact<<<blocks, threads, 0, stream>>>(matrix, ld, compact, list, counted,
                                                             cap, length, byRows, in);
    return cudaGetLastError();
  };
  // Rows: A's rows (K long) and C's (N long). Columns: B's columns (K long) and C's (M long).
  cudaError_t err = byRows ? copy(const_cast<float*>(A), lda, compactOperand, K, true)
                           : copy(const_cast<float*>(B), ldb, compactOperand, K, true);
  if (err == cudaSuccess && beta != 0.f)  // BLAS: with beta == 0, C is not read
    err = copy(C, ldc, compactC, byRows ? N : M, true);
  if (err != cudaSuccess) return err;
  const Gemm compact =
      byRows ? Gemm{cap, N, K, alpha, compactOperand, K, B, ldb, beta, compactC, N}
             : Gemm{M, cap, K, alpha, A, lda, compactOperand, cap, beta, compactC, cap};
  err = every_shape_3xtf32::launch_limited(compact, limits, stream);
  if (err == cudaSuccess) err = copy(C, ldc, compactC, byRows ? N : M, false);
  return err;
}

// ---- The slow path, as the launcher queues it.

// The slow path, after the reconstruction: rung 15 on the flagged rows, on the flagged columns,
// or on the whole problem (at most one has work); below its K (memory.shortK),
// sgemm_ozaki_int8_short.
inline cudaError_t queue_slow_path(const Gemm& g, const Memory& memory, const int* fails,
                                   const int* lists, Plan* plan, cudaStream_t stream) {
  const auto& [M, N, K, alpha, A, lda, B, ldb, beta, C, ldc] = g;
  cudaError_t err;
  if (memory.shortK) {
    const long long elements = static_cast<long long>(M) * N;
    sgemm_ozaki_int8_short<<<static_cast<unsigned>(std::min((elements + 255) / 256, 65535LL)), 256,
                             0, stream>>>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, fails,
                                          plan);
    err = cudaGetLastError();
  } else {
    err =
        slow_path(g, lists, plan->rowsPath, memory.rowsCap, true, memory.rowsBuffers.get(), stream);
    if (err == cudaSuccess)
      err = slow_path(g, lists + M, plan->columnsPath, memory.columnsCap, false,
                      memory.columnsBuffers.get(), stream);
    if (err == cudaSuccess) err = every_shape_3xtf32::launch_limited(g, plan->latePath, stream);
  }
  return err;
}

}  // namespace sgemm::ozaki

// The batched forms (sgemm/sgemm.h: gemm_strided_batched, gemm_batched): `batch` problems of one
// shape at the one call's accuracy, in as few launches as the shape allows.
//
// The rule, per call, on the problems as the rungs see them (row-major N, N: row_major.h), M x N
// x K:
//  1. alpha == 0: C = beta * C for every problem, one launch (A and B are not read).
//  2. One GEMM in disguise (strided form): A's problems contiguous (strideA == M * lda, op N), B
//     shared (strideB == 0), C's contiguous (strideC == M * ldc): the one call, once, on the
//     stacked (batch * M) x N x K problem, which it runs as it would any one problem.
//  3. Large problems (strided form): where one problem's 128 x 128 tiles fill the GPU
//     kOwnCallWaves times (once where rung 15's batch does not run: off Hopper the batch would
//     be the FFMA tiles'), the one call per problem, queued on the stream one after the other.
//     A launch per problem then costs a few microseconds beside a product of a millisecond or
//     more, and each problem gets the one call's full choice (rung 16's Ozaki path at 8192^3).
//  4. Otherwise one launch for the whole batch (per 65535 problems), the kernels finding each
//     problem's operands as kernels/runtime/batch.h says, on the kernel measured fastest on
//     problems of its kind (kernel_for below; each is named in batched_kernels.h): rung 15's
//     batch from 256^3 multiply-adds a problem, its main kernel splitting the larger operand
//     itself (read once, through a tensor map of the whole batch) and the pre-pass the other,
//     in 128 x 64 tiles where C's narrow side is at most 64 (attention's P V); below, the FFMA
//     tiles of ffma_batched.cu; and rung 17's FFMA wherever K < 16, where three TF32 products
//     miss FP32's bound. Operands
//     that are transposed in row-major terms are first copied, transposed, into the workspace,
//     for the whole batch in one launch (once for a shared operand), as gemm() does for one
//     problem.
//     Off Hopper (no sm_90a kernels): the FFMA tiles.
// The pointer-array form always takes 4 (its pointers live on the device, and the host never
// reads them): each kernel reads A[i], B[i], C[i] itself.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "arguments.h"          // check_problem
#include "batched_kernels.h"    // BatchedKernel: the kernels rule 4 chooses among
#include "entries.h"            // the rungs' batched launches
#include "ffma_batched.h"       // the CUDA-core batched kernel
#include "launchers.h"          // Gemm
#include "messages.h"           // say()
#include "row_major.h"          // BLAS's general form as the rungs' own problem
#include "runtime/batch.h"      // Batch
#include "runtime/device.h"     // multiprocessors
#include "runtime/workspace.h"  // the transposed copies

namespace sgemm {
namespace {

using runtime::Batch;

// ---- Helper kernels: each problem is blockIdx.z, its operands as select_problem finds them.

__global__ void scale_c_batched(int M, int N, float beta, float* C, int ldc, Batch batch) {
  const float* unusedA = nullptr;
  const float* unusedB = nullptr;
  runtime::select_problem(batch, unusedA, unusedB, C);
  const long long count = static_cast<long long>(M) * N;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float* c = C + (i / N) * ldc + i % N;
    *c = beta == 0.f ? 0.f : beta * *c;  // beta == 0: C is not read
  }
}

// out + z * outStride = (in of problem z)^T: `in` rows x cols (ld_in), from inArray[z] or in + z *
// inStride; out cols x rows (ld_out). As library/transpose.cu, with the grid's z the problem.
constexpr int kTile = 32, kRowsStep = 8;
__global__ void transpose_batched(const float* in, const float* const* inArray, long long inStride,
                                  int rows, int cols, int ld_in, float* out, long long outStride,
                                  int ld_out) {
  __shared__ float tile[kTile][kTile + 1];
  const long long z = blockIdx.z;
  in = inArray ? inArray[z] : in + z * inStride;
  out += z * outStride;
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  for (int dy = threadIdx.y; dy < kTile; dy += kRowsStep) {
    const int row = row0 + dy, col = col0 + threadIdx.x;
    if (row < rows && col < cols)
      tile[dy][threadIdx.x] = in[static_cast<long long>(row) * ld_in + col];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < kTile; dy += kRowsStep) {
    const int out_row = col0 + dy, out_col = row0 + threadIdx.x;
    if (out_row < cols && out_col < rows)
      out[static_cast<long long>(out_row) * ld_out + out_col] = tile[threadIdx.x][dy];
  }
}

// ---- The host side.

Status fail(Status s, std::string text, std::string* why) {
  if (why) *why = std::move(text);
  return s;
}

Status cuda_failure(cudaError_t err, const char* what, std::string* why) {
  cudaGetLastError();  // reported here, once
  return fail(Status::cuda_error, std::string(what) + ": " + cudaGetErrorString(err), why);
}

// An operand of the batch in row-major terms: problem 0's pointer and a stride, or an array.
struct Operand {
  const float* p;
  const float* const* array;
  long long stride;
};

// The batch as the rungs take it, after row_major_view: the view's Gemm (problem 0's pointers,
// or none for arrays), its ops, and each operand's batch.
struct BatchView {
  RowMajorView view;
  Operand a, b;
  float* c;
  float* const* cArray;
  long long strideC;
};

// What one launch of `n` problems from problem `first` gets: first's pointers, and a Batch.
void slice_of_batch(const BatchView& v, long long first, Gemm* g, Batch* batch) {
  *g = v.view.gemm;
  *batch = Batch{};
  if (v.a.array)
    batch->A = v.a.array + first;
  else
    g->A = v.a.p + first * v.a.stride;
  if (v.b.array)
    batch->B = v.b.array + first;
  else
    g->B = v.b.p + first * v.b.stride;
  if (v.cArray)
    batch->C = v.cArray + first;
  else
    g->C = v.c + first * v.strideC;
  batch->strideA = v.a.array ? 0 : v.a.stride;
  batch->strideB = v.b.array ? 0 : v.b.stride;
  batch->strideC = v.cArray ? 0 : v.strideC;
}

Status scale_batch(const BatchView& v, int batch, cudaStream_t stream, std::string* why) {
  // C as it lies in memory: the view's M x N.
  const Gemm& g = v.view.gemm;
  const long long count = static_cast<long long>(g.M) * g.N;
  const unsigned blocks = static_cast<unsigned>(std::min<long long>((count + 255) / 256, 1024));
  for (long long first = 0; first < batch; first += runtime::kMaxGridZ) {
    const int n = static_cast<int>(std::min<long long>(batch - first, runtime::kMaxGridZ));
    Gemm s;
    Batch b;
    slice_of_batch(v, first, &s, &b);
    scale_c_batched<<<dim3(blocks, 1, n), 256, 0, stream>>>(g.M, g.N, g.beta, s.C, g.ldc, b);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return cuda_failure(err, "C = beta * C failed", why);
  }
  return Status::ok;
}

// Rule 3's bound on Hopper, in waves of tiles a problem. Measured (NVIDIA H200,
// experiments/batched, ninth step), rung 15's batch in one launch against the one call per
// problem: faster by 6-7% at 8 x 2048^3 and 4 x 3072^3 (1.9 and 4.4 waves a problem), slower by
// 3% at 2 x 4096^3 (7.8) and by 19% at 2 x 8192^3 (rung 16 takes those problems alone).
constexpr int kOwnCallWaves = 6;

// Whether rung 15's batch runs here: a Hopper GPU, and a build with its sm_90a code.
bool batches_run_on_tensor_cores() {
#ifdef SGEMM_SM90A_BUILT
  return runtime::require_sm90() == cudaSuccess;
#else
  return false;
#endif
}

// Rule 4's choice: the kernel that ran fastest, of the five, on each measured case of its kind
// (experiments/batched: every kernel on the batched suite and its --choice cases, H200).
BatchedKernel kernel_for(int M, int N, int K) {
  if (K < 16) return BatchedKernel::rung17_ffma;  // three TF32 products would miss FP32's bound
  // From 256^3 multiply-adds a problem: 128 x 256^3, 512^3, Q K^T at 1024 x 1024 x 64, P V at
  // 1024 x 64 x 1024 and 2048 x 128 x 2048 (rung 15's batch where an operand does not allow
  // the map: pointer arrays, strides not of whole 16 bytes).
  if (static_cast<double>(M) * N * K >= 256.0 * 256 * 256) return BatchedKernel::rung15_split_a;
  return BatchedKernel::ffma_tiles;  // 32^3 to 128^3, Q K^T and P V at 256 x 256 x 64
}

cudaError_t run_kernel(BatchedKernel kernel, const Gemm& g, const Batch& b, int n,
                       cudaStream_t stream) {
  cudaError_t err = cudaErrorNoKernelImageForDevice;  // ffma_tiles: straight to its kernel
  if (kernel == BatchedKernel::rung15_batch)
    err = every_shape_3xtf32::launch_batched(g, b, n, stream);
  if (kernel == BatchedKernel::rung15_split_a)
    err = every_shape_3xtf32::launch_batched_split_a(g, b, n, stream);
  if (kernel == BatchedKernel::rung19_tiles) err = cluster_3xtf32::launch_batched(g, b, n, stream);
  if (kernel == BatchedKernel::rung17_ffma) err = cluster_splitk::launch_batched(g, b, n, stream);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    // Not a Hopper, or no sm_90a code in the build: the FFMA tiles run on any GPU.
    if (kernel != BatchedKernel::ffma_tiles) cudaGetLastError();
    err = launch_ffma_batched(g, b, n, stream);
  }
  return err;
}

// Rule 4: one launch per chunk of problems (the grid's z), transposed copies first where needed.
Status run_batch(BatchView v, int batch, BatchedKernel kernel, cudaStream_t stream,
                 std::string* why) {
  const Gemm& g = v.view.gemm;
  const bool copyA = v.view.a == Op::T, copyB = v.view.b == Op::T;
  // A shared operand (stride 0, no array) is copied once for every chunk.
  const bool sharedA = !v.a.array && v.a.stride == 0, sharedB = !v.b.array && v.b.stride == 0;
  const long long floatsA = copyA ? static_cast<long long>(g.M) * padded(g.K) : 0;
  const long long floatsB = copyB ? static_cast<long long>(g.K) * padded(g.N) : 0;
  int chunk = std::min(batch, runtime::kMaxGridZ);
  for (long long first = 0; first < batch;) {
    const int n = static_cast<int>(std::min<long long>(chunk, batch - first));
    const long long perA = copyA ? (sharedA ? 0 : floatsA) : 0;
    const long long perB = copyB ? (sharedB ? 0 : floatsB) : 0;
    const long long total =
        (copyA ? (sharedA ? floatsA : perA * n) : 0) + (copyB ? (sharedB ? floatsB : perB * n) : 0);
    runtime::Workspace<float> copies(static_cast<size_t>(total), stream);
    if (copies.error() == cudaErrorMemoryAllocation && n > 1) {
      chunk = (n + 1) / 2;  // fewer problems a launch, until their copies fit
      continue;
    }
    if (copies.error() != cudaSuccess) {
      if (copies.error() != cudaErrorMemoryAllocation) cudaGetLastError();
      return fail(
          copies.error() == cudaErrorMemoryAllocation ? Status::no_workspace : Status::cuda_error,
          say("the transposed copies of one problem's operands (%lld bytes) do not fit "
              "the workspace (its limit: %lld bytes, sgemm::set_workspace_limit)",
              total * static_cast<long long>(sizeof(float)),
              static_cast<long long>(workspace_limit())),
          why);
    }
    Gemm s;
    Batch b;
    slice_of_batch(v, first, &s, &b);
    float* at = copies.get();
    cudaError_t err = cudaSuccess;
    auto transpose = [&](const float* in, const float* const* array, long long stride, int rows,
                         int cols, int ld, int count, float* out, long long outStride) {
      const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile, count);
      if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
      transpose_batched<<<grid, dim3(kTile, kRowsStep), 0, stream>>>(
          in, array, stride, rows, cols, ld, out, outStride, padded(rows));
      return cudaGetLastError();
    };
    if (copyA) {  // stored K x M: copied M x K
      err = transpose(s.A, b.A, b.strideA, g.K, g.M, g.lda, sharedA ? 1 : n, at, perA);
      s.A = at, s.lda = padded(g.K), b.A = nullptr, b.strideA = perA;
      at += sharedA ? floatsA : perA * n;
    }
    if (err == cudaSuccess && copyB) {  // stored N x K: copied K x N
      err = transpose(s.B, b.B, b.strideB, g.N, g.K, g.ldb, sharedB ? 1 : n, at, perB);
      s.B = at, s.ldb = padded(g.N), b.B = nullptr, b.strideB = perB;
    }
    if (err != cudaSuccess) return cuda_failure(err, "transposing an operand failed", why);
    err = run_kernel(kernel, s, b, n, stream);
    if (err != cudaSuccess) return cuda_failure(err, "the batched kernel's launch failed", why);
    first += n;
  }
  return Status::ok;
}

// The checks every batched call shares: the count, then the first problem as gemm() checks it.
Status check_count(int batch, std::string* why) {
  if (batch < 0)
    return fail(Status::bad_size, say("batch = %lld: the number of problems must be >= 0", batch),
                why);
  return Status::ok;
}

// The view of the batch for the rungs: column-major swaps A and B, their arrays and strides.
BatchView view_of(const Operation& operation, const Gemm& g, Operand a, Operand b, float* const* c,
                  long long strideC) {
  BatchView v{row_major_view(operation, g), a, b, g.C, c, strideC};
  if (operation.layout == Layout::col_major) std::swap(v.a, v.b);
  return v;
}

// Rule 2: the batch is one (batch * M) x N x K problem.
bool stacked(const BatchView& v, int batch) {
  const Gemm& g = v.view.gemm;
  const long long rows = static_cast<long long>(batch) * g.M;
  return v.view.a == Op::N && !v.a.array && !v.b.array && !v.cArray && batch > 1 &&
         v.a.stride == static_cast<long long>(g.M) * g.lda && v.b.stride == 0 &&
         v.strideC == static_cast<long long>(g.M) * g.ldc && rows <= kMaxDimension &&
         (rows + 256) * std::max(g.lda, g.ldc) + 256 <= INT_MAX;
}

}  // namespace

const char* to_string(BatchedKernel kernel) {
  switch (kernel) {
    case BatchedKernel::automatic:
      return "automatic";
    case BatchedKernel::rung15_batch:
      return "rung15_batch";
    case BatchedKernel::rung15_split_a:
      return "rung15_split_a";
    case BatchedKernel::rung19_tiles:
      return "rung19_tiles";
    case BatchedKernel::rung17_ffma:
      return "rung17_ffma";
    case BatchedKernel::ffma_tiles:
      return "ffma_tiles";
  }
  return "?";
}

bool batched_kernel_named(const std::string& name, BatchedKernel* kernel) {
  for (BatchedKernel k : kBatchedKernels)
    if (name == to_string(k)) {
      *kernel = k;
      return true;
    }
  return false;
}

Status gemm_strided_batched(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha,
                            const float* A, int lda, long long strideA, const float* B, int ldb,
                            long long strideB, float beta, float* C, int ldc, long long strideC,
                            int batch, cudaStream_t stream, std::string* why) {
  return gemm_strided_batched_on(BatchedKernel::automatic, layout, opA, opB, M, N, K, alpha, A, lda,
                                 strideA, B, ldb, strideB, beta, C, ldc, strideC, batch, stream,
                                 why);
}

Status gemm_strided_batched_on(BatchedKernel kernel, Layout layout, Op opA, Op opB, int M, int N,
                               int K, float alpha, const float* A, int lda, long long strideA,
                               const float* B, int ldb, long long strideB, float beta, float* C,
                               int ldc, long long strideC, int batch, cudaStream_t stream,
                               std::string* why) {
  const bool threeTf32 = kernel == BatchedKernel::rung15_batch ||
                         kernel == BatchedKernel::rung15_split_a ||
                         kernel == BatchedKernel::rung19_tiles;
  if (threeTf32 && K < 16)
    return fail(
        Status::bad_size,
        "K = " + std::to_string(K) + ": the 3xTF32 kernel " + to_string(kernel) + " needs K >= 16",
        why);
  Status s = check_count(batch, why);
  if (s != Status::ok || batch == 0) return s;
  const Operation operation{layout, opA, opB};
  const Gemm first{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc};
  s = check_problem(operation, first, stream, why);
  if (s != Status::ok) return s;
  if (batch > 1) {
    // C's problems must not overlap: one C spans (lines - 1) * ldc + length elements.
    const Extent c = stored_extent(layout, Op::N, M, N);
    const long long span = static_cast<long long>(c.lines - 1) * ldc + c.length;
    if (strideC > -span && strideC < span)
      return fail(Status::bad_leading_dim,
                  say("strideC = %lld is smaller than one C's extent, %lld elements: the "
                      "problems' C would overlap",
                      strideC, span) +
                      " (|strideC| >= (" + (layout == Layout::row_major ? "M" : "N") +
                      " - 1) * ldc + " + (layout == Layout::row_major ? "N" : "M") + ")",
                  why);
    const struct {
      const char* name;
      long long stride;
    } strides[] = {{"strideA", strideA}, {"strideB", strideB}, {"strideC", strideC}};
    for (const auto& t : strides)
      if (t.stride > LLONG_MAX / batch || t.stride < -(LLONG_MAX / batch))
        return fail(Status::too_large,
                    std::string(t.name) +
                        say(" = %lld times batch = %lld overflows an offset", t.stride, batch),
                    why);
    const long long last = batch - 1;
    s = check_problem(operation,
                      Gemm{M, N, K, alpha, A + last * strideA, lda, B + last * strideB, ldb, beta,
                           C + last * strideC, ldc},
                      stream, why);
    if (s != Status::ok) {
      if (why) *why = "the last problem (batch - 1): " + *why;
      return s;
    }
  }
  const BatchView v = view_of(operation, first, Operand{A, nullptr, strideA},
                              Operand{B, nullptr, strideB}, nullptr, strideC);
  if (alpha == 0.f) return scale_batch(v, batch, stream, why);  // rule 1
  const Gemm& g = v.view.gemm;
  if (kernel != BatchedKernel::automatic) return run_batch(v, batch, kernel, stream, why);
  if (stacked(v, batch)) {  // rule 2
    Gemm all = g;
    all.M = batch * g.M;
    return launch(one_call_rung(), Operation{Layout::row_major, Op::N, v.view.b}, all, stream, why);
  }
  int sms = 0;
  const cudaError_t err = runtime::multiprocessors(&sms);
  if (err != cudaSuccess) return cuda_failure(err, "cannot count the GPU's multiprocessors", why);
  const long long tiles = static_cast<long long>((g.M + 127) / 128) * ((g.N + 127) / 128);
  const int waves = batches_run_on_tensor_cores() ? kOwnCallWaves : 1;
  if (tiles >= static_cast<long long>(waves) * sms) {  // rule 3
    for (long long i = 0; i < batch; ++i) {
      s = launch(one_call_rung(), operation,
                 Gemm{M, N, K, alpha, A + i * strideA, lda, B + i * strideB, ldb, beta,
                      C + i * strideC, ldc},
                 stream, why);
      if (s != Status::ok) return s;
    }
    return Status::ok;
  }
  return run_batch(v, batch, kernel_for(g.M, g.N, g.K), stream, why);  // rule 4
}

Status gemm_batched(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha,
                    const float* const* A, int lda, const float* const* B, int ldb, float beta,
                    float* const* C, int ldc, int batch, cudaStream_t stream, std::string* why) {
  Status s = check_count(batch, why);
  if (s != Status::ok || batch == 0) return s;
  const Operation operation{layout, opA, opB};
  // The arrays are checked as gemm() checks its matrices (the host reads none of their entries;
  // a kernel does): device memory of this device, aligned.
  const Gemm first{M,
                   N,
                   K,
                   alpha,
                   reinterpret_cast<const float*>(A),
                   lda,
                   reinterpret_cast<const float*>(B),
                   ldb,
                   beta,
                   reinterpret_cast<float*>(const_cast<float**>(C)),
                   ldc};
  s = check_problem(operation, first, stream, why);
  if (s != Status::ok) {  // "A is a null pointer": the array
    if (why && s == Status::bad_pointer && why->size() > 2 && (*why)[1] == ' ' &&
        std::string("ABC").find((*why)[0]) != std::string::npos)
      *why = "the pointer array " + *why;
    return s;
  }
  const struct {
    const char* name;
    const void* p;
  } arrays[] = {{"A", A}, {"B", B}, {"C", C}};
  for (const auto& a : arrays)
    if (reinterpret_cast<std::uintptr_t>(a.p) % alignof(float*) != 0)
      return fail(Status::bad_pointer,
                  std::string("the pointer array ") + a.name + " is not 8-byte aligned", why);
  const BatchView v =
      view_of(operation, first, Operand{nullptr, A, 0}, Operand{nullptr, B, 0}, C, 0);
  if (alpha == 0.f) return scale_batch(v, batch, stream, why);  // rule 1
  const Gemm& g = v.view.gemm;
  return run_batch(v, batch, kernel_for(g.M, g.N, g.K), stream, why);  // rule 4
}

}  // namespace sgemm

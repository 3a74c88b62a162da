// Public API of the SGEMM ladder: list the rungs, launch one on device pointers, or make the
// one call, gemm(), in BLAS's conventions (row- or column-major, op(A) and op(B) in {N, T}).
//
// A rung's problem is row-major and BLAS semantics: C = alpha * A * B + beta * C, where
//   A is M x K with leading dimension lda >= K,
//   B is K x N with ldb >= N,
//   C is M x N with ldc >= N.
// beta == 0 means C is not read (it may hold NaN or garbage); alpha == 0 means A and B are
// not read (C = beta * C even when A or B hold Inf or NaN).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace sgemm {

// What a rung's arithmetic promises, and so which checks it must pass and which cuBLAS it is
// compared with (docs/00_method.md):
//   fp32: FP32 accuracy. The FP32 checks; compared with cuBLAS SGEMM.
//   tf32: inputs rounded to TF32 (10 mantissa bits) on tensor cores, FP32 sums. Checked with
//         TF32's tolerance against cuBLAS in TF32 mode and compared with it.
enum class Precision { fp32, tf32 };

const char* to_string(Precision precision);  // "fp32", "tf32"

// One problem, C = alpha * A * B + beta * C, as a value: what every rung's launcher takes.
struct Gemm {
  int M, N, K;
  float alpha;
  const float* A;
  int lda;
  const float* B;
  int ldb;
  float beta;
  float* C;
  int ldc;
};

// A rung's launcher: queues its kernels for `problem` on `stream` (checked arguments only).
using Launcher = cudaError_t (*)(const Gemm& problem, cudaStream_t stream);

struct RungInfo {
  int number;           // 1, 2, ... (rung 0 is cuBLAS, which is not a kernel of ours)
  const char* name;     // as ladder.inc names it: kernels/NN_name.cu, docs/NN_name.md
  const char* summary;  // what this rung changes from the one it grew from
  Precision precision = Precision::fp32;
  Launcher launch = nullptr;  // sgemm::<name>::launch in kernels/NN_name.cu
};

// Every rung, in ladder order, read from kernels/ladder.inc.
const std::vector<RungInfo>& rungs();

// The rung with this number, or nullptr.
const RungInfo* find_rung(int number);

// Why a rung hands a problem on to another rung, which kernels/fallbacks.inc names.
enum class FallbackReason {
  workspace_short,   // the workspace (below) cannot hold what the rung needs
  shape_unsuitable,  // the rung's kernel cannot take these operands (e.g. TMA cannot read B)
  gpu_unsupported,   // the rung has no kernel for this GPU
};

const char* to_string(FallbackReason reason);  // "workspace_short", as kernels/fallbacks.inc

struct FallbackInfo {
  const RungInfo* rung;     // the rung that cannot run the problem
  FallbackReason reason;    // why
  const RungInfo* instead;  // the rung launch() runs instead, on the same problem and stream
  const char* when;         // the condition, in words
};

// Every fallback, read from kernels/fallbacks.inc: launch() follows them down the chain.
const std::vector<FallbackInfo>& fallbacks();

// The rung that runs when `rung` cannot for `reason`, or nullptr (launch() then reports it).
const RungInfo* fallback_for(const RungInfo& rung, FallbackReason reason);

enum class Status {
  ok = 0,
  unknown_rung,     // no rung with that number
  bad_size,         // M, N or K < 1, or larger than kMaxDimension
  bad_leading_dim,  // lda < K, ldb < N or ldc < N
  bad_pointer,      // null, not 4-byte aligned, not device memory, or another device's
  too_large,        // an element offset would not fit the kernels' 32-bit index math
  unsupported_gpu,  // no kernel for this GPU: sm_90a (Hopper-only) code, or an arch not built
  no_workspace,     // the workspace (below) could not supply what the rung or its fallbacks need
  cuda_error,       // the launch failed; the message says which CUDA error
};

const char* to_string(Status status);

// Largest M, N or K accepted; beyond it the grids of the early rungs overflow.
constexpr int kMaxDimension = 1 << 20;

// Checks the arguments without launching anything. On failure `why` (if given) gets a
// sentence naming the problem, e.g. "lda = 7 is smaller than K = 8".
Status check_arguments(int rung, int M, int N, int K, const float* A, int lda, const float* B,
                       int ldb, const float* C, int ldc, std::string* why = nullptr);

// Checks the arguments, then launches rung `rung` on `stream` (asynchronously), on the current
// device, which A, B, C and the stream must belong to. Never crashes on bad input: returns a
// Status and fills `why`. Safe to call from several host threads at once, on any streams.
Status launch(int rung, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
              int ldb, float beta, float* C, int ldc, cudaStream_t stream = nullptr,
              std::string* why = nullptr);
// The same, for a rung already looked up and a problem as one value.
Status launch(const RungInfo& rung, const Gemm& problem, cudaStream_t stream = nullptr,
              std::string* why = nullptr);

// ---- BLAS's general form: C = alpha * op(A) * op(B) + beta * C, C M x N, op(A) M x K,
// op(B) K x N, each matrix stored in `layout`: row-major (a row's elements adjacent, rows ld
// apart) or column-major (cuBLAS's and Fortran BLAS's: a column's elements adjacent, columns ld
// apart). op(X) is X (Op::N) or its transpose (Op::T). The leading dimensions, as BLAS:
//   row-major:    lda >= (opA == N ? K : M), ldb >= (opB == N ? N : K), ldc >= N
//   column-major: lda >= (opA == N ? M : K), ldb >= (opB == N ? K : N), ldc >= M
// Row-major with N, N is the rungs' own problem (Gemm above), run as it is.
enum class Layout { row_major, col_major };
enum class Op { N, T };
const char* to_string(Layout layout);  // "row", "col"
const char* to_string(Op op);          // "N", "T"

// How a problem's operands are stored and used. The default is the rungs' own: row-major N, N.
struct Operation {
  Layout layout = Layout::row_major;
  Op a = Op::N, b = Op::N;
  bool is_rungs_own() const { return layout == Layout::row_major && a == Op::N && b == Op::N; }
  std::string str() const;  // "row NN", "col TN"
};

// How an operand lies in memory, in row-major terms: `lines` runs of `length` adjacent elements,
// ld apart (ld >= length). For op(X) of rows x cols stored in `layout`: X is rows x cols (N) or
// cols x rows (T), and column-major memory is the row-major view of the transpose. C is op N.
struct Extent {
  int lines, length;
};
constexpr Extent stored_extent(Layout layout, Op op, int rows, int cols) {
  return (op == Op::N) == (layout == Layout::row_major) ? Extent{rows, cols} : Extent{cols, rows};
}

// The same checks as check_arguments above, by BLAS's rules for `operation`: M, N, K are
// those of C = op(A) op(B), lda, ldb, ldc those of the matrices as stored. `why` names the
// argument and the rule, e.g. "lda = 7 is smaller than M = 8 (column-major A with op N is
// M x K: lda >= M)".
Status check_arguments(const Operation& operation, int M, int N, int K, const float* A, int lda,
                       const float* B, int ldb, const float* C, int ldc,
                       std::string* why = nullptr);

// Runs `rung` on a problem in BLAS's general form: `problem` holds M, N, K of C = op(A) op(B)
// and the leading dimensions of the matrices as `operation` stores them. Column-major is the
// row-major problem of C^T = op(B)^T op(A)^T: A and B (and M and N) swap, nothing else changes.
// An operand that is then transposed in row-major terms is copied, transposed, into the
// workspace (a tiled transpose, bandwidth-bound; its leading dimension a multiple of 4 floats)
// and the rung runs on the row-major N, N problem. Status::no_workspace when the workspace
// cannot hold the copies. alpha == 0 reads neither A nor B, whatever the operation.
Status launch(const RungInfo& rung, const Operation& operation, const Gemm& problem,
              cudaStream_t stream = nullptr, std::string* why = nullptr);

// The rung that gemm() runs: the ladder's best FP32-accurate path, rung 18 (best).
const RungInfo& one_call_rung();

// The one call: C = alpha * op(A) * op(B) + beta * C in FP32 accuracy, in BLAS's conventions
// (above), on one_call_rung(). Asynchronous on `stream`; never crashes on bad input: returns a
// Status and fills `why`. include/sgemm/sgemm_cublas.h has it with cublasSgemm's arguments.
Status gemm(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha, const float* A,
            int lda, const float* B, int ldb, float beta, float* C, int ldc,
            cudaStream_t stream = nullptr, std::string* why = nullptr);

// ---- Batched: `batch` problems of one shape in BLAS's conventions (above), on the one call's
// accuracy. Strided: the i-th problem's matrices at A + i strideA, B + i strideB, C + i strideC
// (elements; a stride of 0 shares that operand; C's problems must not overlap), as
// cublasSgemmStridedBatched. Pointer arrays: the i-th at A[i], B[i], C[i], the arrays themselves
// in device memory, as cublasSgemmBatched. batch == 0 does nothing; batch < 0 is bad_size. Small
// and medium problems run as one launch for the whole batch.
Status gemm_strided_batched(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha,
                            const float* A, int lda, long long strideA, const float* B, int ldb,
                            long long strideB, float beta, float* C, int ldc, long long strideC,
                            int batch, cudaStream_t stream = nullptr, std::string* why = nullptr);
Status gemm_batched(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha,
                    const float* const* A, int lda, const float* const* B, int ldb, float beta,
                    float* const* C, int ldc, int batch, cudaStream_t stream = nullptr,
                    std::string* why = nullptr);

// How much the calling thread's calls ask CUDA about their pointers: PointerChecks::cuda (the
// default) each pointer's memory and device, and the stream's device (a few microseconds a
// call); PointerChecks::caller_vouches: the caller vouches that A, B and C are device memory of
// the current device and the stream is that device's (a framework that knows its arrays'
// devices). Sizes, leading dimensions, strides, null and alignment are checked either way.
enum class PointerChecks { cuda, caller_vouches };
void set_pointer_checks(PointerChecks checks);

// The workspace. Rungs 11 and later keep intermediates in device memory (split operands, slices
// of K, packed copies, guard flags), and so does launch() with an operation (transposed copies
// of operands): one stream-ordered pool per device, shared by every thread, that keeps what it
// holds between calls, so that a call no larger than an earlier one allocates nothing. Its limit
// bounds what the library's calls hold at once, per device: a quarter of the device's memory unless
// the environment sets SGEMM_WORKSPACE_LIMIT (bytes, or with a K, M or G suffix) or
// set_workspace_limit does. A launch whose workspace would pass the limit takes a path that needs
// less (each rung's doc says which; fallbacks() lists those that are other rungs), else returns
// no_workspace.
size_t workspace_limit();                // bytes, on the current device
void set_workspace_limit(size_t bytes);  // for every device; 0 restores the default
size_t workspace_held();                 // bytes the current device's pool holds now
// Waits for all work on every device the library has used, then gives back to the device all
// the memory their pools hold. The next launch that needs a workspace allocates again.
Status release_workspace(std::string* why = nullptr);

}  // namespace sgemm

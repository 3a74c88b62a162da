// Public API of the SGEMM ladder: list the rungs, launch one on device pointers.
//
// Row-major storage and BLAS semantics: C = alpha * A * B + beta * C, where
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
  const char* name;     // "naive": kernels/01_naive.cu, docs/01_naive.md
  const char* summary;  // what this rung changes from the one before
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

// "kernels/06_vectorized.cu" style paths, relative to the repository root.
std::string kernel_file(const RungInfo& rung);
std::string doc_file(const RungInfo& rung);

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

// The workspace. Rungs 11 and later keep intermediates in device memory (split operands, slices
// of K, packed copies, guard flags): one stream-ordered pool per device, shared by every
// thread, that keeps what it holds between calls, so that a call no larger than an earlier one
// allocates nothing. Its limit bounds what the library's calls hold at once, per device: a
// quarter of the device's memory unless the environment sets SGEMM_WORKSPACE_LIMIT (bytes, or
// with a K, M or G suffix) or set_workspace_limit does. A launch whose workspace would pass the
// limit takes a path that needs less (each rung's doc says which; fallbacks() lists those that
// are other rungs), else returns no_workspace.
size_t workspace_limit();                // bytes, on the current device
void set_workspace_limit(size_t bytes);  // for every device; 0 restores the default
size_t workspace_held();                 // bytes the current device's pool holds now
// Waits for all work on every device the library has used, then gives back to the device all
// the memory their pools hold. The next launch that needs a workspace allocates again.
Status release_workspace(std::string* why = nullptr);

}  // namespace sgemm

// The library API: argument checks, operations, and launch down the fallback chain (dispatch.h).
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dispatch.h"  // the fallback chain
#include "rung_id.h"   // RungId::best, the one call's rung
#include "runtime.h"   // how a launcher says it cannot run a problem, the workspace
#include "sgemm.h"

namespace sgemm {
namespace {

// The kernels index with 32-bit ints. A tile may compute offsets up to one tile past the
// matrix edge before its bounds check discards them, so leave room for the largest tile.
constexpr long long kLargestTile = 256;

bool offsets_fit(long long rows, long long ld) {
  return (rows + kLargestTile) * ld + kLargestTile <= INT_MAX;
}

std::string say(const char* fmt, long long a, long long b = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b);
  return text;
}

// The device `stream` belongs to: the current device for the default stream, and for a stream
// that is capturing a CUDA graph, which may not be asked (cudaStreamGetDevice fails there,
// "operation not permitted when stream is capturing", and ends the capture); a kernel queued
// into another device's stream is refused at its launch all the same.
cudaError_t stream_device(cudaStream_t stream, int* device) {
#if CUDART_VERSION >= 12080
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (stream != nullptr && (cudaStreamIsCapturing(stream, &capture) != cudaSuccess ||
                            capture == cudaStreamCaptureStatusNone))
    return cudaStreamGetDevice(stream, device);  // (a bad handle: its error, from here)
#endif
  return cudaGetDevice(device);
}

// What can be told of a pointer without asking CUDA: null, or not 4-byte aligned.
Status check_pointer_value(const char* name, const void* p, std::string* why) {
  auto fail = [&](const char* problem) {
    if (why) *why = std::string(name) + " " + problem;
    return Status::bad_pointer;
  };
  if (p == nullptr) return fail("is a null pointer");
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(float) != 0)
    return fail("is not 4-byte aligned");
  return Status::ok;
}

// What CUDA says of it: device memory of `device` (or memory it can read).
Status check_pointer_memory(const char* name, const void* p, int device, std::string* why) {
  auto fail = [&](const char* problem) {
    if (why) *why = std::string(name) + " " + problem;
    return Status::bad_pointer;
  };
  cudaPointerAttributes attributes{};
  cudaError_t err = cudaSuccess;
  {
    runtime::RelaxedCapture relaxed;  // a query, never part of a captured graph (runtime.h)
    err = cudaPointerGetAttributes(&attributes, p);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: this failure is reported through Status, not later calls
    if (why) *why = std::string("cannot query ") + name + ": " + cudaGetErrorString(err);
    return err == cudaErrorInvalidValue ? Status::bad_pointer : Status::cuda_error;
  }
  if (attributes.type == cudaMemoryTypeUnregistered)
    return fail("is host memory the GPU cannot read (use cudaMalloc)");
  // Device memory of another GPU would fault inside the kernel (and poison the context).
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != device) {
    if (why)
      *why = std::string(name) + " is memory of device " + std::to_string(attributes.device) +
             ", but the launch runs on device " + std::to_string(device) +
             " (cudaSetDevice, and a stream of that device)";
    return Status::bad_pointer;
  }
  return Status::ok;
}

// BLAS with alpha == 0: C = beta * C, and A and B are not read, so Inf or NaN there cannot
// reach C through 0 * Inf. With beta == 0 too, C is set to zero without being read. Every
// rung gets this from launch(), before its own kernel would multiply alpha into a sum.
__global__ void scale_c(int M, int N, float beta, float* C, int ldc) {
  const long long count = static_cast<long long>(M) * N;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float* c = C + (i / N) * ldc + i % N;
    *c = beta == 0.f ? 0.f : beta * *c;
  }
}

cudaError_t launch_scale_c(int M, int N, float beta, float* C, int ldc, cudaStream_t stream) {
  const long long blocks = (static_cast<long long>(M) * N + 255) / 256;
  scale_c<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(M, N, beta, C,
                                                                                    ldc);
  return cudaGetLastError();
}

// The current device's compute capability, "8.0" (the runtime's, looked up once), or "unknown".
std::string compute_capability() {
  int version = 0;
  if (runtime::compute_capability(&version) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

}  // namespace

const char* to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::unknown_rung:
      return "unknown rung";
    case Status::bad_size:
      return "bad size";
    case Status::bad_leading_dim:
      return "bad leading dimension";
    case Status::bad_pointer:
      return "bad pointer";
    case Status::too_large:
      return "problem too large";
    case Status::unsupported_gpu:
      return "unsupported GPU";
    case Status::no_workspace:
      return "no workspace";
    case Status::cuda_error:
      return "CUDA error";
  }
  return "unknown status";
}

namespace {

Status unknown_rung(int rung, std::string* why) {
  if (why) *why = say("there is no rung %lld (rungs are 1 to %lld)", rung, rungs().back().number);
  return Status::unknown_rung;
}

// A transposed copy's leading dimension: a multiple of 4 floats, so that its rows start on
// 16-byte boundaries as TMA requires.
int padded(int n) { return (n + 3) / 4 * 4; }

// A problem in BLAS's general form seen as row-major: column-major C = op(A) op(B) is row-major
// C^T = op(B)^T op(A)^T, so A and B swap, and M and N, and nothing else changes. `a` and `b` are
// then the ops of gemm.A and gemm.B: T means that operand must be copied transposed before a
// rung can take it.
struct RowMajorView {
  Gemm gemm;
  Op a, b;
};

RowMajorView row_major_view(const Operation& operation, const Gemm& g) {
  if (operation.layout == Layout::row_major) return {g, operation.a, operation.b};
  return {Gemm{g.N, g.M, g.K, g.alpha, g.B, g.ldb, g.A, g.lda, g.beta, g.C, g.ldc}, operation.b,
          operation.a};
}

// One leading dimension and what it must cover: matrix 'A', 'B' or 'C' used with `op`, stored
// as `extent` (runs of extent.length elements, BLAS's rule for the operation: sgemm.h).
struct LeadingDimension {
  const char* ld_name;
  int ld;
  char matrix;
  Op op;
  Extent extent;
};

// "lda = 7 is smaller than K = 8", with the rule in words unless the operation is the rungs'
// own: " (column-major A with op N is M x K: lda >= M)".
std::string leading_dimension_error(const Operation& operation, const LeadingDimension& d) {
  // The size the run's length is: the named one of M, N, K with that value, in BLAS's terms.
  const auto size_name = [](char matrix, bool rows_of_op) {
    // op(A) is M x K, op(B) K x N, C M x N.
    if (matrix == 'A') return rows_of_op ? "M" : "K";
    if (matrix == 'B') return rows_of_op ? "K" : "N";
    return rows_of_op ? "M" : "N";
  };
  // Which dimension of op(X) runs along memory: its columns where op(X) lies row by row (X
  // row-major with N, or column-major with T), its rows otherwise.
  const bool along_rows_of_op = (d.op == Op::N) != (operation.layout == Layout::row_major);
  const char* size = size_name(d.matrix, along_rows_of_op);
  std::string text = std::string(d.ld_name) + say(" = %lld is smaller than ", d.ld) + size +
                     say(" = %lld", d.extent.length);
  if (operation.is_rungs_own()) return text;
  const char* rows = size_name(d.matrix, true);
  const char* cols = size_name(d.matrix, false);
  const bool transposed = d.op == Op::T;
  text += std::string(" (") +
          (operation.layout == Layout::row_major ? "row-major " : "column-major ") + d.matrix +
          " with op " + to_string(d.op) + " is " + (transposed ? cols : rows) + " x " +
          (transposed ? rows : cols) + ": " + d.ld_name + " >= " + size + ")";
  return text;
}

// The problem's sizes, leading dimensions and pointers, the pointers checked against the device
// of `stream`, which must be the current device too (a kernel launched into another device's
// stream fails). M, N, K are those of C = op(A) op(B); the leading dimensions follow BLAS's
// rules for `operation` (sgemm.h).
Status check_problem(const Operation& operation, const Gemm& g, cudaStream_t stream,
                     std::string* why) {
  auto fail = [&](Status s, std::string text) {
    if (why) *why = std::move(text);
    return s;
  };
  const struct {
    const char* name;
    int value;
  } dims[] = {{"M", g.M}, {"N", g.N}, {"K", g.K}};
  for (const auto& d : dims) {
    if (d.value < 1)
      return fail(Status::bad_size,
                  std::string(d.name) + say(" = %lld: sizes must be >= 1", d.value));
    if (d.value > kMaxDimension)
      return fail(Status::bad_size,
                  std::string(d.name) +
                      say(" = %lld is larger than the limit %lld", d.value, kMaxDimension));
  }
  const Layout layout = operation.layout;
  const LeadingDimension lds[] = {
      {"lda", g.lda, 'A', operation.a, stored_extent(layout, operation.a, g.M, g.K)},
      {"ldb", g.ldb, 'B', operation.b, stored_extent(layout, operation.b, g.K, g.N)},
      {"ldc", g.ldc, 'C', Op::N, stored_extent(layout, Op::N, g.M, g.N)}};
  for (const LeadingDimension& d : lds)
    if (d.ld < d.extent.length)
      return fail(Status::bad_leading_dim, leading_dimension_error(operation, d));
  for (const LeadingDimension& d : lds)
    if (!offsets_fit(d.extent.lines, d.ld))
      return fail(Status::too_large,
                  "a matrix spans more than 2^31 elements; the kernels index with 32-bit ints");
  const RowMajorView view = row_major_view(operation, g);
  const Gemm& v = view.gemm;
  if ((view.a == Op::T && !offsets_fit(v.M, padded(v.K))) ||
      (view.b == Op::T && !offsets_fit(v.K, padded(v.N))))
    return fail(Status::too_large,
                "the transposed copy of an operand would span more than 2^31 elements; the "
                "kernels index with 32-bit ints");
  const struct {
    const char* name;
    const void* p;
  } pointers[] = {{"A", g.A}, {"B", g.B}, {"C", g.C}};
  for (const auto& p : pointers) {
    Status s = check_pointer_value(p.name, p.p, why);
    if (s != Status::ok) return s;
  }
  int current = 0, device = 0;
  cudaError_t err = cudaGetDevice(&current);
  if (err == cudaSuccess) err = stream_device(stream, &device);
  if (err != cudaSuccess) {
    cudaGetLastError();  // reported here, not by a later call
    return fail(err == cudaErrorInvalidResourceHandle ? Status::bad_pointer : Status::cuda_error,
                std::string("cannot tell the stream's device: ") + cudaGetErrorString(err));
  }
  if (device != current)
    return fail(Status::bad_pointer,
                say("the stream belongs to device %lld but device %lld is current "
                    "(cudaSetDevice to the stream's device first)",
                    device, current));
  for (const auto& p : pointers) {
    Status s = check_pointer_memory(p.name, p.p, device, why);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

// "rung 14", or "rung 14 (and its fallback chain down to rung 13)" when the chain went on.
std::string chain_name(const RungInfo& first, const RungInfo& last) {
  std::string text = say("rung %lld", first.number);
  if (&last != &first) text += say(" (and its fallback chain down to rung %lld)", last.number);
  return text;
}

// The Status of a rung's answer, and its sentence.
Status status_of(const runtime::LaunchAnswer& answer, const RungInfo& first, const RungInfo& last,
                 std::string* why) {
  auto fail = [&](Status s, std::string text) {
    if (why) *why = std::move(text);
    return s;
  };
  if (answer.reason() == FallbackReason::shape_unsuitable)  // no row in kernels/fallbacks.inc
    return fail(Status::cuda_error,
                say("rung %lld cannot take these operands, and kernels/fallbacks.inc names no "
                    "rung to run instead",
                    last.number));
  switch (answer.error()) {
    case cudaSuccess:
      return Status::ok;
    case cudaErrorNoKernelImageForDevice: {  // sm_90a code off Hopper, or an architecture not built
      // The flag that adds this GPU's code to a build: its compute capability without the dot.
      const std::string capability = compute_capability();  // "8.6"
      std::string arch = capability == "unknown" ? "native" : capability;
      if (const size_t dot = arch.find('.'); dot != std::string::npos) arch.erase(dot, 1);
      const std::string flag = "configure with -DCMAKE_CUDA_ARCHITECTURES=" + arch + " to add it";
      const std::string text =
          say("rung %lld has no kernel for this GPU (compute capability ", last.number) +
          capability +
          (capability == "9.0" ? "): the build left out sm_90a code (" + flag + ")"
                               : "): the build left out this architecture (" + flag +
                                     "), or the rung is Hopper-only (sm_90a) code");
      return fail(Status::unsupported_gpu, text);
    }
    case cudaErrorMemoryAllocation:  // the workspace's: it left no error pending
      return fail(Status::no_workspace,
                  chain_name(first, last) +
                      say(" needs more workspace than the limit (%lld bytes) or the device can "
                          "supply (sgemm::set_workspace_limit)",
                          static_cast<long long>(workspace_limit())));
    default:
      cudaGetLastError();  // a launch error is reported once, here, and not by the next call
      return fail(Status::cuda_error,
                  std::string("rung launch failed: ") + cudaGetErrorString(answer.error()));
  }
}

}  // namespace

Status check_arguments(int rung, int M, int N, int K, const float* A, int lda, const float* B,
                       int ldb, const float* C, int ldc, std::string* why) {
  if (find_rung(rung) == nullptr) return unknown_rung(rung, why);
  return check_arguments(Operation{}, M, N, K, A, lda, B, ldb, C, ldc, why);
}

Status check_arguments(const Operation& operation, int M, int N, int K, const float* A, int lda,
                       const float* B, int ldb, const float* C, int ldc, std::string* why) {
  // alpha, beta: not checked. C: not written.
  return check_problem(
      operation, Gemm{M, N, K, 1.f, A, lda, B, ldb, 0.f, const_cast<float*>(C), ldc}, nullptr, why);
}

Status launch(const RungInfo& rung, const Gemm& g, cudaStream_t stream, std::string* why) {
  return launch(rung, Operation{}, g, stream, why);
}

Status launch(const RungInfo& rung, const Operation& operation, const Gemm& g, cudaStream_t stream,
              std::string* why) {
  Status s = check_problem(operation, g, stream, why);
  if (s != Status::ok) return s;
  // C as it lies in memory: M x N row-major, or the row-major view of its transpose.
  const Extent c = stored_extent(operation.layout, Op::N, g.M, g.N);
  if (g.alpha == 0.f) {  // BLAS: A and B are not read (scale_c above)
    const cudaError_t err = launch_scale_c(c.lines, c.length, g.beta, g.C, g.ldc, stream);
    return status_of(err, rung, rung, why);
  }
  // The rungs take row-major N, N: an operand that is transposed in row-major terms is copied,
  // transposed, into the workspace (one allocation for both), which goes back, stream-ordered,
  // when `copies` goes out of scope, after the rung's kernels are queued.
  const RowMajorView view = row_major_view(operation, g);
  Gemm nn = view.gemm;
  const size_t a_floats = view.a == Op::T ? static_cast<size_t>(nn.M) * padded(nn.K) : 0;
  const size_t b_floats = view.b == Op::T ? static_cast<size_t>(nn.K) * padded(nn.N) : 0;
  runtime::Workspace<float> copies(a_floats + b_floats, stream);
  if (copies.error() != cudaSuccess) {
    // A short workspace leaves no error pending (runtime.h); another failure is reported here.
    if (copies.error() != cudaErrorMemoryAllocation) cudaGetLastError();
    if (why)
      *why = std::string("the transposed copies of the operands (") + operation.str() + ", " +
             std::to_string((a_floats + b_floats) * sizeof(float)) +
             " bytes) do not fit the workspace: " +
             (copies.error() == cudaErrorMemoryAllocation
                  ? say("its limit is %lld bytes (sgemm::set_workspace_limit)",
                        static_cast<long long>(workspace_limit()))
                  : std::string(cudaGetErrorString(copies.error())));
    return copies.error() == cudaErrorMemoryAllocation ? Status::no_workspace : Status::cuda_error;
  }
  float* at = copies.get();
  cudaError_t err = cudaSuccess;
  if (view.a == Op::T) {  // stored K x M: copied M x K
    err = runtime::transpose(nn.A, nn.K, nn.M, nn.lda, at, padded(nn.K), stream);
    nn.A = at, nn.lda = padded(nn.K), at += a_floats;
  }
  if (err == cudaSuccess && view.b == Op::T) {  // stored N x K: copied K x N
    err = runtime::transpose(nn.B, nn.N, nn.K, nn.ldb, at, padded(nn.N), stream);
    nn.B = at, nn.ldb = padded(nn.N);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // reported here, once
    if (why) *why = std::string("transposing an operand failed: ") + cudaGetErrorString(err);
    return Status::cuda_error;
  }
  const RungInfo* last = &rung;
  const runtime::LaunchAnswer answer = runtime::launch_chain(rung, nn, stream, &last, true);
  return status_of(answer, rung, *last, why);
}

Status launch(int rung, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
              int ldb, float beta, float* C, int ldc, cudaStream_t stream, std::string* why) {
  const RungInfo* info = find_rung(rung);
  if (info == nullptr) return unknown_rung(rung, why);
  return launch(*info, Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

// The ladder's best FP32-accurate rung: rung 18, which chooses among the others per problem.
const RungInfo& one_call_rung() { return rung_info(RungId::best); }

Status gemm(Layout layout, Op opA, Op opB, int M, int N, int K, float alpha, const float* A,
            int lda, const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream,
            std::string* why) {
  return launch(one_call_rung(), Operation{layout, opA, opB},
                Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

const char* to_string(Layout layout) { return layout == Layout::col_major ? "col" : "row"; }
const char* to_string(Op op) { return op == Op::T ? "T" : "N"; }

std::string Operation::str() const {
  return std::string(to_string(layout)) + " " + to_string(a) + to_string(b);
}

}  // namespace sgemm

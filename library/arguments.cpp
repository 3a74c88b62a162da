// The argument checks (arguments.h), and the public check_arguments (sgemm/sgemm.h).
#include "arguments.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>

#include "messages.h"        // say()
#include "row_major.h"       // the transposed copies' leading dimensions
#include "runtime/device.h"  // RelaxedCapture

namespace sgemm {
namespace {

thread_local PointerChecks pointer_checks = PointerChecks::cuda;  // set_pointer_checks

// The kernels index with 32-bit ints. A tile may compute offsets up to one tile past the
// matrix edge before its bounds check discards them, so leave room for the largest tile.
constexpr long long kLargestTile = 256;

bool offsets_fit(long long rows, long long ld) {
  return (rows + kLargestTile) * ld + kLargestTile <= INT_MAX;
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

// What CUDA says of it: device memory of `device` (or memory it can read). Call it in the scope
// of a RelaxedCapture (runtime/device.h): the query is never part of a captured graph.
Status check_pointer_memory(const char* name, const void* p, int device, std::string* why) {
  auto fail = [&](const char* problem) {
    if (why) *why = std::string(name) + " " + problem;
    return Status::bad_pointer;
  };
  cudaPointerAttributes attributes{};
  const cudaError_t err = cudaPointerGetAttributes(&attributes, p);
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

}  // namespace

Status unknown_rung(int rung, std::string* why) {
  if (why) *why = say("there is no rung %lld (rungs are 1 to %lld)", rung, rungs().back().number);
  return Status::unknown_rung;
}

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
  // A framework that knows its arrays' devices vouches for the rest (set_pointer_checks): the
  // queries below cost a few microseconds a call, which a 1024^3 product notices.
  if (pointer_checks == PointerChecks::caller_vouches) return Status::ok;
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
  // One relaxed scope for the three queries: two calls a pointer fewer than a scope each.
  const runtime::RelaxedCapture relaxed;
  for (const auto& p : pointers) {
    Status s = check_pointer_memory(p.name, p.p, device, why);
    if (s != Status::ok) return s;
  }
  return Status::ok;
}

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

void set_pointer_checks(PointerChecks checks) { pointer_checks = checks; }

}  // namespace sgemm

// The library API: argument checks, and launch down the fallback chain (registry.cpp).
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime.h"  // how a launcher says it cannot run a problem
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

// The device `stream` belongs to (the current device for the default stream).
cudaError_t stream_device(cudaStream_t stream, int* device) {
#if CUDART_VERSION >= 12080
  if (stream != nullptr) return cudaStreamGetDevice(stream, device);
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
  cudaError_t err = cudaPointerGetAttributes(&attributes, p);
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

// The current device's compute capability, "8.0", or "unknown".
std::string compute_capability() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return std::to_string(major) + "." + std::to_string(minor);
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

// The problem's sizes, leading dimensions and pointers, the pointers checked against the device
// of `stream`, which must be the current device too (a kernel launched into another device's
// stream fails).
Status check_problem(const Gemm& g, cudaStream_t stream, std::string* why) {
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
  if (g.lda < g.K)
    return fail(Status::bad_leading_dim, say("lda = %lld is smaller than K = %lld", g.lda, g.K));
  if (g.ldb < g.N)
    return fail(Status::bad_leading_dim, say("ldb = %lld is smaller than N = %lld", g.ldb, g.N));
  if (g.ldc < g.N)
    return fail(Status::bad_leading_dim, say("ldc = %lld is smaller than N = %lld", g.ldc, g.N));
  if (!offsets_fit(g.M, g.lda) || !offsets_fit(g.K, g.ldb) || !offsets_fit(g.M, g.ldc))
    return fail(Status::too_large,
                "a matrix spans more than 2^31 elements; the kernels index with 32-bit ints");
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

// The fallback reason a launcher's answer gives, if it gives one (runtime.h).
bool reason_of(cudaError_t err, FallbackReason* reason) {
  switch (err) {
    case runtime::kWorkspaceShort:
      return *reason = FallbackReason::workspace_short, true;
    case runtime::kShapeUnsuitable:
      return *reason = FallbackReason::shape_unsuitable, true;
    case runtime::kGpuUnsupported:
      return *reason = FallbackReason::gpu_unsupported, true;
    default:
      return false;
  }
}

// Runs `rung`; where it cannot run the problem, the rung kernels/fallbacks.inc names for the
// reason, and so on down the chain. *last is the rung whose answer is returned.
cudaError_t launch_chain(const RungInfo& rung, const Gemm& g, cudaStream_t stream,
                         const RungInfo** last) {
  for (const RungInfo* r = &rung; r != nullptr;) {
    *last = r;
    const cudaError_t err = r->launch(g, stream);
    FallbackReason reason{};
    r = reason_of(err, &reason) ? fallback_for(*r, reason) : nullptr;
    if (r == nullptr) return err;
  }
  return cudaSuccess;  // not reached
}

}  // namespace

cudaError_t runtime::launch_with_fallbacks(const RungInfo& rung, const Gemm& problem,
                                           cudaStream_t stream) {
  const RungInfo* last = nullptr;
  return launch_chain(rung, problem, stream, &last);
}

namespace {

// "rung 14", or "rung 14 (and its fallback chain down to rung 13)" when the chain went on.
std::string chain_name(const RungInfo& first, const RungInfo& last) {
  std::string text = say("rung %lld", first.number);
  if (&last != &first) text += say(" (and its fallback chain down to rung %lld)", last.number);
  return text;
}

// The Status of a rung's answer, and its sentence.
Status status_of(cudaError_t err, const RungInfo& first, const RungInfo& last, std::string* why) {
  auto fail = [&](Status s, std::string text) {
    if (why) *why = std::move(text);
    return s;
  };
  switch (err) {
    case cudaSuccess:
      return Status::ok;
    case runtime::kGpuUnsupported:  // the sm_90a rungs on a GPU that is not a Hopper
      return fail(Status::unsupported_gpu,
                  say("rung %lld has no kernel for this GPU (compute capability ", last.number) +
                      compute_capability() +
                      "): it is Hopper-only (sm_90a) code, or the build left out this "
                      "architecture");
    case runtime::kWorkspaceShort:  // the runtime left no error pending
      return fail(Status::no_workspace,
                  chain_name(first, last) +
                      say(" needs more workspace than the limit (%lld bytes) or the device can "
                          "supply (sgemm::set_workspace_limit)",
                          static_cast<long long>(workspace_limit())));
    case runtime::kShapeUnsuitable:  // a launcher's refusal with no row in kernels/fallbacks.inc
      return fail(Status::cuda_error,
                  say("rung %lld cannot take these operands, and kernels/fallbacks.inc names no "
                      "rung to run instead",
                      last.number));
    default:
      cudaGetLastError();  // a launch error is reported once, here, and not by the next call
      return fail(Status::cuda_error,
                  std::string("rung launch failed: ") + cudaGetErrorString(err));
  }
}

}  // namespace

Status check_arguments(int rung, int M, int N, int K, const float* A, int lda, const float* B,
                       int ldb, const float* C, int ldc, std::string* why) {
  if (find_rung(rung) == nullptr) return unknown_rung(rung, why);
  // alpha, beta: not checked. C: not written.
  return check_problem(Gemm{M, N, K, 1.f, A, lda, B, ldb, 0.f, const_cast<float*>(C), ldc}, nullptr,
                       why);
}

Status launch(const RungInfo& rung, const Gemm& g, cudaStream_t stream, std::string* why) {
  Status s = check_problem(g, stream, why);
  if (s != Status::ok) return s;
  if (g.alpha == 0.f) {  // BLAS: A and B are not read (scale_c above)
    const cudaError_t err = launch_scale_c(g.M, g.N, g.beta, g.C, g.ldc, stream);
    return status_of(err, rung, rung, why);
  }
  const RungInfo* last = &rung;
  const cudaError_t err = launch_chain(rung, g, stream, &last);
  return status_of(err, rung, *last, why);
}

Status launch(int rung, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
              int ldb, float beta, float* C, int ldc, cudaStream_t stream, std::string* why) {
  const RungInfo* info = find_rung(rung);
  if (info == nullptr) return unknown_rung(rung, why);
  return launch(*info, Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

}  // namespace sgemm

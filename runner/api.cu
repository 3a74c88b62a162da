// The library API: the rung table built from kernels/ladder.inc, argument checks, launch.
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "sgemm.h"

// Each kernel file defines sgemm::<name>::launch, a Launcher.
#define RUNG(number, name, precision, summary)               \
  namespace sgemm::name {                                    \
  cudaError_t launch(const Gemm& gemm, cudaStream_t stream); \
  }
#include "ladder.inc"
#undef RUNG

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

const std::vector<RungInfo>& rungs() {
  static const std::vector<RungInfo> table = {
#define RUNG(number, name, precision, summary) \
  {number, #name, summary, Precision::precision, &sgemm::name::launch},
#include "ladder.inc"
#undef RUNG
  };
  return table;
}

const RungInfo* find_rung(int number) {
  for (const RungInfo& r : rungs())
    if (r.number == number) return &r;
  return nullptr;
}

static std::string numbered(const RungInfo& rung, const char* dir, const char* ext) {
  char text[128];
  std::snprintf(text, sizeof text, "%s/%02d_%s.%s", dir, rung.number, rung.name, ext);
  return text;
}

std::string kernel_file(const RungInfo& rung) { return numbered(rung, "kernels", "cu"); }
std::string doc_file(const RungInfo& rung) { return numbered(rung, "docs", "md"); }

const char* to_string(Precision precision) {
  return precision == Precision::tf32 ? "tf32" : "fp32";
}

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

// check_arguments, with the pointers checked against the device of `stream`, which must be the
// current device too (a kernel launched into another device's stream fails).
Status check_for_stream(int rung, int M, int N, int K, const float* A, int lda, const float* B,
                        int ldb, const float* C, int ldc, cudaStream_t stream, std::string* why) {
  auto fail = [&](Status s, std::string text) {
    if (why) *why = std::move(text);
    return s;
  };
  if (find_rung(rung) == nullptr)
    return fail(Status::unknown_rung,
                say("there is no rung %lld (rungs are 1 to %lld)", rung, rungs().back().number));
  const struct {
    const char* name;
    int value;
  } dims[] = {{"M", M}, {"N", N}, {"K", K}};
  for (const auto& d : dims) {
    if (d.value < 1)
      return fail(Status::bad_size,
                  std::string(d.name) + say(" = %lld: sizes must be >= 1", d.value));
    if (d.value > kMaxDimension)
      return fail(Status::bad_size,
                  std::string(d.name) +
                      say(" = %lld is larger than the limit %lld", d.value, kMaxDimension));
  }
  if (lda < K)
    return fail(Status::bad_leading_dim, say("lda = %lld is smaller than K = %lld", lda, K));
  if (ldb < N)
    return fail(Status::bad_leading_dim, say("ldb = %lld is smaller than N = %lld", ldb, N));
  if (ldc < N)
    return fail(Status::bad_leading_dim, say("ldc = %lld is smaller than N = %lld", ldc, N));
  if (!offsets_fit(M, lda) || !offsets_fit(K, ldb) || !offsets_fit(M, ldc))
    return fail(Status::too_large,
                "a matrix spans more than 2^31 elements; the kernels index with 32-bit ints");
  const struct {
    const char* name;
    const void* p;
  } pointers[] = {{"A", A}, {"B", B}, {"C", C}};
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

}  // namespace

Status check_arguments(int rung, int M, int N, int K, const float* A, int lda, const float* B,
                       int ldb, const float* C, int ldc, std::string* why) {
  return check_for_stream(rung, M, N, K, A, lda, B, ldb, C, ldc, nullptr, why);
}

Status launch(const RungInfo& rung, const Gemm& g, cudaStream_t stream, std::string* why) {
  Status s =
      check_for_stream(rung.number, g.M, g.N, g.K, g.A, g.lda, g.B, g.ldb, g.C, g.ldc, stream, why);
  if (s != Status::ok) return s;
  const cudaError_t err = g.alpha == 0.f ? launch_scale_c(g.M, g.N, g.beta, g.C, g.ldc, stream)
                                         : rung.launch(g, stream);
  if (err == cudaErrorNoKernelImageForDevice) {
    // The sm_90a rungs return it on a GPU that is not a Hopper.
    if (why)
      *why = say("rung %lld has no kernel for this GPU (compute capability ", rung.number) +
             compute_capability() +
             "): it is Hopper-only (sm_90a) code, or the build left out this architecture";
    return Status::unsupported_gpu;
  }
  if (err == cudaErrorMemoryAllocation) {  // the runtime left no error pending
    if (why)
      *why =
          say("rung %lld needs more workspace than the limit (%lld bytes) or the device can "
              "supply, even on its fallback path (sgemm::set_workspace_limit)",
              rung.number, static_cast<long long>(workspace_limit()));
    return Status::no_workspace;
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // a launch error is reported once, here, and not by the next call
    if (why) *why = std::string("rung launch failed: ") + cudaGetErrorString(err);
    return Status::cuda_error;
  }
  return Status::ok;
}

Status launch(int rung, int M, int N, int K, float alpha, const float* A, int lda, const float* B,
              int ldb, float beta, float* C, int ldc, cudaStream_t stream, std::string* why) {
  const RungInfo* info = find_rung(rung);
  if (info == nullptr)  // the same sentence check_arguments gives
    return check_for_stream(rung, M, N, K, A, lda, B, ldb, C, ldc, stream, why);
  return launch(*info, Gemm{M, N, K, alpha, A, lda, B, ldb, beta, C, ldc}, stream, why);
}

}  // namespace sgemm

// The harness's state and the helpers its files share (harness.cu, gpu_check.cu, accuracy.cu,
// timing.cu, cublas_reference.cu, kernel.cu): not for the front doors, which include harness.h.
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <string>
#include <vector>

#include "harness.h"

namespace sgemm {

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)

inline size_t elements(int rows, int ld) { return static_cast<size_t>(rows) * ld; }

// Copies after the work queued on `stream` (the harness's stream does not sync with others).
inline std::vector<float> to_host(const float* device, size_t count, cudaStream_t stream) {
  std::vector<float> host(count);
  CUDA_CHECK(
      cudaMemcpyAsync(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// An FP64 result on the device, rounded once to FP32 on the host.
inline std::vector<float> narrow_to_host(const double* device, size_t count, cudaStream_t stream) {
  std::vector<double> wide(count);
  CUDA_CHECK(
      cudaMemcpyAsync(wide.data(), device, count * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::vector<float>(wide.begin(), wide.end());
}

// Device buffers reused across calls, grown when a larger problem arrives.
struct Slot {
  DeviceBuffer buffer;
  float* get(size_t count) {
    if (buffer.size() < count) {
      buffer = DeviceBuffer();  // free first, so the peak stays one copy
      buffer = DeviceBuffer(count);
    }
    return buffer.get();
  }
};

// The three matrices of a problem in the harness's buffers, each `offset` floats in.
struct Operands {
  float *A, *B, *C;
  size_t na, nb, nc;  // elements, padding included
};

struct Harness::Impl {
  GpuInfo gpu;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::unique_ptr<L2Flusher> flusher;
  Slot a, b, c0, c, expected, abs_a, abs_b, magnitude;
  Slot a64, b64, c64, mag64;  // FP64 for the accuracy measurement (two floats per double)

  Operands operands(const Problem& p) {
    const Shape& s = p.shape;
    Operands o;
    o.na = elements(s.a_stored().lines, s.a_ld());
    o.nb = elements(s.b_stored().lines, s.b_ld());
    o.nc = elements(s.c_stored().lines, s.c_ld());
    o.A = a.get(o.na + p.offset.a) + p.offset.a;
    o.B = b.get(o.nb + p.offset.b) + p.offset.b;
    o.C = c.get(o.nc + p.offset.c) + p.offset.c;
    return o;
  }

  // accuracy.cu: the FP64 product and magnitude of the problem in `in`, for the check's and the
  // accuracy measurement's FP64 rule.
  const double* fp64_product(Harness& h, const Problem& p, const Operands& in, const float* C0);
  const double* fp64_magnitude(Harness& h, const Problem& p, const Operands& in);
};

}  // namespace sgemm

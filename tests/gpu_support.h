// Shared by the GPU tests: a fixture that skips without a GPU (or fails, when the environment
// says SGEMM_REQUIRE_GPU=1), and small device problems with whole-number inputs that the
// tests run and compare by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "check.h"
#include "device.h"
#include "harness.h"

namespace sgemm::testing {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Host data to the device, landed before anything runs after it. cudaMemcpy from pageable memory
// may return while its DMA is still on the way (the runtime's "API synchronization behavior"),
// and the legacy default stream it runs on does not order the cudaStreamNonBlocking streams the
// harness and some tests launch on: a kernel there could read the old contents. (The probable
// cause of rung 6's one failure on an H200, every element wrong: experiments/surfaces/README.md.)
inline void upload(void* device, const void* host, size_t bytes) {
  CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// SGEMM_REQUIRE_GPU=1 (scripts/gpu-session sets it): a GPU test that would skip fails.
inline bool gpu_required() {
  const char* value = std::getenv("SGEMM_REQUIRE_GPU");
  return value && std::string(value) == "1";
}

// Why GPU tests cannot run here ("" when a device is there): names the CUDA error.
inline std::string gpu_unavailable() {
  std::string why;
  return cuda_device_count(&why) == 0 ? why : "";
}

// In a fixture's SetUp: skip the test without a GPU (ctest reports it as skipped, with the
// reason), or fail it with the reason when SGEMM_REQUIRE_GPU=1.
#define SGEMM_SKIP_WITHOUT_GPU()                                                              \
  do {                                                                                        \
    const std::string sgemm_why = ::sgemm::testing::gpu_unavailable();                        \
    if (sgemm_why.empty()) break;                                                             \
    if (::sgemm::testing::gpu_required()) FAIL() << "SGEMM_REQUIRE_GPU=1, but " << sgemm_why; \
    GTEST_SKIP() << sgemm_why;                                                                \
  } while (0)

// Why `rung` cannot run on this GPU ("" when it can): the sentence of Status::unsupported_gpu
// (a Hopper-only rung on another GPU, or a build that left out the GPU's architecture), from
// a 1 x 1 x 1 launch. Without a GPU, why there is none (nothing is allocated).
inline std::string unsupported_reason(int rung) {
  if (const std::string none = gpu_unavailable(); !none.empty()) return none;
  DeviceBuffer one(1);
  fill_value(one.get(), 1, 1.f, nullptr);
  std::string why;
  const Status s =
      launch(rung, 1, 1, 1, 1.f, one.get(), 1, one.get(), 1, 0.f, one.get(), 1, nullptr, &why);
  CUDA_CHECK(cudaDeviceSynchronize());
  return s == Status::unsupported_gpu ? why : "";
}

// In a test about one rung: skip it, with the reason, where the rung has no kernel for this
// GPU. Not a failure, with SGEMM_REQUIRE_GPU=1 as well: the machine is fine, the rung is not
// for it.
#define SGEMM_SKIP_UNSUPPORTED_RUNG(rung)                                             \
  do {                                                                                \
    const std::string sgemm_unsupported = ::sgemm::testing::unsupported_reason(rung); \
    if (!sgemm_unsupported.empty()) GTEST_SKIP() << sgemm_unsupported;                \
  } while (0)

// The last rung of the list that this GPU can run: the tests of the checker and of the API's
// errors use it, whatever GPU they run on. Without a GPU, the first rung (fixtures call this
// before SetUp skips them, so it must not touch the device).
inline int last_supported_rung() {
  for (auto r = rungs().rbegin(); r != rungs().rend(); ++r)
    if (unsupported_reason(r->number).empty()) return r->number;
  return rungs().front().number;
}

// Skips the test without a GPU (see above); else holds a Harness.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SGEMM_SKIP_WITHOUT_GPU();
    harness_ = std::make_unique<Harness>(0);
  }
  void sync() { CUDA_CHECK(cudaStreamSynchronize(harness_->stream())); }

  std::unique_ptr<Harness> harness_;
};

// Tight A (M x K), B (K x N), C and cuBLAS's C (M x N) on the device. The inputs are whole
// numbers, so every rung must match cuBLAS exactly; C and the reference start as NaN.
struct Buffers {
  Problem problem;
  DeviceBuffer A, B, C, reference;
  Buffers(const Problem& p, cudaStream_t stream)
      : problem(p),
        A(size_t(p.shape.M) * p.shape.K),
        B(size_t(p.shape.K) * p.shape.N),
        C(size_t(p.shape.M) * p.shape.N),
        reference(size_t(p.shape.M) * p.shape.N) {
    const Shape& s = p.shape;
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::whole_numbers, 11, 0.f, stream);
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::whole_numbers, 12, 0.f, stream);
    fill_value(C.get(), C.size(), kNaN, stream);
    fill_value(reference.get(), reference.size(), kNaN, stream);
  }
  Gemm gemm() { return gemm_of(problem, A.get(), B.get(), C.get()); }
  Gemm reference_gemm() { return gemm_of(problem, A.get(), B.get(), reference.get()); }
};

inline std::vector<float> to_host(const DeviceBuffer& buffer) {
  std::vector<float> host(buffer.size());
  CUDA_CHECK(
      cudaMemcpy(host.data(), buffer.get(), buffer.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Exact comparison of the buffers' C with cuBLAS's C (call after the stream is synchronized):
// with whole-number inputs, alpha = 1 and beta = 0, cuBLAS's C is the exact sum.
inline Comparison compare_exact(const Buffers& b) {
  const Shape& s = b.problem.shape;
  std::vector<float> got = to_host(b.C), sum = to_host(b.reference);
  Reference reference;
  reference.K = s.K;
  reference.sum = sum.data();
  return compare(reference, s.M, s.N, s.N, got.data(), 0.f);
}

// Random-mode comparison of `got` (M x N, tight) with the cuBLAS of `precision` on the same
// device inputs A and B (tight, alpha = 1, beta = 0): the result must be that product within
// the FP32 (or TF32) tolerance, so a kernel that writes nothing, or garbage, cannot pass.
inline Comparison compare_with_cublas(Harness& harness, const Shape& s, const DeviceBuffer& A,
                                      const DeviceBuffer& B, const std::vector<float>& got,
                                      Precision precision) {
  const Problem p{{s.M, s.N, s.K}};
  DeviceBuffer expected(size_t(s.M) * s.N), absA(A.size()), absB(B.size()),
      magnitude(size_t(s.M) * s.N);
  harness.cublas(precision, gemm_of(p, A.get(), B.get(), expected.get()));
  abs_copy(A.get(), absA.get(), A.size(), harness.stream());
  abs_copy(B.get(), absB.get(), B.size(), harness.stream());
  harness.cublas(Precision::fp32, gemm_of(p, absA.get(), absB.get(), magnitude.get()));
  CUDA_CHECK(cudaStreamSynchronize(harness.stream()));
  const std::vector<float> want = to_host(expected), mag = to_host(magnitude);
  Reference reference;
  reference.mode = CheckMode::random;
  reference.precision = precision;
  reference.K = s.K;
  reference.expected = want.data();
  reference.magnitude = mag.data();
  return compare(reference, s.M, s.N, s.N, got.data(), 0.f);
}

}  // namespace sgemm::testing

// Shared by the GPU tests: a fixture that skips without a GPU, and small device problems
// with whole-number inputs that the tests run and compare by hand.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "check.h"
#include "device.h"
#include "harness.h"

namespace sgemm::testing {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Skips the test (reported as SKIPPED by ctest) when there is no GPU; else holds a Harness.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
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
};

inline std::vector<float> to_host(const DeviceBuffer& buffer) {
  std::vector<float> host(buffer.size());
  CUDA_CHECK(
      cudaMemcpy(host.data(), buffer.get(), buffer.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Exact comparison of the buffers' C with cuBLAS's (call after the stream is synchronized).
inline Comparison compare_exact(const Buffers& b) {
  const Shape& s = b.problem.shape;
  std::vector<float> got = to_host(b.C), expected = to_host(b.reference);
  return compare(CheckMode::exact, s.M, s.N, s.K, s.N, got.data(), expected.data(), nullptr, 0.f);
}

}  // namespace sgemm::testing

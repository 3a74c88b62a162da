// On the GPU: sgemm::launch turns bad pointers into a Status without a crash or a sticky CUDA
// error, and the Harness refuses a missing device or a problem too big for the GPU.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm_c.h"

namespace sgemm::testing {
namespace {

class GpuErrors : public GpuTest {
 protected:
  // After a rejected call no CUDA error may linger, and a valid launch still works.
  void expect_clean_and_working(int rung) {
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    Buffers b({{40, 24, 8}}, harness_->stream());
    const Shape& s = b.problem.shape;
    std::string why;
    EXPECT_EQ(launch(rung, s.M, s.N, s.K, 1.f, b.A.get(), s.K, b.B.get(), s.N, 0.f, b.C.get(), s.N,
                     harness_->stream(), &why),
              Status::ok)
        << why;
    harness_->cublas(Precision::fp32, b.reference_gemm());
    EXPECT_EQ(cudaStreamSynchronize(harness_->stream()), cudaSuccess);
    Comparison c = compare_exact(b);
    EXPECT_TRUE(c.pass) << c.summary();
  }

  const int rung_ = last_supported_rung();
};

TEST_F(GpuErrors, LaunchRejectsHostMemory) {
  for (const RungInfo& rung : rungs()) {
    SCOPED_TRACE(rung.name);
    if (!unsupported_reason(rung.number).empty()) continue;  // RungUnsupported says why
    const int n = 32;
    std::vector<float> host(size_t(n) * n, 1.f);  // malloc'd, not cudaMalloc'd
    DeviceBuffer device(size_t(n) * n);
    std::string why;
    EXPECT_EQ(launch(rung.number, n, n, n, 1.f, host.data(), n, device.get(), n, 0.f, device.get(),
                     n, harness_->stream(), &why),
              Status::bad_pointer);
    EXPECT_NE(why.find("A"), std::string::npos) << why;
    EXPECT_EQ(launch(rung.number, n, n, n, 1.f, device.get(), n, device.get(), n, 0.f, host.data(),
                     n, harness_->stream(), &why),
              Status::bad_pointer);
    EXPECT_NE(why.find("C"), std::string::npos) << why;
    expect_clean_and_working(rung.number);
  }
}

TEST_F(GpuErrors, LaunchRejectsMisalignedAndNullPointers) {
  const int n = 16;
  DeviceBuffer A(n * n + 1), B(n * n + 1), C(n * n + 1);
  const float* misaligned =
      reinterpret_cast<const float*>(reinterpret_cast<const char*>(B.get()) + 1);
  std::string why;
  EXPECT_EQ(launch(rung_, n, n, n, 1.f, A.get(), n, misaligned, n, 0.f, C.get(), n,
                   harness_->stream(), &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("B"), std::string::npos) << why;
  EXPECT_NE(why.find("align"), std::string::npos) << why;
  EXPECT_EQ(launch(rung_, n, n, n, 1.f, A.get(), n, nullptr, n, 0.f, C.get(), n, harness_->stream(),
                   &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("B"), std::string::npos) << why;
  EXPECT_EQ(launch(rung_, n, n, n, 1.f, A.get(), n, B.get(), n, 0.f, nullptr, n, harness_->stream(),
                   &why),
            Status::bad_pointer);
  EXPECT_NE(why.find("C"), std::string::npos) << why;
  expect_clean_and_working(rung_);
}

TEST_F(GpuErrors, ValidLaunchIsOkForEveryRung) {
  for (const RungInfo& rung : rungs()) {
    SCOPED_TRACE(rung.name);
    if (!unsupported_reason(rung.number).empty()) continue;
    expect_clean_and_working(rung.number);
  }
}

// BLAS: with alpha == 0, A and B are not read, so Inf and NaN there must not reach C
// (0 * Inf is NaN). C = beta * C, or 0 when beta == 0 even if C holds NaN. This is the
// library API's rule, not a rung's: sgemm::launch scales C itself and starts no rung (no rung
// handles alpha == 0 on its own), so one rung tests it, against values computed on the host.
TEST_F(GpuErrors, TheApiScalesCItselfWhenAlphaIsZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const int M = 37, N = 45, K = 29;
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c0(size_t(M) * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = i % 2 ? inf : kNaN;
  for (size_t i = 0; i < b.size(); ++i) b[i] = i % 3 ? -inf : kNaN;
  for (size_t i = 0; i < c0.size(); ++i) c0[i] = float(int(i % 7) - 3) * 0.75f;
  DeviceBuffer A(a.size()), B(b.size()), C(c0.size());
  upload(A.get(), a.data(), a.size() * sizeof(float));
  upload(B.get(), b.data(), b.size() * sizeof(float));
  const int rung = rungs().front().number;  // any rung: none of them runs
  for (float beta : {0.f, 1.f, 0.5f, -2.f, 0.3f}) {
    SCOPED_TRACE("beta=" + std::to_string(beta));
    std::vector<float> start = c0;
    if (beta == 0.f) start.assign(start.size(), kNaN);  // not read either
    upload(C.get(), start.data(), start.size() * sizeof(float));
    std::string why;
    ASSERT_EQ(launch(rung, M, N, K, 0.f, A.get(), K, B.get(), N, beta, C.get(), N,
                     harness_->stream(), &why),
              Status::ok)
        << why;
    sync();
    const std::vector<float> got = to_host(C);
    long long wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = beta == 0.f ? 0.f : beta * c0[i];  // one FP32 product, as BLAS
      if (!(got[i] == want)) ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "first: got " << got[0] << ", want "
                        << (beta == 0.f ? 0.f : beta * c0[0]);
  }
}

// The same inputs give the same bits on every run, for every rung: no float atomics whose
// order varies, and split-K slices summed in a fixed order (rung 11 splits these shapes).
// Random real inputs, so that a different summation order would show in the last bits. Each
// run is also compared with cuBLAS, so that a rung that writes nothing cannot pass.
TEST_F(GpuErrors, EveryRungIsBitwiseRepeatable) {
  for (Shape s : {Shape{256, 256, 8192}, Shape{1024, 128, 4096}, Shape{33, 65, 3000}}) {
    DeviceBuffer A(size_t(s.M) * s.K), B(size_t(s.K) * s.N), C(size_t(s.M) * s.N);
    fill_matrix(A.get(), s.M, s.K, s.K, Fill::uniform, 21, 0.f, harness_->stream());
    fill_matrix(B.get(), s.K, s.N, s.N, Fill::uniform, 22, 0.f, harness_->stream());
    for (const RungInfo& rung : rungs()) {
      SCOPED_TRACE(std::string(rung.name) + " " + s.str());
      if (!unsupported_reason(rung.number).empty()) continue;
      std::vector<std::vector<float>> runs;
      for (int run = 0; run < 3; ++run) {
        fill_value(C.get(), C.size(), kNaN, harness_->stream());
        harness_->run(rung.number, gemm_of({s, 1.f, 0.f}, A.get(), B.get(), C.get()));
        sync();
        runs.push_back(to_host(C));
        const Comparison c = compare_with_cublas(*harness_, s, A, B, runs.back(), rung.precision);
        EXPECT_TRUE(c.pass) << "run " << run << ": " << c.summary();
      }
      EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)), 0);
      EXPECT_EQ(std::memcmp(runs[0].data(), runs[2].data(), runs[0].size() * sizeof(float)), 0);
    }
  }
}

TEST_F(GpuErrors, HarnessRunThrowsOnBadArguments) {
  Buffers b({{8, 8, 8}}, harness_->stream());
  Problem bad = b.problem;
  bad.shape.lda = 7;  // smaller than K
  EXPECT_THROW(harness_->run(rung_, gemm_of(bad, b.A.get(), b.B.get(), b.C.get())), Error);
  expect_clean_and_working(rung_);
}

TEST_F(GpuErrors, HarnessRejectsAMissingDevice) {
  const int missing = cuda_device_count();
  try {
    Harness other(missing);
    ADD_FAILURE() << "Harness(" << missing << ") did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(missing)), std::string::npos) << e.what();
  }
  expect_clean_and_working(rung_);
}

TEST_F(GpuErrors, RequireMemoryRejectsAProblemTheGpuCannotHold) {
  const int n = kMaxDimension;  // 4 TiB per matrix
  EXPECT_THROW(harness_->require_memory({{n, n, n}}, true), Error);
  EXPECT_THROW(harness_->check(rung_, {{n, n, n}}, CheckMode::random, 1), Error);
  EXPECT_NO_THROW(harness_->require_memory({{256, 256, 256}}, true));
}

// The C ABI (sgemm_c.h): a call that succeeds clears the thread's sentence of the one that
// failed before it; with the caller vouching for its pointers (no CUDA queries) the one call
// runs and is exact as with the checks.
TEST_F(GpuErrors, CApiSuccessClearsTheLastErrorAndVouchingRuns) {
  Buffers b({{40, 24, 8}}, harness_->stream());
  const Shape& s = b.problem.shape;
  EXPECT_EQ(sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, 0, s.N, s.K, 1.f, b.A.get(), s.K,
                       b.B.get(), s.N, 0.f, b.C.get(), s.N, harness_->stream()),
            SGEMM_STATUS_BAD_SIZE);
  EXPECT_STRNE(sgemm_last_error(), "");
  sgemm_set_pointer_checks(SGEMM_CALLER_VOUCHES);
  const sgemm_status status =
      sgemm_gemm(SGEMM_ROW_MAJOR, SGEMM_OP_N, SGEMM_OP_N, s.M, s.N, s.K, 1.f, b.A.get(), s.K,
                 b.B.get(), s.N, 0.f, b.C.get(), s.N, harness_->stream());
  sgemm_set_pointer_checks(SGEMM_CHECK_POINTERS);
  EXPECT_EQ(status, SGEMM_STATUS_OK) << sgemm_last_error();
  EXPECT_STREQ(sgemm_last_error(), "");
  harness_->cublas(Precision::fp32, b.reference_gemm());
  EXPECT_EQ(cudaStreamSynchronize(harness_->stream()), cudaSuccess);
  Comparison c = compare_exact(b);
  EXPECT_TRUE(c.pass) << c.summary();
}

}  // namespace
}  // namespace sgemm::testing

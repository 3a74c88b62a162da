// Precision classes and accuracy on the GPU: each class's check fails on arithmetic less
// precise than the class promises (an fp32 check rejects TF32, the TF32 check rejects planted
// bugs), and the FP64 error measurement gives the numbers a host computation gives.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpu_support.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

// The first rung of a class, or nullptr: the tests do not assume where the list puts it.
const RungInfo* first_rung(Precision precision) {
  for (const RungInfo& r : rungs())
    if (r.precision == precision) return &r;
  return nullptr;
}

class Precisions : public GpuTest {
 protected:
  CheckReport check(const Kernel& kernel, const Problem& p, CheckMode mode, Precision precision) {
    return harness_->check(kernel, p, mode, 5, "precision", precision);
  }
};

TEST_F(Precisions, EveryRungIsCheckedAgainstTheCublasOfItsClass) {
  for (const RungInfo& r : rungs())
    EXPECT_EQ(reference_for(r.precision).precision, r.precision) << r.name;
  EXPECT_EQ(reference_for(Precision::fp32).number, kCublasRung);
  EXPECT_EQ(reference_for(Precision::tf32).number, kCublasTf32Rung);
}

// What makes passing the FP32 checks mean FP32 accuracy: TF32 arithmetic fails them.
TEST_F(Precisions, TheFp32CheckRejectsTf32Arithmetic) {
  const Problem p{{256, 256, 256}};
  const Kernel cublas_tf32 = harness_->kernel(kCublasTf32Rung);
  EXPECT_FALSE(check(cublas_tf32, p, CheckMode::random, Precision::fp32).pass());
  EXPECT_TRUE(check(cublas_tf32, p, CheckMode::random, Precision::tf32).pass());
  if (const RungInfo* tf32 = first_rung(Precision::tf32)) {
    const Kernel rung = harness_->kernel(tf32->number);
    EXPECT_FALSE(check(rung, p, CheckMode::random, Precision::fp32).pass()) << tf32->name;
    EXPECT_TRUE(check(rung, p, CheckMode::random, Precision::tf32).pass()) << tf32->name;
    // Whole numbers in [-2, 2] are exact in TF32: the exact check holds a tf32 rung too.
    EXPECT_TRUE(check(rung, p, CheckMode::exact, Precision::tf32).pass()) << tf32->name;
  }
}

// The TF32 tolerance is wide (2^-8 of the magnitude) but not blind: planted bugs fail it.
TEST_F(Precisions, TheTf32CheckCatchesPlantedBugs) {
  const RungInfo* tf32 = first_rung(Precision::tf32);
  if (!tf32) GTEST_SKIP() << "the list has no tf32 rung";
  const Kernel real = harness_->kernel(tf32->number);
  auto broken = [&](int dk, float beta_as) -> Kernel {
    return [real, dk, beta_as](const Gemm& g, cudaStream_t s) {
      Gemm call = g;
      call.K -= dk;
      if (call.beta == 0.7f) call.beta = beta_as;
      return real(call, s);
    };
  };
  const Problem p{{64, 64, 65}, 1.f, 0.7f};
  EXPECT_TRUE(check(real, p, CheckMode::random, Precision::tf32).pass());
  for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
    SCOPED_TRACE(to_string(mode));
    EXPECT_FALSE(check(broken(1, 0.7f), p, mode, Precision::tf32).pass()) << "a dropped term";
    EXPECT_FALSE(check(broken(0, 0.5f), p, mode, Precision::tf32).pass()) << "a wrong beta";
  }
}

// error_vs_fp64 against the same numbers computed here, on a small problem.
TEST_F(Precisions, ErrorAgainstFp64MatchesAHostComputation) {
  const int M = 37, N = 29, ldc = 32;
  std::vector<float> got(size_t(M) * ldc, 0.f);
  std::vector<double> exact(size_t(M) * ldc, 0.0);
  double diff2 = 0, ref2 = 0, worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const size_t at = size_t(i) * ldc + j;
      exact[at] = std::ldexp(1.0 + (i * 31 + j) % 17, (i + j) % 9 - 4) * ((i + j) % 2 ? -1 : 1);
      got[at] = float(exact[at] * (1 + 1e-6 * ((i * 7 + j) % 5)));
      const double d = double(got[at]) - exact[at];
      diff2 += d * d;
      ref2 += exact[at] * exact[at];
      worst = std::max(worst, std::fabs(d) / std::fabs(exact[at]));
    }
  got[ldc - 1] = kNaN;  // padding: never read
  DeviceBuffer C(got.size()), C64(2 * exact.size());
  double* c64 = reinterpret_cast<double*>(C64.get());
  upload(C.get(), got.data(), got.size() * 4);
  upload(c64, exact.data(), exact.size() * 8);
  const ErrorVsFp64 e = error_vs_fp64(C.get(), c64, M, N, ldc, harness_->stream());
  EXPECT_NEAR(e.rel_frobenius, std::sqrt(diff2 / ref2), 1e-12);
  EXPECT_NEAR(e.max_rel, worst, 1e-12);
  EXPECT_GT(e.max_rel, 3e-6);

  // NaN in the result shows in both numbers.
  const float nan = kNaN;
  upload(C.get() + 5, &nan, 4);
  const ErrorVsFp64 bad = error_vs_fp64(C.get(), c64, M, N, ldc, harness_->stream());
  EXPECT_TRUE(std::isnan(bad.rel_frobenius));
  EXPECT_TRUE(std::isnan(bad.max_rel));
}

// cuBLAS SGEMM is FP32-accurate, TF32 is not: the measurement must tell them apart, on both
// input distributions of the accuracy report, by the margin the unit roundoffs predict (2^-24
// against 2^-11); cuBLAS SGEMM within FP32's componentwise bound (K units of u at most).
TEST_F(Precisions, AccuracyOrdersTheReferences) {
  for (const Inputs& inputs : accuracy_inputs()) {
    Problem p{{512, 384, 1024}, 1.f, 0.5f};
    p.inputs = inputs;
    SCOPED_TRACE(inputs.name());
    const std::vector<Accuracy> e = harness_->accuracy(
        {harness_->kernel(kCublasRung), harness_->kernel(kCublasTf32Rung)}, p, 3);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_GT(e[0].rel_frobenius, 0);
    EXPECT_LT(e[0].rel_frobenius, 1e-6);
    EXPECT_GT(e[1].rel_frobenius, 1e-5);
    EXPECT_LT(e[1].rel_frobenius, 5e-3);
    EXPECT_GT(e[1].rel_frobenius, 100 * e[0].rel_frobenius);
    EXPECT_GE(e[0].max_rel, e[0].rel_frobenius);
    EXPECT_GT(e[0].max_componentwise, 0);
    EXPECT_LT(e[0].max_componentwise, p.shape.K);
    EXPECT_GT(e[1].max_componentwise, 100 * e[0].max_componentwise);
  }
}

// The full-precision distributions: uniform fills every significand bit (values off the 2^-23
// grid), the grid does not; phi = 4 spans far more octaves than phi = 0.5.
TEST_F(Precisions, DistributionsHaveTheirShape) {
  const int n = 1 << 16;
  DeviceBuffer m(n);
  auto spread = [&](Fill fill, float param, int* offGrid) {
    fill_matrix(m.get(), 1, n, n, fill, 9, 0.f, harness_->stream(), param);
    sync();
    const std::vector<float> host = to_host(m);
    float lo = INFINITY, hi = 0;
    *offGrid = 0;
    for (float x : host) {
      if (x != 0) lo = std::min(lo, std::fabs(x)), hi = std::max(hi, std::fabs(x));
      *offGrid += std::ldexp(x, 23) != std::nearbyint(std::ldexp(x, 23));
    }
    return std::log2(hi / lo);
  };
  int offGrid = 0;
  spread(Fill::uniform, 0, &offGrid);
  EXPECT_GT(offGrid, n / 4) << "full precision: most values below 1/2 are off the grid";
  spread(Fill::grid, 0, &offGrid);
  EXPECT_EQ(offGrid, 0);
  EXPECT_GT(spread(Fill::phi, 4, &offGrid), spread(Fill::phi, 0.5f, &offGrid) + 20);
}

TEST_F(Precisions, WideRangeInputsSpanTwentyOctaves) {
  const int n = 1 << 16;
  DeviceBuffer m(n);
  fill_matrix(m.get(), 1, n, n, Fill::wide_range, 9, 0.f, harness_->stream());
  sync();
  const std::vector<float> host = to_host(m);
  float lo = INFINITY, hi = 0;
  int negative = 0;
  for (float x : host) {
    lo = std::min(lo, std::fabs(x));
    hi = std::max(hi, std::fabs(x));
    negative += x < 0;
  }
  EXPECT_GE(lo, std::ldexp(1.f, -10));
  EXPECT_LT(lo, std::ldexp(1.f, -9));
  EXPECT_LE(hi, std::ldexp(1.f, 10));
  EXPECT_GT(hi, std::ldexp(1.f, 9));
  EXPECT_NEAR(negative, n / 2, n / 20);
}

}  // namespace
}  // namespace sgemm::testing

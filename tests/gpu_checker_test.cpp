// The checker must fail when a result is wrong, on the GPU too: a planted wrong element, an
// unwritten row, and kernels broken on purpose (no writes, a dropped term, a wrong beta, a
// write into C's padding, reading C when beta == 0, reading A and B when alpha == 0) run
// through Harness::check, up to the long K where rounding hides small errors best.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gpu_support.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

class GpuChecker : public GpuTest {
 protected:
  const int rung_ = last_supported_rung();  // the checker does not depend on the rung
};

TEST_F(GpuChecker, CatchesAPlantedWrongElement) {
  Buffers b({{64, 48, 40}}, harness_->stream());
  harness_->run(rung_, b.gemm());
  harness_->cublas(Precision::fp32, b.reference_gemm());
  sync();
  ASSERT_TRUE(compare_exact(b).pass) << "the rung is wrong before anything was planted";

  const int row = 17, col = 5, N = b.problem.shape.N;
  float* element = b.C.get() + size_t(row) * N + col;
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, element, sizeof value, cudaMemcpyDeviceToHost));
  const float wrong = value + 1;  // one doubled or dropped whole-number term
  upload(element, &wrong, sizeof wrong);

  Comparison c = compare_exact(b);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, 1);
  ASSERT_EQ(c.first.size(), 1u);
  EXPECT_EQ(c.first[0].row, row);
  EXPECT_EQ(c.first[0].col, col);
  EXPECT_EQ(c.first[0].got, wrong);
  EXPECT_EQ(c.first[0].expected, value);

  // Random mode too, with the harness's magnitude |A||B|: an error of 1 is far outside it.
  const Shape& s = b.problem.shape;
  DeviceBuffer absA(b.A.size()), absB(b.B.size()), magnitude(b.C.size());
  abs_copy(b.A.get(), absA.get(), b.A.size(), harness_->stream());
  abs_copy(b.B.get(), absB.get(), b.B.size(), harness_->stream());
  harness_->cublas(Precision::fp32, gemm_of(b.problem, absA.get(), absB.get(), magnitude.get()));
  sync();
  std::vector<float> got = to_host(b.C), expected = to_host(b.reference), mag = to_host(magnitude);
  Reference reference;
  reference.mode = CheckMode::random;
  reference.K = s.K;
  reference.expected = expected.data();
  reference.magnitude = mag.data();
  Comparison r = compare(reference, s.M, s.N, s.N, got.data(), 0.f);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_GT(r.max_error_ratio, 1);
}

TEST_F(GpuChecker, CatchesAnUnwrittenRow) {
  Buffers b({{33, 20, 16}}, harness_->stream());
  Problem short_one = b.problem;
  short_one.shape.M -= 1;  // a kernel that misses the last row of C
  harness_->run(rung_, gemm_of(short_one, b.A.get(), b.B.get(), b.C.get()));
  harness_->cublas(Precision::fp32, b.reference_gemm());
  sync();
  Comparison c = compare_exact(b);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, b.problem.shape.N);  // the poison (NaN) is still there
  EXPECT_TRUE(std::isinf(c.max_abs_error));
  ASSERT_FALSE(c.first.empty());
  for (const Mismatch& m : c.first) {
    EXPECT_EQ(m.row, b.problem.shape.M - 1);
    EXPECT_TRUE(std::isnan(m.got));
  }
}

// Harness::check on a kernel broken on purpose, in both modes: it must not pass.
class BrokenKernels : public GpuTest {
 protected:
  CheckReport check(const Kernel& kernel, const Problem& problem, CheckMode mode) {
    return harness_->check(kernel, problem, mode, 7, "broken");
  }
  Kernel rung() { return harness_->kernel(last_supported_rung()); }
  // The last rung, called with its sizes or scalars changed first: a bug planted on purpose.
  Kernel broken(std::function<void(Gemm&)> change) {
    return [real = rung(), change](const Gemm& g, cudaStream_t stream) {
      Gemm call = g;
      change(call);
      return real(call, stream);
    };
  }
  static constexpr CheckMode kModes[] = {CheckMode::exact, CheckMode::random};
};

TEST_F(BrokenKernels, WritesNothing) {
  // Only the harness's NaN poison tells this apart from a kernel that wrote stale zeros.
  const Kernel nothing = [](const Gemm&, cudaStream_t) {};
  for (CheckMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    CheckReport report = check(nothing, {{48, 40, 24}}, mode);
    EXPECT_FALSE(report.pass());
    EXPECT_EQ(report.mode, mode);
    EXPECT_EQ(report.comparison.mismatches, 48 * 40);
    EXPECT_FALSE(report.dump_path.empty()) << "small failures are dumped";
  }
}

TEST_F(BrokenKernels, DropsTheLastTerm) {
  const Kernel short_k = broken([](Gemm& c) { c.K -= 1; });
  for (CheckMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    EXPECT_FALSE(check(short_k, {{64, 64, 65}}, mode).pass());
    EXPECT_FALSE(check(short_k, {{64, 64, 65}, 0.5f, -1.f}, mode).pass());
  }
}

// The bugs that hide best at long K, where the random mode's tolerance (which grows with the
// sum of |A||B|) is wider than one term or a wrong beta: the exact mode must still catch
// them, for a beta that is not a multiple of 1/16, at the bench's large-K shape and beyond.
class LongK : public BrokenKernels, public ::testing::WithParamInterface<Shape> {};

TEST_P(LongK, CatchesAWrongBeta) {
  const Kernel half_beta = broken([](Gemm& c) { c.beta = c.beta == 0.7f ? 0.5f : c.beta; });
  const Problem p{GetParam(), 1.f, 0.7f};
  ASSERT_EQ(plan_checks(ChecksToRun::both, p.alpha, p.beta, p.shape.K).modes.front(),
            CheckMode::exact)
      << "the default check must include the exact mode here";
  const CheckReport report = check(half_beta, p, CheckMode::exact);
  EXPECT_FALSE(report.pass());
  EXPECT_GT(report.comparison.mismatches, p.shape.M * p.shape.N / 2) << report.summary();
  EXPECT_TRUE(check(rung(), p, CheckMode::exact).pass()) << "the real rung must pass";
}

TEST_P(LongK, CatchesADroppedTerm) {
  const Kernel short_k = broken([](Gemm& c) { c.K -= 1; });
  const Problem p{GetParam(), 1.f, 0.7f};
  const CheckReport report = check(short_k, p, CheckMode::exact);
  EXPECT_FALSE(report.pass());
  // The last term is a product of two whole numbers in [-2, 2]: nonzero for 16 in 25.
  EXPECT_GT(report.comparison.mismatches, p.shape.M * p.shape.N / 2) << report.summary();
}

INSTANTIATE_TEST_SUITE_P(Checker, LongK,
                         ::testing::Values(Shape{1024, 1024, 65536}, Shape{256, 512, 131072}),
                         [](const ::testing::TestParamInfo<Shape>& p) {
                           return "K" + std::to_string(p.param.K);
                         });

TEST_F(BrokenKernels, ReadsAAndBWhenAlphaIsZero) {
  // BLAS says alpha == 0 means A and B are not read; the harness poisons them with NaN, so a
  // kernel that multiplies them by zero anyway gets NaN (0 * NaN). Here: the last rung with
  // alpha = 1e-30, which reads A and B.
  const Kernel multiplies = broken([](Gemm& c) { c.alpha = 1e-30f; });
  for (CheckMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    for (float beta : {0.f, 0.5f}) {
      CheckReport report = check(multiplies, {{40, 24, 16}, 0.f, beta}, mode);
      EXPECT_FALSE(report.pass());
      EXPECT_EQ(report.comparison.mismatches, 40 * 24);
    }
  }
}

TEST_F(BrokenKernels, WritesIntoThePadding) {
  const Kernel wide = broken([](Gemm& c) { c.N += 1; });  // one column more
  for (CheckMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    CheckReport report = check(wide, {{32, 20, 16, 0, 21, 21}}, mode);
    EXPECT_FALSE(report.pass());
    EXPECT_EQ(report.comparison.padding_changed, 32);
    EXPECT_EQ(report.comparison.mismatches, 0);
  }
}

TEST_F(BrokenKernels, ReadsCWhenBetaIsZero) {
  // BLAS says beta == 0 means C is not read; a kernel that reads it anyway picks up the poison.
  const Kernel reads_c = broken([](Gemm& c) { c.beta = c.beta == 0.f ? 1.f : c.beta; });
  for (CheckMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    CheckReport report = check(reads_c, {{40, 40, 40}}, mode);
    EXPECT_FALSE(report.pass());
    EXPECT_EQ(report.comparison.mismatches, 40 * 40);
  }
}

TEST_F(BrokenKernels, LaunchErrorIsNeverAPass) {
  const Kernel fails =
      launched([](const Gemm&, cudaStream_t) { return cudaErrorInvalidConfiguration; }, "fails");
  try {
    EXPECT_FALSE(check(fails, {{16, 16, 16}}, CheckMode::exact).pass());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(cudaGetErrorString(cudaErrorInvalidConfiguration)),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace sgemm::testing

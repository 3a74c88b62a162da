// The validation rules of check.h on hand-made matrices: what passes, what fails, and what
// a failure reports. Host only, so these run on every machine.
#include "check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "sgemm/sgemm.h"

namespace sgemm {
namespace {

constexpr float kPad = 4242.5f;  // what the padding columns must still hold
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// An M x N result stored with leading dimension ldc and what it is compared with: in exact
// mode the exact sums (alpha = 1, beta = 0 unless a test sets them), in random mode the
// reference's C and the magnitudes.
struct Result {
  int M, N, K, ldc;
  float alpha = 1.f, beta = 0.f;
  std::vector<float> got, expected, magnitude, c0;

  Result(int m, int n, int k, int ld, float padding = kPad)
      : M(m),
        N(n),
        K(k),
        ldc(ld),
        got(size_t(m) * ld),
        expected(size_t(m) * ld),
        magnitude(size_t(m) * ld, 1.f),
        c0(size_t(m) * ld, 0.f) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < ldc; ++j)
        expected[at(i, j)] = j < N ? float((i * 7 + j * 3) % 11 - 5) : padding;
    got = expected;
  }
  size_t at(int i, int j) const { return size_t(i) * ldc + j; }
  Reference reference(CheckMode mode) const {
    Reference r;
    r.mode = mode;
    r.K = K;
    r.alpha = alpha;
    r.beta = beta;
    r.sum = expected.data();  // exact mode: the sums; random mode: the reference's C
    r.c0 = c0.data();
    r.expected = expected.data();
    r.magnitude = magnitude.data();
    return r;
  }
  Comparison compare(CheckMode mode, float padding = kPad, int max_reported = 10) const {
    return sgemm::compare(reference(mode), M, N, ldc, got.data(), padding, max_reported);
  }
};

TEST(Compare, ExactPassesIdenticalResults) {
  Result r(5, 6, 8, 6);
  Comparison c = r.compare(CheckMode::exact);
  EXPECT_TRUE(c.pass) << c.summary();
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.padding_changed, 0);
  EXPECT_EQ(c.max_abs_error, 0);
  EXPECT_TRUE(c.first.empty());
  EXPECT_EQ(c.summary(), "PASS");
}

TEST(Compare, ExactFailsOnOneWrongElementAndNamesIt) {
  Result r(5, 6, 8, 9);
  r.got[r.at(2, 3)] += 1;  // one dropped or doubled term of whole-number inputs
  Comparison c = r.compare(CheckMode::exact);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.padding_changed, 0);
  EXPECT_EQ(c.max_abs_error, 1);
  ASSERT_EQ(c.first.size(), 1u);
  EXPECT_EQ(c.first[0].row, 2);
  EXPECT_EQ(c.first[0].col, 3);
  EXPECT_EQ(c.first[0].got, r.got[r.at(2, 3)]);
  EXPECT_EQ(c.first[0].expected, r.expected[r.at(2, 3)]);
  EXPECT_EQ(c.summary().rfind("FAIL", 0), 0u) << c.summary();
}

TEST(Compare, ExactFailsOnOneUlp) {
  Result r(3, 3, 4, 3);
  r.got[r.at(1, 1)] = std::nextafter(r.expected[r.at(1, 1)], 100.f);
  EXPECT_FALSE(r.compare(CheckMode::exact).pass);
}

TEST(Compare, ExactAppliesAlphaAndBetaInDoublePrecision) {
  Result r(2, 3, 4, 3);
  r.alpha = 0.5f;
  r.beta = -2.f;  // multiples of 1/16: the whole result is exact, so equality is the rule
  for (size_t i = 0; i < r.got.size(); ++i) {
    r.c0[i] = float(int(i % 5) - 2);
    r.got[i] = 0.5f * r.expected[i] - 2.f * r.c0[i];
  }
  EXPECT_TRUE(r.compare(CheckMode::exact).pass);
  r.got[r.at(1, 2)] = std::nextafter(r.got[r.at(1, 2)], 1e9f);
  EXPECT_FALSE(r.compare(CheckMode::exact).pass) << "one ulp off an exact result";
}

// alpha * sum + beta * C0 with a beta that FP32 cannot hold: the epilogue rounds, and the
// exact mode allows that rounding (kEpilogueRoundings units) and nothing more.
Result inexact_epilogue(int K) {
  Result r(4, 4, K, 4);
  r.beta = 0.7f;
  // Sums as whole-number inputs give them: a random walk, about sqrt(K) in size.
  const float scale = std::max(1.f, std::sqrt(float(K)) / 32);
  for (size_t i = 0; i < r.got.size(); ++i) {
    r.expected[i] = float(int(i * 7919 % 4001) - 2000) * scale;
    r.c0[i] = float(int(i % 5) - 2);
    r.got[i] = r.expected[i] + 0.7f * r.c0[i];  // FP32: two roundings at most
  }
  return r;
}

TEST(Compare, ExactAllowsOnlyTheEpiloguesRounding) {
  for (int K : {16, 4096, 65536, 131072, 1 << 20}) {
    SCOPED_TRACE(K);
    Result r = inexact_epilogue(K);
    Comparison c = r.compare(CheckMode::exact);
    EXPECT_TRUE(c.pass) << c.summary();
    EXPECT_LE(c.max_error_ratio, 1.0);

    Result wrong_beta = inexact_epilogue(K);  // beta applied as 0.5 instead of 0.7
    for (size_t i = 0; i < r.got.size(); ++i)
      wrong_beta.got[i] = wrong_beta.expected[i] + 0.5f * wrong_beta.c0[i];
    EXPECT_FALSE(wrong_beta.compare(CheckMode::exact).pass) << "wrong beta at K = " << K;

    Result dropped = inexact_epilogue(K);  // one product of whole numbers (1) left out
    dropped.got[dropped.at(2, 1)] -= 1;
    EXPECT_EQ(dropped.compare(CheckMode::exact).mismatches, 1) << "dropped term at K = " << K;
  }
}

TEST(Compare, AlphaZeroIgnoresTheSumsAndBetaZeroIgnoresC) {
  for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
    SCOPED_TRACE(to_string(mode));
    Result r(3, 4, 8, 4);
    r.alpha = 0.f;
    r.beta = 0.f;
    r.expected.assign(r.expected.size(), kNaN);  // A and B were poisoned: not read
    r.magnitude.assign(r.magnitude.size(), kNaN);
    r.c0.assign(r.c0.size(), kNaN);  // C was poisoned: not read either
    r.got.assign(r.got.size(), 0.f);
    EXPECT_TRUE(r.compare(CheckMode::exact, 0.f).pass);
    r.got[r.at(2, 3)] = kNaN;  // what a kernel that computes 0 * NaN returns
    EXPECT_FALSE(r.compare(mode, 0.f).pass);

    r.beta = 0.3f;  // C = beta * C0, rounded once
    for (size_t i = 0; i < r.got.size(); ++i) {
      r.c0[i] = float(i) - 5.f;
      r.got[i] = 0.3f * r.c0[i];
    }
    EXPECT_TRUE(r.compare(mode, 0.f).pass) << r.compare(mode, 0.f).summary();
    r.got[r.at(0, 1)] = 0.5f * r.c0[r.at(0, 1)];
    EXPECT_FALSE(r.compare(mode, 0.f).pass);
  }
}

TEST(Compare, InfEqualToInfIsNotAMismatch) {
  const float inf = std::numeric_limits<float>::infinity();
  for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
    SCOPED_TRACE(to_string(mode));
    Result r(2, 2, 4, 2);
    r.expected[r.at(0, 0)] = r.got[r.at(0, 0)] = inf;
    r.expected[r.at(1, 1)] = r.got[r.at(1, 1)] = -inf;
    EXPECT_TRUE(r.compare(mode).pass) << r.compare(mode).summary();
    r.got[r.at(1, 1)] = inf;  // the wrong infinity
    EXPECT_FALSE(r.compare(mode).pass);
    r.got[r.at(1, 1)] = 1.f;  // a finite value where Inf is expected
    EXPECT_FALSE(r.compare(mode).pass);
  }
}

TEST(Compare, NaNNeverPasses) {
  for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
    SCOPED_TRACE(to_string(mode));
    Result in_got(4, 4, 4, 4);
    in_got.got[in_got.at(3, 0)] = kNaN;
    Comparison c = in_got.compare(mode);
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_TRUE(std::isinf(c.max_abs_error));
    ASSERT_FALSE(c.first.empty());
    EXPECT_EQ(c.first[0].row, 3);
    EXPECT_EQ(c.first[0].col, 0);

    Result in_expected(4, 4, 4, 4);
    in_expected.expected[in_expected.at(0, 2)] = kNaN;
    EXPECT_FALSE(in_expected.compare(mode).pass);

    Result in_both(4, 4, 4, 4);  // NaN == NaN would hide a broken reference
    in_both.got[in_both.at(1, 1)] = in_both.expected[in_both.at(1, 1)] = kNaN;
    EXPECT_FALSE(in_both.compare(mode).pass);
  }
}

TEST(Compare, DetectsOverwrittenPadding) {
  Result r(4, 5, 3, 8);
  r.got[r.at(2, 6)] = 0;  // a store past column N-1 lands in the padding
  Comparison c = r.compare(CheckMode::exact);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.padding_changed, 1);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_FALSE(r.compare(CheckMode::random).pass);
}

TEST(Compare, NaNPaddingSentinelMustStayNaN) {
  Result r(3, 2, 3, 4, kNaN);
  EXPECT_TRUE(r.compare(CheckMode::exact, kNaN).pass);
  r.got[r.at(1, 3)] = 1;
  EXPECT_FALSE(r.compare(CheckMode::exact, kNaN).pass);
}

TEST(Compare, ReportsAtMostMaxReportedInRowMajorOrder) {
  Result r(6, 6, 4, 6);
  for (int i = 5; i >= 0; --i) r.got[r.at(i, 5 - i)] += 2;  // an anti-diagonal of errors
  Comparison c = r.compare(CheckMode::exact, kPad, 3);
  EXPECT_EQ(c.mismatches, 6);
  ASSERT_EQ(c.first.size(), 3u);
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(c.first[n].row, n);
    EXPECT_EQ(c.first[n].col, 5 - n);
  }
}

// One element off by `fraction` of its tolerance, in random mode.
Comparison off_by(double fraction, int K, double* error_ratio = nullptr) {
  Result r(3, 4, K, 4);
  const size_t at = r.at(1, 2);
  r.magnitude[at] = 1000;  // a tolerance far above the float spacing near expected
  const double limit = random_tolerance(K) * r.magnitude[at];
  r.got[at] = float(double(r.expected[at]) + fraction * limit);
  if (error_ratio) *error_ratio = std::fabs(double(r.got[at]) - r.expected[at]) / limit;
  return r.compare(CheckMode::random);
}

TEST(Compare, RandomPassesWithinToleranceAndReportsRatio) {
  for (int K : {1, 100, 4096}) {
    SCOPED_TRACE(K);
    double ratio = 0;
    Comparison c = off_by(0.9, K, &ratio);
    ASSERT_LE(ratio, 1.0);  // precondition: float rounding kept the error inside the limit
    EXPECT_TRUE(c.pass) << c.summary();
    EXPECT_NEAR(c.max_error_ratio, ratio, 1e-6);
    EXPECT_GT(c.max_abs_error, 0);
  }
}

TEST(Compare, RandomFailsJustAboveTolerance) {
  for (int K : {1, 100, 4096}) {
    SCOPED_TRACE(K);
    double ratio = 0;
    Comparison c = off_by(1.02, K, &ratio);
    ASSERT_GT(ratio, 1.0);
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_NEAR(c.max_error_ratio, ratio, 1e-6);
    ASSERT_EQ(c.first.size(), 1u);
    EXPECT_EQ(c.first[0].row, 1);
    EXPECT_EQ(c.first[0].col, 2);
  }
}

TEST(Compare, RandomWithZeroMagnitudeNeedsExactZeroError) {
  Result r(2, 2, 8, 2);
  r.magnitude.assign(r.magnitude.size(), 0.f);
  EXPECT_TRUE(r.compare(CheckMode::random).pass);
  r.got[r.at(0, 1)] = std::nextafter(r.expected[r.at(0, 1)], 100.f);
  EXPECT_FALSE(r.compare(CheckMode::random).pass);
}

TEST(Tolerance, GrowsWithK) {
  double previous = 0;
  for (int K : {1, 2, 16, 256, 1000, 4096, 1 << 16, 1 << 20}) {
    SCOPED_TRACE(K);
    const double tolerance = random_tolerance(K);
    EXPECT_GT(tolerance, previous);
    EXPECT_GE(tolerance, kFp32Unit);  // at least one rounding
    previous = tolerance;
  }
}

TEST(Tolerance, RandomModeSeesADroppedTermOnlyAtModestK) {
  // With inputs in [-1, 1), the magnitude sum_k |a||b| is about K/4 and one product about
  // 1/4: K times smaller. The random mode sees a dropped term while K * tolerance is well
  // below 1, which fails at long K; that is why the exact mode, whose allowance does not grow
  // with K, runs wherever it can (everywhere up to K = 2^20).
  for (int K : {1, 64, 1024, 4096}) EXPECT_LT(random_tolerance(K) * K, 0.1) << "K = " << K;
  EXPECT_GT(random_tolerance(65536) * 65536, 1.0);
  EXPECT_NEAR(random_tolerance(4096), 7.9e-6, 0.05e-6);  // the figure docs/00_method.md gives
}

TEST(Tolerance, Tf32AddsTheInputRoundingOfBothComputations) {
  // Each of a and b loses up to 2 u_tf32 = 2^-10 when truncated to TF32; a product, up to
  // 2^-9 of |a||b|; ours and cuBLAS's: 2^-8 of the magnitude, on top of the FP32 sums.
  for (int K : {1, 64, 4096, 1 << 20}) {
    SCOPED_TRACE(K);
    EXPECT_DOUBLE_EQ(random_tolerance(K, Precision::tf32),
                     random_tolerance(K, Precision::fp32) + 1.0 / 256);
  }
  EXPECT_NEAR(random_tolerance(4096, Precision::tf32), 3.91e-3, 0.005e-3);  // docs/00_method.md
  // A TF32 result is far outside the FP32 tolerance: an fp32 rung cannot be TF32 inside.
  EXPECT_GT(kTf32Unit / random_tolerance(4096, Precision::fp32), 50);
}

TEST(Tolerance, Tf32IsTheDefaultOnlyWhenAskedFor) {
  Reference r;
  EXPECT_EQ(r.precision, Precision::fp32);
  EXPECT_EQ(random_tolerance(100), random_tolerance(100, Precision::fp32));
}

TEST(ExactMode, PossibleForAnyScalarsUpToTheLargestK) {
  for (int K : {1, 1025, 65536, 131072, kMaxDimension}) {
    SCOPED_TRACE(K);
    for (auto [alpha, beta] : {std::pair<float, float>{1.f, 0.f},
                               {0.5f, -1.f},
                               {0.3f, 0.7f},
                               {-1.7f, 0.1f},
                               {1e-3f, -2.5f},
                               {0.f, 0.f}})
      EXPECT_EQ(exact_mode_obstacle(alpha, beta, K), "") << alpha << ", " << beta;
  }
}

TEST(ExactMode, ObstaclesNameTheirCause) {
  const std::string k = exact_mode_obstacle(1.f, 0.f, 1 << 22);  // sums reach 2^24
  EXPECT_NE(k.find("K = 4194304"), std::string::npos) << k;
  EXPECT_EQ(k.find("alpha"), std::string::npos) << "K is the cause, not alpha: " << k;
  const std::string range = exact_mode_obstacle(3e37f, 0.f, 1024);
  EXPECT_NE(range.find("alpha = 3e+37"), std::string::npos) << range;
}

TEST(ExactMode, EpilogueIsExactForDyadicScalarsAndModestK) {
  EXPECT_TRUE(exact_epilogue(1.f, 0.f, 4096));
  EXPECT_TRUE(exact_epilogue(0.5f, -1.f, 1025));
  EXPECT_TRUE(exact_epilogue(0.f, 0.f, 1024));
  EXPECT_TRUE(exact_epilogue(-0.0625f, 3.f, 100));
  EXPECT_FALSE(exact_epilogue(0.3f, 0.f, 64));  // 0.3 has no exact FP32 product
  EXPECT_FALSE(exact_epilogue(1.f, 0.1f, 64));
  EXPECT_FALSE(exact_epilogue(16.f, 0.f, 1 << 18));  // alpha * sum passes 2^24 sixteenths
}

TEST(ExactMode, SplitInputsWhereFp32AndKAllowThem) {
  EXPECT_EQ(exact_inputs(Precision::fp32, 1), ExactInputs::split);
  EXPECT_EQ(exact_inputs(Precision::fp32, 4096), ExactInputs::split);
  EXPECT_EQ(exact_inputs(Precision::fp32, kSplitInputMaxK), ExactInputs::split);
  EXPECT_EQ(exact_inputs(Precision::fp32, kSplitInputMaxK + 1), ExactInputs::whole);
  EXPECT_EQ(exact_inputs(Precision::tf32, 64), ExactInputs::whole) << "TF32 holds 11 bits";
  // Every sum of split inputs is a multiple of 2^-11 below K (1 + 2^-11): 24 bits at most.
  EXPECT_LT(kSplitInputMaxK * (2048.0 + 1), 16777216.0);
  EXPECT_GE((kSplitInputMaxK + 1) * (2048.0 + 1), 16777216.0);
  EXPECT_STREQ(to_string(ExactInputs::split), "split");
}

TEST(ExactMode, SplitSumsLeaveLessRoomForAnExactEpilogue) {
  // Sums in units of 2^-11: alpha = 1 keeps them exact while 16 K 2049 < 2^24.
  EXPECT_TRUE(exact_epilogue(1.f, 0.f, 500, ExactInputs::split));
  EXPECT_FALSE(exact_epilogue(1.f, 0.f, 4096, ExactInputs::split));
  EXPECT_TRUE(exact_epilogue(1.f, 0.f, 4096, ExactInputs::whole));
  EXPECT_FALSE(exact_epilogue(0.3f, 0.f, 16, ExactInputs::split));
  // Not exact: then the epilogue's roundings are allowed, and no more (a missing small
  // product, 2^-11, is thousands of times that allowance).
  Result r(2, 2, 4096, 2);
  r.alpha = 1.f;
  for (size_t i = 0; i < r.got.size(); ++i) r.expected[i] = r.got[i] = 1000.f + 0x1p-11f * i;
  Reference split = r.reference(CheckMode::exact);
  split.inputs = ExactInputs::split;
  EXPECT_TRUE(compare(split, 2, 2, 2, r.got.data(), kPad).pass);
  r.got[r.at(1, 0)] -= 0x1p-11f;
  EXPECT_FALSE(compare(split, 2, 2, 2, r.got.data(), kPad).pass);
}

TEST(Fp64Rule, FailsAboveTheBoundAndOnNaN) {
  Comparison c;
  apply_fp64_bound(c, 1e-6, 4096, Precision::fp32);
  EXPECT_TRUE(c.pass);
  EXPECT_DOUBLE_EQ(c.error_vs_fp64_allowed, random_tolerance(4096));
  EXPECT_EQ(c.summary(), "PASS");
  // TF32 accuracy (2.6e-4) at K = 131072: above the bound (4.3e-5), below the TF32 class's.
  Comparison tf32_accuracy;
  apply_fp64_bound(tf32_accuracy, 2.6e-4, 131072, Precision::fp32);
  EXPECT_FALSE(tf32_accuracy.pass);
  EXPECT_NE(tf32_accuracy.summary().find("error vs FP64"), std::string::npos)
      << tf32_accuracy.summary();
  Comparison tf32_rung;
  apply_fp64_bound(tf32_rung, 2.6e-4, 131072, Precision::tf32);
  EXPECT_TRUE(tf32_rung.pass);
  Comparison nan;
  apply_fp64_bound(nan, std::nan(""), 16, Precision::fp32);
  EXPECT_FALSE(nan.pass);
}

TEST(Compare, NonFiniteInputsMatchNaNWithNaNAndInfWithTheSameInf) {
  const float inf = std::numeric_limits<float>::infinity();
  Result r(2, 3, 8, 3);
  r.expected[r.at(0, 0)] = r.got[r.at(0, 0)] = kNaN;
  r.expected[r.at(0, 1)] = r.got[r.at(0, 1)] = -inf;
  r.expected[r.at(1, 2)] = kNaN;
  r.got[r.at(1, 2)] = -kNaN;  // any NaN
  Reference reference = r.reference(CheckMode::random);
  EXPECT_FALSE(compare(reference, 2, 3, 3, r.got.data(), kPad).pass) << "NaN is never a pass";
  reference.non_finite_inputs = true;
  EXPECT_TRUE(compare(reference, 2, 3, 3, r.got.data(), kPad).pass);
  r.got[r.at(0, 1)] = inf;  // the wrong sign
  EXPECT_EQ(compare(reference, 2, 3, 3, r.got.data(), kPad).mismatches, 1);
  r.got[r.at(0, 1)] = kNaN;  // NaN where cuBLAS gives -Inf
  EXPECT_EQ(compare(reference, 2, 3, 3, r.got.data(), kPad).mismatches, 1);
  r.got[r.at(0, 1)] = -inf;
  r.got[r.at(1, 1)] = kNaN;  // NaN where cuBLAS gives a finite value
  EXPECT_EQ(compare(reference, 2, 3, 3, r.got.data(), kPad).mismatches, 1);
  r.got[r.at(1, 1)] = r.expected[r.at(1, 1)];
  r.got[r.at(0, 0)] = 1.f;  // a finite value where cuBLAS gives NaN
  EXPECT_EQ(compare(reference, 2, 3, 3, r.got.data(), kPad).mismatches, 1);
}

TEST(CheckPlan, OnePolicyForEveryFrontDoor) {
  const CheckPlan both = plan_checks(ChecksToRun::both, 0.3f, 0.7f, 65536);
  EXPECT_EQ(both.modes, (std::vector<CheckMode>{CheckMode::exact, CheckMode::random}));
  EXPECT_EQ(both.error, "");
  EXPECT_EQ(plan_checks(ChecksToRun::random, 1.f, 0.f, 8).modes,
            std::vector<CheckMode>{CheckMode::random});
  const CheckPlan none = plan_checks(ChecksToRun::none, 1.f, 0.f, 8);
  EXPECT_TRUE(none.modes.empty());
  EXPECT_EQ(none.error, "");
}

TEST(CheckPlan, AnImpossibleExactCheckIsAnErrorNeverASilentPass) {
  const CheckPlan exact = plan_checks(ChecksToRun::exact, 1.f, 0.f, 1 << 22);
  EXPECT_TRUE(exact.modes.empty());
  EXPECT_NE(exact.error.find("K = 4194304"), std::string::npos) << exact.error;
  const CheckPlan both = plan_checks(ChecksToRun::both, 3e37f, 0.f, 1024);
  EXPECT_EQ(both.modes, std::vector<CheckMode>{CheckMode::random});  // the possible one runs
  EXPECT_NE(both.note.find("alpha"), std::string::npos) << both.note;
}

TEST(Shape, StrNamesSizesAndPadding) {
  Shape tight{1000, 1000, 1000};
  EXPECT_EQ(tight.str(), "1000x1000x1000");
  Shape padded{3, 4, 5, 6, 7, 8};
  EXPECT_NE(padded.str().find("3x4x5"), std::string::npos);
  EXPECT_NE(padded.str().find("lda=6"), std::string::npos);
  EXPECT_NE(padded.str().find("ldb=7"), std::string::npos);
  EXPECT_NE(padded.str().find("ldc=8"), std::string::npos);
  EXPECT_EQ(padded.a_ld(), 6);
  EXPECT_EQ(tight.c_ld(), 1000);
}

TEST(CheckMode, Names) {
  EXPECT_STREQ(to_string(CheckMode::exact), "exact");
  EXPECT_STREQ(to_string(CheckMode::random), "random");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DumpFailure, WritesSmallProblemsWithShapeAndMatrices) {
  Shape shape{2, 3, 2, 4, 0, 0};  // a padded lda, so the dump must honour leading dimensions
  std::vector<float> A = {1.5f, 123456.f, kPad, kPad, -2.f, 0.25f, kPad, kPad};
  std::vector<float> B = {-7.25f, 1.f, 2.f, 3.f, 4.f, 5.f};
  std::vector<float> C0(6, 0.f), got(6, 31.75f);
  std::vector<double> expected(6, 31.75);
  got[4] = 9876.5f;
  const std::string path = ::testing::TempDir() + "sgemm_check_test_dump.txt";
  std::remove(path.c_str());
  ASSERT_EQ(dump_failure(path, shape, A, B, C0, got, expected), path);
  const std::string text = read_file(path);
  EXPECT_NE(text.find(shape.str()), std::string::npos) << text;
  for (const char* value : {"123456", "-7.25", "9876.5", "31.75", "0.25"})
    EXPECT_NE(text.find(value), std::string::npos) << "missing " << value << " in\n" << text;
  EXPECT_EQ(text.find("4242.5"), std::string::npos) << "padding was dumped:\n" << text;
  std::remove(path.c_str());
}

TEST(DumpFailure, SkipsLargeProblems) {
  const int n = kMaxDumpDimension + 1;
  Shape shape{n, 2, 2};
  std::vector<float> A(size_t(n) * 2), B(4), C(size_t(n) * 2);
  std::vector<double> expected(C.size());
  const std::string path = ::testing::TempDir() + "sgemm_check_test_large.txt";
  std::remove(path.c_str());
  EXPECT_EQ(dump_failure(path, shape, A, B, C, C, expected), "");
  EXPECT_FALSE(std::ifstream(path).good()) << "wrote " << path;
}

}  // namespace
}  // namespace sgemm

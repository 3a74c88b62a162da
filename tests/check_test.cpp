// The validation rules of check.h on hand-made matrices: what passes, what fails, and what
// a failure reports. Host only, so these run on every machine.
#include "check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace sgemm {
namespace {

constexpr float kPad = 4242.5f;  // what the padding columns must still hold
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// An M x N result stored with leading dimension ldc, its reference, and magnitudes.
struct Result {
  int M, N, K, ldc;
  std::vector<float> got, expected, magnitude;

  Result(int m, int n, int k, int ld, float padding = kPad)
      : M(m),
        N(n),
        K(k),
        ldc(ld),
        got(size_t(m) * ld),
        expected(size_t(m) * ld),
        magnitude(size_t(m) * ld, 1.f) {
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < ldc; ++j)
        expected[at(i, j)] = j < N ? float((i * 7 + j * 3) % 11 - 5) : padding;
    got = expected;
  }
  size_t at(int i, int j) const { return size_t(i) * ldc + j; }
  Comparison compare(CheckMode mode, float padding = kPad, int max_reported = 10) const {
    return sgemm::compare(mode, M, N, K, ldc, got.data(), expected.data(), magnitude.data(),
                          padding, max_reported);
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
  r.magnitude.assign(r.magnitude.size(), 0.f);  // alpha = beta = 0: C must be exactly 0
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

TEST(Tolerance, TightEnoughToCatchADroppedTerm) {
  // With inputs in [-1, 1), one product is on average about magnitude / K; the check is
  // only useful if the tolerance is well below that for the sizes the tests run.
  for (int K : {1, 64, 1024, 4096}) EXPECT_LT(random_tolerance(K) * K, 0.1) << "K = " << K;
}

TEST(ExactMode, PossibleForDyadicScalarsAndModestK) {
  EXPECT_TRUE(exact_mode_possible(1.f, 0.f, 4096));
  EXPECT_TRUE(exact_mode_possible(0.5f, -1.f, 1));
  EXPECT_TRUE(exact_mode_possible(0.5f, -1.f, 1025));
  EXPECT_TRUE(exact_mode_possible(0.f, 0.f, 1024));
  EXPECT_TRUE(exact_mode_possible(2.f, -1.f, 1024));
  EXPECT_TRUE(exact_mode_possible(-0.0625f, 3.f, 100));
}

TEST(ExactMode, ImpossibleForNonDyadicScalarsOrHugeK) {
  EXPECT_FALSE(exact_mode_possible(0.3f, 0.f, 64));  // 0.3 has no exact FP32 product
  EXPECT_FALSE(exact_mode_possible(1.f, 0.1f, 64));
  EXPECT_FALSE(exact_mode_possible(1.f, 0.f, 1 << 23));  // sums pass 2^24: rounding starts
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
  std::vector<float> C0(6, 0.f), got(6, 31.75f), expected(6, 31.75f);
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
  const std::string path = ::testing::TempDir() + "sgemm_check_test_large.txt";
  std::remove(path.c_str());
  EXPECT_EQ(dump_failure(path, shape, A, B, C, C, C), "");
  EXPECT_FALSE(std::ifstream(path).good()) << "wrote " << path;
}

}  // namespace
}  // namespace sgemm

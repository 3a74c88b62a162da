// Every rung of the ladder, checked against cuBLAS in both check modes over the shapes that
// break tiled kernels: powers of two, odd sizes, tall and skinny, padded leading dimensions,
// alpha/beta combinations and a seeded random sweep. Skips without a GPU.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "harness.h"
#include "sgemm.h"

namespace sgemm {
namespace {

struct Case {
  Shape shape;
  float alpha = 1.f, beta = 0.f;
};

// Square and mixed shapes with tight leading dimensions.
std::vector<Case> tight(const std::vector<Shape>& shapes) {
  std::vector<Case> cases;
  for (const Shape& s : shapes) cases.push_back({s});
  return cases;
}

using Param = std::tuple<int, CheckMode>;  // rung number, check mode

class RungCorrectness : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
    harness_ = std::make_unique<Harness>(0);
  }

  // Checks every case; a failing case names its shape and scalars and does not stop the rest.
  void expect_all_pass(const std::vector<Case>& cases) {
    const auto [rung, mode] = GetParam();
    uint64_t seed = 1;
    for (const Case& c : cases) {
      SCOPED_TRACE(c.shape.str() + " alpha=" + std::to_string(c.alpha) +
                   " beta=" + std::to_string(c.beta));
      if (mode == CheckMode::exact && !exact_mode_possible(c.alpha, c.beta, c.shape.K)) {
        ADD_FAILURE() << "test bug: this case cannot be checked exactly";
        continue;
      }
      const CheckReport report = harness_->check(rung, {c.shape, c.alpha, c.beta}, mode, seed++);
      EXPECT_EQ(report.mode, mode);
      EXPECT_TRUE(report.pass()) << report.summary()
                                 << (report.dump_path.empty() ? "" : "; dump: " + report.dump_path);
    }
  }

  std::unique_ptr<Harness> harness_;
};

TEST_P(RungCorrectness, PowersOfTwo) {
  std::vector<Shape> shapes;
  for (int n = 1; n <= 1024; n *= 2) shapes.push_back({n, n, n});
  for (Shape s : {Shape{64, 1024, 32}, Shape{1024, 64, 512}, Shape{2, 512, 1024}, Shape{512, 2, 8},
                  Shape{128, 256, 1}, Shape{1, 256, 128}})
    shapes.push_back(s);
  expect_all_pass(tight(shapes));
}

TEST_P(RungCorrectness, OddSizes) {
  std::vector<Shape> shapes;
  for (int n : {1, 7, 33, 127, 1000, 1023, 1025}) shapes.push_back({n, n, n});
  for (Shape s : {Shape{1023, 7, 1025}, Shape{7, 1025, 1023}, Shape{1025, 1023, 7},
                  Shape{33, 127, 1}, Shape{1, 1000, 33}, Shape{127, 1, 1023}, Shape{65, 63, 129}})
    shapes.push_back(s);
  expect_all_pass(tight(shapes));
}

TEST_P(RungCorrectness, TallAndSkinny) {
  expect_all_pass(tight({{4096, 16, 64},
                         {16, 4096, 64},
                         {1, 1, 4096},
                         {2048, 1, 3},
                         {3, 2048, 1},
                         {4096, 1, 1},
                         {1, 4096, 1},
                         {1, 1, 1},
                         {8192, 8, 8}}));
}

// Odd pads misalign every row after the first, which a vectorized path must handle.
TEST_P(RungCorrectness, PaddedLeadingDimensions) {
  std::vector<Case> cases;
  for (Shape s : {Shape{64, 64, 64}, Shape{33, 65, 17}, Shape{128, 96, 1000}}) {
    for (int pad : {1, 3, 4, 32}) {
      const int M = s.M, N = s.N, K = s.K;
      cases.push_back({{M, N, K, K + pad, N + pad, N + pad}});  // all three padded
      cases.push_back({{M, N, K, K + pad, 0, 0}});              // one at a time
      cases.push_back({{M, N, K, 0, N + pad, 0}});
      cases.push_back({{M, N, K, 0, 0, N + pad}});
    }
    cases.push_back({{s.M, s.N, s.K, s.K + 1, s.N + 3, s.N + 4}});  // different pads
  }
  cases.push_back({{257, 129, 65, 65 + 5, 129 + 2, 129 + 1}, 2.f, -1.f});  // and beta reads C
  expect_all_pass(cases);
}

TEST_P(RungCorrectness, AlphaBeta) {
  // Dyadic scalars, so exact mode applies; beta == 0 must not read C (the harness poisons it).
  std::vector<std::pair<float, float>> scalars = {
      {1, 0}, {0, 0}, {0, 1}, {1, 1}, {-1, 0.5f}, {2, -1}, {0.5f, 0.25f}, {-0.0625f, 3}};
  if (std::get<1>(GetParam()) == CheckMode::random)
    for (auto extra : {std::pair<float, float>{0.3f, 0.7f}, {-1.7f, 0.1f}, {1e-3f, -2.5f}})
      scalars.push_back(extra);
  std::vector<Case> cases;
  for (Shape s : {Shape{128, 128, 128}, Shape{33, 65, 127}, Shape{1, 7, 1000}})
    for (auto [alpha, beta] : scalars) cases.push_back({s, alpha, beta});
  expect_all_pass(cases);
}

// Shapes no one thought of: a fixed seed, so a failure reproduces.
TEST_P(RungCorrectness, RandomSweep) {
  std::mt19937 random(20240611);
  std::uniform_int_distribution<int> size(1, 1100), pad(0, 5), pick(0, 3);
  const float alphas[] = {1, -1, 0.5f, 2}, betas[] = {0, 0, 1, -0.5f};
  std::vector<Case> cases;
  for (int n = 0; n < 40; ++n) {
    const int M = size(random), N = size(random), K = size(random);
    const int lda = K + pad(random), ldb = N + pad(random), ldc = N + pad(random);
    const float alpha = alphas[pick(random)], beta = betas[pick(random)];
    cases.push_back({{M, N, K, lda, ldb, ldc}, alpha, beta});
  }
  expect_all_pass(cases);
}

std::vector<Param> every_rung_and_mode() {
  std::vector<Param> params;
  for (const RungInfo& rung : rungs())
    for (CheckMode mode : {CheckMode::exact, CheckMode::random})
      params.emplace_back(rung.number, mode);
  return params;
}

// Test names read "Ladder/RungCorrectness.OddSizes/05_blocktiling_2d_exact".
std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  const auto [number, mode] = info.param;
  std::string name = find_rung(number)->name;
  return (number < 10 ? "0" : "") + std::to_string(number) + "_" + name + "_" + to_string(mode);
}

INSTANTIATE_TEST_SUITE_P(Ladder, RungCorrectness, ::testing::ValuesIn(every_rung_and_mode()),
                         param_name);

}  // namespace
}  // namespace sgemm

// FP32's componentwise bound on the inputs where it is tightest (docs/00_method.md, "Inputs"):
// every fp32 rung passes the random check on full-precision uniform and normal data, on
// GEMMul8's (rand - 0.5) exp(phi randn) up to phi = 4, on random exponents, and where a
// column of A scaled by 2^S meets a zero row of B (and the transpose), so that only the small
// elements of a line count; at small K, where the bound is tightest, and at large K. Rung 16
// with the rule it had before its certificate fails them (gpu_planted_test.cpp). Skips without
// a GPU.
#include "gpu_inputs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_support.h"
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

std::vector<int> fp32_rungs() {
  std::vector<int> numbers;
  for (const RungInfo& r : rungs())
    if (r.precision == Precision::fp32) numbers.push_back(r.number);
  return numbers;
}

class FiniteInputs : public GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(FiniteInputs, WithinTheComponentwiseBound) {
  const int rung = GetParam();
  SGEMM_SKIP_UNSUPPORTED_RUNG(rung);
  uint64_t seed = 1;
  for (const Inputs& inputs : hard_inputs())
    for (const Shape& shape : hard_shapes()) {
      Problem p{shape};
      p.inputs = inputs;
      SCOPED_TRACE(p.str());
      const CheckReport report = harness_->check(rung, p, CheckMode::random, seed++);
      EXPECT_TRUE(report.pass()) << report.summary();
    }
}

INSTANTIATE_TEST_SUITE_P(Ladder, FiniteInputs, ::testing::ValuesIn(fp32_rungs()),
                         [](const ::testing::TestParamInfo<int>& rung) {
                           return std::to_string(rung.param) + "_" + find_rung(rung.param)->name;
                         });

}  // namespace
}  // namespace sgemm::testing

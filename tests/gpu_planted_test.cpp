// The checks must fail a 3xTF32 kernel that computes at TF32 accuracy: rungs 13, 14 and 15 with
// their small products planted out (planted_kernels.cu) fail at K = 4096, the exact check on
// split inputs and the random check, and at K = 131072, where whole-number inputs have no
// small parts and the random check's per-element tolerance is wider than TF32's error: there
// its FP64 rule catches them. The real rungs pass the same checks. Skips without a GPU.
#include <gtest/gtest.h>

#include <string>

#include "dispatch.h"  // the library's fallback chain
#include "gpu_inputs.h"
#include "gpu_support.h"
#include "planted_kernels.h"  // the planted launchers
#include "rung_id.h"
#include "runtime.h"
#include "sgemm.h"

namespace sgemm::testing {
namespace {

// A planted launcher as launched() takes it: its answer's error (a refusal's too).
template <runtime::LaunchAnswer (*launch)(const Gemm&, cudaStream_t)>
cudaError_t error_of(const Gemm& gemm, cudaStream_t stream) {
  return launch(gemm, stream).error();
}

struct Planted {
  RungId rung;    // the real rung
  Kernel broken;  // the same kernel without its small products
};

const Planted kPlanted[] = {
    {RungId::mma_3xtf32, launched(&error_of<&mma_3xtf32_planted::launch>, "planted mma_3xtf32")},
    {RungId::wgmma_3xtf32,
     launched(&error_of<&wgmma_3xtf32_planted::launch>, "planted wgmma_3xtf32")},
    {RungId::every_shape_3xtf32,
     launched(&error_of<&every_shape_3xtf32_planted::launch>, "planted every_shape_3xtf32")}};

class PlantedTf32Accuracy : public GpuTest, public ::testing::WithParamInterface<Planted> {
 protected:
  int real_rung() const { return rung_number(GetParam().rung); }
  CheckReport check(const Kernel& kernel, const Problem& p, CheckMode mode) {
    return harness_->check(kernel, p, mode, 3, "planted", Precision::fp32);
  }
};

TEST_P(PlantedTf32Accuracy, FailsAtK4096) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(real_rung());
  const Problem p{{256, 192, 4096}};
  ASSERT_EQ(exact_inputs(Precision::fp32, p.shape.K), ExactInputs::split);
  for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
    SCOPED_TRACE(to_string(mode));
    const CheckReport broken = check(GetParam().broken, p, mode);
    EXPECT_FALSE(broken.pass()) << broken.summary();
    const CheckReport real = check(harness_->kernel(real_rung()), p, mode);
    EXPECT_TRUE(real.pass()) << real.summary();
  }
}

TEST_P(PlantedTf32Accuracy, FailsAtK131072) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(real_rung());
  const Problem p{{128, 96, 131072}};
  const CheckReport broken = check(GetParam().broken, p, CheckMode::random);
  EXPECT_FALSE(broken.pass()) << broken.summary();
  // The per-element tolerance alone lets it through at this K: the FP64 rule catches it.
  EXPECT_EQ(broken.comparison.mismatches, 0) << broken.summary();
  EXPECT_GT(broken.comparison.error_vs_fp64, broken.comparison.error_vs_fp64_allowed);
  const CheckReport real = check(harness_->kernel(real_rung()), p, CheckMode::random);
  EXPECT_TRUE(real.pass()) << real.summary();
  EXPECT_GT(real.comparison.error_vs_fp64_allowed, 0) << "the FP64 rule ran";
}

INSTANTIATE_TEST_SUITE_P(Rungs, PlantedTf32Accuracy, ::testing::ValuesIn(kPlanted),
                         [](const ::testing::TestParamInfo<Planted>& planted) {
                           return std::string(rung_name(planted.param.rung));
                         });

// Rung 16 (ozaki_int8) with 11 bits fewer in each scaled integer: split inputs no longer fit its
// integers at K = 4096 (the exact check fails), and its error is 2^11 times rung 16's, above the
// random check's FP64 rule at K = 4096 and at K = 131072 (two chunks of K, each reduced mod
// p_l). The real rung passes the same checks.
class PlantedCoarseIntegers : public GpuTest {
 protected:
  CheckReport check(const Kernel& kernel, const Problem& p, CheckMode mode) {
    return harness_->check(kernel, p, mode, 3, "planted", Precision::fp32);
  }
};

TEST_F(PlantedCoarseIntegers, FailsTheFp32Checks) {
  const int real = rung_number(RungId::ozaki_int8);
  SGEMM_SKIP_UNSUPPORTED_RUNG(real);
  const Kernel planted = launched(&error_of<&ozaki_int8_planted::launch>, "planted ozaki_int8");
  for (const Problem& p : {Problem{{256, 192, 4096}}, Problem{{128, 96, 131072}}})
    for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
      // At K = 131072 the exact check's whole numbers fit even the coarse integers.
      if (mode == CheckMode::exact && p.shape.K > kSplitInputMaxK) continue;
      SCOPED_TRACE(p.str() + " " + to_string(mode));
      const CheckReport broken = check(planted, p, mode);
      EXPECT_FALSE(broken.pass()) << broken.summary();
      const CheckReport ours = check(harness_->kernel(real), p, mode);
      EXPECT_TRUE(ours.pass()) << ours.summary();
    }
}

// Rung 16 with the rule it had before its certificate (only lines spanning more than 2^24 leave
// the integer path) fails the inputs checks (gpu_inputs_test.cpp) in every family of inputs
// that isolates small elements, and the real rung 16 passes the same cases.
class PlantedSpanRule : public GpuTest {};

TEST_F(PlantedSpanRule, FailsTheInputsChecks) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(16);
  // A problem it hands on (for shape_unsuitable) runs where the library's chain says.
  const RungInfo& rung16 = rung_info(RungId::ozaki_int8);
  const Kernel broken = launched(
      [&rung16](const Gemm& g, cudaStream_t stream) {
        const runtime::LaunchAnswer answer = ozaki_int8_span_rule::launch(g, stream);
        if (answer.reason() != FallbackReason::shape_unsuitable) return answer.error();
        return runtime::launch_with_fallbacks(
            *fallback_for(rung16, FallbackReason::shape_unsuitable), g, stream);
      },
      "planted ozaki_int8 span rule");
  for (const char* name : {"span=8", "span=16", "span=20", "span-b=16", "exponents=8"}) {
    SCOPED_TRACE(name);
    int failures = 0;
    uint64_t seed = 1;
    for (const Shape& shape : hard_shapes()) {
      Problem p{shape};
      p.inputs = *parse_inputs(name);
      const CheckReport planted =
          harness_->check(broken, p, CheckMode::random, seed, "planted", Precision::fp32);
      failures += !planted.pass();
      const CheckReport real = harness_->check(16, p, CheckMode::random, seed++);
      EXPECT_TRUE(real.pass()) << p.str() << ": " << real.summary();
    }
    EXPECT_GT(failures, 0) << "the planted rule passed every shape";
  }
}

// Rung 16 with its bound plane over every other k-tile on every input, not only where its sample
// leaves room (planted_kernels.cu): a sum over part of K of non-negative products is still a
// lower bound of sum_k |a_ik||b_kj|, so whatever it certifies is within the bound, and what it
// no longer certifies goes to the slow path. It passes the inputs checks, at K = 2048 and up
// (an odd number of k-tiles too), in every family of inputs.
class ForcedHalfBound : public GpuTest {};

TEST_F(ForcedHalfBound, StaysWithinTheBoundOnEveryInput) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(16);
  const Kernel half =
      launched(&error_of<&ozaki_int8_half_bound::launch>, "ozaki_int8, half the bound plane");
  uint64_t seed = 1;
  for (const Inputs& inputs : hard_inputs())
    for (const Shape& shape : {Shape{256, 192, 4096}, Shape{300, 500, 2049}}) {
      Problem p{shape};
      p.inputs = inputs;
      SCOPED_TRACE(p.str());
      const CheckReport report =
          harness_->check(half, p, CheckMode::random, seed++, "half bound", Precision::fp32);
      EXPECT_TRUE(report.pass()) << report.summary();
    }
}

}  // namespace
}  // namespace sgemm::testing

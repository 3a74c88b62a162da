// The checks must fail what a rung with a planted bug computes. The bugs are planted from the test
// side, on the real rungs (the library's launch, with its fallback chain), so that no lesson code
// carries a switch for them: each planted kernel is the real rung run on operands the test
// changed first, or the real rung's result changed after, in the way the bug would change it.
//  - A 3xTF32 kernel without its small products (rungs 13, 14, 15) computes hi(A) hi(B): the
//    real rung on operands rounded to TF32, whose small parts are zero, computes exactly that.
//  - Rung 16 with 11 bits fewer in each scaled integer loses the low bits of each row of A and
//    column of B, measured from the line's largest element: the real rung on lines rounded so.
//  - Rung 16 with the rule it had before its certificate is accurate relative to the lines'
//    norms, not to each element's sum_k |a_ik||b_kj|: the real result plus an error of that size.
// The real rungs pass the same checks. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "entries.h"  // rung 16 with its bound plane forced
#include "gpu_inputs.h"
#include "gpu_support.h"
#include "registry.h"  // rung_info(): a rung by its typed handle
#include "sgemm/sgemm.h"

namespace sgemm::testing {
namespace {

// A row-major matrix on the host: rows x cols, rows ld apart.
struct HostMatrix {
  std::vector<float> values;
  int rows, cols, ld;
  float& at(int r, int c) { return values[static_cast<size_t>(r) * ld + c]; }
};

HostMatrix to_host(const float* device, int rows, int cols, int ld) {
  HostMatrix m{std::vector<float>(static_cast<size_t>(rows - 1) * ld + cols), rows, cols, ld};
  CUDA_CHECK(
      cudaMemcpy(m.values.data(), device, m.values.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return m;
}

// x rounded to TF32 (10 explicit mantissa bits), to nearest with ties away from zero: what
// cvt.rna.tf32.f32 gives, so that the rung's split of it leaves a small part of zero.
float tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // Inf, NaN
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// x rounded to a multiple of 2^(e - kept), e the exponent of the line's largest magnitude.
float coarse(float x, float largest, int kept) {
  int e = 0;
  std::frexp(largest, &e);
  const float step = std::ldexp(1.f, e - kept);
  return std::nearbyint(x / step) * step;
}

// Changes an operand on the host, in place, before the real rung multiplies it.
using Change = std::function<void(HostMatrix&, bool isB)>;

void round_to_tf32(HostMatrix& m, bool) {
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) m.at(r, c) = tf32(m.at(r, c));
}

// Rung 16 keeps about T - log2(K)/2 bits of each element of a line of even magnitudes
// (docs/pictures/16_moduli_bits.svg: about 18 at K = 4096); 11 bits fewer leave about 7. The
// lines rounded to 8 bits of their largest element: too few for the exact check's split inputs
// (1 + 2^-11 needs 12), about 2^10 times rung 16's error on random inputs.
constexpr int kCoarseBits = 8;

void round_lines_coarsely(HostMatrix& m, bool isB) {
  const int lines = isB ? m.cols : m.rows, length = isB ? m.rows : m.cols;
  for (int l = 0; l < lines; ++l) {
    auto at = [&](int k) -> float& { return isB ? m.at(k, l) : m.at(l, k); };
    float largest = 0;
    for (int k = 0; k < length; ++k) largest = std::fmax(largest, std::fabs(at(k)));
    if (largest == 0 || !std::isfinite(largest)) continue;
    for (int k = 0; k < length; ++k) at(k) = coarse(at(k), largest, kCoarseBits);
  }
}

// The real rung on A and B as `change` leaves them: copies of the test's own on the device.
// Synchronous: a test's kernel, never timed.
cudaError_t run_on_changed(RungId rung, const Change& change, const Gemm& g, cudaStream_t stream) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  HostMatrix a = to_host(g.A, g.M, g.K, g.lda), b = to_host(g.B, g.K, g.N, g.ldb);
  change(a, false);
  change(b, true);
  DeviceBuffer da(a.values.size()), db(b.values.size());
  upload(da.get(), a.values.data(), a.values.size() * sizeof(float));
  upload(db.get(), b.values.data(), b.values.size() * sizeof(float));
  Gemm changed = g;
  changed.A = da.get(), changed.B = db.get();
  std::string why;
  const Status status = launch(rung_info(rung), changed, stream, &why);
  EXPECT_EQ(status, Status::ok) << why;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return status == Status::ok ? cudaSuccess : cudaErrorUnknown;
}

// The real rung's result, then each element moved by |alpha| u ||a_i|| ||b_j||: an error bounded
// relative to the lines' norms, as the rule before rung 16's certificate allowed.
cudaError_t run_normwise(RungId rung, const Gemm& g, cudaStream_t stream) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const HostMatrix a = to_host(g.A, g.M, g.K, g.lda), b = to_host(g.B, g.K, g.N, g.ldb);
  std::string why;
  const Status status = launch(rung_info(rung), g, stream, &why);
  EXPECT_EQ(status, Status::ok) << why;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  HostMatrix c = to_host(g.C, g.M, g.N, g.ldc);
  std::vector<double> rowNorms(g.M), columnNorms(g.N);
  auto square = [](float x) { return static_cast<double>(x) * x; };
  for (int i = 0; i < g.M; ++i)
    for (int k = 0; k < g.K; ++k) rowNorms[i] += square(a.values[size_t(i) * g.lda + k]);
  for (int k = 0; k < g.K; ++k)
    for (int j = 0; j < g.N; ++j) columnNorms[j] += square(b.values[size_t(k) * g.ldb + j]);
  const double u = std::ldexp(1.0, -24);
  for (int i = 0; i < g.M; ++i)
    for (int j = 0; j < g.N; ++j) {
      const double error = std::fabs(g.alpha) * u * std::sqrt(rowNorms[i] * columnNorms[j]);
      c.at(i, j) += static_cast<float>((i + j) % 2 ? error : -error);
    }
  upload(g.C, c.values.data(), c.values.size() * sizeof(float));
  return status == Status::ok ? cudaSuccess : cudaErrorUnknown;
}

Kernel planted_change(RungId rung, Change change, const std::string& what) {
  return launched(
      [rung, change](const Gemm& g, cudaStream_t stream) {
        return run_on_changed(rung, change, g, stream);
      },
      std::string("planted ") + rung_name(rung) + ", " + what);
}

class PlantedTf32Accuracy : public GpuTest, public ::testing::WithParamInterface<RungId> {
 protected:
  int real_rung() const { return rung_number(GetParam()); }
  Kernel broken() const { return planted_change(GetParam(), round_to_tf32, "no small products"); }
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
    const CheckReport planted = check(broken(), p, mode);
    EXPECT_FALSE(planted.pass()) << planted.summary();
    const CheckReport real = check(harness_->kernel(real_rung()), p, mode);
    EXPECT_TRUE(real.pass()) << real.summary();
  }
}

// At K = 131072 whole-number inputs have no small parts and the random check's per-element
// tolerance is wider than TF32's error: there its FP64 rule catches the planted kernel.
TEST_P(PlantedTf32Accuracy, FailsAtK131072) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(real_rung());
  const Problem p{{128, 96, 131072}};
  const CheckReport planted = check(broken(), p, CheckMode::random);
  EXPECT_FALSE(planted.pass()) << planted.summary();
  EXPECT_EQ(planted.comparison.mismatches, 0) << planted.summary();
  EXPECT_GT(planted.comparison.error_vs_fp64, planted.comparison.error_vs_fp64_allowed);
  const CheckReport real = check(harness_->kernel(real_rung()), p, CheckMode::random);
  EXPECT_TRUE(real.pass()) << real.summary();
  EXPECT_GT(real.comparison.error_vs_fp64_allowed, 0) << "the FP64 rule ran";
}

INSTANTIATE_TEST_SUITE_P(Rungs, PlantedTf32Accuracy,
                         ::testing::Values(RungId::mma_3xtf32, RungId::wgmma_3xtf32,
                                           RungId::every_shape_3xtf32),
                         [](const ::testing::TestParamInfo<RungId>& rung) {
                           return std::string(rung_name(rung.param));
                         });

// Rung 16 with coarse integers: split inputs no longer fit them at K = 4096 (the exact check
// fails), and its error is about 2^11 times rung 16's, above the random check's FP64 rule at
// K = 4096 and at K = 131072. The real rung passes the same checks.
class PlantedCoarseIntegers : public GpuTest {};

TEST_F(PlantedCoarseIntegers, FailsTheFp32Checks) {
  const int real = rung_number(RungId::ozaki_int8);
  SGEMM_SKIP_UNSUPPORTED_RUNG(real);
  const Kernel planted = planted_change(RungId::ozaki_int8, round_lines_coarsely, "coarse");
  for (const Problem& p : {Problem{{256, 192, 4096}}, Problem{{128, 96, 131072}}})
    for (CheckMode mode : {CheckMode::exact, CheckMode::random}) {
      // At K = 131072 the exact check's whole numbers fit even the coarse integers.
      if (mode == CheckMode::exact && p.shape.K > kSplitInputMaxK) continue;
      SCOPED_TRACE(p.str() + " " + to_string(mode));
      const CheckReport broken = harness_->check(planted, p, mode, 3, "planted", Precision::fp32);
      EXPECT_FALSE(broken.pass()) << broken.summary();
      const CheckReport ours =
          harness_->check(harness_->kernel(real), p, mode, 3, "planted", Precision::fp32);
      EXPECT_TRUE(ours.pass()) << ours.summary();
    }
}

// Rung 16 as the rule before its certificate left it (an error bounded by the lines' norms) fails
// the inputs checks (gpu_inputs_test.cpp) in every family of inputs that isolates small
// elements, and the real rung 16 passes the same cases.
class PlantedSpanRule : public GpuTest {};

TEST_F(PlantedSpanRule, FailsTheInputsChecks) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(16);
  const Kernel broken =
      launched([](const Gemm& g,
                  cudaStream_t stream) { return run_normwise(RungId::ozaki_int8, g, stream); },
               "planted ozaki_int8, normwise error");
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
    EXPECT_GT(failures, 0) << "the planted error passed every shape";
  }
}

// Rung 16 with its bound plane over every other k-tile on every input, not only where its sample
// leaves room (a choice forced through entries.h): a sum over part of K of non-negative products
// is still a lower bound of sum_k |a_ik||b_kj|, so whatever it certifies is within the bound, and
// what it no longer certifies goes to the slow path. It passes the inputs checks, at K = 2048 and
// up (an odd number of k-tiles too), in every family of inputs.
class ForcedHalfBound : public GpuTest {};

TEST_F(ForcedHalfBound, StaysWithinTheBoundOnEveryInput) {
  SGEMM_SKIP_UNSUPPORTED_RUNG(16);
  const Kernel half = launched(
      [](const Gemm& g, cudaStream_t stream) {
        return ozaki_int8::launch_half_bound_always(g, stream).error();
      },
      "ozaki_int8, half the bound plane");
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

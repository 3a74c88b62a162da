// FP32's semantics on every rung: Inf, -Inf and NaN in A, B or C, Inf * 0, values near
// FLT_MAX whose products stay finite, products near the bottom of the normal range (where a
// TF32 split's small parts are subnormal), and magnitudes spanning the exponent range. Each
// rung's C is compared element by element with the cuBLAS of its precision class on the same
// inputs: the same class and sign where cuBLAS's element is NaN or infinite, within the random
// mode's tolerance (check.h) where it is finite. Odd shapes, padded leading dimensions and
// misaligned pointers. Skips without a GPU.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gpu_support.h"
#include "seeded_random.h"
#include "sgemm.h"

// Rung 15 with its path and slices of K forced, whatever its choice would be (the kernel file).
namespace sgemm::every_shape_3xtf32 {
cudaError_t launch_config(int path, int slices, const Gemm& gemm, cudaStream_t stream);
}

namespace sgemm::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One problem's host matrices, stored with the problem's leading dimensions. The padding of A
// and B holds NaN (never read), C's the harness's sentinel (never written).
struct Inputs {
  Problem problem;
  std::vector<float> A, B, C0;
  explicit Inputs(const Problem& p) : problem(p) {
    const Shape& s = p.shape;
    A.assign(size_t(s.M) * s.a_ld(), kNaN);
    B.assign(size_t(s.K) * s.b_ld(), kNaN);
    C0.assign(size_t(s.M) * s.c_ld(), kPaddingSentinel);
  }
  float& a(int i, int k) { return A[size_t(i) * problem.shape.a_ld() + k]; }
  float& b(int k, int j) { return B[size_t(k) * problem.shape.b_ld() + j]; }
  float& c(int i, int j) { return C0[size_t(i) * problem.shape.c_ld() + j]; }
};

// What a case does to its inputs: fills every element of A, B and C0 from `random`.
using Filler = std::function<void(Inputs&, SeededRandom&)>;

// A float with a uniformly random significand in [1, 2) times 2^e, random sign.
float random_power(SeededRandom& random, int e) {
  const float significand = 1.f + float(random.uniform_int(0, (1 << 23) - 1)) * 0x1p-23f;
  return std::ldexp(random.uniform_int(0, 1) ? significand : -significand, e);
}

float uniform(SeededRandom& random) {
  return float(random.uniform_int(-(1 << 23), 1 << 23)) * 0x1p-23f;
}

void fill_all(Inputs& in, const std::function<float()>& a, const std::function<float()>& b,
              const std::function<float()>& c) {
  const Shape& s = in.problem.shape;
  for (int i = 0; i < s.M; ++i)
    for (int k = 0; k < s.K; ++k) in.a(i, k) = a();
  for (int k = 0; k < s.K; ++k)
    for (int j = 0; j < s.N; ++j) in.b(k, j) = b();
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j) in.c(i, j) = c();
}

void fill_uniform(Inputs& in, SeededRandom& random) {
  auto u = [&] { return uniform(random); };
  fill_all(in, u, u, u);
}

// Inf, -Inf and NaN at a few positions of A: whole rows of C turn infinite or NaN. Where B's
// row k holds a zero, Inf * 0 makes that element NaN.
void non_finite_in_a(Inputs& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  const float planted[] = {kInf, -kInf, kNaN, kInf};
  for (int n = 0; n < 4; ++n) {
    const int i = (n * 7) % s.M, k = (n * 5 + 3) % s.K;
    in.a(i, k) = planted[n];
    in.b(k, (n * 3) % s.N) = 0.f;  // Inf * 0 (or NaN * 0) for one column
  }
}

void non_finite_in_b(Inputs& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  const float planted[] = {-kInf, kNaN, kInf, kInf};
  for (int n = 0; n < 4; ++n) {
    const int k = (n * 11 + 1) % s.K, j = (n * 13) % s.N;
    in.b(k, j) = planted[n];
    in.a((n * 3 + 1) % s.M, k) = 0.f;  // 0 * Inf for one row
  }
}

// +Inf and -Inf in one row of A, B positive: Inf - Inf, NaN. A row of B all zero under an Inf.
void inf_times_zero(Inputs& in, SeededRandom& random) {
  const Shape& s = in.problem.shape;
  auto positive = [&] { return 0.5f + 0.5f * std::fabs(uniform(random)); };
  auto u = [&] { return uniform(random); };
  fill_all(in, u, positive, u);
  in.a(0, 0) = kInf;
  in.a(0, s.K - 1) = -kInf;  // row 0: +Inf and -Inf terms (the same k when K == 1)
  if (s.M > 1) {
    in.a(s.M - 1, s.K / 2) = kInf;
    for (int j = 0; j < s.N; ++j) in.b(s.K / 2, j) = 0.f;  // row M-1: Inf * 0 everywhere
  }
}

// Inf and NaN in C, read with beta != 0.
void non_finite_in_c(Inputs& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  in.c(0, 0) = kInf;
  in.c(s.M / 2, s.N / 2) = kNaN;
  in.c(s.M - 1, s.N - 1) = -kInf;
}

// A float from its bits.
float from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// A near FLT_MAX: half among the 2^13 largest floats (from 0x7f7ff000 up, rounding to TF32
// overflows to Inf), half anywhere in [2^127, FLT_MAX]. B about 2^-18: products about 2^110
// (1.3e33), sums far below FLT_MAX. Then the other way round.
void near_flt_max(Inputs& in, SeededRandom& random, bool huge_a) {
  auto huge = [&] {
    const uint32_t below = random.uniform_int(0, 1) ? random.uniform_int(0, (1 << 13) - 1)
                                                    : random.uniform_int(0, (1 << 23) - 1);
    const float x = from_bits(0x7f7fffffu - below);
    return random.uniform_int(0, 1) ? x : -x;
  };
  auto tiny = [&] { return random_power(random, -18); };
  auto u = [&] { return uniform(random); };
  if (huge_a)
    fill_all(in, huge, tiny, u);
  else
    fill_all(in, tiny, huge, u);
}

// Products at the bottom of FP32's normal range: |a| in [2^-120, 2^-119), whose TF32 small part
// (about 2^-131) is subnormal, |b| in [2^-6, 2^-5): products near 2^-126.
void bottom_of_normal_range(Inputs& in, SeededRandom& random) {
  auto a = [&] { return random_power(random, -120); };
  auto b = [&] { return random_power(random, -6); };
  auto c = [&] { return random_power(random, -124); };
  fill_all(in, a, b, c);
}

// Magnitudes across the exponent range: a = m 2^e with e uniform in [-60, 50], b likewise:
// products from 2^-120 to 2^100, so every element sums terms 2^200 apart.
void spanning_exponents(Inputs& in, SeededRandom& random) {
  auto x = [&] { return random_power(random, random.uniform_int(-60, 50)); };
  fill_all(in, x, x, x);
}

// NaNs whose payload lies in the low 13 bits, which a TF32 conversion that adds half a TF32
// unit and cuts can turn into Inf: 0x7f800001 and its negative, among uniform inputs.
void nan_payloads(Inputs& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  in.a(0, s.K - 1) = from_bits(0x7f800001u);
  in.b(s.K / 2, s.N - 1) = from_bits(0xff800fffu);
}

// Tiny times huge: |a| from 2^-149 (subnormal) to 2^-110, |b| from 2^100 to 2^120, so that
// products from 2^-49 to 2^10 hold all of a tiny a's bits (a TF32 split keeps steps of 2^-136).
void tiny_times_huge(Inputs& in, SeededRandom& random) {
  auto a = [&] { return random_power(random, random.uniform_int(-149, -110)); };
  auto b = [&] { return random_power(random, random.uniform_int(100, 120)); };
  auto u = [&] { return uniform(random); };
  fill_all(in, a, b, u);
}

// Magnitudes over most of the exponent range, tiny ones included: a and b from 2^-130 to 2^60.
void whole_exponent_range(Inputs& in, SeededRandom& random) {
  auto x = [&] { return random_power(random, random.uniform_int(-130, 60)); };
  fill_all(in, x, x, x);
}

struct Case {
  const char* name;
  Filler fill;
  float alpha, beta;
};

std::vector<Case> cases() {
  using namespace std::placeholders;
  return {
      {"non_finite_in_a", non_finite_in_a, 1.f, 0.f},
      {"non_finite_in_a_alpha_beta", non_finite_in_a, -0.75f, 0.5f},
      {"non_finite_in_b", non_finite_in_b, 1.f, 0.f},
      {"inf_times_zero", inf_times_zero, 2.f, 0.f},
      {"non_finite_in_c", non_finite_in_c, 1.f, -1.5f},
      {"near_flt_max_in_a", std::bind(near_flt_max, _1, _2, true), 1.f, 0.f},
      {"near_flt_max_in_b", std::bind(near_flt_max, _1, _2, false), 0.5f, 1.f},
      {"bottom_of_normal_range", bottom_of_normal_range, 1.f, 0.f},
      {"bottom_of_normal_range_beta", bottom_of_normal_range, 1.f, 1.f},
      {"spanning_exponents", spanning_exponents, 1.f, 0.f},
      {"nan_payloads", nan_payloads, 1.f, 0.f},
      {"tiny_times_huge", tiny_times_huge, 1.f, 0.f},
      {"whole_exponent_range", whole_exponent_range, 1.f, 0.5f},
  };
}

// Odd shapes, padded leading dimensions, and A, B and C 4 bytes past 16-byte alignment.
std::vector<Problem> layouts() {
  Problem misaligned{{64, 72, 96}};
  misaligned.offset = {1, 1, 1};
  Problem padded_misaligned{{130, 67, 257, 257 + 3, 67 + 1, 67 + 5}};
  padded_misaligned.offset = {3, 2, 1};
  return {Problem{{37, 45, 29}}, Problem{{1, 1, 1}}, misaligned, padded_misaligned,
          Problem{{256, 256, 2048}}};
}

// alpha * sum_k |a||b| + |beta| |c0| in FP64: the scale of each element (random mode, check.h).
std::vector<float> magnitudes(const Inputs& in) {
  const Problem& p = in.problem;
  const Shape& s = p.shape;
  std::vector<float> out(size_t(s.M) * s.c_ld(), 0.f);
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j) {
      double sum = 0;
      for (int k = 0; k < s.K; ++k)
        sum += std::fabs(double(in.A[size_t(i) * s.a_ld() + k]) * in.B[size_t(k) * s.b_ld() + j]);
      const double c =
          p.beta == 0.f ? 0.0 : std::fabs(double(p.beta) * in.C0[size_t(i) * s.c_ld() + j]);
      out[size_t(i) * s.c_ld() + j] = float(std::fabs(double(p.alpha)) * sum + c);
    }
  return out;
}

// A host matrix into a fresh device buffer, `offset` floats in.
struct OnDevice {
  DeviceBuffer buffer;
  float* at;
  OnDevice(const std::vector<float>& host, int offset) : buffer(host.size() + offset) {
    at = buffer.get() + offset;
    CUDA_CHECK(cudaMemcpy(at, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};

// A rung through sgemm::launch, or rung 15 on one of its paths: the shapes here are small
// enough that its choice would always take the fused kernel, and the semantics must hold on
// rung 14's pre-pass path and on the sums of slices of K too.
struct Param {
  int rung;
  int path = -1;  // -1: sgemm::launch; 0: rung 15's fused kernel; 1: its pre-pass path
  int slices = 1;
};

class RungSemantics : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    SGEMM_SKIP_WITHOUT_GPU();
    harness_ = std::make_unique<Harness>(0);
    SGEMM_SKIP_UNSUPPORTED_RUNG(GetParam().rung);
  }

  // The rung and the cuBLAS of its class on the same inputs, compared element by element.
  Comparison run_case(const Case& c, Problem p, uint64_t seed) {
    p.alpha = c.alpha;
    p.beta = c.beta;
    Inputs in(p);
    SeededRandom random(seed);
    c.fill(in, random);
    const Shape& s = p.shape;
    const RungInfo& rung = *find_rung(GetParam().rung);
    OnDevice A(in.A, p.offset.a), B(in.B, p.offset.b), C(in.C0, p.offset.c), ref(in.C0, 0);
    const Gemm gemm{s.M, s.N, s.K, p.alpha, A.at, s.a_ld(), B.at, s.b_ld(), p.beta, C.at, s.c_ld()};
    if (GetParam().path < 0) {
      std::string why;
      EXPECT_EQ(launch(rung, gemm, harness_->stream(), &why), Status::ok) << why;
    } else {
      CUDA_CHECK(every_shape_3xtf32::launch_config(GetParam().path, GetParam().slices, gemm,
                                                   harness_->stream()));
    }
    harness_->cublas(rung.precision, gemm_of(p, A.at, B.at, ref.at));
    sync();
    std::vector<float> got(in.C0.size()), expected(in.C0.size());
    CUDA_CHECK(cudaMemcpy(got.data(), C.at, got.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(expected.data(), ref.at, got.size() * 4, cudaMemcpyDeviceToHost));
    const std::vector<float> magnitude = magnitudes(in);
    Reference reference;
    reference.mode = CheckMode::random;
    reference.precision = rung.precision;
    reference.K = s.K;
    reference.alpha = p.alpha;
    reference.beta = p.beta;
    reference.expected = expected.data();
    reference.magnitude = magnitude.data();
    reference.non_finite_inputs = true;
    // Near FP32's subnormal range each of the (K + 4) roundings of either computation may err
    // by half the subnormal spacing, 2^-150, whatever the magnitude.
    reference.absolute_slack = (s.K + 4) * 0x1p-149;
    // The one documented difference of the tf32 class (docs/00_method.md): a NaN whose payload
    // lies in the 13 bits TF32 cuts reaches the tensor core as Inf, where cuBLAS TF32 keeps it
    // NaN. Such elements count here and then compare as NaN; nowhere else is Inf taken for NaN.
    if (rung.precision == Precision::tf32 && std::string(c.name) == "nan_payloads")
      for (size_t at = 0; at < got.size(); ++at)
        if (std::isnan(expected[at]) && std::isinf(got[at])) got[at] = kNaN, ++payload_nans_;
    return compare(reference, s.M, s.N, s.c_ld(), got.data(), kPaddingSentinel);
  }

  void sync() { CUDA_CHECK(cudaStreamSynchronize(harness_->stream())); }

  void expect_case(const char* name) {
    for (const Case& c : cases()) {
      if (std::string(c.name) != name) continue;
      uint64_t seed = 1;
      for (const Problem& p : layouts()) {
        SCOPED_TRACE(std::string(name) + " " + p.str());
        const Comparison result = run_case(c, p, seed++);
        EXPECT_TRUE(result.pass) << result.summary();
      }
      return;
    }
    FAIL() << "no case " << name;
  }

  std::unique_ptr<Harness> harness_;
  long long payload_nans_ = 0;  // tf32 rung: NaN payloads that came out Inf (see run_case)
};

TEST_P(RungSemantics, NonFiniteInA) { expect_case("non_finite_in_a"); }
TEST_P(RungSemantics, NonFiniteInAWithAlphaBeta) { expect_case("non_finite_in_a_alpha_beta"); }
TEST_P(RungSemantics, NonFiniteInB) { expect_case("non_finite_in_b"); }
TEST_P(RungSemantics, InfTimesZero) { expect_case("inf_times_zero"); }
TEST_P(RungSemantics, NonFiniteInC) { expect_case("non_finite_in_c"); }
TEST_P(RungSemantics, NearFltMaxInA) { expect_case("near_flt_max_in_a"); }
TEST_P(RungSemantics, NearFltMaxInB) { expect_case("near_flt_max_in_b"); }
TEST_P(RungSemantics, BottomOfNormalRange) { expect_case("bottom_of_normal_range"); }
TEST_P(RungSemantics, BottomOfNormalRangeWithBeta) { expect_case("bottom_of_normal_range_beta"); }
TEST_P(RungSemantics, SpanningExponents) { expect_case("spanning_exponents"); }
TEST_P(RungSemantics, NanPayloads) {
  expect_case("nan_payloads");
  if (find_rung(GetParam().rung)->precision == Precision::tf32) {
    EXPECT_GT(payload_nans_, 0) << "the documented Inf for a NaN payload is gone: update the docs";
  }
}
TEST_P(RungSemantics, TinyTimesHuge) { expect_case("tiny_times_huge"); }
TEST_P(RungSemantics, WholeExponentRange) { expect_case("whole_exponent_range"); }

// Every rung, then rung 15's paths: the fused kernel with 1 and 3 slices, the pre-pass path
// with 1 and 2 (with several, the sum kernel runs the guard path).
std::vector<Param> every_rung() {
  std::vector<Param> params;
  for (const RungInfo& rung : rungs()) params.push_back({rung.number});
  for (const auto& [path, slices] : {std::pair{0, 1}, {0, 3}, {1, 1}, {1, 2}})
    params.push_back({15, path, slices});
  return params;
}

INSTANTIATE_TEST_SUITE_P(Ladder, RungSemantics, ::testing::ValuesIn(every_rung()),
                         [](const ::testing::TestParamInfo<Param>& instance) {
                           const Param& p = instance.param;
                           std::string name = std::string(p.rung < 10 ? "0" : "") +
                                              std::to_string(p.rung) + "_" +
                                              find_rung(p.rung)->name;
                           if (p.path >= 0)
                             name += std::string(p.path == 0 ? "_fused_" : "_prepass_") +
                                     std::to_string(p.slices) +
                                     (p.slices == 1 ? "_slice" : "_slices");
                           return name;
                         });

}  // namespace
}  // namespace sgemm::testing

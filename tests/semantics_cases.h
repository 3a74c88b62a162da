// The FP32 semantics cases that the GPU tests share (gpu_semantics_test for every rung,
// gpu_ops_test for every layout and op of the one call): host inputs with Inf, NaN, values near
// FLT_MAX, products near the bottom of the normal range, magnitudes across the exponent range,
// filled by op(A)'s, op(B)'s and C's own indices wherever the problem's shape stores them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "gpu_support.h"
#include "seeded_random.h"

namespace sgemm::testing {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One problem's host matrices, stored as the problem's shape says (its leading dimensions, and
// its layout and ops: a(i, k) is op(A)'s element wherever A holds it). The padding of A and B
// holds NaN (never read), C's the harness's sentinel (never written).
struct HostProblem {
  Problem problem;
  std::vector<float> A, B, C0;
  explicit HostProblem(const Problem& p) : problem(p) {
    const Shape& s = p.shape;
    A.assign(size_t(s.a_stored().lines) * s.a_ld(), kNaN);
    B.assign(size_t(s.b_stored().lines) * s.b_ld(), kNaN);
    C0.assign(size_t(s.c_stored().lines) * s.c_ld(), kPaddingSentinel);
  }
  // Where element (row, col) of a rows x cols operand lies, stored transposed or not.
  static size_t at(int row, int col, bool transposed, int ld) {
    return transposed ? size_t(col) * ld + row : size_t(row) * ld + col;
  }
  size_t a_at(int i, int k) const {
    return at(i, k, problem.shape.a_transposed(), problem.shape.a_ld());
  }
  size_t b_at(int k, int j) const {
    return at(k, j, problem.shape.b_transposed(), problem.shape.b_ld());
  }
  size_t c_at(int i, int j) const {
    return at(i, j, problem.shape.c_transposed(), problem.shape.c_ld());
  }
  float& a(int i, int k) { return A[a_at(i, k)]; }
  float& b(int k, int j) { return B[b_at(k, j)]; }
  float& c(int i, int j) { return C0[c_at(i, j)]; }
};

// What a case does to its inputs: fills every element of A, B and C0 from `random`.
using Filler = std::function<void(HostProblem&, SeededRandom&)>;

// A float with a uniformly random significand in [1, 2) times 2^e, random sign.
inline float random_power(SeededRandom& random, int e) {
  const float significand = 1.f + float(random.uniform_int(0, (1 << 23) - 1)) * 0x1p-23f;
  return std::ldexp(random.uniform_int(0, 1) ? significand : -significand, e);
}

inline float uniform(SeededRandom& random) {
  return float(random.uniform_int(-(1 << 23), 1 << 23)) * 0x1p-23f;
}

inline void fill_all(HostProblem& in, const std::function<float()>& a,
                     const std::function<float()>& b, const std::function<float()>& c) {
  const Shape& s = in.problem.shape;
  for (int i = 0; i < s.M; ++i)
    for (int k = 0; k < s.K; ++k) in.a(i, k) = a();
  for (int k = 0; k < s.K; ++k)
    for (int j = 0; j < s.N; ++j) in.b(k, j) = b();
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j) in.c(i, j) = c();
}

inline void fill_uniform(HostProblem& in, SeededRandom& random) {
  auto u = [&] { return uniform(random); };
  fill_all(in, u, u, u);
}

// Inf, -Inf and NaN at a few positions of A: whole rows of C turn infinite or NaN. Where B's
// row k holds a zero, Inf * 0 makes that element NaN.
inline void non_finite_in_a(HostProblem& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  const float planted[] = {kInf, -kInf, kNaN, kInf};
  for (int n = 0; n < 4; ++n) {
    const int i = (n * 7) % s.M, k = (n * 5 + 3) % s.K;
    in.a(i, k) = planted[n];
    in.b(k, (n * 3) % s.N) = 0.f;  // Inf * 0 (or NaN * 0) for one column
  }
}

inline void non_finite_in_b(HostProblem& in, SeededRandom& random) {
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
inline void inf_times_zero(HostProblem& in, SeededRandom& random) {
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
inline void non_finite_in_c(HostProblem& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  in.c(0, 0) = kInf;
  in.c(s.M / 2, s.N / 2) = kNaN;
  in.c(s.M - 1, s.N - 1) = -kInf;
}

// A float from its bits.
inline float from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// A near FLT_MAX: half among the 2^13 largest floats (from 0x7f7ff000 up, rounding to TF32
// overflows to Inf), half anywhere in [2^127, FLT_MAX]. B about 2^-18: products about 2^110
// (1.3e33), sums far below FLT_MAX. Then the other way round.
inline void near_flt_max(HostProblem& in, SeededRandom& random, bool huge_a) {
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
inline void bottom_of_normal_range(HostProblem& in, SeededRandom& random) {
  auto a = [&] { return random_power(random, -120); };
  auto b = [&] { return random_power(random, -6); };
  auto c = [&] { return random_power(random, -124); };
  fill_all(in, a, b, c);
}

// Magnitudes across the exponent range: a = m 2^e with e uniform in [-60, 50], b likewise:
// products from 2^-120 to 2^100, so every element sums terms 2^200 apart.
inline void spanning_exponents(HostProblem& in, SeededRandom& random) {
  auto x = [&] { return random_power(random, random.uniform_int(-60, 50)); };
  fill_all(in, x, x, x);
}

// NaNs whose payload lies in the low 13 bits, which a TF32 conversion that adds half a TF32
// unit and cuts can turn into Inf: 0x7f800001 and its negative, among uniform inputs.
inline void nan_payloads(HostProblem& in, SeededRandom& random) {
  fill_uniform(in, random);
  const Shape& s = in.problem.shape;
  in.a(0, s.K - 1) = from_bits(0x7f800001u);
  in.b(s.K / 2, s.N - 1) = from_bits(0xff800fffu);
}

// Tiny times huge: |a| from 2^-149 (subnormal) to 2^-110, |b| from 2^100 to 2^120, so that
// products from 2^-49 to 2^10 hold all of a tiny a's bits (a TF32 split keeps steps of 2^-136).
inline void tiny_times_huge(HostProblem& in, SeededRandom& random) {
  auto a = [&] { return random_power(random, random.uniform_int(-149, -110)); };
  auto b = [&] { return random_power(random, random.uniform_int(100, 120)); };
  auto u = [&] { return uniform(random); };
  fill_all(in, a, b, u);
}

// Magnitudes over most of the exponent range, tiny ones included: a and b from 2^-130 to 2^60.
inline void whole_exponent_range(HostProblem& in, SeededRandom& random) {
  auto x = [&] { return random_power(random, random.uniform_int(-130, 60)); };
  fill_all(in, x, x, x);
}

struct Case {
  const char* name;
  Filler fill;
  float alpha, beta;
};

inline std::vector<Case> cases() {
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

// alpha * sum_k |a||b| + |beta| |c0| in FP64: the scale of each element (random mode, check.h).
// Stored as C is (HostProblem::c_at).
inline std::vector<float> magnitudes(const HostProblem& in) {
  const Problem& p = in.problem;
  const Shape& s = p.shape;
  std::vector<float> out(in.C0.size(), 0.f);
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j) {
      double sum = 0;
      for (int k = 0; k < s.K; ++k)
        sum += std::fabs(double(in.A[in.a_at(i, k)]) * in.B[in.b_at(k, j)]);
      const double c = p.beta == 0.f ? 0.0 : std::fabs(double(p.beta) * in.C0[in.c_at(i, j)]);
      out[in.c_at(i, j)] = float(std::fabs(double(p.alpha)) * sum + c);
    }
  return out;
}

// The random-mode check every semantics test makes against the cuBLAS of `precision`:
// tolerance on each element's magnitude (above), Inf and NaN among the inputs, and the slack of
// subnormal steps: near FP32's subnormal range each of the (K + 4) roundings of either
// computation may err by half the subnormal spacing, 2^-150, whatever the magnitude.
inline Reference semantics_reference(const Problem& p, Precision precision, const float* expected,
                                     const float* magnitude) {
  Reference reference;
  reference.mode = CheckMode::random;
  reference.precision = precision;
  reference.K = p.shape.K;
  reference.alpha = p.alpha;
  reference.beta = p.beta;
  reference.expected = expected;
  reference.magnitude = magnitude;
  reference.non_finite_inputs = true;
  reference.absolute_slack = (p.shape.K + 4) * 0x1p-149;
  return reference;
}

}  // namespace sgemm::testing

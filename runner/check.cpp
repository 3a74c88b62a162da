#include "check.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace sgemm {

const char* to_string(CheckMode mode) { return mode == CheckMode::exact ? "exact" : "random"; }

std::string Shape::str() const {
  std::ostringstream out;
  out << M << "x" << N << "x" << K;
  if (!op.is_rungs_own()) out << " " << op.str();
  if (a_ld() != a_stored().length || b_ld() != b_stored().length || c_ld() != c_stored().length)
    out << " lda=" << a_ld() << " ldb=" << b_ld() << " ldc=" << c_ld();
  return out.str();
}

namespace {

constexpr double kTwo24 = 16777216.0;  // 2^24: FP32 holds every whole number up to it

// The largest |sum over k| of whole-number inputs in [-kExactInputMax, kExactInputMax].
double largest_sum(int K) { return double(kExactInputMax) * kExactInputMax * K; }

// The unit every sum of split inputs is a multiple of, and their largest |sum| in that unit.
constexpr double kSplitUnit = 1.0 / 2048.0;
double largest_split_sum_units(int K) { return K * (1.0 + kSplitUnit) / kSplitUnit; }

}  // namespace

ExactInputs exact_inputs(Precision precision, int K) {
  return precision == Precision::fp32 && K <= kSplitInputMaxK ? ExactInputs::split
                                                              : ExactInputs::whole;
}

const char* to_string(ExactInputs inputs) {
  return inputs == ExactInputs::split ? "split" : "whole";
}

std::string exact_mode_obstacle(float alpha, float beta, int K) {
  char why[256];
  if (largest_sum(K) >= kTwo24) {
    std::snprintf(why, sizeof why,
                  "K = %d is too large: sums of whole numbers up to %d reach %.0f, and FP32 "
                  "sums are exact only below 2^24",
                  K, kExactInputMax * kExactInputMax, largest_sum(K));
    return why;
  }
  const double largest =
      std::fabs(double(alpha)) * largest_sum(K) + std::fabs(double(beta)) * kExactInputMax;
  if (largest >= 0.5 * FLT_MAX) {
    std::snprintf(why, sizeof why,
                  "alpha = %g and beta = %g could take the result to %.3g, beyond FP32's range",
                  alpha, beta, largest);
    return why;
  }
  return "";
}

bool exact_epilogue(float alpha, float beta, int K, ExactInputs inputs) {
  const double a16 = double(alpha) * 16, b16 = double(beta) * 16;
  if (a16 != std::floor(a16) || b16 != std::floor(b16)) return false;
  // Sums and C0 in units of the sum's unit (C0 holds whole numbers in both input sets).
  const bool split = inputs == ExactInputs::split;
  const double sum = split ? largest_split_sum_units(K) : largest_sum(K);
  const double c0 = kExactInputMax * (split ? 1 / kSplitUnit : 1.0);
  const double largest = std::fabs(a16) * sum + std::fabs(b16) * c0;
  return sum < kTwo24 && largest < kTwo24;
}

CheckPlan plan_checks(ChecksToRun requested, float alpha, float beta, int K) {
  CheckPlan plan;
  const std::string obstacle = exact_mode_obstacle(alpha, beta, K);
  switch (requested) {
    case ChecksToRun::none:
      break;
    case ChecksToRun::random:
      plan.modes = {CheckMode::random};
      break;
    case ChecksToRun::exact:
      if (obstacle.empty())
        plan.modes = {CheckMode::exact};
      else
        plan.error = "the exact check cannot run: " + obstacle;
      break;
    case ChecksToRun::both:
      plan.modes = {CheckMode::random};
      if (obstacle.empty())
        plan.modes.insert(plan.modes.begin(), CheckMode::exact);
      else
        plan.note = "exact check impossible: " + obstacle;
      break;
  }
  return plan;
}

double random_tolerance(int K, Precision precision) {
  // Each of the two computations (ours, the reference) rounds at most K + 2 times per
  // element. The worst case is (K + 2) u |magnitude| each; rounding errors of random data
  // behave like a random walk, so we use sqrt(K) instead of K, with a factor of 2 for the
  // two computations and a floor of 4 roundings for the alpha/beta epilogue.
  const double sums = (2.0 * std::sqrt(static_cast<double>(K)) + 4.0) * kFp32Unit;
  if (precision == Precision::fp32) return sums;
  // TF32 inputs: a and b each lose up to 2 u_tf32 (truncation; rounding loses half that), so
  // a product errs by up to 2 * 2 u_tf32 |a||b| and a sum of them by that much of the
  // magnitude, whatever K. Worst case, not a random walk: the errors of truncation lean one
  // way. Twice again for the two computations.
  return sums + 2.0 * 2.0 * (2.0 * kTf32Unit);
}

void apply_fp64_bound(Comparison& comparison, double rel_error, int K, Precision precision) {
  comparison.error_vs_fp64 = rel_error;
  comparison.error_vs_fp64_allowed = random_tolerance(K, precision);
  if (!(rel_error <= comparison.error_vs_fp64_allowed)) comparison.pass = false;  // NaN fails
}

namespace {

struct Expectation {
  double value;    // what the element must be
  double allowed;  // how far from it a correct kernel may land
};

// One element of `r`; `exact_scalars` is exact_epilogue(alpha, beta, K).
Expectation expectation(const Reference& r, size_t at, bool exact_scalars) {
  if (r.mode == CheckMode::random && r.alpha != 0.f)
    return {double(r.expected[at]),
            random_tolerance(r.K, r.precision) * double(r.magnitude[at]) + r.absolute_slack};
  // alpha * sum + beta * C0 in FP64, where both products are exact; the terms BLAS does not
  // read (A and B when alpha == 0, C0 when beta == 0) take no part, so NaN there cannot leak.
  const double product = r.alpha == 0.f ? 0.0 : double(r.alpha) * r.sum[at];
  const double scaled = r.beta == 0.f ? 0.0 : double(r.beta) * r.c0[at];
  const double allowed =
      exact_scalars ? 0.0
                    : kEpilogueRoundings * kFp32Unit * (std::fabs(product) + std::fabs(scaled));
  return {product + scaled, allowed};
}

// The same IEEE class: NaN and NaN, or the same infinity (both checked before any error).
bool same_non_finite(double got, double expected) {
  return std::isnan(expected) ? std::isnan(got) : std::isinf(expected) && got == expected;
}

}  // namespace

std::string Comparison::summary() const {
  if (pass) return "PASS";
  std::ostringstream out;
  out.precision(9);
  out << "FAIL:";
  if (mismatches) out << " " << mismatches << " mismatching element(s)";
  if (padding_changed) out << " " << padding_changed << " padding element(s) overwritten";
  if (!first.empty())
    out << "; first at (" << first[0].row << ", " << first[0].col << "): got " << first[0].got
        << ", expected " << first[0].expected;
  if (error_vs_fp64_allowed > 0 && !(error_vs_fp64 <= error_vs_fp64_allowed))
    out << "; error vs FP64 " << error_vs_fp64 << " above the allowed " << error_vs_fp64_allowed;
  return out.str();
}

Comparison compare(const Reference& reference, int M, int N, int ldc, const float* got,
                   float padding, int max_reported) {
  Comparison result;
  const bool exact_scalars =
      exact_epilogue(reference.alpha, reference.beta, reference.K, reference.inputs);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < ldc; ++j) {
      const long long at = static_cast<long long>(i) * ldc + j;
      if (j >= N) {  // padding: must be untouched (compare bits, the sentinel may be NaN)
        const bool same = std::isnan(padding) ? std::isnan(got[at]) : got[at] == padding;
        if (!same) {
          ++result.padding_changed;
          result.pass = false;
        }
        continue;
      }
      const Expectation e = expectation(reference, at, exact_scalars);
      const double g = got[at];
      // Equal values pass, Inf == Inf included; otherwise the error must be within bounds.
      // Every comparison with NaN is false, so NaN fails (and NaN == NaN is never a pass),
      // unless the inputs held Inf or NaN and the reference's element is NaN too.
      if (reference.non_finite_inputs && !std::isfinite(e.value)) {
        if (same_non_finite(g, e.value)) continue;
        result.pass = false;
        result.max_abs_error = INFINITY;
        result.max_error_ratio = INFINITY;
        if (result.mismatches++ < max_reported) result.first.push_back({i, j, got[at], e.value});
        continue;
      }
      const bool equal = g == e.value;
      const double error = equal ? 0.0 : std::fabs(g - e.value);  // NaN or inf possible
      const bool ok = equal || error <= e.allowed;
      if (!equal) {
        result.max_abs_error =
            std::isnan(error) ? INFINITY : std::fmax(result.max_abs_error, error);
        const double ratio = e.allowed > 0 ? error / e.allowed : INFINITY;
        result.max_error_ratio =
            std::isnan(ratio) ? INFINITY : std::fmax(result.max_error_ratio, ratio);
      }
      if (ok) continue;
      result.pass = false;
      if (result.mismatches++ < max_reported) result.first.push_back({i, j, got[at], e.value});
    }
  }
  return result;
}

std::vector<double> expected_values(const Reference& reference, int M, int ldc) {
  const bool exact_scalars =
      exact_epilogue(reference.alpha, reference.beta, reference.K, reference.inputs);
  std::vector<double> values(static_cast<size_t>(M) * ldc);
  for (size_t at = 0; at < values.size(); ++at)
    values[at] = expectation(reference, at, exact_scalars).value;
  return values;
}

namespace {

template <typename T>
void write_matrix(std::ostream& out, const char* name, const std::vector<T>& m, int rows, int cols,
                  int ld) {
  out << name << " (" << rows << " x " << cols << ", ld " << ld << ")\n";
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) out << (j ? " " : "") << m[static_cast<size_t>(i) * ld + j];
    out << "\n";
  }
  out << "\n";
}

}  // namespace

std::string dump_failure(const std::string& path, const Shape& shape, const std::vector<float>& A,
                         const std::vector<float>& B, const std::vector<float>& C0,
                         const std::vector<float>& got, const std::vector<double>& expected) {
  if (shape.M > kMaxDumpDimension || shape.N > kMaxDumpDimension || shape.K > kMaxDumpDimension)
    return "";
  std::ofstream out(path);
  if (!out) return "";
  out.precision(9);
  // Each matrix as it lies in memory, row by row: for column-major, its transpose.
  out << "# SGEMM failure dump, "
      << (shape.op.is_rungs_own() ? "row-major" : "as stored, row by row") << ", shape "
      << shape.str() << "\n\n";
  const Extent a = shape.a_stored(), b = shape.b_stored(), c = shape.c_stored();
  write_matrix(out, "A", A, a.lines, a.length, shape.a_ld());
  write_matrix(out, "B", B, b.lines, b.length, shape.b_ld());
  write_matrix(out, "C before", C0, c.lines, c.length, shape.c_ld());
  write_matrix(out, "C got", got, c.lines, c.length, shape.c_ld());
  write_matrix(out, "C expected", expected, c.lines, c.length, shape.c_ld());
  return out ? path : "";
}

std::string CheckReport::summary() const {
  std::string text = std::string(to_string(mode)) + " " + comparison.summary();
  if (!dump_path.empty()) text += " (inputs and results written to " + dump_path + ")";
  return text;
}

}  // namespace sgemm

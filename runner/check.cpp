#include "check.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace sgemm {

const char* to_string(CheckMode mode) { return mode == CheckMode::exact ? "exact" : "random"; }

std::string Shape::str() const {
  std::ostringstream out;
  out << M << "x" << N << "x" << K;
  if (a_ld() != K || b_ld() != N || c_ld() != N)
    out << " lda=" << a_ld() << " ldb=" << b_ld() << " ldc=" << c_ld();
  return out.str();
}

double random_tolerance(int K) {
  // Each of the two computations (ours, cuBLAS) rounds at most K + 2 times per element.
  // The worst case bound is (K + 2) u |magnitude| each; rounding errors of random data
  // behave like a random walk, so we use sqrt(K) instead of K, with a factor of 2 for the
  // two computations and a floor of 4 roundings for the alpha/beta epilogue.
  return (2.0 * std::sqrt(static_cast<double>(K)) + 4.0) * kFp32Unit;
}

bool exact_mode_possible(float alpha, float beta, int K) {
  const double a16 = static_cast<double>(alpha) * 16, b16 = static_cast<double>(beta) * 16;
  if (a16 != std::floor(a16) || b16 != std::floor(b16)) return false;
  const double max_product = static_cast<double>(kExactInputMax) * kExactInputMax;
  const double largest = std::fabs(a16) * max_product * K + std::fabs(b16) * kExactInputMax;
  return max_product * K < (1 << 24) && largest < (1 << 24);
}

std::string Comparison::summary() const {
  if (pass) return "PASS";
  std::ostringstream out;
  out << "FAIL:";
  if (mismatches) out << " " << mismatches << " mismatching element(s)";
  if (padding_changed) out << " " << padding_changed << " padding element(s) overwritten";
  if (!first.empty())
    out << "; first at (" << first[0].row << ", " << first[0].col << "): got " << first[0].got
        << ", expected " << first[0].expected;
  return out.str();
}

Comparison compare(CheckMode mode, int M, int N, int K, int ldc, const float* got,
                   const float* expected, const float* magnitude, float padding, int max_reported) {
  Comparison result;
  const double tolerance = random_tolerance(K);
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
      const double g = got[at], e = expected[at];
      const double error = std::fabs(g - e);  // NaN if either is NaN
      bool ok;
      if (mode == CheckMode::exact) {
        ok = g == e;  // false for NaN
      } else {
        const double limit = tolerance * magnitude[at];
        ok = error <= limit;  // false for NaN
        if (limit > 0)
          result.max_error_ratio = std::fmax(result.max_error_ratio, error / limit);
        else if (error > 0)
          result.max_error_ratio = INFINITY;
      }
      if (std::isnan(error))
        result.max_abs_error = INFINITY;
      else
        result.max_abs_error = std::fmax(result.max_abs_error, error);
      if (ok) continue;
      result.pass = false;
      if (result.mismatches++ < max_reported) result.first.push_back({i, j, got[at], expected[at]});
    }
  }
  return result;
}

namespace {

void write_matrix(std::ostream& out, const char* name, const std::vector<float>& m, int rows,
                  int cols, int ld) {
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
                         const std::vector<float>& got, const std::vector<float>& expected) {
  if (shape.M > kMaxDumpDimension || shape.N > kMaxDumpDimension || shape.K > kMaxDumpDimension)
    return "";
  std::ofstream out(path);
  if (!out) return "";
  out.precision(9);
  out << "# SGEMM failure dump, row-major, shape " << shape.str() << "\n\n";
  write_matrix(out, "A", A, shape.M, shape.K, shape.a_ld());
  write_matrix(out, "B", B, shape.K, shape.N, shape.b_ld());
  write_matrix(out, "C before", C0, shape.M, shape.N, shape.c_ld());
  write_matrix(out, "C got", got, shape.M, shape.N, shape.c_ld());
  write_matrix(out, "C expected (cuBLAS)", expected, shape.M, shape.N, shape.c_ld());
  return out ? path : "";
}

}  // namespace sgemm

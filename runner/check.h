// Validation rules, on the host: compare a rung's C with cuBLAS's. No CUDA here, so the
// rules are tested on machines without a GPU. docs/00_method.md explains them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sgemm {

enum class CheckMode {
  exact,   // small whole-number inputs: every FP32 sum is exact, compare for equality
  random,  // uniform random inputs in [-1, 1): compare within a K-derived tolerance
};

const char* to_string(CheckMode mode);

// Shape of one problem. A leading dimension of 0 means "tight" (the row length).
struct Shape {
  int M = 0, N = 0, K = 0;
  int lda = 0, ldb = 0, ldc = 0;
  int a_ld() const { return lda ? lda : K; }
  int b_ld() const { return ldb ? ldb : N; }
  int c_ld() const { return ldc ? ldc : N; }
  std::string str() const;  // "1000x1000x1000", plus " lda=.. ldb=.. ldc=.." when padded
};

// The unit roundoff of FP32, 2^-24.
constexpr double kFp32Unit = 1.0 / 16777216.0;

// Random mode: |got - expected| <= random_tolerance(K) * magnitude, where magnitude is
// |alpha| * sum_k |A[i][k]| |B[k][j]| + |beta| |C0[i][j]| for that element.
double random_tolerance(int K);

// Exact mode works when alpha and beta are multiples of 1/16 and every partial result
// stays below 2^24 in units of 1/16 for whole-number inputs bounded by kExactInputMax.
constexpr int kExactInputMax = 2;  // exact-mode inputs are whole numbers in [-2, 2]
bool exact_mode_possible(float alpha, float beta, int K);

struct Mismatch {
  int row, col;
  float got, expected;
};

struct Comparison {
  bool pass = true;
  long long mismatches = 0;       // elements of C outside the rule (NaN counts)
  long long padding_changed = 0;  // elements of C's padding (cols N..ldc-1) that were written
  double max_abs_error = 0;       // largest |got - expected| (inf when NaN appears)
  double max_error_ratio = 0;     // largest |got - expected| / tolerance (random mode)
  std::vector<Mismatch> first;    // the first few mismatches, row-major order
  std::string summary() const;    // one line: "PASS" or "FAIL: 3 mismatches, first (r, c) ..."
};

// Compares an M x N result held with leading dimension ldc. `magnitude` (random mode only)
// has the same layout. `padding` is the value the padding columns must still hold.
Comparison compare(CheckMode mode, int M, int N, int K, int ldc, const float* got,
                   const float* expected, const float* magnitude, float padding,
                   int max_reported = 10);

// Writes the inputs and both results as text, for small failing problems. Returns the
// path written, or "" when the problem is too large to be worth dumping.
std::string dump_failure(const std::string& path, const Shape& shape, const std::vector<float>& A,
                         const std::vector<float>& B, const std::vector<float>& C0,
                         const std::vector<float>& got, const std::vector<float>& expected);

constexpr int kMaxDumpDimension = 64;

}  // namespace sgemm

// Validation rules, on the host: compare a rung's C with its reference. No CUDA here, so the
// rules are tested on machines without a GPU. docs/00_method.md explains and derives them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sgemm/sgemm.h"  // Precision

namespace sgemm {

enum class CheckMode {
  exact,   // whole-number inputs: every sum over k is exact; only the epilogue may round
  random,  // uniform random inputs in [-1, 1): compare within a K-derived tolerance
};

const char* to_string(CheckMode mode);

// Which checks a user asked for (--check); plan_checks() turns it into modes to run.
enum class ChecksToRun { both, exact, random, none };

// Shape of one problem: C = op(A) op(B) is M x N, op(A) M x K, op(B) K x N, the matrices stored
// as `op` says (sgemm.h: Operation; row-major N, N unless asked). A leading dimension of 0 means
// "tight" (the length of a stored row, or of a stored column in column-major).
struct Shape {
  int M = 0, N = 0, K = 0;
  int lda = 0, ldb = 0, ldc = 0;
  Operation op = {};
  // How each matrix lies in memory, in row-major terms (sgemm.h: stored_extent): A is
  // a_stored().lines rows of a_stored().length elements, a_ld() apart. M, K and K, N and M, N
  // for the rungs' own problem.
  Extent a_stored() const { return stored_extent(op.layout, op.a, M, K); }
  Extent b_stored() const { return stored_extent(op.layout, op.b, K, N); }
  Extent c_stored() const { return stored_extent(op.layout, Op::N, M, N); }
  // Whether A is stored, in row-major terms, as the transpose of op(A), K x M, not M x K (B as
  // N x K, not K x N; C as N x M, not M x N): then the index along K is the stored row's.
  bool a_transposed() const { return (op.a == Op::N) != (op.layout == Layout::row_major); }
  bool b_transposed() const { return (op.b == Op::N) != (op.layout == Layout::row_major); }
  bool c_transposed() const { return op.layout == Layout::col_major; }
  int a_ld() const { return lda ? lda : a_stored().length; }
  int b_ld() const { return ldb ? ldb : b_stored().length; }
  int c_ld() const { return ldc ? ldc : c_stored().length; }
  // "1000x1000x1000", plus " col TN" unless row-major N, N, plus " lda=.. ldb=.. ldc=.." when
  // padded
  std::string str() const;
};

// The unit roundoff of FP32, 2^-24.
constexpr double kFp32Unit = 1.0 / 16777216.0;

// The unit roundoff of TF32 (10 stored mantissa bits), 2^-11. Converting FP32 to TF32 by
// truncation, as tensor cores do with raw FP32 bits, errs by up to twice that.
constexpr double kTf32Unit = 1.0 / 2048.0;

// Exact-mode inputs are whole numbers in [-kExactInputMax, kExactInputMax].
constexpr int kExactInputMax = 2;

// The inputs of an exact check (docs/00_method.md).
//   whole: whole numbers in [-kExactInputMax, kExactInputMax], for any K below 2^22.
//   split: inputs whose TF32 split is not trivial, for an fp32 rung when K <= kSplitInputMaxK:
//          A[i][k] = w (1 + 2^-11) for even k and w for odd k, B[k][j] = w for even k and
//          w (1 + 2^-11) for odd k, w a whole number in [-1, 1]. Every product has one factor
//          of 12 significant bits, one more than TF32 holds, so a 3xTF32 kernel that drops its
//          small products misses 2^-11 of every nonzero product. Every product is a multiple
//          of 2^-11 no larger than 1 + 2^-11, so every partial sum, in any order, is one below
//          K (1 + 2^-11) < 2^13: exact in FP32. A tf32 rung cannot hold the 12th bit, so it
//          gets whole numbers.
enum class ExactInputs { whole, split };
constexpr int kSplitInputMaxK = 8188;  // K (2^11 + 1) < 2^24: every sum of split inputs exact
ExactInputs exact_inputs(Precision precision, int K);
const char* to_string(ExactInputs inputs);  // "whole", "split"

// The one policy for what a check may run, shared by the CLI, the bench, the autotuner and
// the tests: the modes to run, or the reason a requested mode is impossible for this problem.
struct CheckPlan {
  std::vector<CheckMode> modes;  // in order; empty with --check none, or on error
  std::string note;              // why a mode of `both` does not run ("" when both do)
  std::string error;             // why the requested check cannot run ("" when it can)
};
CheckPlan plan_checks(ChecksToRun requested, float alpha, float beta, int K);

// Why exact mode cannot check a problem with this K, alpha and beta ("" when it can): the sum
// over k must stay below 2^24 and the result inside FP32's range.
std::string exact_mode_obstacle(float alpha, float beta, int K);

// True when alpha * sum + beta * C0 is exactly representable for every exact-mode input
// (alpha and beta multiples of 1/16, every partial result below 2^24 sixteenths of the sum's
// unit: 1 for whole inputs, 2^-11 for split ones): then the exact check is equality.
// Otherwise it allows the epilogue's roundings, and only those.
bool exact_epilogue(float alpha, float beta, int K, ExactInputs inputs = ExactInputs::whole);

// Exact mode, inexact epilogue: |got - expected| <= kEpilogueRoundings * u * (|alpha * sum| +
// |beta * C0|). Three roundings at most (alpha*sum, beta*C0, their sum; fewer with FMA).
constexpr double kEpilogueRoundings = 3;

// Random mode: |got - expected| <= random_tolerance(K, precision) * magnitude, where
// magnitude is |alpha| * sum_k |A[i][k]| |B[k][j]| + |beta| |C0[i][j]| for that element and
// expected comes from the FP64 product of the same inputs rounded once (fp32 rungs: cuBLAS
// SGEMM's own error reaches the tolerance on wide-range inputs), or from cuBLAS TF32 (tf32).
//   fp32: (2 sqrt(K) + 4) u, u = 2^-24: the rounding of the sums, twice (ours, cuBLAS's).
//   tf32: that plus 2 * 2 * (2 u_tf32): each product of inputs converted to TF32 (rounded or
//         truncated) errs by up to 2 * 2 u_tf32 of |a||b|, in ours and in cuBLAS's.
double random_tolerance(int K, Precision precision = Precision::fp32);

// Random mode, second rule: the result's relative Frobenius error against the FP64 product of
// the same inputs, ||C - C64||_F / ||C64||_F, may be at most random_tolerance(K, precision).
// The per-element rule above is relative to sum_k |a||b|, about K/4 for these inputs, while
// C itself is about sqrt(K)/3: at long K a kernel that computes at TF32 accuracy (relative
// error ~2.6e-4 at every K) passes it but not this rule (7.9e-6 at K = 4096, 4.3e-5 at
// K = 131072; FP32 kernels measure 0.2-0.4 sqrt(K) u). apply_fp64_bound (below) applies it.

// What a result is compared with, element by element, all M x N with leading dimension ldc.
//   exact mode:  expected = alpha * sum + beta * c0, computed in FP64 from the exact sum.
//   random mode: expected = the reference's C (above), within random_tolerance(K) * magnitude.
// With alpha == 0 the sum, A and B play no part (BLAS: they are not read) in either mode:
// expected = beta * c0, and with beta == 0 as well, exactly 0. With beta == 0, c0 is not used.
struct Reference {
  CheckMode mode = CheckMode::exact;
  Precision precision = Precision::fp32;    // random mode's tolerance; exact mode is exact for both
  ExactInputs inputs = ExactInputs::whole;  // exact mode: what the sums were made of
  int K = 1;
  float alpha = 1.f, beta = 0.f;
  const float* sum = nullptr;        // exact mode: sum_k A[i][k] B[k][j] (exact)
  const float* c0 = nullptr;         // exact mode, or alpha == 0: C before the call
  const float* expected = nullptr;   // random mode: the reference's C
  const float* magnitude = nullptr;  // random mode: the scale above
  // Random mode on inputs that hold Inf or NaN (the FP32 semantics tests): an expected NaN is
  // matched by a NaN and an expected Inf by the same Inf; a finite expected value still needs
  // a finite result within the tolerance.
  bool non_finite_inputs = false;
  double absolute_slack = 0;  // allowed on top, for results near FP32's subnormal spacing
};

struct Mismatch {
  int row, col;
  float got;
  double expected;
};

struct Comparison {
  bool pass = true;
  long long mismatches = 0;          // elements of C outside the rule (NaN counts)
  long long padding_changed = 0;     // elements of C's padding (cols N..ldc-1) that were written
  double max_abs_error = 0;          // largest |got - expected| (inf when NaN appears)
  double max_error_ratio = 0;        // largest |got - expected| / allowed error (inf if 0 allowed)
  double error_vs_fp64 = 0;          // random mode: relative Frobenius error vs FP64, and
  double error_vs_fp64_allowed = 0;  // its bound (0: not measured)
  std::vector<Mismatch> first;       // the first few mismatches, row-major order
  std::string summary() const;       // one line: "PASS" or "FAIL: 3 mismatches, first (r, c) ..."
};

// Compares an M x N result held with leading dimension ldc with `reference`. An element
// passes when it equals the expected value (Inf equal to Inf too) or is within the allowed
// error; NaN never passes. `padding` is what the columns N..ldc-1 must still hold.
Comparison compare(const Reference& reference, int M, int N, int ldc, const float* got,
                   float padding, int max_reported = 10);

// The FP64 rule of random mode (random_tolerance above): sets pass = false when `rel_error` is
// above the bound or NaN, and records both numbers in the comparison.
void apply_fp64_bound(Comparison& comparison, double rel_error, int K, Precision precision);

// Every element's expected value under `reference` (padding columns included, unchecked),
// for the failure dump.
std::vector<double> expected_values(const Reference& reference, int M, int ldc);

// Writes the inputs and both results as text, for small failing problems. Returns the
// path written, or "" when the problem is too large to be worth dumping.
std::string dump_failure(const std::string& path, const Shape& shape, const std::vector<float>& A,
                         const std::vector<float>& B, const std::vector<float>& C0,
                         const std::vector<float>& got, const std::vector<double>& expected);

constexpr int kMaxDumpDimension = 64;

// The verdict of one check of a kernel on the GPU (Harness::check, harness.h).
struct CheckReport {
  CheckMode mode = CheckMode::exact;
  Comparison comparison;  // pass/fail, mismatches, max error
  std::string dump_path;  // small failing problems are written here
  bool pass() const { return comparison.pass; }
  std::string summary() const;  // "exact PASS" or "random FAIL: ..."
};

}  // namespace sgemm

// Harness::check: a kernel run on fresh inputs and compared with its reference on the GPU;
// the rules it applies are check.h's, on the host.
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "harness_state.h"
#include "input_fills.h"

namespace sgemm {

CheckReport Harness::check(int rung, const Problem& p, CheckMode mode, uint64_t seed) {
  return check(require_runnable(rung), p, mode, seed);
}

CheckReport Harness::check(const Runnable& runnable, const Problem& p, CheckMode mode,
                           uint64_t seed) {
  return check(kernel(runnable), p, mode, seed, "rung" + std::to_string(runnable.number),
               runnable.precision);
}

CheckReport Harness::check(const Kernel& kernel, const Problem& p, CheckMode mode, uint64_t seed,
                           const std::string& label, Precision precision) {
  require_memory(p, true);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  float* C0 = m.c0.get(in.nc + p.offset.c) + p.offset.c;
  float* reference = m.expected.get(in.nc + p.offset.c) + p.offset.c;
  // Exact mode: whole numbers, or for an fp32 rung at K <= kSplitInputMaxK inputs whose TF32
  // split is not trivial (check.h); C0 holds whole numbers either way.
  const ExactInputs exact = exact_inputs(precision, s.K);
  const bool split = mode == CheckMode::exact && exact == ExactInputs::split;
  const Fill fill = mode == CheckMode::exact ? Fill::whole_numbers : Fill::uniform;
  // BLAS reads A and B only when alpha != 0, and C only when beta != 0: the inputs it must
  // not read hold NaN, so a read shows in the result; so does an element never written.
  // Padding of A and B holds NaN too (a read past a row's end), C's a sentinel that must
  // survive (a write past a row's end).
  const bool poison_ab = p.alpha == 0.f;
  const Extent a = s.a_stored(), b = s.b_stored(), c = s.c_stored();
  if (mode == CheckMode::random && !poison_ab) {
    fill_inputs(p, in.A, in.B, seed * 3 + 0, seed * 3 + 1, NAN, m.stream);
  } else {
    // The split fills' parameter 1: the index along K is the stored row's (device.h).
    fill_matrix(in.A, a.lines, a.length, s.a_ld(),
                poison_ab ? Fill::poison
                : split   ? Fill::split_a
                          : fill,
                seed * 3 + 0, NAN, m.stream, s.a_transposed() ? 1.f : 0.f);
    fill_matrix(in.B, b.lines, b.length, s.b_ld(),
                poison_ab ? Fill::poison
                : split   ? Fill::split_b
                          : fill,
                seed * 3 + 1, NAN, m.stream, s.b_transposed() ? 1.f : 0.f);
  }
  const Fill c_fill = p.beta == 0.f ? Fill::poison : fill;
  fill_matrix(C0, c.lines, c.length, s.c_ld(), c_fill, seed * 3 + 2, kPaddingSentinel, m.stream);
  CUDA_CHECK(cudaMemcpyAsync(in.C, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));

  kernel(s.op, gemm_of(p, in.A, in.B, in.C), m.stream);
  CUDA_CHECK(cudaGetLastError());

  Reference ref;
  ref.mode = mode;
  ref.precision = precision;
  ref.inputs = split ? ExactInputs::split : ExactInputs::whole;
  ref.K = s.K;
  ref.alpha = p.alpha;
  ref.beta = p.beta;
  std::vector<float> sum, c0, expected, magnitude;
  c0 = to_host(C0, in.nc, m.stream);
  ref.c0 = c0.data();
  // The reference's padding columns are never written: start it as C0, so that every
  // element copied back has been initialised.
  CUDA_CHECK(
      cudaMemcpyAsync(reference, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));
  if (p.alpha != 0.f && mode == CheckMode::exact) {
    // The exact sum over k (whole numbers below 2^24); the epilogue is applied in FP64.
    cublas(Precision::fp32, s.op, gemm_of(Problem{s, 1.f, 0.f}, in.A, in.B, reference));
    sum = to_host(reference, in.nc, m.stream);
    ref.sum = sum.data();
  } else if (p.alpha != 0.f) {
    // fp32: the FP64 product of the same inputs, rounded once: on wide-range inputs cuBLAS
    // SGEMM's own error can reach the tolerance (docs/00_method.md). tf32: cuBLAS TF32.
    if (precision == Precision::fp32) {
      expected = narrow_to_host(m.fp64_product(*this, p, in, C0), in.nc, m.stream);
    } else {
      cublas(precision, s.op, gemm_of(p, in.A, in.B, reference));
      expected = to_host(reference, in.nc, m.stream);
    }
    ref.expected = expected.data();
    // |alpha| |A| |B| + |beta| |C0|, element by element: the scale of each result.
    float* abs_a = m.abs_a.get(in.na);
    float* abs_b = m.abs_b.get(in.nb);
    float* mag = m.magnitude.get(in.nc);
    abs_copy(in.A, abs_a, in.na, m.stream);
    abs_copy(in.B, abs_b, in.nb, m.stream);
    abs_copy(C0, mag, in.nc, m.stream);
    cublas(Precision::fp32, s.op,
           gemm_of(Problem{s, std::fabs(p.alpha), std::fabs(p.beta)}, abs_a, abs_b, mag));
    magnitude = to_host(mag, in.nc, m.stream);
    ref.magnitude = magnitude.data();
  }
  const std::vector<float> got = to_host(in.C, in.nc, m.stream);

  CheckReport report;
  report.mode = mode;
  // C as stored: for column-major, its transpose, element for element like the reference's.
  report.comparison = compare(ref, c.lines, c.length, s.c_ld(), got.data(), kPaddingSentinel);
  if (s.c_transposed())  // report C's own row and column
    for (Mismatch& x : report.comparison.first) std::swap(x.row, x.col);
  if (mode == CheckMode::random && p.alpha != 0.f) {
    // The second rule of random mode: the error against the FP64 product (check.h).
    const double* C64 = m.fp64_product(*this, p, in, C0);
    const ErrorVsFp64 e = error_vs_fp64(in.C, C64, c.lines, c.length, s.c_ld(), m.stream);
    apply_fp64_bound(report.comparison, e.rel_frobenius, s.K, precision);
  }
  if (!report.pass()) {
    char name[160];
    std::snprintf(name, sizeof name, "sgemm_failure_%s_%dx%dx%d_%s.txt", label.c_str(), s.M, s.N,
                  s.K, to_string(mode));
    report.dump_path =
        dump_failure(name, s, to_host(in.A, in.na, m.stream), to_host(in.B, in.nb, m.stream), c0,
                     got, expected_values(ref, c.lines, s.c_ld()));
  }
  return report;
}

}  // namespace sgemm

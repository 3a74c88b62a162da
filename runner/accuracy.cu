// Harness::accuracy: each kernel's error against the FP64 product of the same inputs, and the
// FP64 product and magnitude that the check's FP64 rule uses too.
#include <cmath>
#include <vector>

#include "harness_state.h"
#include "input_fills.h"

namespace sgemm {

// alpha * A * B + beta * C0 in FP64 from the same FP32 inputs (cuBLAS DGEMM; C0 is not read
// when beta == 0). cudaMalloc aligns a slot for doubles.
const double* Harness::Impl::fp64_product(Harness& h, const Problem& p, const Operands& in,
                                          const float* C0) {
  auto doubles = [](Slot& slot, size_t count) {
    return reinterpret_cast<double*>(slot.get(2 * count));
  };
  double* A64 = doubles(a64, in.na);
  double* B64 = doubles(b64, in.nb);
  double* C64 = doubles(c64, in.nc);
  widen(in.A, A64, in.na, stream);
  widen(in.B, B64, in.nb, stream);
  widen(C0, C64, in.nc, stream);
  if (p.beta == 0.f) CUDA_CHECK(cudaMemsetAsync(C64, 0, in.nc * sizeof(double), stream));
  h.cublas_dgemm(p, A64, B64, C64);
  return C64;
}

// |alpha| |A| |B| + |beta| |C0| in FP64, after fp64_product (which left A and B widened in
// a64 and b64, and C0's copy overwritten): the S of the componentwise error.
const double* Harness::Impl::fp64_magnitude(Harness& h, const Problem& p, const Operands& in) {
  auto doubles = [](Slot& slot, size_t count) {
    return reinterpret_cast<double*>(slot.get(2 * count));
  };
  double* A64 = doubles(a64, in.na);
  double* B64 = doubles(b64, in.nb);
  double* mag = doubles(mag64, in.nc);
  abs_copy(A64, A64, in.na, stream);
  abs_copy(B64, B64, in.nb, stream);
  widen(c0.get(in.nc + p.offset.c) + p.offset.c, mag, in.nc, stream);
  abs_copy(mag, mag, in.nc, stream);
  Problem absolute = p;
  absolute.alpha = std::fabs(p.alpha), absolute.beta = std::fabs(p.beta);
  if (p.beta == 0.f) CUDA_CHECK(cudaMemsetAsync(mag, 0, in.nc * sizeof(double), stream));
  h.cublas_dgemm(absolute, A64, B64, mag);
  return mag;
}

std::vector<Accuracy> Harness::accuracy(const std::vector<Kernel>& kernels, const Problem& p,
                                        uint64_t seed) {
  require_memory(p, true);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const Operands in = m.operands(p);
  float* C0 = m.c0.get(in.nc + p.offset.c) + p.offset.c;
  const Extent c = s.c_stored();
  fill_inputs(p, in.A, in.B, seed * 3 + 0, seed * 3 + 1, 0.f, m.stream);
  fill_matrix(C0, c.lines, c.length, s.c_ld(), p.beta == 0.f ? Fill::poison : Fill::uniform,
              seed * 3 + 2, 0.f, m.stream);

  const double* C64 = m.fp64_product(*this, p, in, C0);
  const double* magnitude = m.fp64_magnitude(*this, p, in);
  std::vector<Accuracy> out;
  for (const Kernel& kernel : kernels) {
    CUDA_CHECK(
        cudaMemcpyAsync(in.C, C0, in.nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));
    kernel(s.op, gemm_of(p, in.A, in.B, in.C), m.stream);
    out.push_back(error_vs_fp64(in.C, C64, c.lines, c.length, s.c_ld(), m.stream, magnitude));
  }
  return out;
}

}  // namespace sgemm

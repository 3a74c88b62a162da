// The harness's construction and teardown, its memory check, and the problem it takes.
#include <cstdio>
#include <memory>
#include <string>

#include "harness_state.h"

namespace sgemm {

Gemm gemm_of(const Problem& p, const float* A, const float* B, float* C) {
  const Shape& s = p.shape;
  return {s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld()};
}

Harness::Harness(int device) : impl_(std::make_unique<Impl>()) {
  select_device(device);
  impl_->gpu = gpu_info(device);
  CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&impl_->start));
  CUDA_CHECK(cudaEventCreate(&impl_->stop));
  CUBLAS_CHECK(cublasCreate(&impl_->cublas));
  CUBLAS_CHECK(cublasSetStream(impl_->cublas, impl_->stream));
  // True FP32: the default math mode never uses TF32 tensor cores for cublasSgemm.
  CUBLAS_CHECK(cublasSetMathMode(impl_->cublas, CUBLAS_DEFAULT_MATH));
  impl_->flusher = std::make_unique<L2Flusher>(impl_->gpu.l2_bytes);
}

Harness::~Harness() {
  if (impl_->cublas) cublasDestroy(impl_->cublas);
  if (impl_->start) cudaEventDestroy(impl_->start);
  if (impl_->stop) cudaEventDestroy(impl_->stop);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

const GpuInfo& Harness::gpu() const { return impl_->gpu; }
cudaStream_t Harness::stream() const { return impl_->stream; }

void Harness::require_memory(const Problem& problem, bool for_check) const {
  const Shape& s = problem.shape;
  const double a = elements(s.a_stored().lines, s.a_ld()),
               b = elements(s.b_stored().lines, s.b_ld()),
               c = elements(s.c_stored().lines, s.c_ld());
  // A check holds A, B, |A|, |B| and C four times (input, ours, cuBLAS's, magnitude), and A,
  // B and C in FP64 (two floats each) for the random mode's FP64 rule.
  const double floats = for_check ? 4 * (a + b) + 6 * c : a + b + c;
  const double need = floats * sizeof(float), have = static_cast<double>(free_device_memory());
  if (need > 0.9 * have) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "problem %s needs %.1f GiB of GPU memory but only %.1f GiB is free",
                  s.str().c_str(), need / (1 << 30), have / (1 << 30));
    throw Error(text);
  }
}

std::string Problem::str() const {
  char text[160];
  std::snprintf(text, sizeof text, " alpha=%g beta=%g", alpha, beta);
  std::string out = shape.str() + text;
  if (offset.a || offset.b || offset.c)
    out += " offsets=" + std::to_string(offset.a) + "," + std::to_string(offset.b) + "," +
           std::to_string(offset.c);
  if (!(inputs == Inputs{})) out += " inputs=" + inputs.name();
  return out;
}

}  // namespace sgemm

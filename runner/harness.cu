#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "harness.h"
#include "sgemm.h"

namespace sgemm {

namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(call) + " failed: " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)

size_t elements(int rows, int ld) { return static_cast<size_t>(rows) * ld; }

std::vector<float> to_host(const float* device, size_t count) {
  std::vector<float> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Device buffers reused across calls, grown when a larger problem arrives.
struct Slot {
  DeviceBuffer buffer;
  float* get(size_t count) {
    if (buffer.size() < count) {
      buffer = DeviceBuffer();  // free first, so the peak stays one copy
      buffer = DeviceBuffer(count);
    }
    return buffer.get();
  }
};

}  // namespace

struct Harness::Impl {
  GpuInfo gpu;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::unique_ptr<L2Flusher> flusher;
  Slot a, b, c0, c, expected, abs_a, abs_b, magnitude;
};

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
  const double a = elements(s.M, s.a_ld()), b = elements(s.K, s.b_ld()),
               c = elements(s.M, s.c_ld());
  // A check holds A, B, |A|, |B| and C four times (input, ours, cuBLAS's, magnitude).
  const double floats = for_check ? 2 * (a + b) + 4 * c : a + b + c;
  const double need = floats * sizeof(float), have = static_cast<double>(free_device_memory());
  if (need > 0.9 * have) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "problem %s needs %.1f GiB of GPU memory but only %.1f GiB is free",
                  s.str().c_str(), need / (1 << 30), have / (1 << 30));
    throw Error(text);
  }
}

void Harness::cublas_sgemm(const Problem& p, const float* A, const float* B, float* C) {
  const Shape& s = p.shape;
  // cuBLAS is column-major. A row-major matrix is the column-major view of its transpose,
  // so we ask for C^T = B^T A^T: swap the operands and the roles of M and N.
  CUBLAS_CHECK(cublasSgemm(impl_->cublas, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &p.alpha, B,
                           s.b_ld(), A, s.a_ld(), &p.beta, C, s.c_ld()));
}

void Harness::run(int rung, const Problem& p, const float* A, const float* B, float* C) {
  if (rung == kCublasRung) return cublas_sgemm(p, A, B, C);
  const Shape& s = p.shape;
  std::string why;
  const Status status = launch(rung, s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C,
                               s.c_ld(), impl_->stream, &why);
  if (status != Status::ok) throw Error("rung " + std::to_string(rung) + ": " + why);
}

Kernel Harness::kernel(int rung) {
  return [this, rung](int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                      int ldb, float beta, float* C, int ldc, cudaStream_t) {
    run(rung, Problem{Shape{M, N, K, lda, ldb, ldc}, alpha, beta}, A, B, C);
    return cudaSuccess;
  };
}

namespace {

void run_kernel(const Kernel& kernel, const Problem& p, const float* A, const float* B, float* C,
                cudaStream_t stream) {
  const Shape& s = p.shape;
  CUDA_CHECK(kernel(s.M, s.N, s.K, p.alpha, A, s.a_ld(), B, s.b_ld(), p.beta, C, s.c_ld(), stream));
}

}  // namespace

CheckReport Harness::check(int rung, const Problem& p, CheckMode mode, uint64_t seed) {
  return check(kernel(rung), p, mode, seed, "rung" + std::to_string(rung));
}

Timing Harness::time(int rung, const Problem& p, const TimingOptions& options) {
  return time(kernel(rung), p, options);
}

std::string CheckReport::summary() const {
  std::string text = std::string(to_string(mode)) + " " + comparison.summary();
  if (!dump_path.empty()) text += " (inputs and results written to " + dump_path + ")";
  return text;
}

CheckReport Harness::check(const Kernel& kernel, const Problem& p, CheckMode mode, uint64_t seed,
                           const std::string& label) {
  require_memory(p, true);
  const Shape& s = p.shape;
  const size_t na = elements(s.M, s.a_ld()), nb = elements(s.K, s.b_ld()),
               nc = elements(s.M, s.c_ld());
  Impl& m = *impl_;
  float* A = m.a.get(na);
  float* B = m.b.get(nb);
  float* C0 = m.c0.get(nc);
  float* C = m.c.get(nc);
  float* expected = m.expected.get(nc);
  const Fill fill = mode == CheckMode::exact ? Fill::whole_numbers : Fill::uniform;
  // Padding of A and B holds NaN: a rung that reads past a row's end poisons its result.
  fill_matrix(A, s.M, s.K, s.a_ld(), fill, seed * 3 + 0, NAN, m.stream);
  fill_matrix(B, s.K, s.N, s.b_ld(), fill, seed * 3 + 1, NAN, m.stream);
  // With beta == 0, C must not be read: poison it with NaN so a read shows in the result,
  // and so does an element the rung never writes. C's padding holds a sentinel.
  const Fill c_fill = p.beta == 0.f ? Fill::poison : fill;
  fill_matrix(C0, s.M, s.N, s.c_ld(), c_fill, seed * 3 + 2, kPaddingSentinel, m.stream);
  CUDA_CHECK(cudaMemcpyAsync(C, C0, nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));
  CUDA_CHECK(cudaMemcpyAsync(expected, C0, nc * sizeof(float), cudaMemcpyDeviceToDevice, m.stream));

  run_kernel(kernel, p, A, B, C, m.stream);
  CUDA_CHECK(cudaGetLastError());
  cublas_sgemm(p, A, B, expected);

  std::vector<float> magnitude;
  if (mode == CheckMode::random) {
    // |alpha| |A| |B| + |beta| |C0|, element by element: the scale of each result.
    float* abs_a = m.abs_a.get(na);
    float* abs_b = m.abs_b.get(nb);
    float* mag = m.magnitude.get(nc);
    abs_copy(A, abs_a, na, m.stream);
    abs_copy(B, abs_b, nb, m.stream);
    abs_copy(C0, mag, nc, m.stream);
    const Problem abs_problem{s, std::fabs(p.alpha), std::fabs(p.beta)};
    cublas_sgemm(abs_problem, abs_a, abs_b, mag);
    CUDA_CHECK(cudaStreamSynchronize(m.stream));
    magnitude = to_host(mag, nc);
  }
  CUDA_CHECK(cudaStreamSynchronize(m.stream));
  const std::vector<float> got = to_host(C, nc);
  const std::vector<float> want = to_host(expected, nc);

  CheckReport report;
  report.mode = mode;
  report.comparison = compare(mode, s.M, s.N, s.K, s.c_ld(), got.data(), want.data(),
                              magnitude.empty() ? nullptr : magnitude.data(), kPaddingSentinel);
  if (!report.pass()) {
    char name[160];
    std::snprintf(name, sizeof name, "sgemm_failure_%s_%dx%dx%d_%s.txt", label.c_str(), s.M, s.N,
                  s.K, to_string(mode));
    report.dump_path =
        dump_failure(name, s, to_host(A, na), to_host(B, nb), to_host(C0, nc), got, want);
  }
  return report;
}

Timing Harness::time(const Kernel& kernel, const Problem& p, const TimingOptions& options) {
  require_memory(p, false);
  const Shape& s = p.shape;
  Impl& m = *impl_;
  const size_t na = elements(s.M, s.a_ld()), nb = elements(s.K, s.b_ld()),
               nc = elements(s.M, s.c_ld());
  float* A = m.a.get(na);
  float* B = m.b.get(nb);
  float* C = m.c.get(nc);
  // Random data, never zeros: zeros can run faster than real data.
  fill_matrix(A, s.M, s.K, s.a_ld(), Fill::uniform, 11, 0.f, m.stream);
  fill_matrix(B, s.K, s.N, s.b_ld(), Fill::uniform, 12, 0.f, m.stream);
  fill_matrix(C, s.M, s.N, s.c_ld(), Fill::uniform, 13, 0.f, m.stream);

  for (int i = 0; i < options.warmup; ++i) run_kernel(kernel, p, A, B, C, m.stream);
  CUDA_CHECK(cudaStreamSynchronize(m.stream));

  std::vector<double> samples;
  double spent_ms = 0;
  const int reps = std::max(1, options.reps);
  while (static_cast<int>(samples.size()) < reps) {
    if (options.flush_l2) m.flusher->flush(m.stream);
    CUDA_CHECK(cudaEventRecord(m.start, m.stream));
    run_kernel(kernel, p, A, B, C, m.stream);
    CUDA_CHECK(cudaEventRecord(m.stop, m.stream));
    CUDA_CHECK(cudaEventSynchronize(m.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
    samples.push_back(ms);
    spent_ms += ms;
    if (samples.size() >= 3 && spent_ms > options.budget_ms) break;
  }
  std::sort(samples.begin(), samples.end());
  Timing t;
  t.reps = static_cast<int>(samples.size());
  const size_t n = samples.size();
  t.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  t.min_ms = samples.front();
  t.max_ms = samples.back();
  return t;
}

}  // namespace sgemm

// The harness every front door shares (sgemm CLI, bench, tests): check a rung against
// cuBLAS, and time a rung or cuBLAS, on one GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include "check.h"
#include "device.h"

namespace sgemm {

constexpr int kCublasRung = 0;  // rung 0 is cuBLAS itself

// Something that computes C = alpha*A*B + beta*C with the ladder's BLAS-like signature: a
// rung, or a candidate tile configuration of scripts/autotune. Returns the launch error.
using Kernel = std::function<cudaError_t(int M, int N, int K, float alpha, const float* A, int lda,
                                         const float* B, int ldb, float beta, float* C, int ldc,
                                         cudaStream_t stream)>;

struct Problem {
  Shape shape;
  float alpha = 1.f;
  float beta = 0.f;
  double flops() const { return 2.0 * shape.M * shape.N * shape.K; }
};

struct CheckReport {
  CheckMode mode = CheckMode::exact;
  Comparison comparison;  // pass/fail, mismatches, max error
  std::string dump_path;  // small failing problems are written here
  bool pass() const { return comparison.pass; }
  std::string summary() const;  // "exact PASS" or "random FAIL: ..."
};

struct TimingOptions {
  int warmup = 3;           // untimed runs first
  int reps = 30;            // timed runs at most; the median is reported
  double budget_ms = 2000;  // stop adding reps once this much GPU time is spent (min 3)
  bool flush_l2 = true;     // evict L2 before each timed run
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  double gflops(const Problem& p) const { return p.flops() / (median_ms * 1e6); }
};

class Harness {
 public:
  // Selects `device` and creates the stream and cuBLAS handle; throws Error with a clear
  // message when there is no such CUDA device.
  explicit Harness(int device = 0);
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  const GpuInfo& gpu() const;
  cudaStream_t stream() const;

  // Throws Error when the problem's buffers would not fit in free GPU memory.
  void require_memory(const Problem& problem, bool for_check) const;

  // Runs `rung` on fresh inputs drawn from `seed` and compares with cuBLAS (see check.h).
  // C is poisoned with NaN first when beta == 0; its padding holds kPaddingSentinel.
  CheckReport check(int rung, const Problem& problem, CheckMode mode, uint64_t seed);
  // `label` names the failure dump: sgemm_failure_<label>_<MxNxK>_<mode>.txt.
  CheckReport check(const Kernel& kernel, const Problem& problem, CheckMode mode, uint64_t seed,
                    const std::string& label = "kernel");

  // Times `rung` (kCublasRung for cuBLAS) on random inputs, events around each run.
  Timing time(int rung, const Problem& problem, const TimingOptions& options);
  Timing time(const Kernel& kernel, const Problem& problem, const TimingOptions& options);

  // The same cuBLAS call the checks and timings use (row-major, true FP32).
  void cublas_sgemm(const Problem& problem, const float* A, const float* B, float* C);

  // Launches `rung` (or cuBLAS) once; throws Error with the API's message on failure.
  void run(int rung, const Problem& problem, const float* A, const float* B, float* C);

  // The Kernel that runs `rung` through the library API (cuBLAS for kCublasRung). It always
  // runs on this harness's stream(); the stream argument it is called with is ignored.
  Kernel kernel(int rung);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// What C's padding columns (N .. ldc-1) hold; a rung that writes there fails the check.
constexpr float kPaddingSentinel = 4242.5f;

}  // namespace sgemm

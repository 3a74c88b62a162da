// The harness every front door shares (sgemm CLI, bench, tests): check a rung against
// cuBLAS, and time a rung or cuBLAS, on one GPU. Its members are defined by concern:
// harness.cu (construction, memory), gpu_check.cu, accuracy.cu, timing.cu, cublas_reference.cu
// and kernel.cu; what it runs is named in runnables.h and kernel.h.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "check.h"
#include "device.h"
#include "inputs.h"
#include "kernel.h"
#include "runnables.h"
#include "timing.h"

namespace sgemm {

// A result's distance from the FP64 product of the same FP32 inputs (cuBLAS DGEMM).
using Accuracy = ErrorVsFp64;

// Where A, B and C start, in floats past cudaMalloc's 256-byte alignment. An offset of 1
// puts a matrix 4 bytes past a 16-byte boundary, which no float4 access may assume away.
struct Offsets {
  int a = 0, b = 0, c = 0;
};

struct Problem {
  Shape shape;
  float alpha = 1.f;
  float beta = 0.f;
  Offsets offset = {};
  Inputs inputs = {};  // what fills A and B in random checks, timing and accuracy
  double flops() const { return 2.0 * shape.M * shape.N * shape.K; }
  std::string str() const;  // the shape, then alpha, beta, any offsets, inputs if not uniform
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  double gflops(const Problem& p) const { return p.flops() / (median_ms * 1e6); }
};

// A kernel and its cuBLAS reference timed on the same inputs, block by block in turn, so that
// both are measured in the same stretch of the session, each in its own steady state.
struct Race {
  Timing kernel, reference;
  double percent_of_reference() const { return 100.0 * reference.median_ms / kernel.median_ms; }
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

  // Runs `rung` on fresh inputs drawn from `seed` and compares with its reference (check.h):
  // the exact sum, or in random mode the cuBLAS of the rung's precision class. Inputs BLAS
  // does not read are poisoned with NaN: C when beta == 0, A and B when alpha == 0. Padding
  // of A and B holds NaN; C's padding holds kPaddingSentinel.
  CheckReport check(const Runnable& rung, const Problem& problem, CheckMode mode, uint64_t seed);
  CheckReport check(int rung, const Problem& problem, CheckMode mode, uint64_t seed);
  // `label` names the failure dump: sgemm_failure_<label>_<MxNxK>_<mode>.txt.
  CheckReport check(const Kernel& kernel, const Problem& problem, CheckMode mode, uint64_t seed,
                    const std::string& label = "kernel", Precision precision = Precision::fp32);

  // Each kernel's error against FP64 on the same inputs (C0 = 0 unless beta != 0), one
  // DGEMM for all. Apart from the timed runs, which it does not slow.
  std::vector<Accuracy> accuracy(const std::vector<Kernel>& kernels, const Problem& problem,
                                 uint64_t seed);

  // Times `rung` (kCublasRung for cuBLAS) or `kernel` alone on random inputs, events around
  // each run.
  Timing time(const Runnable& runnable, const Problem& problem, const TimingOptions& options);
  Timing time(const Kernel& kernel, const Problem& problem, const TimingOptions& options);
  // Times `rung` or `kernel` and the cuBLAS of its precision class in turn on the same
  // inputs: every % of a reference comes from here, measured next to the measurement.
  Race time_against_reference(const Runnable& rung, const Problem& problem,
                              const TimingOptions& options);
  Race time_against_reference(const Kernel& kernel, Precision precision, const Problem& problem,
                              const TimingOptions& options);
  // Times the kernels on the same inputs in blocks (TimingOptions), in turn; one Timing each.
  std::vector<Timing> time_in_turn(const std::vector<Kernel>& kernels, const Problem& problem,
                                   const TimingOptions& options);

  // The cuBLAS call the checks and timings use (row-major), on `stream` (the harness's own
  // when null): SGEMM in true FP32, or in TF32 mode (CUBLAS_COMPUTE_32F_FAST_TF32).
  void cublas(Precision precision, const Gemm& problem, cudaStream_t stream = nullptr);
  // The same for a problem in BLAS's general form: cuBLAS takes the ops natively.
  void cublas(Precision precision, const Operation& op, const Gemm& problem,
              cudaStream_t stream = nullptr);
  // C64 = alpha * op(A64) * op(B64) + beta * C64 in FP64 (as the problem's shape stores them).
  void cublas_dgemm(const Problem& problem, const double* A, const double* B, double* C);

  // Launches `rung` (or cuBLAS) once on stream(); throws Error with the API's message.
  void run(int rung, const Gemm& problem);

  // The Kernel that runs `runnable` through the library API (cuBLAS for the references), on
  // the stream it is called with; by number for the tests (Error when there is none).
  Kernel kernel(const Runnable& runnable);
  Kernel kernel(int number);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The problem with its operands, as a Kernel takes it.
Gemm gemm_of(const Problem& problem, const float* A, const float* B, float* C);

// What C's padding columns (N .. ldc-1) hold; a rung that writes there fails the check.
constexpr float kPaddingSentinel = 4242.5f;

}  // namespace sgemm

// The harness every front door shares (sgemm CLI, bench, tests): check a rung against
// cuBLAS, and time a rung or cuBLAS, on one GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "check.h"
#include "device.h"
#include "inputs.h"
#include "timing.h"

namespace sgemm {

constexpr int kCublasRung = 0;       // rung 0 is cuBLAS SGEMM itself
constexpr int kCublasTf32Rung = -1;  // cuBLAS in TF32 mode, the reference of the tf32 rungs

// Everything a front door runs: the references, cuBLAS SGEMM (number 0) and cuBLAS TF32
// (number -1), then every rung of the kernel list. The one table of names: a new rung or
// reference changes only it.
struct Runnable {
  int number;
  std::string name;           // "cublas", "cublas_tf32", or a rung's name (ladder.inc)
  std::string summary;        // one line: what it is, or what the rung changes
  bool reference;             // timed alone and never checked: the rungs are measured against it
  Precision precision;        // a rung's class; a reference's: the rungs it is compared with
  const RungInfo* rung;       // the library's entry, with its launcher (null for a reference)
  std::string label() const;  // "0 cublas", "6 vectorized"
  std::string id() const;     // "cublas", "rung:06_vectorized" (benchmark names, file stems)
};
const std::vector<Runnable>& runnables();
const Runnable* find_runnable(int number);  // nullptr when there is none
// By name ("cublas_tf32", a rung's) or number as typed ("6", "-1"); nullptr when none.
const Runnable* find_runnable(const std::string& text);
// The cuBLAS that rungs of `precision` are checked against and compared with.
const Runnable& reference_for(Precision precision);

// A result's distance from the FP64 product of the same FP32 inputs (cuBLAS DGEMM).
using Accuracy = ErrorVsFp64;

// Errors. The harness has one channel: every failure throws Error (UnsupportedGpu where the
// GPU has no kernel for a rung), with a sentence that names it; nothing returns an error code.
// A launch's Status and CUDA error become an Error where they enter the harness: in kernel()
// and in launched() below.

// Something that computes C = alpha*A*B + beta*C for a problem given as one value (its
// operands included): a rung, a reference, or a candidate tile configuration of
// scripts/autotune. Queues the work on `stream`; throws Error when it cannot. Only callables
// that return nothing convert to it, so that no error code can be dropped on the way in: a
// function that returns a cudaError_t goes through launched().
//
// A Kernel runs a problem in BLAS's general form too (sgemm.h: Operation; the problem's
// leading dimensions are then those of its stored matrices): the rungs through the library,
// which copies transposed operands, and cuBLAS natively. A callable that takes only the Gemm
// runs the rungs' own problem, row-major N, N, and throws Error for any other operation.
class Kernel {
 public:
  Kernel() = default;
  template <typename F,
            std::enable_if_t<std::is_void_v<std::invoke_result_t<F&, const Gemm&, cudaStream_t>>,
                             int> = 0>
  Kernel(F run)  // NOLINT: implicit, as std::function
      : run_([run = std::move(run)](const Operation& op, const Gemm& problem,
                                    cudaStream_t stream) mutable {
          if (!op.is_rungs_own())
            throw Error("this kernel takes row-major N, N problems only, not " + op.str());
          run(problem, stream);
        }) {}
  template <typename F, std::enable_if_t<std::is_void_v<std::invoke_result_t<
                                             F&, const Operation&, const Gemm&, cudaStream_t>>,
                                         int> = 0>
  Kernel(F run) : run_(std::move(run)) {}  // NOLINT: implicit, as std::function
  void operator()(const Gemm& problem, cudaStream_t stream) const {
    run_(Operation{}, problem, stream);
  }
  void operator()(const Operation& op, const Gemm& problem, cudaStream_t stream) const {
    run_(op, problem, stream);
  }

 private:
  std::function<void(const Operation&, const Gemm&, cudaStream_t)> run_;
};

// A function that returns its launch error (a rung's launcher, a tile of scripts/autotune)
// as a Kernel: an error throws Error naming `name` and the CUDA error (UnsupportedGpu for
// cudaErrorNoKernelImageForDevice).
using LaunchFunction = std::function<cudaError_t(const Gemm& problem, cudaStream_t stream)>;
Kernel launched(LaunchFunction launch, std::string name);

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

struct CheckReport {
  CheckMode mode = CheckMode::exact;
  Comparison comparison;  // pass/fail, mismatches, max error
  std::string dump_path;  // small failing problems are written here
  bool pass() const { return comparison.pass; }
  std::string summary() const;  // "exact PASS" or "random FAIL: ..."
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

// The runnable with this number, or Error naming it.
const Runnable& require_runnable(int number);

// What C's padding columns (N .. ldc-1) hold; a rung that writes there fails the check.
constexpr float kPaddingSentinel = 4242.5f;

}  // namespace sgemm

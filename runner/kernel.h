// What the harness runs: a Kernel, anything that computes a GEMM on a stream, and launched(),
// which makes one of a function that returns its CUDA error.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "device.h"       // Error
#include "sgemm/sgemm.h"  // Gemm, Operation

namespace sgemm {

// Errors. The harness has one channel: every failure throws Error (UnsupportedGpu where the
// GPU has no kernel for a rung), with a sentence that names it; nothing returns an error code.
// A launch's Status and CUDA error become an Error where they enter the harness: in
// Harness::kernel() (harness.h) and in launched() below.

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

}  // namespace sgemm

#include <string>
#include <utility>

#include "harness_state.h"

namespace sgemm {

void Harness::run(int rung, const Gemm& problem) { kernel(rung)(problem, impl_->stream); }

Kernel Harness::kernel(int number) { return kernel(require_runnable(number)); }

Kernel Harness::kernel(const Runnable& runnable) {
  if (runnable.reference)
    return [this, precision = runnable.precision](const Operation& op, const Gemm& g,
                                                  cudaStream_t stream) {
      cublas(precision, op, g, stream);
    };
  return [rung = runnable.rung](const Operation& op, const Gemm& g, cudaStream_t stream) {
    std::string why;
    const Status status = launch(*rung, op, g, stream, &why);
    const std::string text = "rung " + std::to_string(rung->number) + ": " + why;
    if (status == Status::unsupported_gpu) throw UnsupportedGpu(text);
    if (status != Status::ok) throw Error(text);
  };
}

Kernel launched(LaunchFunction launch, std::string name) {
  return [launch = std::move(launch), name = std::move(name)](const Gemm& g, cudaStream_t stream) {
    const cudaError_t err = launch(g, stream);
    if (err == cudaSuccess) return;
    cudaGetLastError();  // reported here, once
    const std::string text = name + ": " + cudaGetErrorString(err);
    if (err == cudaErrorNoKernelImageForDevice) throw UnsupportedGpu(text);
    throw Error(text);
  };
}

}  // namespace sgemm

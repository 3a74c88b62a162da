// The fallback chain: a rung, and where it cannot run a problem, the rung kernels/fallbacks.inc
// names for the reason, and so on down. The library's launch() runs every rung through it; a rung
// whose own algorithm runs another rung (rung 18's candidates) calls launch_with_fallbacks.
// Declared here and defined in dispatch.cu, but for answer(), which the registry defines.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime.h"  // LaunchAnswer: a launcher's answer, a CUDA error or a fallback reason
#include "sgemm.h"    // Gemm, RungInfo, FallbackReason

namespace sgemm::runtime {

// `rung`'s launcher on `problem`, its answer as it gave it (library/registry.cpp). A RungInfo
// that is not the registry's own (a copy) answers through its `launch`, a CUDA error.
LaunchAnswer answer(const RungInfo& rung, const Gemm& problem, cudaStream_t stream);

// Runs `rung` on `problem`, then down the chain while a launcher hands the problem on; returns the
// last launcher's answer and sets *last to that rung. `named`: a caller named `rung`
// (sgemm::launch), and its own gpu_unsupported answer is the launch's: a rung this GPU lacks says
// so rather than run another (the one call, rung 18, hands on).
LaunchAnswer launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                          const RungInfo** last, bool named);

// The same for a rung that runs another rung as part of its own algorithm: the chain from `rung`,
// the error of its last launcher's answer (LaunchAnswer::error).
cudaError_t launch_with_fallbacks(const RungInfo& rung, const Gemm& problem, cudaStream_t stream);

}  // namespace sgemm::runtime

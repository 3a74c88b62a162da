// The fallback chain: a rung, and where it cannot run a problem, the rung kernels/fallbacks.inc
// names for the reason, and so on down; where a rung chose another to run it (rung 18), that
// rung's chain. The library's launch() runs every rung through it (dispatch.cu).
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/launch_answer.h"  // LaunchAnswer: a CUDA error, a reason, or another rung
#include "sgemm/sgemm.h"            // Gemm, RungInfo, FallbackReason

namespace sgemm::runtime {

// Runs `rung` on `problem`, then down the chain while a launcher hands the problem on; returns the
// last launcher's answer and sets *last to that rung. `named`: a caller named `rung`
// (sgemm::launch), and its own gpu_unsupported answer is the launch's: a rung this GPU lacks says
// so rather than run another (the one call, rung 18, hands on).
LaunchAnswer launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                          const RungInfo** last, bool named);

}  // namespace sgemm::runtime

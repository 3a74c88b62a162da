// The fallback chain: a rung, and where it cannot run a problem, the rung kernels/fallbacks.inc
// names for the reason, and so on down. The library's launch() runs every rung through it; a rung
// whose own algorithm runs another rung (rung 18's candidates) calls launch_with_fallbacks.
// Declared here and defined in dispatch.cu, nowhere else.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

#include "sgemm.h"  // Gemm, RungInfo, FallbackReason

namespace sgemm::runtime {

// The fallback reason a launcher's answer gives (runtime.h: kWorkspaceShort, kShapeUnsuitable,
// kGpuUnsupported, and a kernel the build holds no code for), or nullopt for any other answer.
std::optional<FallbackReason> reason_of(cudaError_t answer);

// Runs `rung` on `problem`, then down the chain while a launcher hands the problem on; returns the
// last launcher's answer and sets *last to that rung. `named`: a caller named `rung`
// (sgemm::launch), and its own gpu_unsupported answer is the launch's: a rung this GPU lacks says
// so rather than run another (the one call, rung 18, hands on).
cudaError_t launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                         const RungInfo** last, bool named);

// The same for a rung that runs another rung as part of its own algorithm: the chain from `rung`,
// its last launcher's answer.
cudaError_t launch_with_fallbacks(const RungInfo& rung, const Gemm& problem, cudaStream_t stream);

}  // namespace sgemm::runtime

// The fallback chain (dispatch.h): which rung runs next after a launcher's answer.
#include "dispatch.h"

namespace sgemm::runtime {

LaunchAnswer launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                          const RungInfo** last, bool named) {
  for (const RungInfo* r = &rung; r != nullptr;) {
    *last = r;
    const LaunchAnswer result = answer(*r, problem, stream);
    const std::optional<FallbackReason> reason = result.reason();
    // No code for this GPU: the error an attribute or a launch left is not the next rung's.
    if (reason == FallbackReason::gpu_unsupported) cudaGetLastError();
    const bool handOn =
        reason && !(named && r == &rung && *reason == FallbackReason::gpu_unsupported);
    r = handOn ? fallback_for(*r, *reason) : nullptr;
    if (r == nullptr) return result;
  }
  return cudaSuccess;  // not reached
}

cudaError_t launch_with_fallbacks(const RungInfo& rung, const Gemm& problem, cudaStream_t stream) {
  const RungInfo* last = nullptr;
  return launch_chain(rung, problem, stream, &last, false).error();
}

}  // namespace sgemm::runtime

// The fallback chain (dispatch.h): what a launcher's answer means, and which rung runs next.
#include "dispatch.h"
#include "runtime.h"  // the answers that carry a fallback reason

namespace sgemm::runtime {

std::optional<FallbackReason> reason_of(cudaError_t answer) {
  switch (answer) {
    case kWorkspaceShort:
      return FallbackReason::workspace_short;
    case kShapeUnsuitable:
      return FallbackReason::shape_unsuitable;
    case kGpuUnsupported:
    case cudaErrorInvalidDeviceFunction:  // a kernel the build holds no code for (an attribute
                                          // set before its launch says so this way)
      cudaGetLastError();                 // not left for the next rung to find
      return FallbackReason::gpu_unsupported;
    default:
      return std::nullopt;
  }
}

cudaError_t launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                         const RungInfo** last, bool named) {
  for (const RungInfo* r = &rung; r != nullptr;) {
    *last = r;
    const cudaError_t answer = r->launch(problem, stream);
    const std::optional<FallbackReason> reason = reason_of(answer);
    const bool handOn =
        reason && !(named && r == &rung && *reason == FallbackReason::gpu_unsupported);
    r = handOn ? fallback_for(*r, *reason) : nullptr;
    if (r == nullptr) return answer;
  }
  return cudaSuccess;  // not reached
}

cudaError_t launch_with_fallbacks(const RungInfo& rung, const Gemm& problem, cudaStream_t stream) {
  const RungInfo* last = nullptr;
  return launch_chain(rung, problem, stream, &last, false);
}

}  // namespace sgemm::runtime

// The fallback chain (dispatch.h): which rung runs next after a launcher's answer.
#include "dispatch.h"

#include "registry.h"  // answer(), rung_info()

namespace sgemm::runtime {

LaunchAnswer launch_chain(const RungInfo& rung, const Gemm& problem, cudaStream_t stream,
                          const RungInfo** last, bool named) {
  for (const RungInfo* r = &rung; r != nullptr;) {
    *last = r;
    LaunchAnswer result = answer(*r, problem, stream);
    if (const std::optional<RungId> instead = result.instead()) {
      // The rung chose another to run the problem (rung 18's candidates): that rung's chain, whose
      // last answer's error is this rung's answer, as if this rung had run it.
      const RungInfo* ran = nullptr;
      result = launch_chain(rung_info(*instead), problem, stream, &ran, false).error();
    }
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

}  // namespace sgemm::runtime

// Statuses and their sentences (status.h; to_string(Status): sgemm/sgemm.h).
#include "status.h"

#include <cuda_runtime.h>

#include <string>

#include "messages.h"        // say()
#include "runtime/device.h"  // compute_capability

namespace sgemm {
namespace {

// The current device's compute capability, "8.0" (the runtime's, looked up once), or "unknown".
std::string compute_capability() {
  int version = 0;
  if (runtime::compute_capability(&version) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

// "rung 14", or "rung 14 (and its fallback chain down to rung 13)" when the chain went on.
std::string chain_name(const RungInfo& first, const RungInfo& last) {
  std::string text = say("rung %lld", first.number);
  if (&last != &first) text += say(" (and its fallback chain down to rung %lld)", last.number);
  return text;
}

}  // namespace

const char* to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::unknown_rung:
      return "unknown rung";
    case Status::bad_size:
      return "bad size";
    case Status::bad_leading_dim:
      return "bad leading dimension";
    case Status::bad_pointer:
      return "bad pointer";
    case Status::too_large:
      return "problem too large";
    case Status::unsupported_gpu:
      return "unsupported GPU";
    case Status::no_workspace:
      return "no workspace";
    case Status::cuda_error:
      return "CUDA error";
  }
  return "unknown status";
}

Status status_of(const runtime::LaunchAnswer& answer, const RungInfo& first, const RungInfo& last,
                 std::string* why) {
  auto fail = [&](Status s, std::string text) {
    if (why) *why = std::move(text);
    return s;
  };
  if (answer.reason() == FallbackReason::shape_unsuitable)  // no row in kernels/fallbacks.inc
    return fail(Status::cuda_error,
                say("rung %lld cannot take these operands, and kernels/fallbacks.inc names no "
                    "rung to run instead",
                    last.number));
  switch (answer.error()) {
    case cudaSuccess:
      return Status::ok;
    case cudaErrorNoKernelImageForDevice: {  // sm_90a code off Hopper, or an architecture not built
      // The flag that adds this GPU's code to a build: its compute capability without the dot.
      const std::string capability = compute_capability();  // "8.6"
      std::string arch = capability == "unknown" ? "native" : capability;
      if (const size_t dot = arch.find('.'); dot != std::string::npos) arch.erase(dot, 1);
      const std::string flag = "configure with -DCMAKE_CUDA_ARCHITECTURES=" + arch + " to add it";
      const std::string text =
          say("rung %lld has no kernel for this GPU (compute capability ", last.number) +
          capability +
          (capability == "9.0" ? "): the build left out sm_90a code (" + flag + ")"
                               : "): the build left out this architecture (" + flag +
                                     "), or the rung is Hopper-only (sm_90a) code");
      return fail(Status::unsupported_gpu, text);
    }
    case cudaErrorMemoryAllocation:  // the workspace's: it left no error pending
      return fail(Status::no_workspace,
                  chain_name(first, last) +
                      say(" needs more workspace than the limit (%lld bytes) or the device can "
                          "supply (sgemm::set_workspace_limit)",
                          static_cast<long long>(workspace_limit())));
    default:
      cudaGetLastError();  // a launch error is reported once, here, and not by the next call
      return fail(Status::cuda_error,
                  std::string("rung launch failed: ") + cudaGetErrorString(answer.error()));
  }
}

}  // namespace sgemm

// The kernels' runtime, a launcher's answer: what the library's fallback chain reads to decide
// whether another rung runs the problem (kernels/fallbacks.inc).
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

#include "rung_id.h"      // RungId
#include "sgemm/sgemm.h"  // FallbackReason

namespace sgemm::runtime {

// How a launcher answers: a CUDA error (cudaSuccess when its work is queued), or "hand the
// problem on, for this reason" (sgemm.h: FallbackReason). The chain (dispatch.h) then runs the
// rung kernels/fallbacks.inc names for the reason, or ends with the answer's error() where it
// names none. The rung decides when; the table says what runs instead. A cudaError_t converts,
// so that `return err;` answers an error; a launcher refuses a problem with hand_on(reason), and
// no CUDA error stands for a refusal. Every rung's launcher answers this type (launchers.h).
// A rung whose own algorithm is to pick another (rung 18) answers run(rung): the chain runs that
// rung, with its fallbacks, and its last answer's error is this rung's.
//
// Two real failures are reasons too, and read as such here alone: cudaErrorMemoryAllocation
// from the workspace (below: it leaves no error pending) is workspace_short, and
// cudaErrorNoKernelImageForDevice (require_sm90, above) or cudaErrorInvalidDeviceFunction (an
// attribute set before the launch of a kernel the build holds no code for) is gpu_unsupported.
// stop(err) answers an error that hands nothing on, whatever it is: a launch that may have
// written C already, which no other rung may start again from (rung 16's slow path).
class LaunchAnswer {
 public:
  LaunchAnswer(cudaError_t error)  // NOLINT: implicit, so that `return err;` compiles
      : error_(error), reason_(reason_of_failure(error)) {}
  static LaunchAnswer hand_on(FallbackReason reason) { return {error_of(reason), reason}; }
  static LaunchAnswer stop(cudaError_t error) { return {error, std::nullopt}; }
  static LaunchAnswer run(RungId rung) {
    LaunchAnswer answer = stop(cudaSuccess);
    answer.instead_ = rung;
    return answer;
  }

  // The error the caller gets where the chain ends with this answer: the CUDA error, or for a
  // refusal, error_of(its reason).
  cudaError_t error() const { return error_; }
  // Why the problem goes on down the chain, or nullopt: it ends here.
  std::optional<FallbackReason> reason() const { return reason_; }
  // The rung this launcher chose to run the problem instead (run), or nullopt.
  std::optional<RungId> instead() const { return instead_; }

  // A refusal's error, where no rung runs instead: the real failure's for workspace_short and
  // gpu_unsupported; cudaErrorNotSupported for shape_unsuitable (the library's launch() says
  // which rung cannot take the operands: library/status.cpp).
  static constexpr cudaError_t error_of(FallbackReason reason) {
    switch (reason) {
      case FallbackReason::workspace_short:
        return cudaErrorMemoryAllocation;
      case FallbackReason::gpu_unsupported:
        return cudaErrorNoKernelImageForDevice;
      case FallbackReason::shape_unsuitable:
        break;
    }
    return cudaErrorNotSupported;
  }

 private:
  LaunchAnswer(cudaError_t error, std::optional<FallbackReason> reason)
      : error_(error), reason_(reason) {}
  static constexpr std::optional<FallbackReason> reason_of_failure(cudaError_t error) {
    switch (error) {
      case cudaErrorMemoryAllocation:
        return FallbackReason::workspace_short;
      case cudaErrorNoKernelImageForDevice:
      case cudaErrorInvalidDeviceFunction:
        return FallbackReason::gpu_unsupported;
      default:
        return std::nullopt;
    }
  }

  cudaError_t error_;
  std::optional<FallbackReason> reason_;
  std::optional<RungId> instead_;
};

}  // namespace sgemm::runtime

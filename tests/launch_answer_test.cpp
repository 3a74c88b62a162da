// On the host: a launcher's answer (kernels/runtime/launch_answer.h: LaunchAnswer) keeps a CUDA
// error and a fallback reason apart. A CUDA error passes through with no reason, but for the two
// real failures that are reasons (an allocation the workspace could not make, no code for this
// GPU); a refusal carries its reason and an error of its own, which no CUDA error is mistaken for;
// and stop() hands nothing on, whatever its error. The registry gives the chain a rung's answer as
// the rung gave it, and RungInfo::launch its error.
#include "runtime/launch_answer.h"  // LaunchAnswer: a CUDA error or a reason to hand on

#include <gtest/gtest.h>

#include <optional>

#include "registry.h"  // runtime::answer: a rung's answer, as the chain reads it
#include "rung_id.h"
#include "runtime/device.h"
#include "sgemm/sgemm.h"

namespace sgemm::runtime {
namespace {

constexpr FallbackReason kReasons[] = {FallbackReason::workspace_short,
                                       FallbackReason::shape_unsuitable,
                                       FallbackReason::gpu_unsupported};

TEST(LaunchAnswer, CudaErrorsPassThroughWithoutAReason) {
  // cudaErrorInvalidPitchValue stood for shape_unsuitable once: now it is the error it says.
  for (cudaError_t err :
       {cudaSuccess, cudaErrorInvalidValue, cudaErrorInvalidPitchValue, cudaErrorNotSupported,
        cudaErrorLaunchOutOfResources, cudaErrorIllegalAddress, cudaErrorInvalidConfiguration}) {
    SCOPED_TRACE(cudaGetErrorName(err));
    const LaunchAnswer answer = err;  // as `return err;` in a launcher
    EXPECT_EQ(answer.error(), err);
    EXPECT_EQ(answer.reason(), std::nullopt);
  }
}

TEST(LaunchAnswer, RealFailuresThatAreReasons) {
  const LaunchAnswer workspace = cudaErrorMemoryAllocation;  // Workspace::error()
  EXPECT_EQ(workspace.error(), cudaErrorMemoryAllocation);
  EXPECT_EQ(workspace.reason(), FallbackReason::workspace_short);
  for (cudaError_t err : {cudaErrorNoKernelImageForDevice, cudaErrorInvalidDeviceFunction}) {
    SCOPED_TRACE(cudaGetErrorName(err));
    const LaunchAnswer gpu = err;  // require_sm90(), or a kernel the build holds no code for
    EXPECT_EQ(gpu.error(), err);
    EXPECT_EQ(gpu.reason(), FallbackReason::gpu_unsupported);
  }
}

TEST(LaunchAnswer, RefusalsCarryTheirReason) {
  for (FallbackReason reason : kReasons) {
    SCOPED_TRACE(to_string(reason));
    const LaunchAnswer refusal = LaunchAnswer::hand_on(reason);
    EXPECT_EQ(refusal.reason(), reason);
    EXPECT_EQ(refusal.error(), LaunchAnswer::error_of(reason));
    EXPECT_NE(refusal.error(), cudaSuccess);  // where the chain ends, the caller sees a failure
  }
  EXPECT_EQ(LaunchAnswer::error_of(FallbackReason::workspace_short), cudaErrorMemoryAllocation);
  EXPECT_EQ(LaunchAnswer::error_of(FallbackReason::gpu_unsupported),
            cudaErrorNoKernelImageForDevice);
  // A shape refusal's error, passed on as a plain CUDA error (rung 18's answer, which
  // launch_with_fallbacks gives as one), is no refusal any more.
  const cudaError_t shape = LaunchAnswer::error_of(FallbackReason::shape_unsuitable);
  EXPECT_EQ(shape, cudaErrorNotSupported);
  EXPECT_EQ(LaunchAnswer(shape).reason(), std::nullopt);
}

TEST(LaunchAnswer, StopHandsNothingOn) {
  for (cudaError_t err : {cudaSuccess, cudaErrorMemoryAllocation, cudaErrorNoKernelImageForDevice,
                          cudaErrorInvalidDeviceFunction, cudaErrorInvalidValue}) {
    SCOPED_TRACE(cudaGetErrorName(err));
    const LaunchAnswer answer = LaunchAnswer::stop(err);
    EXPECT_EQ(answer.error(), err);
    EXPECT_EQ(answer.reason(), std::nullopt);
  }
}

// Rung 13 refuses K below 16 before any CUDA call: this runs without a GPU.
TEST(LaunchAnswer, TheRegistryKeepsARungsReason) {
  const RungInfo& rung13 = rung_info(RungId::mma_3xtf32);
  const Gemm shortK{64, 64, 8, 1.f, nullptr, 8, nullptr, 64, 0.f, nullptr, 64};
  EXPECT_EQ(answer(rung13, shortK, nullptr).reason(), FallbackReason::shape_unsuitable);
  EXPECT_EQ(rung13.launch(shortK, nullptr),
            LaunchAnswer::error_of(FallbackReason::shape_unsuitable));
  const RungInfo copy = rung13;  // not the registry's own: its launch(), a CUDA error
  EXPECT_EQ(answer(copy, shortK, nullptr).reason(), std::nullopt);
  EXPECT_EQ(answer(copy, shortK, nullptr).error(), cudaErrorNotSupported);
}

}  // namespace
}  // namespace sgemm::runtime

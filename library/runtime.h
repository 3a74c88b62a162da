// The library's runtime: what the rungs' launchers share and no rung teaches. Facts about each
// device, looked up once; the Hopper check; tensor maps; the shared-memory opt-in; and the
// workspace, one bounded memory pool per device for every rung and thread (sgemm.h has its
// public side: workspace_limit, set_workspace_limit, release_workspace). Host code, included
// by kernel files; runtime.cu implements what is not a template.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: libcuda is not linked)
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <optional>

#include "sgemm.h"  // FallbackReason

namespace sgemm::runtime {

constexpr int kMaxDevices = 64;  // devices beyond this are asked every time, never cached

// One-time setup (a device's facts, the shared-memory opt-in, the workspace's pool) is no part
// of what a CUDA graph replays, and may run while a stream is capturing one: in its scope this
// thread's capture mode is relaxed, so that a call capture would refuse as possibly
// synchronizing (cudaMemGetInfo) neither fails nor ends another thread's capture.
class RelaxedCapture {
 public:
  RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// A value per device, computed by the first call on that device that needs it. Threads that
// race compute it too and store the same value; a failed computation is not cached.
template <typename T>
class PerDevice {
 public:
  // *out = the current device's value; compute(device, &value) runs when it is not known yet.
  template <typename Compute>
  cudaError_t get(T* out, Compute compute) {
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    const bool cached = device < kMaxDevices;
    if (cached && known_[device].load()) {
      *out = values_[device].load();
      return cudaSuccess;
    }
    {
      RelaxedCapture relaxed;
      err = compute(device, out);
    }
    if (err == cudaSuccess && cached) {
      values_[device].store(*out);
      known_[device].store(true);  // after the value: a reader that sees true sees the value
    }
    return err;
  }

 private:
  std::atomic<T> values_[kMaxDevices] = {};
  std::atomic<bool> known_[kMaxDevices] = {};
};

// The current device's multiprocessors, and its compute capability as 10 * major + minor.
cudaError_t multiprocessors(int* count);
cudaError_t compute_capability(int* version);

// sm_90a code runs on compute capability 9.0 alone (H100, H200, GH200): cudaSuccess there,
// else cudaErrorNoKernelImageForDevice, before any call that would fail less clearly. A build
// without 90 among its architectures compiles the sm_90a kernels out (SGEMM_NO_SM90A, set by
// CMakeLists.txt for their files) and answers the same everywhere.
inline cudaError_t require_sm90() {
#ifdef SGEMM_NO_SM90A
  return cudaErrorNoKernelImageForDevice;
#else
  int version = 0;
  const cudaError_t err = compute_capability(&version);
  if (err != cudaSuccess) return err;
  return version == 90 ? cudaSuccess : cudaErrorNoKernelImageForDevice;
#endif
}

// How a launcher answers: a CUDA error (cudaSuccess when its work is queued), or "hand the
// problem on, for this reason" (sgemm.h: FallbackReason). The chain (dispatch.h) then runs the
// rung kernels/fallbacks.inc names for the reason, or ends with the answer's error() where it
// names none. The rung decides when; the table says what runs instead. A cudaError_t converts,
// so that `return err;` answers an error; a launcher refuses a problem with hand_on(reason), and
// no CUDA error stands for a refusal. Rungs 10 and 13 to 16 answer this type (the registry,
// library/registry.cpp, lists them); the others answer a cudaError_t, which the chain converts.
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

  // The error the caller gets where the chain ends with this answer: the CUDA error, or for a
  // refusal, error_of(its reason).
  cudaError_t error() const { return error_; }
  // Why the problem goes on down the chain, or nullopt: it ends here.
  std::optional<FallbackReason> reason() const { return reason_; }

  // A refusal's error, where no rung runs instead: the real failure's for workspace_short and
  // gpu_unsupported; cudaErrorNotSupported for shape_unsuitable (the library's launch() says
  // which rung cannot take the operands: library/api.cu).
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
};

// More than 48 KiB of dynamic shared memory is opt-in, per kernel and per device: done once.
template <auto kernel>
cudaError_t allow_shared_bytes(int bytes) {
  static PerDevice<bool> allowed;
  bool done = false;
  return allowed.get(&done, [bytes](int, bool* out) {
    *out = true;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  });
}

// A tensor map of the row-major rows x cols matrix at `base`, rows `ld` elements apart, read in
// boxes of boxRows x boxCols elements. Dimension 0 is the contiguous one. Elements of a box
// outside the matrix arrive as zeros. cudaErrorInvalidValue when TMA's rules refuse it (a base
// not 16-byte aligned, rows not a multiple of 16 bytes apart, a box over 256 a side).
cudaError_t make_tensor_map(CUtensorMap* map, const void* base, CUtensorMapDataType type,
                            long long rows, long long cols, long long ld, int boxRows, int boxCols,
                            CUtensorMapSwizzle swizzle);

// The workspace: memory a launch needs for its own intermediates (split operands, slices of
// K, packed copies), from the current device's pool, ordered on `stream`. The pool keeps what
// it holds for the next call, up to the limit (sgemm::workspace_limit). When the limit or the
// device cannot supply `bytes`, returns cudaErrorMemoryAllocation and leaves no CUDA error
// pending, so that the caller can take a path that needs less.
cudaError_t workspace_allocate(void** p, size_t bytes, cudaStream_t stream);
// Gives `bytes` at `p` back, once the work queued on `stream` before it is done.
cudaError_t workspace_free(void* p, size_t bytes, cudaStream_t stream);

// out = in^T: `in` is rows x cols (row-major, rows ld_in apart), `out` cols x rows (rows ld_out
// apart, ld_out >= rows; its padding is not written). A tiled transpose through shared memory,
// reads and writes coalesced, any alignment (library/transpose.cu). Queued on `stream`.
cudaError_t transpose(const float* in, int rows, int cols, int ld_in, float* out, int ld_out,
                      cudaStream_t stream);

// A typed allocation from the workspace that gives itself back (stream-ordered) when it goes
// out of scope, so that every return path of a launcher returns it.
template <typename T>
class Workspace {
 public:
  Workspace(size_t count, cudaStream_t stream) : bytes_(count * sizeof(T)), stream_(stream) {
    error_ = bytes_ ? workspace_allocate(reinterpret_cast<void**>(&data_), bytes_, stream)
                    : cudaSuccess;  // nothing needed
    if (error_ != cudaSuccess) data_ = nullptr;
  }
  ~Workspace() {
    if (data_) workspace_free(data_, bytes_, stream_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  T* get() const { return data_; }
  cudaError_t error() const { return error_; }  // cudaErrorMemoryAllocation: none to be had

 private:
  T* data_ = nullptr;
  size_t bytes_;
  cudaStream_t stream_;
  cudaError_t error_;
};

}  // namespace sgemm::runtime

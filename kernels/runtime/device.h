// The kernels' runtime, device facts: what a launcher asks of the device it runs on, looked up
// once per device (PerDevice): its multiprocessors, its compute capability, the Hopper check,
// the shared-memory opt-in. device.cu implements what is not a template.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

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
// Its shared memory: the most one block may opt in to, and an SM's whole (blocks an SM holds:
// the SM's bytes over each block's bytes plus kReservedSharedBytes).
cudaError_t shared_bytes_per_block(int* bytes);
cudaError_t shared_bytes_per_sm(int* bytes);
constexpr int kReservedSharedBytes = 1024;  // what the system takes of each block's, from 8.0 on

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

template <auto kernel>
cudaError_t allow_shared_bytes(int bytes) {
  static PerDevice<bool> allowed;
  bool done = false;
  return allowed.get(&done, [bytes](int, bool* out) {
    *out = true;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  });
}

}  // namespace sgemm::runtime

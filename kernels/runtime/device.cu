// The kernels' runtime, device facts (device.h).
#include "runtime/device.h"

namespace sgemm::runtime {

cudaError_t multiprocessors(int* count) {
  static PerDevice<int> known;
  return known.get(count, [](int device, int* out) {
    return cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device);
  });
}

cudaError_t compute_capability(int* version) {
  static PerDevice<int> known;
  return known.get(version, [](int device, int* out) {
    int major = 0, minor = 0;
    cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err == cudaSuccess)
      err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    *out = 10 * major + minor;
    return err;
  });
}

cudaError_t shared_bytes_per_block(int* bytes) {
  static PerDevice<int> known;
  return known.get(bytes, [](int device, int* out) {
    return cudaDeviceGetAttribute(out, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  });
}

cudaError_t shared_bytes_per_sm(int* bytes) {
  static PerDevice<int> known;
  return known.get(bytes, [](int device, int* out) {
    return cudaDeviceGetAttribute(out, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  });
}

}  // namespace sgemm::runtime

// The kernels' runtime, device facts (device.h).
#include "runtime/device.h"

namespace sgemm::runtime {
namespace {

// One of the device's attributes, asked once per device.
template <cudaDeviceAttr kAttribute>
cudaError_t cached_attribute(int* value) {
  static PerDevice<int> known;
  return known.get(
      value, [](int device, int* out) { return cudaDeviceGetAttribute(out, kAttribute, device); });
}

}  // namespace

cudaError_t multiprocessors(int* count) {
  return cached_attribute<cudaDevAttrMultiProcessorCount>(count);
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
  return cached_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(bytes);
}

cudaError_t shared_bytes_per_sm(int* bytes) {
  return cached_attribute<cudaDevAttrMaxSharedMemoryPerMultiprocessor>(bytes);
}

}  // namespace sgemm::runtime

// The kernels' runtime, the workspace (workspace.h), and its public side (sgemm/sgemm.h).
#include <cuda.h>  // cuuint64_t (the pool's release threshold)
#include <cuda_runtime.h>

#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>

#include "runtime/device.h"  // kMaxDevices, RelaxedCapture
#include "runtime/workspace.h"
#include "sgemm/sgemm.h"

namespace sgemm::runtime {

namespace {

// SGEMM_WORKSPACE_LIMIT: bytes, or a number with a K, M or G suffix (powers of 1024); 0 when
// unset or unreadable (then the default stands).
size_t environment_limit() {
  static const size_t limit = [] {
    const char* text = std::getenv("SGEMM_WORKSPACE_LIMIT");
    if (text == nullptr || *text == '\0') return size_t{0};
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(*end)));
    const double scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1 << 20 : unit == 'G' ? 1 << 30 : 1;
    if (value < 0 || (unit != '\0' && scale == 1) || (unit != '\0' && end[1] != '\0'))
      return size_t{0};
    return static_cast<size_t>(value * scale);
  }();
  return limit;
}

std::atomic<size_t> set_limit{0};  // sgemm::set_workspace_limit; 0: not set

// One device's pool and what the library's calls hold of it now.
struct Pool {
  std::mutex lock;
  cudaMemPool_t pool = nullptr;
  size_t in_use = 0;
  size_t device_bytes = 0;
};
Pool pools[kMaxDevices];

size_t limit_of(const Pool& p) {
  if (size_t limit = set_limit.load()) return limit;
  if (size_t limit = environment_limit()) return limit;
  return p.device_bytes / 4;  // the default: a quarter of the device's memory
}

// The pool keeps what it holds up to the limit; above it, memory goes back at the next
// synchronization.
cudaError_t apply_limit(Pool& p) {
  cuuint64_t keep = limit_of(p);
  return cudaMemPoolSetAttribute(p.pool, cudaMemPoolAttrReleaseThreshold, &keep);
}

// The current device's Pool, its pool created on first use. Call with nothing locked.
cudaError_t current_pool(Pool** out, int* device_out = nullptr) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device >= kMaxDevices) return cudaErrorInvalidDevice;
  Pool& p = pools[device];
  std::lock_guard<std::mutex> hold(p.lock);
  if (p.pool == nullptr) {
    RelaxedCapture relaxed;  // (device.h)
    size_t free_bytes = 0;
    err = cudaMemGetInfo(&free_bytes, &p.device_bytes);
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if (err == cudaSuccess) err = cudaMemPoolCreate(&p.pool, &props);
    if (err == cudaSuccess) err = apply_limit(p);
    if (err != cudaSuccess && p.pool != nullptr) {  // no half-made pool stays behind
      cudaMemPoolDestroy(p.pool);
      p.pool = nullptr;
    }
    if (err != cudaSuccess) return err;
  }
  *out = &p;
  if (device_out) *device_out = device;
  return cudaSuccess;
}

}  // namespace

cudaError_t workspace_allocate(void** p, size_t bytes, cudaStream_t stream) {
  *p = nullptr;
  Pool* pool = nullptr;
  cudaError_t err = current_pool(&pool);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> hold(pool->lock);
  if (pool->in_use + bytes > limit_of(*pool)) return cudaErrorMemoryAllocation;
  err = cudaMallocFromPoolAsync(p, bytes, pool->pool, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();  // answered here: the next call of the library or the user starts clean
    *p = nullptr;
    return err;
  }
  pool->in_use += bytes;
  return cudaSuccess;
}

cudaError_t workspace_free(void* p, size_t bytes, cudaStream_t stream) {
  Pool* pool = nullptr;
  cudaError_t err = current_pool(&pool);
  if (err != cudaSuccess) return err;
  err = cudaFreeAsync(p, stream);
  std::lock_guard<std::mutex> hold(pool->lock);
  pool->in_use -= bytes;
  return err;
}

}  // namespace sgemm::runtime

namespace sgemm {

size_t workspace_limit() {
  runtime::Pool* pool = nullptr;
  if (runtime::current_pool(&pool) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  std::lock_guard<std::mutex> hold(pool->lock);
  return runtime::limit_of(*pool);
}

void set_workspace_limit(size_t bytes) {
  runtime::set_limit.store(bytes);
  for (runtime::Pool& p : runtime::pools) {
    std::lock_guard<std::mutex> hold(p.lock);
    if (p.pool) runtime::apply_limit(p);
  }
}

size_t workspace_held() {
  runtime::Pool* pool = nullptr;
  cuuint64_t held = 0;
  if (runtime::current_pool(&pool) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool->pool, cudaMemPoolAttrReservedMemCurrent, &held) !=
          cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return held;
}

Status release_workspace(std::string* why) {
  int current = 0;
  cudaError_t err = cudaGetDevice(&current);
  for (int device = 0; err == cudaSuccess && device < runtime::kMaxDevices; ++device) {
    runtime::Pool& p = runtime::pools[device];
    std::lock_guard<std::mutex> hold(p.lock);
    if (p.pool == nullptr) continue;
    // Memory freed on a stream is the pool's again once that stream's work is done.
    err = cudaSetDevice(device);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaMemPoolTrimTo(p.pool, 0);
  }
  const cudaError_t restored = cudaSetDevice(current);
  if (err == cudaSuccess) err = restored;
  if (err == cudaSuccess) return Status::ok;
  cudaGetLastError();
  if (why) *why = std::string("releasing the workspace failed: ") + cudaGetErrorString(err);
  return Status::cuda_error;
}

}  // namespace sgemm

// The kernels' runtime, the side stream (side_stream.h).
#include "runtime/device.h"  // kMaxDevices, RelaxedCapture
#include "runtime/side_stream.h"

namespace sgemm::runtime {
namespace {

struct Side {
  cudaStream_t stream = nullptr;
  cudaEvent_t forked = nullptr, joined = nullptr;
};

thread_local Side t_sides[kMaxDevices];

// This thread's side stream of the current device, made on first use; null past kMaxDevices.
cudaError_t current_side(Side** out) {
  *out = nullptr;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess || device >= kMaxDevices) return err;
  Side& side = t_sides[device];
  if (!side.stream) {
    RelaxedCapture relaxed;  // setup, no part of a graph a caller may be capturing
    Side made;
    err = cudaStreamCreateWithFlags(&made.stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&made.forked, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventCreateWithFlags(&made.joined, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      if (made.joined) cudaEventDestroy(made.joined);
      if (made.forked) cudaEventDestroy(made.forked);
      if (made.stream) cudaStreamDestroy(made.stream);
      return err;
    }
    side = made;
  }
  *out = &side;
  return cudaSuccess;
}

}  // namespace

cudaError_t fork(cudaStream_t from, cudaStream_t* side) {
  *side = nullptr;
  Side* s = nullptr;
  cudaError_t err = current_side(&s);
  if (err != cudaSuccess || !s) return err;
  err = cudaEventRecord(s->forked, from);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(s->stream, s->forked, 0);
  if (err == cudaSuccess) *side = s->stream;
  return err;
}

cudaError_t join(cudaStream_t to, cudaStream_t side) {
  Side* s = nullptr;
  cudaError_t err = current_side(&s);
  if (err != cudaSuccess) return err;
  if (!s || s->stream != side) return cudaErrorInvalidValue;  // not this thread's fork
  err = cudaEventRecord(s->joined, side);
  return err == cudaSuccess ? cudaStreamWaitEvent(to, s->joined, 0) : err;
}

}  // namespace sgemm::runtime

// The kernels' runtime, the workspace: one bounded, stream-ordered memory pool per device for
// every rung and thread (sgemm/sgemm.h has its public side: workspace_limit,
// set_workspace_limit, release_workspace). workspace.cu implements it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace sgemm::runtime {

// The workspace: memory a launch needs for its own intermediates (split operands, slices of
// K, packed copies), from the current device's pool, ordered on `stream`. The pool keeps what
// it holds for the next call, up to the limit (sgemm::workspace_limit). When the limit or the
// device cannot supply `bytes`, returns cudaErrorMemoryAllocation and leaves no CUDA error
// pending, so that the caller can take a path that needs less.
cudaError_t workspace_allocate(void** p, size_t bytes, cudaStream_t stream);
// Gives `bytes` at `p` back, once the work queued on `stream` before it is done.
cudaError_t workspace_free(void* p, size_t bytes, cudaStream_t stream);

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

// The kernels' runtime, a second stream for work that may run beside the caller's (rung 13's
// flag pass beside its product). One per thread and device, made on first use (non-blocking)
// and kept for the thread's life: per thread, so that a graph one thread captures never takes
// in another thread's work. fork and join order it with the caller's stream through two events;
// under capture they bring it into the caller's graph and back out.
#pragma once

#include <cuda_runtime.h>

namespace sgemm::runtime {

// Work queued on *side after this call runs after what `from` holds now. *side is null where no
// side stream can be had (a device past kMaxDevices): the caller then runs its work on `from`.
cudaError_t fork(cudaStream_t from, cudaStream_t* side);

// What `to` runs after this call waits for what `side` (fork's) holds now.
cudaError_t join(cudaStream_t to, cudaStream_t side);

}  // namespace sgemm::runtime

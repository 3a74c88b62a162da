// The registry: every rung of the one list (kernels/ladder.inc) with its launcher, and what runs
// when one cannot (kernels/fallbacks.inc), as the library, the front doors and the tests read
// them. The public side is in sgemm/sgemm.h (rungs(), find_rung(), fallbacks()); this is the
// library's own: a rung by its typed handle, and its launcher's answer as it gave it.
#pragma once

#include <cuda_runtime_api.h>

#include "rung_id.h"
#include "runtime/launch_answer.h"
#include "sgemm/sgemm.h"

namespace sgemm {

// The registry's entry of the rung: its launcher, precision, summary.
const RungInfo& rung_info(RungId id);

}  // namespace sgemm

namespace sgemm::runtime {

// `rung`'s launcher on `problem`, its answer as it gave it. A RungInfo that is not the
// registry's own (a copy) answers through its `launch`, a CUDA error.
LaunchAnswer answer(const RungInfo& rung, const Gemm& problem, cudaStream_t stream);

}  // namespace sgemm::runtime

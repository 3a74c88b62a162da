// Every rung's launcher, declared once from the one list (ladder.inc), with the one signature
// they all share: it queues the rung's kernels for `gemm` (arguments the library has checked:
// sgemm/sgemm.h, check_arguments) on `stream` and answers a runtime::LaunchAnswer: a CUDA error,
// a reason to hand the problem on down the fallback chain (fallbacks.inc), or another rung to run
// it (rung 18's choice). Each kernel file includes this header, so that a definition whose
// signature drifts from this one does not compile; the library's registry reads the same list.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime/launch_answer.h"  // LaunchAnswer
#include "sgemm/sgemm.h"            // Gemm: the problem, as every rung's launcher takes it

#define RUNG(number, name, parent, precision, summary)                 \
  namespace sgemm::name {                                              \
  runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream); \
  }
#include "ladder.inc"
#undef RUNG

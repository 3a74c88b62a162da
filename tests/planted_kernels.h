// The launchers tests/planted_kernels.cu builds: the real rungs' files, each in a namespace of
// its own with a bug planted (or a choice forced), answering as the real launchers do
// (library/registry.cpp). One list, read by the tests and by planted_kernels.cu itself, so that
// a declaration that drifts from its definition does not compile.
#pragma once
#include <cuda_runtime.h>

#include "runtime.h"
#include "sgemm.h"

#define SGEMM_PLANTED_LAUNCHER(rung)                                   \
  namespace sgemm::rung {                                              \
  runtime::LaunchAnswer launch(const Gemm& gemm, cudaStream_t stream); \
  }
SGEMM_PLANTED_LAUNCHER(mma_3xtf32_planted)          // rung 13 without the small products
SGEMM_PLANTED_LAUNCHER(wgmma_3xtf32_planted)        // rung 14, the same
SGEMM_PLANTED_LAUNCHER(every_shape_3xtf32_planted)  // rung 15, the same
SGEMM_PLANTED_LAUNCHER(ozaki_int8_planted)          // rung 16, 11 bits fewer a row
SGEMM_PLANTED_LAUNCHER(ozaki_int8_span_rule)        // rung 16, the span rule planted
SGEMM_PLANTED_LAUNCHER(ozaki_int8_half_bound)       // rung 16, the bound plane at half depth always
#undef SGEMM_PLANTED_LAUNCHER

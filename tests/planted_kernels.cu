// Rungs 13, 14 and 15 with their small products left out (SGEMM_PLANT_NO_SMALL_PRODUCTS): 3xTF32
// kernels that compute at TF32 accuracy, and rung 16 with coarse integers, which the FP32
// checks must fail
// (gpu_planted_test.cpp). Each file lands in a namespace of its own, `<name>_planted`, beside
// the library's real rung. Built for sm_90a (rung 14 is Hopper-only code).
#define SGEMM_PLANT_NO_SMALL_PRODUCTS
#define mma_3xtf32 mma_3xtf32_planted
#include "13_mma_3xtf32.cu"
#undef mma_3xtf32
#define wgmma_3xtf32 wgmma_3xtf32_planted
#include "14_wgmma_3xtf32.cu"
#undef wgmma_3xtf32
#define every_shape_3xtf32 every_shape_3xtf32_planted
#include "15_every_shape_3xtf32.cu"
#undef every_shape_3xtf32
// Rung 16 with 11 bits fewer in each scaled integer (SGEMM_PLANT_COARSE_SCALE): the Ozaki
// scheme with too few bits, about 2^11 times rung 16's error. Without its certificate
// (SGEMM_PLANT_SPAN_RULE, below), which would send every such element to the slow path.
#define SGEMM_PLANT_COARSE_SCALE
#define SGEMM_PLANT_SPAN_RULE
#define ozaki_int8 ozaki_int8_planted
#include "16_ozaki_int8.cu"
#undef ozaki_int8
#undef SGEMM_PLANT_COARSE_SCALE
// Rung 16 with the rule it had before its certificate (SGEMM_PLANT_SPAN_RULE): only lines that
// span more than 2^24 leave the integer path; the error is then bounded relative to the
// lines' norms, not to each element's sum_k |a||b|. The inputs checks must fail it.
#define ozaki_int8 ozaki_int8_span_rule
#include "16_ozaki_int8.cu"
#undef ozaki_int8
#undef SGEMM_PLANT_SPAN_RULE
// Rung 16 with its bound plane over every other k-tile on every input (SGEMM_FORCE_HALF_BOUND),
// not only where the sample leaves room: a lower bound still, so the certificate stays sound and
// the checks must pass it on every input (what it no longer certifies goes to the slow path).
#define SGEMM_FORCE_HALF_BOUND
#define ozaki_int8 ozaki_int8_half_bound
#include "16_ozaki_int8.cu"
#undef ozaki_int8
#undef SGEMM_FORCE_HALF_BOUND

#include "planted_kernels.h"  // the declarations the tests use, checked against the above

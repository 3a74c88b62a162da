// Rungs 13, 14 and 15 with their small products left out (SGEMM_PLANT_NO_SMALL_PRODUCTS): 3xTF32
// kernels that compute at TF32 accuracy, which the FP32 checks must fail
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

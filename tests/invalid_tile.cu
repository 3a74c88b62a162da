// Compiled by the test tile.invalid_config_rejected, which expects it NOT to compile: a
// micro-tile 6 columns wide cannot be read as whole float4s, and Tile<> must say so.
#define SGEMM_AUTOTUNE_CANDIDATES
#include "07_autotuned.cu"

template cudaError_t sgemm::autotuned::launch_tile<128, 96, 16, 8, 6>(int, int, int, float,
                                                                      const float*, int,
                                                                      const float*, int, float,
                                                                      float*, int, cudaStream_t);
